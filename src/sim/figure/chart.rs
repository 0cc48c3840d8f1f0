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

/// Draws `chart` into the canvas rectangle `rect`.
pub fn draw(chart: &ChartSpec, rect: [f32; 4], style: &Style) -> Plot {
    let mut p = Plot { shapes: Vec::new(), texts: Vec::new() };
    let s = style.size;
    let ink = [style.text[0], style.text[1], style.text[2], 1.0];
    let grid = [style.text[0], style.text[1], style.text[2], 0.15];
    let (ascent, _) = ascent_descent(s);
    let text = |at: [f32; 2], align: Align, t: String| Text2d { at, size: s, align, color: ink, text: t };

    // the y range: zero up for counts, the data's span for lines; the reference line included
    let hist =
        (chart.kind == ChartKind::Histogram).then(|| chart.series.iter().map(|x| histogram(&x.values, chart.bins)).collect::<Vec<_>>());
    let heights: Vec<&[f64]> = match &hist {
        Some(h) => h.iter().map(|(_, c)| c.as_slice()).collect(),
        None => chart.series.iter().map(|x| x.values.as_slice()).collect(),
    };
    let all = || heights.iter().flat_map(|v| v.iter().copied()).chain(chart.reference.as_ref().map(|r| r.value));
    let (mut ylo, yhi) = (all().fold(f64::INFINITY, f64::min), all().fold(f64::NEG_INFINITY, f64::max));
    if chart.kind != ChartKind::Line || ylo > 0.0 {
        ylo = ylo.min(0.0);
    }
    let (ylo, yhi) = if ylo.is_finite() { (ylo, yhi) } else { (0.0, 1.0) };
    let probe = Axis::new(ylo, yhi, 0.0, 1.0, 5.0);
    let tick_w = probe.ticks().map(|v| text_width(&tick_text(v, probe.step), s)).fold(0.0, f32::max);

    let pad = s * 0.8;
    let left = rect[0] + pad + tick_w + s * 0.5;
    let right = rect[0] + rect[2] - pad;
    let top = rect[1] + pad + if chart.y_label.is_empty() { ascent * 0.5 } else { s * 1.6 };
    let bottom = rect[1] + rect[3] - pad - s * 1.5 - if chart.x_label.is_empty() { 0.0 } else { s * 1.5 };
    let y = Axis::new(ylo, yhi, bottom, top, 5.0);
    for v in y.ticks() {
        let at = y.at(v);
        p.shapes.push(Shape2d::Line { a: [left, at], b: [right, at], width: 1.0, color_a: grid, color_b: grid, dash: None });
        p.texts.push(text([left - s * 0.4, at + ascent * 0.4], Align::Right, tick_text(v, y.step)));
    }
    if !chart.y_label.is_empty() {
        p.texts.push(text([left - tick_w - s * 0.4, rect[1] + pad + ascent], Align::Left, chart.y_label.clone()));
    }
    if !chart.x_label.is_empty() {
        p.texts.push(text([(left + right) / 2.0, rect[1] + rect[3] - pad], Align::Center, chart.x_label.clone()));
    }
    let below = bottom + s * 0.4 + ascent;
    let colour = |i: usize| {
        chart.series[i].color.map_or_else(
            || hex(PALETTE[i % PALETTE.len()]),
            |c| {
                let l = c.to_linear();
                [l[0], l[1], l[2], 1.0]
            },
        )
    };
    let n = chart.series.len();
    match (&hist, chart.kind) {
        (Some(h), _) => {
            // bins side by side over the data's range; x ticks at round values
            let (lo, hi) = h.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), ((l, u), _)| (a.min(*l), b.max(*u)));
            let x = Axis { lo, hi, step: nice_step(hi - lo, 6.0), a: left, b: right };
            for (i, ((l, u), counts)) in h.iter().enumerate() {
                let w = (u - l) / counts.len() as f64;
                for (b, c) in counts.iter().enumerate() {
                    let (x0, x1) = (x.at(l + b as f64 * w), x.at(l + (b + 1) as f64 * w));
                    let inset = (x1 - x0) * 0.06;
                    let (x0, x1) = (
                        x0 + inset + (x1 - x0 - 2.0 * inset) * i as f32 / n as f32,
                        x0 + inset + (x1 - x0 - 2.0 * inset) * (i + 1) as f32 / n as f32,
                    );
                    p.shapes.push(Shape2d::Rect { min: [x0, y.at(*c)], max: [x1, y.at(0.0)], radius: 0.0, border: 0.0, color: colour(i) });
                }
            }
            let first = (lo / x.step).ceil() as i64;
            let last = (hi / x.step + 1e-9).floor() as i64;
            for k in first..=last {
                let v = k as f64 * x.step;
                p.texts.push(text([x.at(v), below], Align::Center, tick_text(v, x.step)));
            }
        }
        (None, ChartKind::Bar) => {
            let count = chart.series.iter().map(|x| x.values.len()).max().unwrap_or(0).max(1);
            let slot = (right - left) / count as f32;
            for c in 0..count {
                let x0 = left + slot * (c as f32 + 0.15);
                let bw = slot * 0.7 / n.max(1) as f32;
                for (i, ser) in chart.series.iter().enumerate() {
                    if let Some(&v) = ser.values.get(c) {
                        let (ya, yb) = (y.at(v).min(y.at(0.0)), y.at(v).max(y.at(0.0)));
                        let xa = x0 + bw * i as f32;
                        p.shapes.push(Shape2d::Rect { min: [xa, ya], max: [xa + bw, yb], radius: 0.0, border: 0.0, color: colour(i) });
                    }
                }
                let name = chart.categories.get(c).cloned().unwrap_or_else(|| (c + 1).to_string());
                p.texts.push(text([left + slot * (c as f32 + 0.5), below], Align::Center, name));
            }
        }
        (None, _) => {
            let xs = |ser: &crate::scene::figure::Series| -> Vec<f64> {
                ser.x.clone().unwrap_or_else(|| (0..ser.values.len()).map(|i| i as f64).collect())
            };
            let all_x: Vec<f64> = chart.series.iter().flat_map(xs).collect();
            let (xlo, xhi) = (all_x.iter().copied().fold(f64::INFINITY, f64::min), all_x.iter().copied().fold(f64::NEG_INFINITY, f64::max));
            let (xlo, xhi) = if xlo.is_finite() { (xlo, xhi) } else { (0.0, 1.0) };
            let x = Axis::new(xlo, xhi, left, right, 6.0);
            for v in x.ticks() {
                p.texts.push(text([x.at(v), below], Align::Center, tick_text(v, x.step)));
            }
            for (i, ser) in chart.series.iter().enumerate() {
                let pts: Vec<[f32; 2]> = xs(ser).iter().zip(&ser.values).map(|(a, b)| [x.at(*a), y.at(*b)]).collect();
                let c = colour(i);
                for w in pts.windows(2) {
                    p.shapes.push(Shape2d::Line { a: w[0], b: w[1], width: 2.5, color_a: c, color_b: c, dash: None });
                }
            }
        }
    }
    // the axes over the bars
    let axis = |a, b| Shape2d::Line { a, b, width: 1.5, color_a: ink, color_b: ink, dash: None };
    p.shapes.push(axis([left, y.at(0.0f64.clamp(y.lo, y.hi))], [right, y.at(0.0f64.clamp(y.lo, y.hi))]));
    p.shapes.push(axis([left, bottom], [left, top]));
    let mut legend: Vec<(String, [f32; 4], bool)> = Vec::new();
    if let Some(r) = &chart.reference {
        let c = hex(REFERENCE);
        let at = y.at(r.value);
        let dash = Some(Dash { on: s * 0.6, off: s * 0.4, phase: 0.0 });
        p.shapes.push(Shape2d::Line { a: [left, at], b: [right, at], width: 2.0, color_a: c, color_b: c, dash });
        if !r.label.is_empty() {
            legend.push((format!("{} {}", r.label, tick_text(r.value, nice_step(r.value.abs().max(1e-9), 100.0))), c, true));
        }
    }
    if n > 1 || chart.series.iter().any(|x| !x.label.is_empty()) {
        legend
            .extend(chart.series.iter().enumerate().filter(|(_, x)| !x.label.is_empty()).map(|(i, x)| (x.label.clone(), colour(i), false)));
    }
    let widest = legend.iter().map(|(t, ..)| text_width(t, s)).fold(0.0, f32::max);
    if !legend.is_empty() {
        // a light box keeps the legend readable over the lines
        let (x0, y0) = (right - widest - s * 2.3, top + s * 0.2);
        let y1 = top + s * 0.2 + (legend.len() as f32 + 0.45) * s * 1.35;
        p.shapes.push(Shape2d::Rect {
            min: [x0, y0],
            max: [right - s * 0.1, y1],
            radius: s * 0.3,
            border: 0.0,
            color: [1.0, 1.0, 1.0, 0.85],
        });
    }
    for (k, (label, c, line)) in legend.into_iter().enumerate() {
        let x0 = right - widest - s * 1.8;
        let yb = top + s * 0.2 + (k as f32 + 1.0) * s * 1.35;
        let mid = yb - ascent * 0.35;
        p.shapes.push(if line {
            Shape2d::Line { a: [x0, mid], b: [x0 + s * 1.2, mid], width: 2.0, color_a: c, color_b: c, dash: None }
        } else {
            Shape2d::Rect { min: [x0, mid - s * 0.4], max: [x0 + s * 1.2, mid + s * 0.4], radius: 2.0, border: 0.0, color: c }
        });
        p.texts.push(text([x0 + s * 1.6, yb], Align::Left, label));
    }
    p
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
