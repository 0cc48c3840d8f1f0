//! Charts as plain 2-D shapes and text: bar charts, histograms and line plots with axes, "nice"
//! ticks, grid lines, axis labels, a dashed reference line and a legend. The renderer only sees
//! rectangles, lines and text.

use crate::frame::font::{ascent_descent, text_width};
use crate::frame::{Align, Dash, Shape2d, Text2d};
use crate::portable;
use crate::scene::figure::{ChartKind, ChartSpec};
use crate::scene::values::Srgb;

pub struct Style {
    /// Text and axis colour (linear RGB).
    pub text: [f32; 3],
    /// Tick label size, canvas units.
    pub size: f32,
}

/// What a chart draws.
pub struct Plot {
    pub shapes: Vec<Shape2d>,
    pub texts: Vec<Text2d>,
    /// Where the legend stands (min and max corners), when there is one.
    pub legend: Option<([f32; 2], [f32; 2])>,
}

/// Series colours (sRGB hex) in order: a palette that stays distinct for colour-blind readers.
pub const PALETTE: [Srgb; 6] =
    [Srgb::hex("#4e79a7"), Srgb::hex("#f28e2b"), Srgb::hex("#59a14f"), Srgb::hex("#e15759"), Srgb::hex("#b07aa1"), Srgb::hex("#76b7b2")];
const REFERENCE: Srgb = Srgb::hex("#c0392b");

/// An opaque colour in linear RGBA, as shapes take it.
fn opaque(c: Srgb) -> [f32; 4] {
    let l = c.to_linear();
    [l[0], l[1], l[2], 1.0]
}

/// A step of 1, 2 or 5 × 10ⁿ giving about `count` intervals over `span`.
pub fn nice_step(span: f64, count: f64) -> f64 {
    let raw = (span / count).max(1e-12);
    let mag = portable::powf(10f64, portable::log10(raw).floor());
    let f = raw / mag;
    mag * if f < 1.5 {
        1.0
    } else if f < 3.5 {
        2.0
    } else if f < 7.5 {
        5.0
    } else {
        10.0
    }
}

/// A tick value printed with as many decimals as the step needs.
pub fn tick_text(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 { 0 } else { (-portable::log10(step)).ceil() as usize };
    let s = format!("{v:.decimals$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') { s[1..].to_string() } else { s }
}

/// An axis from `lo` to `hi` (extended to whole steps) mapped onto `a`..`b` on the canvas.
struct Axis {
    lo: f64,
    hi: f64,
    step: f64,
    a: f32,
    b: f32,
}

impl Axis {
    fn new(lo: f64, hi: f64, a: f32, b: f32, ticks: f64) -> Self {
        let (lo, hi) = if hi - lo < 1e-12 { (lo - 0.5, hi + 0.5) } else { (lo, hi) };
        let step = nice_step(hi - lo, ticks);
        Axis { lo: (lo / step + 1e-9).floor() * step, hi: (hi / step - 1e-9).ceil() * step, step, a, b }
    }

    fn at(&self, v: f64) -> f32 {
        self.a + (self.b - self.a) * ((v - self.lo) / (self.hi - self.lo)) as f32
    }

    fn ticks(&self) -> impl Iterator<Item = f64> + '_ {
        let n = ((self.hi - self.lo) / self.step).round() as i64;
        (0..=n).map(move |i| self.lo + i as f64 * self.step)
    }
}

/// Counts of `values` in `bins` equal bins over their range: (range, counts).
pub fn histogram(values: &[f64], bins: usize) -> ((f64, f64), Vec<f64>) {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        return ((0.0, 1.0), vec![0.0; bins]);
    }
    let hi = if hi > lo { hi } else { lo + 1.0 };
    let mut counts = vec![0.0; bins];
    for v in values {
        let i = (((v - lo) / (hi - lo)) * bins as f64).floor() as usize;
        counts[i.min(bins - 1)] += 1.0;
    }
    ((lo, hi), counts)
}

/// The y range a chart needs: zero up for counts (and for lines that stay positive), the data's
/// span otherwise, the reference line included.
fn y_range(chart: &ChartSpec, heights: &[&[f64]]) -> (f64, f64) {
    let all = || heights.iter().flat_map(|v| v.iter().copied()).chain(chart.reference.as_ref().map(|r| r.value));
    let (mut lo, hi) = (all().fold(f64::INFINITY, f64::min), all().fold(f64::NEG_INFINITY, f64::max));
    if chart.kind != ChartKind::Line || lo > 0.0 {
        lo = lo.min(0.0);
    }
    if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) }
}

/// A chart being drawn: where its plot area is, its y axis, and what it has drawn so far.
struct Painter<'c> {
    chart: &'c ChartSpec,
    plot: Plot,
    /// Text size, ink colour, and the text's ascent.
    size: f32,
    ink: [f32; 4],
    ascent: f32,
    left: f32,
    right: f32,
    top: f32,
    bottom: f32,
    y: Axis,
    /// Width of the widest y tick label.
    tick_w: f32,
}

impl Painter<'_> {
    fn text(&mut self, at: [f32; 2], align: Align, text: String) {
        self.plot.texts.push(Text2d { at, size: self.size, align, color: self.ink, text });
    }

    /// Baseline of the labels under the x axis.
    fn below(&self) -> f32 {
        self.bottom + self.size * 0.4 + self.ascent
    }

    fn colour(&self, i: usize) -> [f32; 4] {
        opaque(self.chart.series[i].color.unwrap_or(PALETTE[i % PALETTE.len()]))
    }

    /// Grid lines and labels of the y axis, and the axis labels.
    fn y_axis(&mut self, rect: [f32; 4], pad: f32) {
        let tick_w = self.tick_w;
        let grid = [self.ink[0], self.ink[1], self.ink[2], 0.15];
        let ticks: Vec<f64> = self.y.ticks().collect();
        for v in ticks {
            let at = self.y.at(v);
            self.plot.shapes.push(Shape2d::Line {
                a: [self.left, at],
                b: [self.right, at],
                width: 1.0,
                color_a: grid,
                color_b: grid,
                dash: None,
            });
            self.text([self.left - self.size * 0.4, at + self.ascent * 0.4], Align::Right, tick_text(v, self.y.step));
        }
        if !self.chart.y_label.is_empty() {
            self.text([self.left - tick_w - self.size * 0.4, rect[1] + pad + self.ascent], Align::Left, self.chart.y_label.clone());
        }
        if !self.chart.x_label.is_empty() {
            self.text([(self.left + self.right) / 2.0, rect[1] + rect[3] - pad], Align::Center, self.chart.x_label.clone());
        }
    }

    /// Histogram bins side by side over the data's range (series next to each other within a
    /// bin); x ticks at round values.
    fn histogram(&mut self, h: &[((f64, f64), Vec<f64>)]) {
        let n = h.len();
        let (lo, hi) = h.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), ((l, u), _)| (a.min(*l), b.max(*u)));
        let x = Axis { lo, hi, step: nice_step(hi - lo, 6.0), a: self.left, b: self.right };
        for (i, ((l, u), counts)) in h.iter().enumerate() {
            let w = (u - l) / counts.len() as f64;
            for (b, c) in counts.iter().enumerate() {
                let (x0, x1) = (x.at(l + b as f64 * w), x.at(l + (b + 1) as f64 * w));
                let inset = (x1 - x0) * 0.06;
                let span = x1 - x0 - 2.0 * inset;
                let (xa, xb) = (x0 + inset + span * i as f32 / n as f32, x0 + inset + span * (i + 1) as f32 / n as f32);
                let color = self.colour(i);
                self.plot.shapes.push(Shape2d::Rect {
                    min: [xa, self.y.at(*c)],
                    max: [xb, self.y.at(0.0)],
                    radius: 0.0,
                    border: 0.0,
                    color,
                });
            }
        }
        let (first, last) = ((lo / x.step).ceil() as i64, (hi / x.step + 1e-9).floor() as i64);
        for k in first..=last {
            let v = k as f64 * x.step;
            self.text([x.at(v), self.below()], Align::Center, tick_text(v, x.step));
        }
    }

    /// One group of bars per category, a bar per series in it, named underneath.
    fn bars(&mut self) {
        let chart = self.chart;
        let n = chart.series.len().max(1);
        let count = chart.series.iter().map(|x| x.values.len()).max().unwrap_or(0).max(1);
        let slot = (self.right - self.left) / count as f32;
        for c in 0..count {
            let x0 = self.left + slot * (c as f32 + 0.15);
            let bw = slot * 0.7 / n as f32;
            for (i, ser) in chart.series.iter().enumerate() {
                if let Some(&v) = ser.values.get(c) {
                    let (ya, yb) = (self.y.at(v).min(self.y.at(0.0)), self.y.at(v).max(self.y.at(0.0)));
                    let xa = x0 + bw * i as f32;
                    let color = self.colour(i);
                    self.plot.shapes.push(Shape2d::Rect { min: [xa, ya], max: [xa + bw, yb], radius: 0.0, border: 0.0, color });
                }
            }
            let name = chart.categories.get(c).cloned().unwrap_or_else(|| (c + 1).to_string());
            self.text([self.left + slot * (c as f32 + 0.5), self.below()], Align::Center, name);
        }
    }

    /// Each series a polyline over its `x` (or its index).
    fn lines(&mut self) {
        let chart = self.chart;
        let xs = |ser: &crate::scene::figure::Series| -> Vec<f64> {
            ser.x.clone().unwrap_or_else(|| (0..ser.values.len()).map(|i| i as f64).collect())
        };
        let all_x: Vec<f64> = chart.series.iter().flat_map(xs).collect();
        let (xlo, xhi) = (all_x.iter().copied().fold(f64::INFINITY, f64::min), all_x.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        let (xlo, xhi) = if xlo.is_finite() { (xlo, xhi) } else { (0.0, 1.0) };
        let x = Axis::new(xlo, xhi, self.left, self.right, 6.0);
        for v in x.ticks() {
            self.text([x.at(v), self.below()], Align::Center, tick_text(v, x.step));
        }
        for (i, ser) in chart.series.iter().enumerate() {
            let pts: Vec<[f32; 2]> = xs(ser).iter().zip(&ser.values).map(|(a, b)| [x.at(*a), self.y.at(*b)]).collect();
            let c = self.colour(i);
            for w in pts.windows(2) {
                self.plot.shapes.push(Shape2d::Line { a: w[0], b: w[1], width: 2.5, color_a: c, color_b: c, dash: None });
            }
        }
    }

    /// The dashed reference line.
    fn reference(&mut self) {
        let (s, chart) = (self.size, self.chart);
        if let Some(r) = &chart.reference {
            let c = opaque(REFERENCE);
            let at = self.y.at(r.value);
            let dash = Some(Dash { on: s * 0.6, off: s * 0.4, phase: 0.0 });
            self.plot.shapes.push(Shape2d::Line { a: [self.left, at], b: [self.right, at], width: 2.0, color_a: c, color_b: c, dash });
        }
    }

    /// Draws the legend as a column on a light box whose top-left corner is `at`.
    fn legend_box(&mut self, entries: Vec<Entry>, at: [f32; 2], size: [f32; 2]) {
        let s = self.size;
        self.plot.shapes.push(Shape2d::Rect {
            min: at,
            max: [at[0] + size[0], at[1] + size[1]],
            radius: s * 0.3,
            border: 0.0,
            color: [1.0, 1.0, 1.0, 0.85],
        });
        for (k, e) in entries.into_iter().enumerate() {
            self.entry(e, [at[0] + s * 0.5, at[1] + (k as f32 + 1.0) * s * ROW]);
        }
    }

    /// One legend entry, its swatch starting at `at` (x, and the text's baseline).
    fn entry(&mut self, e: Entry, at: [f32; 2]) {
        let s = self.size;
        let mid = at[1] - self.ascent * 0.35;
        let c = e.color;
        self.plot.shapes.push(if e.line {
            Shape2d::Line { a: [at[0], mid], b: [at[0] + s * 1.2, mid], width: 2.0, color_a: c, color_b: c, dash: None }
        } else {
            Shape2d::Rect { min: [at[0], mid - s * 0.4], max: [at[0] + s * 1.2, mid + s * 0.4], radius: 2.0, border: 0.0, color: c }
        });
        self.text([at[0] + s * 1.6, at[1]], Align::Left, e.label);
    }
}

/// Legend rows are this many text sizes apart.
const ROW: f32 = 1.35;

/// One line of a legend: the reference line or a series.
#[derive(Clone)]
struct Entry {
    label: String,
    color: [f32; 4],
    /// Drawn as a line (the reference) rather than a swatch (a series).
    line: bool,
}

/// What the legend names: the reference line, when labelled, and the series, when there are
/// several or any has a label.
fn legend_entries(chart: &ChartSpec, colour: impl Fn(usize) -> [f32; 4]) -> Vec<Entry> {
    let mut legend = Vec::new();
    if let Some(r) = chart.reference.as_ref().filter(|r| !r.label.is_empty()) {
        let label = format!("{} {}", r.label, tick_text(r.value, nice_step(r.value.abs().max(1e-9), 100.0)));
        legend.push(Entry { label, color: opaque(REFERENCE), line: true });
    }
    if chart.series.len() > 1 || chart.series.iter().any(|x| !x.label.is_empty()) {
        let named = chart.series.iter().enumerate().filter(|(_, x)| !x.label.is_empty());
        legend.extend(named.map(|(i, x)| Entry { label: x.label.clone(), color: colour(i), line: false }));
    }
    legend
}

/// Whether a drawn shape comes within `margin` of the rectangle `min`..`max`.
fn touches(shape: &Shape2d, min: [f32; 2], max: [f32; 2], margin: f32) -> bool {
    match *shape {
        Shape2d::Line { a, b, width, .. } => {
            let m = margin + width / 2.0;
            segment_meets_box(a, b, [min[0] - m, min[1] - m], [max[0] + m, max[1] + m])
        }
        Shape2d::Rect { min: p, max: q, .. } => {
            p[0] < max[0] + margin && q[0] > min[0] - margin && p[1] < max[1] + margin && q[1] > min[1] - margin
        }
        Shape2d::Circle { center: c, radius: r, .. } | Shape2d::Arc { center: c, radius: r, .. } => {
            let m = margin + r;
            (min[0] - m..=max[0] + m).contains(&c[0]) && (min[1] - m..=max[1] + m).contains(&c[1])
        }
    }
}

/// Whether the segment `a`–`b` meets the box `min`..`max` (Liang–Barsky clipping).
fn segment_meets_box(a: [f32; 2], b: [f32; 2], min: [f32; 2], max: [f32; 2]) -> bool {
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for k in 0..2 {
        let d = b[k] - a[k];
        for (p, q) in [(-d, a[k] - min[k]), (d, max[k] - a[k])] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
            }
        }
    }
    t0 <= t1
}

/// The plot's area and axes for `chart` in `rect`, with `reserve` canvas units kept free above
/// the plot (for a legend outside it).
fn painter<'c>(chart: &'c ChartSpec, rect: [f32; 4], style: &Style, heights: &[&[f64]], reserve: f32) -> Painter<'c> {
    let s = style.size;
    let (ascent, _) = ascent_descent(s);
    let (ylo, yhi) = y_range(chart, heights);
    // room left of the plot for the widest tick label
    let probe = Axis::new(ylo, yhi, 0.0, 1.0, 5.0);
    let tick_w = probe.ticks().map(|v| text_width(&tick_text(v, probe.step), s)).fold(0.0, f32::max);
    let pad = s * 0.8;
    let (left, right) = (rect[0] + pad + tick_w + s * 0.5, rect[0] + rect[2] - pad);
    let top = rect[1] + pad + if chart.y_label.is_empty() { ascent * 0.5 } else { s * 1.6 } + reserve;
    let bottom = rect[1] + rect[3] - pad - s * 1.5 - if chart.x_label.is_empty() { 0.0 } else { s * 1.5 };
    Painter {
        chart,
        plot: Plot { shapes: Vec::new(), texts: Vec::new(), legend: None },
        size: s,
        ink: [style.text[0], style.text[1], style.text[2], 1.0],
        ascent,
        left,
        right,
        top,
        bottom,
        y: Axis::new(ylo, yhi, bottom, top.min(bottom - s), 5.0),
        tick_w,
    }
}

/// How wide a legend entry is in a row: swatch, gap, label and the space to the next.
fn entry_width(e: &Entry, size: f32) -> f32 {
    size * 2.6 + text_width(&e.label, size)
}

/// The legend's rows when it stands above the plot: entries side by side, wrapped to the plot's
/// width.
fn legend_rows(entries: &[Entry], size: f32, width: f32) -> Vec<Vec<Entry>> {
    let mut rows: Vec<Vec<Entry>> = vec![Vec::new()];
    let mut used = 0.0;
    for e in entries {
        let w = entry_width(e, size);
        if used + w > width && rows.last().is_some_and(|r| !r.is_empty()) {
            rows.push(Vec::new());
            used = 0.0;
        }
        rows.last_mut().expect("a row").push(e.clone());
        used += w;
    }
    rows
}

/// Draws `chart` into the canvas rectangle `rect`. The legend goes in the first corner of the plot
/// (top right, top left, bottom right, bottom left) where it covers no data; when every corner
/// would, it stands in rows above the plot, which shrinks to make room.
pub fn draw(chart: &ChartSpec, rect: [f32; 4], style: &Style) -> Plot {
    let s = style.size;
    let hist =
        (chart.kind == ChartKind::Histogram).then(|| chart.series.iter().map(|x| histogram(&x.values, chart.bins)).collect::<Vec<_>>());
    let heights: Vec<&[f64]> = match &hist {
        Some(h) => h.iter().map(|(_, c)| c.as_slice()).collect(),
        None => chart.series.iter().map(|x| x.values.as_slice()).collect(),
    };
    let paint = |reserve: f32| {
        let mut p = painter(chart, rect, style, &heights, reserve);
        p.y_axis(rect, s * 0.8);
        let first = p.plot.shapes.len();
        match (&hist, chart.kind) {
            (Some(h), _) => p.histogram(h),
            (None, ChartKind::Bar) => p.bars(),
            (None, _) => p.lines(),
        }
        p.reference();
        let data = first..p.plot.shapes.len();
        // the axes over the bars
        let ink = p.ink;
        let axis = |a, b| Shape2d::Line { a, b, width: 1.5, color_a: ink, color_b: ink, dash: None };
        let zero = p.y.at(0.0f64.clamp(p.y.lo, p.y.hi));
        p.plot.shapes.push(axis([p.left, zero], [p.right, zero]));
        p.plot.shapes.push(axis([p.left, p.bottom], [p.left, p.top]));
        (p, data)
    };
    let (mut p, data) = paint(0.0);
    let entries = legend_entries(chart, |i| p.colour(i));
    if entries.is_empty() {
        return p.plot;
    }
    let widest = entries.iter().map(|e| text_width(&e.label, s)).fold(0.0, f32::max);
    let size = [widest + s * 2.3, (entries.len() as f32 + 0.45) * s * ROW];
    let inset = s * 0.2;
    let (x_right, x_left) = (p.right - size[0] - inset, p.left + inset * 4.0);
    let (y_top, y_bottom) = (p.top + inset, p.bottom - size[1] - inset);
    let corners = [[x_right, y_top], [x_left, y_top], [x_right, y_bottom], [x_left, y_bottom]];
    let fits = |c: &[f32; 2]| c[0] >= p.left && c[1] >= p.top && c[1] + size[1] <= p.bottom;
    let free = corners.into_iter().filter(fits).find(|c| {
        let max = [c[0] + size[0], c[1] + size[1]];
        !p.plot.shapes[data.clone()].iter().any(|shape| touches(shape, *c, max, s * 0.15))
    });
    if let Some(corner) = free {
        p.legend_box(entries, corner, size);
        p.plot.legend = Some((corner, [corner[0] + size[0], corner[1] + size[1]]));
        return p.plot;
    }
    let rows = legend_rows(&entries, s, p.right - p.left);
    // rows of text, and a gap that keeps them clear of lines at the top of the plot
    let (height, gap) = (rows.len() as f32 * s * ROW, s * 0.4);
    let (mut p, _) = paint(height + gap);
    let mut baseline = p.top - gap - height + s * (ROW - 0.55);
    let widest_row = rows.iter().map(|r| r.iter().map(|e| entry_width(e, s)).sum::<f32>() - s).fold(0.0, f32::max);
    p.plot.legend = Some(([p.right - widest_row, p.top - gap - height], [p.right, p.top - gap]));
    for row in rows {
        // right-aligned: the last entry's trailing space is not drawn
        let mut x = p.right - row.iter().map(|e| entry_width(e, s)).sum::<f32>() + s;
        for e in row {
            let w = entry_width(&e, s);
            p.entry(e, [x, baseline]);
            x += w;
        }
        baseline += s * ROW;
    }
    p.plot
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(nice_step(1000.0, 5.0), 200.0);
        assert_eq!(nice_step(7.0, 5.0), 1.0);
        assert_eq!(nice_step(9.0, 5.0), 2.0);
        assert_eq!(nice_step(0.9, 5.0), 0.2);
        assert_eq!(nice_step(0.03, 6.0), 0.005);
        assert_eq!(tick_text(0.30000000000000004, 0.1), "0.3");
        assert_eq!(tick_text(400.0, 100.0), "400");
    }

    use crate::scene::figure::{Reference, Series};

    fn chart(kind: ChartKind, series: Vec<Vec<f64>>, reference: Option<f64>) -> ChartSpec {
        let series = series
            .into_iter()
            .enumerate()
            .map(|(i, values)| Series { label: ["seek", "work", "curious", "rest"][i].into(), x: None, values, color: None })
            .collect();
        let reference = reference.map(|value| Reference { value, label: "target".into() });
        ChartSpec { kind, series, categories: Vec::new(), bins: 10, reference, x_label: "t".into(), y_label: "n".into() }
    }

    /// Draws `c` in a `w`×`h` panel and checks that no series or reference line comes near the
    /// legend and the legend stays in the panel; returns the legend's box and the data's top.
    fn legend_clear_of_data(c: &ChartSpec, w: f32, h: f32) -> (([f32; 2], [f32; 2]), f32) {
        let style = Style { text: [0.1; 3], size: 11.0 };
        let plot = draw(c, [0.0, 0.0, w, h], &style);
        let (min, max) = plot.legend.expect("two named series have a legend");
        assert!(min[0] >= 0.0 && min[1] >= 0.0 && max[0] <= w && max[1] <= h, "legend {min:?}..{max:?} outside the panel");
        // the legend's own box and swatches lie inside it; the data are the series' lines (2.5
        // wide) and bars and the reference line (2.0), not grid lines or axes
        let within = |p: [f32; 2]| (min[0] - 1.0..=max[0] + 1.0).contains(&p[0]) && (min[1] - 1.0..=max[1] + 1.0).contains(&p[1]);
        let data = plot.shapes.iter().filter(|s| match s {
            Shape2d::Line { a, b, width, .. } => *width >= 2.0 && !(within(*a) && within(*b)),
            Shape2d::Rect { min: p, max: q, color, .. } => color[3] == 1.0 && !(within(*p) && within(*q)),
            _ => false,
        });
        let mut data_top = f32::INFINITY;
        for shape in data {
            assert!(!touches(shape, min, max, 0.0), "{shape:?} meets the legend {min:?}..{max:?}");
            data_top = data_top.min(match shape {
                Shape2d::Line { a, b, .. } => a[1].min(b[1]),
                Shape2d::Rect { min, .. } => min[1],
                _ => f32::INFINITY,
            });
        }
        ((min, max), data_top)
    }

    #[test]
    fn legends_never_sit_on_the_data() {
        // the case: two series rising to the top right of a 430×220 panel
        let rising =
            chart(ChartKind::Line, vec![(0..40).map(|i| i as f64).collect(), (0..40).map(|i| i as f64 * 0.8 + 3.0).collect()], None);
        let ((_, max), top) = legend_clear_of_data(&rising, 430.0, 220.0);
        assert!(max[1] > top, "a free corner of the plot takes it");
        // lines that fill every corner: the legend moves above the plot
        let wave = |phase: f64| (0..200).map(move |i| portable::sin(i as f64 * 0.3 + phase) * 10.0).collect::<Vec<_>>();
        let busy = chart(ChartKind::Line, vec![wave(0.0), wave(1.0), wave(2.0)], Some(4.0));
        for (w, h) in [(430.0, 220.0), (240.0, 160.0)] {
            let ((_, max), top) = legend_clear_of_data(&busy, w, h);
            assert!(max[1] < top, "{w}×{h}: no corner is free, so the legend stands above the plot");
        }
        // bars that fill the plot but for one corner
        let bars = chart(ChartKind::Bar, vec![vec![9.0, 10.0, 10.0, 3.0], vec![8.0, 9.0, 10.0, 2.0]], None);
        legend_clear_of_data(&bars, 430.0, 220.0);
    }

    #[test]
    fn segments_meet_boxes_only_where_they_cross_them() {
        let (min, max) = ([0.0, 0.0], [10.0, 10.0]);
        assert!(segment_meets_box([-5.0, 5.0], [15.0, 5.0], min, max), "straight through");
        assert!(segment_meets_box([2.0, 2.0], [3.0, 3.0], min, max), "inside");
        assert!(!segment_meets_box([-5.0, -1.0], [15.0, -1.0], min, max), "above");
        assert!(!segment_meets_box([11.0, -5.0], [20.0, 4.0], min, max), "beside, slanted");
        assert!(segment_meets_box([-2.0, 8.0], [2.0, 12.0], min, max), "across a corner");
        assert!(!segment_meets_box([-2.0, 9.0], [-1.0, 12.0], min, max), "near a corner, outside");
    }

    #[test]
    fn histograms_count_every_value_once() {
        let v = [1.0, 1.1, 2.0, 2.9, 3.0, 3.0];
        let ((lo, hi), c) = histogram(&v, 4);
        assert_eq!((lo, hi), (1.0, 3.0));
        assert_eq!(c, vec![2.0, 0.0, 1.0, 3.0]);
        assert_eq!(c.iter().sum::<f64>(), v.len() as f64);
    }
}
