//! Value types that several tables share: sRGB colours (`"#rrggbb"` or `[r, g, b]` in 0..1) and
//! animated numbers (a constant, a ramp over the scene, or timed keyframes).

use toml::de::DeValue;

use super::keys::{DefaultValue, Key, Table, Ty};
use super::reader::{TableReader, kind_of, number};

/// A colour as written in scene files: sRGB-encoded components in 0..1.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Srgb(pub [f32; 3]);

/// A colour written in the code, `srgb!("#3f6f9f")`: checked when the program is compiled (a
/// literal that is not `#rgb` or `#rrggbb` does not build), with no fallback to go wrong.
#[macro_export]
macro_rules! srgb {
    ($hex:literal) => {
        const { $crate::scene::values::Srgb::hex($hex) }
    };
}

impl Srgb {
    /// `#rgb` or `#rrggbb` as a constant (see [`srgb!`]); anything else panics, which in a
    /// constant stops the build. Scene files go through [`Srgb::from_hex`] and the reader instead.
    pub const fn hex(s: &str) -> Srgb {
        const fn digit(c: u8) -> u8 {
            match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => panic!("a colour's digits are hexadecimal"),
            }
        }
        let b = s.as_bytes();
        assert!(!b.is_empty() && b[0] == b'#', "a colour starts with #");
        let c = match b.len() {
            4 => [digit(b[1]) * 17, digit(b[2]) * 17, digit(b[3]) * 17],
            7 => [digit(b[1]) * 16 + digit(b[2]), digit(b[3]) * 16 + digit(b[4]), digit(b[5]) * 16 + digit(b[6])],
            _ => panic!("a colour is #rgb or #rrggbb"),
        };
        Srgb([c[0] as f32 / 255.0, c[1] as f32 / 255.0, c[2] as f32 / 255.0])
    }

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
    /// A colour at `key`: `"#rrggbb"`, `"#rgb"` or `[r, g, b]` with components in 0..1; its
    /// declared default when absent or wrong.
    pub fn color(&self, key: &Key) -> Srgb {
        let DefaultValue::Color(default) = key.default else { panic!("`{}` has no colour default", key.name) };
        let Some(v) = self.raw(key) else { return default };
        self.color_of(key, v).unwrap_or(default)
    }

    /// An array of colours at `key`, each as [`TableReader::color`] takes one, every problem
    /// reported at its item; `None` when the key is absent or the array has a problem.
    pub fn color_list(&self, key: &Key) -> Option<Vec<Srgb>> {
        let v = self.raw(key)?;
        let DeValue::Array(items) = v.get_ref() else {
            self.error_at(key, "expected an array of colours, each \"#rrggbb\", \"#rgb\" or [r, g, b] in 0..1");
            return None;
        };
        if items.is_empty() {
            self.error_at(key, "expected at least one colour");
            return None;
        }
        let colors: Vec<Option<Srgb>> = items.iter().map(|item| self.color_of(key, item)).collect();
        colors.into_iter().collect()
    }

    /// The colour `v` holds (given at `key`), or its problem reported at `v`.
    fn color_of(&self, key: &Key, v: &toml::Spanned<DeValue<'_>>) -> Option<Srgb> {
        let report = |message: String| {
            self.diagnostics().error(v.span(), &self.key_path(key.name), message, None);
            None
        };
        match v.get_ref() {
            DeValue::String(s) => Srgb::from_hex(s)
                .map(Some)
                .unwrap_or_else(|| report(format!("\"{s}\" is not a colour: expected \"#rrggbb\", \"#rgb\" or [r, g, b] in 0..1"))),
            _ => match self.numbers_of::<3>(key, v) {
                Some(c) if c.iter().all(|x| (0.0..=1.0).contains(x)) => Some(Srgb(c.map(|x| x as f32))),
                Some(_) => report("colour components must be in 0..1 (or write \"#rrggbb\")".into()),
                None => None,
            },
        }
    }

    /// A number that may change over the scene, with its declared default and range.
    pub fn animated<const N: usize>(&self, key: &Key) -> Animated<N> {
        self.animated_or(key, key.default_numbers())
    }

    /// A number that may change over the scene: `2.0`, `{ from = 0.0, to = 2.0, start = 0.2,
    /// end = 0.8, ease = "smooth" }` (start/end as fractions of the scene's duration) or
    /// keyframes `[[t_seconds, value], …]` (linear between keys, held outside them); `default`
    /// when absent or wrong.
    pub fn animated_or<const N: usize>(&self, key: &Key, default: [f64; N]) -> Animated<N> {
        let Some(v) = self.raw(key) else { return Animated::Constant(default) };
        let (lo, hi) = key.float_range();
        let check = |vals: [f64; N]| -> bool {
            let ok = vals.iter().all(|x| x.is_finite() && *x >= lo && *x <= hi);
            if !ok {
                self.error_at(key, format!("values must be from {lo} to {hi}"));
            }
            ok
        };
        // one number is a number, never a list of one (`[2.5]` would read as a keyframe list)
        let parse_vec = |item: &toml::Spanned<DeValue<'_>>| -> Option<[f64; N]> {
            if N == 1 {
                return number(item.get_ref()).map(|x| [x; N]);
            }
            self.numbers_of::<N>(key, item)
        };
        match v.get_ref() {
            DeValue::Table(table) => {
                let t = TableReader::of(table, self.key_path(key.name), v.span(), &RAMP, self.diagnostics());
                let from = t.raw(&FROM).and_then(&parse_vec);
                let to = t.raw(&TO).and_then(&parse_vec);
                let start = t.float(&START);
                let end = t.float(&END);
                let ease = match t.choice(&EASE) {
                    "linear" => Ease::Linear,
                    "in" => Ease::In,
                    "out" => Ease::Out,
                    _ => Ease::Smooth,
                };
                if end <= start {
                    t.error_at(&END, "end must come after start");
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
            _ if N == 1 && number(v.get_ref()).is_none() => {
                let found = kind_of(v.get_ref());
                self.error_at(key, format!("expected a number, keyframes `[[t, v], …]` or a ramp `{{ from = …, to = … }}`, found {found}"));
                Animated::Constant(default)
            }
            _ => match parse_vec(v) {
                Some(c) if check(c) => Animated::Constant(c),
                _ => Animated::Constant(default),
            },
        }
    }
}

const FROM: Key = Key::of("from", Ty::Free).doc("the value at `start`");
const TO: Key = Key::of("to", Ty::Free).doc("the value at `end`");
const START: Key = Key::float("start", 0.0, 0.0, 1.0).doc("when the ramp starts, as a fraction of the scene's duration");
const END: Key = Key::float("end", 1.0, 0.0, 1.0).doc("when the ramp ends, as a fraction of the scene's duration");
const EASE: Key =
    Key::choice("ease", &["smooth", "linear", "in", "out"]).doc("how the value moves between: smoothstep, straight, quadratic in or out");

/// The keys of an animated value's ramp table (its schema is made by [`Ty::Animated`], which gives
/// `from` and `to` their length and range).
pub const RAMP: Table = Table::new("a ramp from one value to another over part of the scene", &[FROM, TO, START, END, EASE]);

/// Easing of a ramp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Ease {
    Linear,
    /// Smoothstep: starts and ends at rest.
    Smooth,
    /// Quadratic ease-in.
    In,
    /// Quadratic ease-out.
    Out,
}

/// 0 below `e0`, 1 above `e1`, and the cubic 3u² − 2u³ of u = (x − e0)/(e1 − e0) between: a
/// step that starts and ends at rest. Where `e1` ≤ `e0`, a plain step at `e0`.
pub fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    if e1 <= e0 {
        return if x < e0 { 0.0 } else { 1.0 };
    }
    let u = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    u * u * (3.0 - 2.0 * u)
}

impl Ease {
    pub fn apply(self, u: f64) -> f64 {
        let u = u.clamp(0.0, 1.0);
        match self {
            Ease::Linear => u,
            Ease::Smooth => smoothstep(0.0, 1.0, u),
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

/// By its shape and numbers (arrays of any length as slices: serde's derive takes fixed sizes only).
impl<const N: usize> serde::Serialize for Animated<N> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Animated::Constant(c) => s.serialize_newtype_variant("Animated", 0, "Constant", &c[..]),
            Animated::Ramp { from, to, start, end, ease } => {
                s.serialize_newtype_variant("Animated", 1, "Ramp", &(&from[..], &to[..], start, end, ease))
            }
            Animated::Keys(keys) => {
                let keys: Vec<(f64, &[f64])> = keys.iter().map(|(t, v)| (*t, &v[..])).collect();
                s.serialize_newtype_variant("Animated", 2, "Keys", &keys)
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_colours_are_the_colours_scene_files_give() {
        for s in ["#000", "#fff", "#3f6f9f", "#E0B48F", "#7aa34d", "#a1b"] {
            assert_eq!(Some(Srgb::hex(s)), Srgb::from_hex(s), "{s}");
        }
        assert_eq!(srgb!("#ff0000"), Srgb([1.0, 0.0, 0.0]));
        for bad in ["", "fff", "#ff", "#fffff", "#ggg"] {
            assert!(Srgb::from_hex(bad).is_none(), "{bad}");
            assert!(std::panic::catch_unwind(|| Srgb::hex(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn smoothstep_rests_at_both_ends_and_steps_where_its_edges_meet() {
        assert_eq!((smoothstep(1.0, 3.0, 0.0), smoothstep(1.0, 3.0, 2.0), smoothstep(1.0, 3.0, 9.0)), (0.0, 0.5, 1.0));
        assert_eq!(smoothstep(0.0, 1.0, 0.25), 0.25 * 0.25 * (3.0 - 2.0 * 0.25));
        assert_eq!((smoothstep(2.0, 2.0, 1.9), smoothstep(2.0, 2.0, 2.0)), (0.0, 1.0));
        assert_eq!(Ease::Smooth.apply(0.25), smoothstep(0.0, 1.0, 0.25));
    }
}
