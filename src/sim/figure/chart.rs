//! Charts as plain 2-D shapes and text: bar charts, histograms and line plots with axes, "nice"
//! ticks, grid lines, axis labels, a dashed reference line and a legend. The renderer only sees
//! rectangles, lines and text.

use crate::frame::font::{ascent_descent, text_width};
use crate::frame::{Align, Dash, Shape2d, Text2d};
use crate::scene::figure::{ChartKind, ChartSpec};

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
}

/// Series colours (sRGB hex) in order: a palette that stays distinct for colour-blind readers.
pub const PALETTE: [&str; 6] = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2"];
const REFERENCE: &str = "#c0392b";

fn hex(h: &str) -> [f32; 4] {
    let c = crate::scene::values::Srgb::from_hex(h).expect("palette colours are valid").to_linear();
    [c[0], c[1], c[2], 1.0]
}

/// A step of 1, 2 or 5 × 10ⁿ giving about `count` intervals over `span`.
pub fn nice_step(span: f64, count: f64) -> f64 {
    let raw = (span / count).max(1e-12);
    let mag = 10f64.powf(raw.log10().floor());
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
    let decimals = if step >= 1.0 { 0 } else { (-step.log10()).ceil() as usize };
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
        self.chart.series[i].color.map_or_else(
            || hex(PALETTE[i % PALETTE.len()]),
            |c| {
                let l = c.to_linear();
                [l[0], l[1], l[2], 1.0]
            },
        )
    }

    /// Grid lines and labels of the y axis, and the axis labels.
    fn y_axis(&mut self, tick_w: f32, rect: [f32; 4], pad: f32) {
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

    /// The dashed reference line, and the legend (on a light box) naming it and the series.
    fn reference_and_legend(&mut self) {
        let (s, chart) = (self.size, self.chart);
        let mut legend: Vec<(String, [f32; 4], bool)> = Vec::new();
        if let Some(r) = &chart.reference {
            let c = hex(REFERENCE);
            let at = self.y.at(r.value);
            let dash = Some(Dash { on: s * 0.6, off: s * 0.4, phase: 0.0 });
            self.plot.shapes.push(Shape2d::Line { a: [self.left, at], b: [self.right, at], width: 2.0, color_a: c, color_b: c, dash });
            if !r.label.is_empty() {
                legend.push((format!("{} {}", r.label, tick_text(r.value, nice_step(r.value.abs().max(1e-9), 100.0))), c, true));
            }
        }
        if chart.series.len() > 1 || chart.series.iter().any(|x| !x.label.is_empty()) {
            let named = chart.series.iter().enumerate().filter(|(_, x)| !x.label.is_empty());
            legend.extend(named.map(|(i, x)| (x.label.clone(), self.colour(i), false)));
        }
        if legend.is_empty() {
            return;
        }
        let widest = legend.iter().map(|(t, ..)| text_width(t, s)).fold(0.0, f32::max);
        let (x0, top) = (self.right - widest - s * 1.8, self.top + s * 0.2);
        let box_bottom = top + (legend.len() as f32 + 0.45) * s * 1.35;
        let white = [1.0, 1.0, 1.0, 0.85];
        self.plot.shapes.push(Shape2d::Rect {
            min: [x0 - s * 0.5, top],
            max: [self.right - s * 0.1, box_bottom],
            radius: s * 0.3,
            border: 0.0,
            color: white,
        });
        for (k, (label, c, line)) in legend.into_iter().enumerate() {
            let yb = top + (k as f32 + 1.0) * s * 1.35;
            let mid = yb - self.ascent * 0.35;
            self.plot.shapes.push(if line {
                Shape2d::Line { a: [x0, mid], b: [x0 + s * 1.2, mid], width: 2.0, color_a: c, color_b: c, dash: None }
            } else {
                Shape2d::Rect { min: [x0, mid - s * 0.4], max: [x0 + s * 1.2, mid + s * 0.4], radius: 2.0, border: 0.0, color: c }
            });
            self.text([x0 + s * 1.6, yb], Align::Left, label);
        }
    }
}

/// Draws `chart` into the canvas rectangle `rect`.
pub fn draw(chart: &ChartSpec, rect: [f32; 4], style: &Style) -> Plot {
    let s = style.size;
    let (ascent, _) = ascent_descent(s);
    let hist =
        (chart.kind == ChartKind::Histogram).then(|| chart.series.iter().map(|x| histogram(&x.values, chart.bins)).collect::<Vec<_>>());
    let heights: Vec<&[f64]> = match &hist {
        Some(h) => h.iter().map(|(_, c)| c.as_slice()).collect(),
        None => chart.series.iter().map(|x| x.values.as_slice()).collect(),
    };
    let (ylo, yhi) = y_range(chart, &heights);
    // room left of the plot for the widest tick label
    let probe = Axis::new(ylo, yhi, 0.0, 1.0, 5.0);
    let tick_w = probe.ticks().map(|v| text_width(&tick_text(v, probe.step), s)).fold(0.0, f32::max);
    let pad = s * 0.8;
    let (left, right) = (rect[0] + pad + tick_w + s * 0.5, rect[0] + rect[2] - pad);
    let top = rect[1] + pad + if chart.y_label.is_empty() { ascent * 0.5 } else { s * 1.6 };
    let bottom = rect[1] + rect[3] - pad - s * 1.5 - if chart.x_label.is_empty() { 0.0 } else { s * 1.5 };
    let mut p = Painter {
        chart,
        plot: Plot { shapes: Vec::new(), texts: Vec::new() },
        size: s,
        ink: [style.text[0], style.text[1], style.text[2], 1.0],
        ascent,
        left,
        right,
        top,
        bottom,
        y: Axis::new(ylo, yhi, bottom, top, 5.0),
    };
    p.y_axis(tick_w, rect, pad);
    match (&hist, chart.kind) {
        (Some(h), _) => p.histogram(h),
        (None, ChartKind::Bar) => p.bars(),
        (None, _) => p.lines(),
    }
    // the axes over the bars
    let ink = p.ink;
    let axis = |a, b| Shape2d::Line { a, b, width: 1.5, color_a: ink, color_b: ink, dash: None };
    let zero = p.y.at(0.0f64.clamp(p.y.lo, p.y.hi));
    p.plot.shapes.push(axis([left, zero], [right, zero]));
    p.plot.shapes.push(axis([left, bottom], [left, top]));
    p.reference_and_legend();
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

    #[test]
    fn histograms_count_every_value_once() {
        let v = [1.0, 1.1, 2.0, 2.9, 3.0, 3.0];
        let ((lo, hi), c) = histogram(&v, 4);
        assert_eq!((lo, hi), (1.0, 3.0));
        assert_eq!(c, vec![2.0, 0.0, 1.0, 3.0]);
        assert_eq!(c.iter().sum::<f64>(), v.len() as f64);
    }
}
