//! Value types that several tables share: sRGB colours (`"#rrggbb"` or `[r, g, b]` in 0..1) and
//! animated numbers (a constant, a ramp over the scene, or timed keyframes).

use toml::de::DeValue;

use super::keys::{DefaultValue, Key, Table, Ty};
use super::reader::{TableReader, kind_of, number, number_list};

pub use super::color::Srgb;
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
        let read = match v.get_ref() {
            DeValue::Table(table) => self.ramp(key, v, table),
            DeValue::Array(items) if items.iter().all(|i| matches!(i.get_ref(), DeValue::Array(_))) && !items.is_empty() => {
                self.keyframes(key, items)
            }
            _ if N == 1 && number(v.get_ref()).is_none() => {
                let found = kind_of(v.get_ref());
                self.error_at(key, format!("expected a number, keyframes `[[t, v], …]` or a ramp `{{ from = …, to = … }}`, found {found}"));
                None
            }
            _ => self.animated_value(key, v, &self.key_path(key.name), "").map(Animated::Constant),
        };
        read.unwrap_or(Animated::Constant(default))
    }

    /// One value of an animated key (a constant, a ramp's end) at `v`, within the key's range; its
    /// problem reported at `v`, saying `what` the value is (" for the value the ramp ends at";
    /// empty for the key's own).
    fn animated_value<const N: usize>(&self, key: &Key, v: &toml::Spanned<DeValue<'_>>, path: &str, what: &str) -> Option<[f64; N]> {
        let (lo, hi) = key.float_range();
        let report = |message: String| {
            self.diagnostics().error(v.span(), path, message, None);
            None
        };
        let expected = if N == 1 { "a number".to_string() } else { format!("an array of {N} numbers") };
        // one number is a number, never a list of one (`[2.5]` would read as a keyframe list)
        let values: [f64; N] = if N == 1 {
            match number(v.get_ref()) {
                Some(x) => [x; N],
                None => return report(format!("expected {expected}{what}, found {}", kind_of(v.get_ref()))),
            }
        } else {
            match number_list(v.get_ref()) {
                Some(n) if n.len() == N => std::array::from_fn(|i| n[i]),
                Some(n) => return report(format!("expected {expected}{what}, found {} numbers", n.len())),
                None if matches!(v.get_ref(), DeValue::Array(_)) => {
                    return report(format!("expected {expected}{what}, found an item that is not a finite number"));
                }
                None => return report(format!("expected {expected}{what}, found {}", kind_of(v.get_ref()))),
            }
        };
        match values.iter().find(|x| !(x.is_finite() && **x >= lo && **x <= hi)) {
            Some(x) => report(format!("{x} is out of range{what}: values must be from {lo} to {hi}")),
            None => Some(values),
        }
    }

    /// A ramp `{ from, to, start, end, ease }` at `key`; each problem reported where it is.
    fn ramp<const N: usize>(&self, key: &Key, v: &toml::Spanned<DeValue<'_>>, table: &toml::de::DeTable<'_>) -> Option<Animated<N>> {
        let t = TableReader::of(table, self.key_path(key.name), v.span(), &RAMP, self.diagnostics());
        let end_value = |end: &Key, what: &str| match t.raw(end) {
            Some(x) => self.animated_value::<N>(key, x, &t.key_path(end.name), &format!(" for the value the ramp {what}")),
            None => {
                t.error_here(format!("a ramp needs `{}`, the value it {what}", end.name));
                None
            }
        };
        let from = end_value(&FROM, "starts from");
        let to = end_value(&TO, "ends at");
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
        t.finish();
        Some(Animated::Ramp { from: from?, to: to?, start, end, ease })
    }

    /// Keyframes `[[t, v…], …]` at `key`: each of the right length, in range, times from 0 and
    /// increasing; a problem reported at the keyframe.
    fn keyframes<const N: usize>(&self, key: &Key, items: &toml::de::DeArray<'_>) -> Option<Animated<N>> {
        let path = self.key_path(key.name);
        let shape = if N == 1 { "[time_seconds, value]".to_string() } else { format!("[time_seconds, {N} values]") };
        let (lo, hi) = key.float_range();
        let mut keys: Vec<(f64, [f64; N])> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let report = |message: String| {
                self.diagnostics().error(item.span(), &path, message, None);
                None
            };
            let nums = match number_list(item.get_ref()) {
                Some(n) if n.len() == N + 1 => n,
                _ => return report(format!("keyframe {} is not {shape}", i + 1)),
            };
            let (time, vals) = (nums[0], std::array::from_fn(|j| nums[j + 1]));
            if let Some(x) = vals.iter().find(|x| !(**x >= lo && **x <= hi)) {
                return report(format!("keyframe {}: {x} is out of range: values must be from {lo} to {hi}", i + 1));
            }
            match keys.last() {
                None if time < 0.0 => return report(format!("keyframe 1 is at {time} s: times start at 0 or later")),
                Some(&(before, _)) if time <= before => {
                    return report(format!(
                        "keyframe {} is at {time} s, not after keyframe {}'s {before} s: times must increase",
                        i + 1,
                        i
                    ));
                }
                _ => {}
            }
            keys.push((time, vals));
        }
        Some(Animated::Keys(keys))
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
        assert_eq!(crate::srgb!("#ff0000"), Srgb([1.0, 0.0, 0.0]));
        for bad in ["", "fff", "#ff", "#fffff", "#ggg"] {
            assert!(Srgb::from_hex(bad).is_none(), "{bad}");
            assert!(std::panic::catch_unwind(|| Srgb::hex(bad)).is_err(), "{bad}");
        }
    }

    /// The problems of a scene file's text, each as (line, column, key, message).
    fn problems(text: &str) -> Vec<(usize, usize, String, String)> {
        match crate::scene::parse(text, std::path::Path::new("t.toml")) {
            Err(crate::scene::SceneError::Invalid { diagnostics, .. }) => {
                diagnostics.into_iter().map(|d| (d.line, d.col, d.key, d.message)).collect()
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_animated_value_names_the_part_that_is_wrong_and_where_it_is() {
        let wind = |value: &str| problems(&format!("kind = \"wind\"\n[wind]\nspeed = {value}\n"));
        let one = |value: &str| {
            let p = wind(value);
            assert_eq!(p.len(), 1, "{value}: {p:?}");
            p.into_iter().next().unwrap()
        };
        // a ramp's end that is not a number: that end, at its value
        let (line, col, key, message) = one("{ from = 1, to = \"x\" }");
        assert_eq!((line, col, key.as_str()), (3, 26, "wind.speed.to"));
        assert_eq!(message, "expected a number for the value the ramp ends at, found a string");
        let (_, _, key, message) = one("{ from = 1, to = 500 }");
        assert_eq!(
            (key.as_str(), message.as_str()),
            ("wind.speed.to", "500 is out of range for the value the ramp ends at: values must be from 0 to 200")
        );
        let (_, _, key, message) = one("{ to = 3 }");
        assert_eq!((key.as_str(), message.as_str()), ("wind.speed", "a ramp needs `from`, the value it starts from"));
        // keyframes out of order: the one out of order, by number, at its own position
        let (line, col, _, message) = one("[[0, 1], [2, 3], [1, 4]]");
        assert_eq!((line, col), (3, 26));
        assert_eq!(message, "keyframe 3 is at 1 s, not after keyframe 2's 2 s: times must increase");
        let (_, col, _, message) = one("[[0, 1], [2, 300]]");
        assert_eq!((col, message.as_str()), (18, "keyframe 2: 300 is out of range: values must be from 0 to 200"));
        let (_, _, _, message) = one("\"fast\"");
        assert!(message.starts_with("expected a number, keyframes `[[t, v], …]` or a ramp"), "{message}");
        // three numbers: the count found
        let p = problems("kind = \"dice\"\n[camera]\nposition = { from = [1, 2], to = [1, 2, 3] }\n");
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(
            (p[0].2.as_str(), p[0].3.as_str()),
            ("camera.position.from", "expected an array of 3 numbers for the value the ramp starts from, found 2 numbers")
        );
    }

    #[test]
    fn a_wrong_kind_is_reported_once_not_echoed_by_its_table() {
        let p = problems("kind = \"dices\"\n[dice]\ncount = 3\n");
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].3.contains("unknown scene kind \"dices\"") && p[0].3.contains("did you mean \"dice\"?"), "{p:?}");
        // with no kind, a misspelt table is still one
        let p = problems("[dice]\n[dise]\n");
        assert_eq!(p.iter().map(|p| p.2.as_str()).collect::<Vec<_>>(), ["", "dise"], "{p:?}");
        // a number too large for TOML's integers says so
        let p = problems("kind = \"dice\"\n[camera]\nfar = 99999999999999999999999999\n");
        assert!(p[0].3.contains("an integer past TOML's 64 bits"), "{p:?}");
    }

    #[test]
    fn a_golden_frame_past_the_end_names_the_frame_and_the_last_one() {
        let golden =
            |frames: &str| problems(&format!("kind = \"dice\"\n[golden]\nframes = {frames}\n[golden.tolerance]\nreason = \"r\"\n"));
        let p = golden("[0, 100]");
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!((p[0].1, p[0].3.as_str()), (14, "frame 100 is past the scene's end: its last frame is 59 (60 frames)"));
        assert!(golden("\"0,100\"")[0].3.contains("frame 100 is outside the scene's frames 0..59"));
        assert!(golden("[]")[0].3.starts_with("no frames: name at least one"));
        // negative numbers count from the end in an array as in a spec
        let p = golden("[0, -61]");
        assert!(p.len() == 1 && p[0].3.contains("frame -61 is before the scene's start") && p[0].3.contains("-60 its first"), "{p:?}");
    }

    #[test]
    fn a_golden_frame_array_reads_as_the_same_spec_written_as_a_string() {
        let frames = |frames: &str| {
            let text = format!("kind = \"dice\"\n[golden]\nframes = {frames}\n[golden.tolerance]\nreason = \"r\"\n");
            crate::scene::parse(&text, std::path::Path::new("t.toml")).unwrap().golden.unwrap().frames
        };
        assert_eq!(frames("[0, 30, -1]"), frames("\"0,30,-1\""));
        assert_eq!(frames("[-1, 0, -60, 59]"), vec![0, 59]);
    }

    #[test]
    fn smoothstep_rests_at_both_ends_and_steps_where_its_edges_meet() {
        assert_eq!((smoothstep(1.0, 3.0, 0.0), smoothstep(1.0, 3.0, 2.0), smoothstep(1.0, 3.0, 9.0)), (0.0, 0.5, 1.0));
        assert_eq!(smoothstep(0.0, 1.0, 0.25), 0.25 * 0.25 * (3.0 - 2.0 * 0.25));
        assert_eq!((smoothstep(2.0, 2.0, 1.9), smoothstep(2.0, 2.0, 2.0)), (0.0, 1.0));
        assert_eq!(Ease::Smooth.apply(0.25), smoothstep(0.0, 1.0, 0.25));
    }
}
