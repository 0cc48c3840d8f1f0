//! Value types that several tables share: sRGB colours (`"#rrggbb"` or `[r, g, b]` in 0..1) and
//! animated numbers (a constant, a ramp over the scene, or timed keyframes).

use toml::de::DeValue;

use super::reader::{TableReader, number};

/// A colour as written in scene files: sRGB-encoded components in 0..1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Srgb(pub [f32; 3]);

impl Srgb {
    /// `#rgb` or `#rrggbb`.
    pub fn from_hex(s: &str) -> Option<Srgb> {
        let h = s.strip_prefix('#')?;
        let digits: Vec<u8> = h.chars().map(|c| c.to_digit(16).map(|d| d as u8)).collect::<Option<_>>()?;
        let c = match digits.len() {
            3 => [digits[0] * 17, digits[1] * 17, digits[2] * 17],
            6 => [digits[0] * 16 + digits[1], digits[2] * 16 + digits[3], digits[4] * 16 + digits[5]],
            _ => return None,
        };
        Some(Srgb(c.map(|v| v as f32 / 255.0)))
    }

    /// Linear-light components (the sRGB transfer function undone).
    pub fn to_linear(self) -> [f32; 3] {
        self.0.map(srgb_to_linear)
    }
}

pub use crate::frame::{linear_to_srgb, srgb_to_linear};

impl TableReader<'_, '_> {
    /// A colour at `key`: `"#rrggbb"`, `"#rgb"` or `[r, g, b]` with components in 0..1.
    pub fn color(&self, key: &'static str, default: Srgb) -> Srgb {
        let Some(v) = self.raw(key) else { return default };
        match v.get_ref() {
            DeValue::String(s) => Srgb::from_hex(s).unwrap_or_else(|| {
                self.error_at(key, format!("\"{s}\" is not a colour: expected \"#rrggbb\", \"#rgb\" or [r, g, b] in 0..1"));
                default
            }),
            _ => match self.numbers_of::<3>(key, v) {
                Some(c) if c.iter().all(|x| (0.0..=1.0).contains(x)) => Srgb(c.map(|x| x as f32)),
                Some(_) => {
                    self.error_at(key, "colour components must be in 0..1 (or write \"#rrggbb\")");
                    default
                }
                None => default,
            },
        }
    }

    /// A number that may change over the scene: `2.0`, `{ from = 0.0, to = 2.0, start = 0.2,
    /// end = 0.8, ease = "smooth" }` (start/end as fractions of the scene's duration) or
    /// keyframes `[[t_seconds, value], …]` (linear between keys, held outside them).
    pub fn animated<const N: usize>(&self, key: &'static str, default: [f64; N], range: std::ops::Range<f64>) -> Animated<N> {
        let Some(v) = self.raw(key) else { return Animated::Constant(default) };
        let check = |vals: [f64; N]| -> bool {
            let ok = vals.iter().all(|x| x.is_finite() && *x >= range.start && *x <= range.end);
            if !ok {
                self.error_at(key, format!("values must be from {} to {}", range.start, range.end));
            }
            ok
        };
        let parse_vec = |item: &toml::Spanned<DeValue<'_>>| -> Option<[f64; N]> {
            if N == 1 {
                if let Some(x) = number(item.get_ref()) {
                    return Some([x; N]);
                }
            }
            self.numbers_of::<N>(key, item)
        };
        match v.get_ref() {
            DeValue::Table(_) => {
                let t = self.table(key);
                let from = t.raw("from").and_then(&parse_vec);
                let to = t.raw("to").and_then(&parse_vec);
                let start = t.f64_in("start", 0.0, 0.0..1.0);
                let end = t.f64_in("end", 1.0, 0.0..1.0);
                let ease = match t.choice("ease", &["smooth", "linear", "in", "out"]) {
                    "linear" => Ease::Linear,
                    "in" => Ease::In,
                    "out" => Ease::Out,
                    _ => Ease::Smooth,
                };
                if end <= start {
                    t.error_at("end", "end must come after start");
                }
                let (Some(from), Some(to)) = (from, to) else {
                    t.error_here("a ramp needs both `from` and `to`");
                    t.finish();
                    return Animated::Constant(default);
                };
                t.finish();
                if check(from) && check(to) { Animated::Ramp { from, to, start, end, ease } } else { Animated::Constant(default) }
            }
            DeValue::Array(items) if items.iter().all(|i| matches!(i.get_ref(), DeValue::Array(_))) && !items.is_empty() => {
                let mut keys: Vec<(f64, [f64; N])> = Vec::new();
                for item in items.iter() {
                    let DeValue::Array(pair) = item.get_ref() else { continue };
                    let nums: Vec<f64> = pair.iter().filter_map(|x| number(x.get_ref())).collect();
                    if nums.len() != N + 1 || pair.len() != N + 1 {
                        self.error_at(
                            key,
                            format!("each keyframe is [time_seconds, {}]", if N == 1 { "value".into() } else { format!("{N} values") }),
                        );
                        return Animated::Constant(default);
                    }
                    let vals: [f64; N] = std::array::from_fn(|i| nums[i + 1]);
                    if !check(vals) {
                        return Animated::Constant(default);
                    }
                    keys.push((nums[0], vals));
                }
                if keys.windows(2).any(|w| w[1].0 <= w[0].0) || keys[0].0 < 0.0 {
                    self.error_at(key, "keyframe times must start at 0 or later and increase");
                    return Animated::Constant(default);
                }
                Animated::Keys(keys)
            }
            _ => match parse_vec(v) {
                Some(c) if check(c) => Animated::Constant(c),
                _ => Animated::Constant(default),
            },
        }
    }
}

/// Easing of a ramp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ease {
    Linear,
    /// Smoothstep: starts and ends at rest.
    Smooth,
    /// Quadratic ease-in.
    In,
    /// Quadratic ease-out.
    Out,
}

impl Ease {
    pub fn apply(self, u: f64) -> f64 {
        let u = u.clamp(0.0, 1.0);
        match self {
            Ease::Linear => u,
            Ease::Smooth => u * u * (3.0 - 2.0 * u),
            Ease::In => u * u,
            Ease::Out => u * (2.0 - u),
        }
    }
}

/// A value of N numbers that may change with time.
#[derive(Clone, Debug, PartialEq)]
pub enum Animated<const N: usize> {
    Constant([f64; N]),
    /// From `from` to `to` between fractions `start` and `end` of the scene's duration.
    Ramp {
        from: [f64; N],
        to: [f64; N],
        start: f64,
        end: f64,
        ease: Ease,
    },
    /// (time in seconds, value), times increasing; linear in between, held outside.
    Keys(Vec<(f64, [f64; N])>),
}

impl<const N: usize> Animated<N> {
    pub fn is_constant(&self) -> bool {
        matches!(self, Animated::Constant(_))
    }

    /// The value at `time` seconds of a scene lasting `duration` seconds.
    pub fn at(&self, time: f64, duration: f64) -> [f64; N] {
        let lerp = |a: &[f64; N], b: &[f64; N], u: f64| std::array::from_fn(|i| a[i] + (b[i] - a[i]) * u);
        match self {
            Animated::Constant(c) => *c,
            Animated::Ramp { from, to, start, end, ease } => {
                let f = if duration > 0.0 { time / duration } else { 1.0 };
                let u = if end > start { (f - start) / (end - start) } else { 1.0 };
                lerp(from, to, ease.apply(u))
            }
            Animated::Keys(keys) => {
                let i = keys.partition_point(|(t, _)| *t <= time);
                if i == 0 {
                    keys[0].1
                } else if i == keys.len() {
                    keys[keys.len() - 1].1
                } else {
                    let (t0, a) = &keys[i - 1];
                    let (t1, b) = &keys[i];
                    lerp(a, b, (time - t0) / (t1 - t0))
                }
            }
        }
    }
}

impl Animated<1> {
    pub fn scalar_at(&self, time: f64, duration: f64) -> f64 {
        self.at(time, duration)[0]
    }
}
