//! How close two pictures must be: the per-channel, pixel-count, spatial and perceptual limits.

/// How many pixels may differ. As a tolerance file (`simreel compare --tolerance`) writes it, an
/// integer is a count and a float a share.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PixelBudget {
    Count(u64),
    /// A share of the frame, 0..1.
    Ratio(f64),
}

impl PixelBudget {
    pub fn allows(&self, differing: u64, total: u64) -> bool {
        match *self {
            PixelBudget::Count(n) => differing <= n,
            PixelBudget::Ratio(r) => (differing as f64) <= r * total as f64,
        }
    }

    /// The most pixels of `total` that may differ.
    pub fn limit(&self, total: u64) -> u64 {
        match *self {
            PixelBudget::Count(n) => n,
            PixelBudget::Ratio(r) => (r * total as f64).floor() as u64,
        }
    }

    /// In words: `65 pixels`, `0.1 % of the pixels`.
    pub fn words(&self) -> String {
        match *self {
            PixelBudget::Count(n) => crate::text::count(n, "pixel", "pixels"),
            PixelBudget::Ratio(r) => format!("{} % of the pixels", r * 100.0),
        }
    }
}

/// The layered comparison's limits.
#[derive(Clone, Debug, PartialEq)]
pub struct Tolerance {
    /// A pixel differs when any channel (0..255) differs by more than this.
    pub channel: u8,
    /// How many pixels may differ before the perceptual layer is consulted, not counting those
    /// anti-aliasing explains along an edge (every differing pixel when `channel` is 0).
    pub max_pixels: PixelBudget,
    /// FLIP limits (0..1): the mean and the 99th percentile of the per-pixel error. Zero turns the
    /// perceptual layer off.
    pub flip_mean: f64,
    pub flip_p99: f64,
    /// The spatial layer, which every check applies: a connected region of differing pixels fails
    /// the frame when more than this many of its pixels are beyond what anti-aliasing explains
    /// (see `output::regions`), however few pixels differ in all.
    pub max_region: u32,
    pub reason: String,
}

/// The default of `max_region`: between what people see and what they do not, on Chromium
/// screenshots (square button corners weigh 8 a corner, a 15-px emoji swapped 5; a rounded
/// button moved a third of a pixel 3) and above llvmpipe through GL against lavapipe on the
/// shipped goldens where its pixels are within the budget (2). See `regions`.
pub const DEFAULT_MAX_REGION: u32 = 4;

/// The tolerance `simreel compare` applies unless told otherwise: the shipped scenes' (a pixel
/// differs beyond 2 levels, 0.1 % of the pixels may, no compact region of change).
pub fn default_tolerance() -> Tolerance {
    Tolerance {
        channel: 2,
        max_pixels: PixelBudget::Ratio(0.001),
        flip_mean: 0.0,
        flip_p99: 0.0,
        max_region: DEFAULT_MAX_REGION,
        reason: "simreel compare's default".into(),
    }
}

impl Tolerance {
    /// The limits in words, then the reason: what a report shows as the tolerance used.
    pub fn describe(&self) -> String {
        let flip =
            if self.flip_mean > 0.0 { format!("FLIP mean ≤ {}, p99 ≤ {}", self.flip_mean, self.flip_p99) } else { "FLIP off".into() };
        format!(
            "channel {}, max_pixels {}, max_region {}, {flip} ({})",
            self.channel,
            self.max_pixels.words(),
            self.max_region,
            self.reason
        )
    }
}

impl Default for Tolerance {
    /// [`default_tolerance`].
    fn default() -> Tolerance {
        default_tolerance()
    }
}

/// Tolerance keys a file (`--tolerance`) or flags may set, each optional: those not set keep
/// [`default_tolerance`]'s. The file's keys are those of a scene's `[golden.tolerance]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToleranceKeys {
    pub channel: Option<u8>,
    pub max_pixels: Option<PixelBudget>,
    pub flip_mean: Option<f64>,
    pub flip_p99: Option<f64>,
    pub max_region: Option<u32>,
    pub reason: Option<String>,
}

impl ToleranceKeys {
    /// The keys in the tolerance file `path` ([`ToleranceKeys::parse`]): an error names it.
    pub fn read(path: &std::path::Path) -> Result<ToleranceKeys, crate::Error> {
        let bad = |why: String| crate::Error::BadInput(format!("{}: {why}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read it ({e})")))?;
        ToleranceKeys::parse(&text).map_err(bad)
    }

    /// The keys of a tolerance file: TOML `key = value` lines with a scene's `[golden.tolerance]`
    /// keys (comments and blank lines allowed). An error names the line for a key that is not a
    /// tolerance's, one given twice, a value of the wrong type, or one out of range.
    pub fn parse(text: &str) -> Result<ToleranceKeys, String> {
        let mut keys = ToleranceKeys::default();
        let mut seen = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = strip_comment(line).trim();
            if line.is_empty() {
                continue;
            }
            let at = |why: String| format!("line {}: {why}", n + 1);
            let (key, value) = line.split_once('=').ok_or_else(|| at(format!("`{line}` is not `key = value`")))?;
            let (key, value) = (key.trim(), Value::parse(value.trim()).map_err(at)?);
            if seen.contains(&key) {
                return Err(at(format!("`{key}` is given twice")));
            }
            seen.push(key);
            keys.set(key, value).map_err(at)?;
        }
        Ok(keys)
    }

    fn set(&mut self, key: &str, v: Value) -> Result<(), String> {
        let wrong = |want: &str| format!("`{key} = {}`: {want}", v.text());
        let share = |x: f64| (0.0..=1.0).contains(&x).then_some(x);
        match (key, &v) {
            ("channel", Value::Int(i)) => self.channel = Some(u8::try_from(*i).map_err(|_| wrong("a channel difference from 0 to 255"))?),
            ("max_pixels", Value::Int(i)) => {
                self.max_pixels = Some(PixelBudget::Count(
                    u64::try_from(*i).map_err(|_| wrong("is negative: a count of pixels (an integer) or a share of the image (0 to 1)"))?,
                ))
            }
            ("max_pixels", Value::Float(x)) if *x < 0.0 => {
                return Err(wrong("is negative: a count of pixels (an integer) or a share of the image (0 to 1)"));
            }
            ("max_pixels", Value::Float(x)) => {
                let x = share(*x).ok_or_else(|| wrong("is a share of the image: it must be from 0 to 1 (an integer is a count)"))?;
                self.max_pixels = Some(PixelBudget::Ratio(x))
            }
            ("flip_mean" | "flip_p99", Value::Int(_) | Value::Float(_)) => {
                let x = share(v.number()).ok_or_else(|| wrong("must be from 0 to 1"))?;
                *(if key == "flip_mean" { &mut self.flip_mean } else { &mut self.flip_p99 }) = Some(x);
            }
            ("max_region", Value::Int(i)) => {
                self.max_region = Some(u32::try_from(*i).map_err(|_| wrong("a region weight from 0 to 4294967295"))?)
            }
            ("reason", Value::Text(t)) => self.reason = Some(t.clone()),
            ("channel" | "max_region", _) => return Err(wrong("an integer")),
            ("max_pixels", _) => return Err(wrong("a count of pixels (an integer) or a share of the image (0 to 1)")),
            ("flip_mean" | "flip_p99", _) => return Err(wrong("a number from 0 to 1")),
            ("reason", _) => return Err(wrong("a quoted string")),
            _ => {
                return Err(format!(
                    "unknown key `{key}` (a tolerance's keys: channel, max_pixels, flip_mean, flip_p99, max_region, reason)"
                ));
            }
        }
        Ok(())
    }

    /// `self`'s keys over `base`'s (`over`: the keys set on top, such as flags over a file).
    pub fn over(&self, over: &ToleranceKeys) -> ToleranceKeys {
        ToleranceKeys {
            channel: over.channel.or(self.channel),
            max_pixels: over.max_pixels.or(self.max_pixels),
            flip_mean: over.flip_mean.or(self.flip_mean),
            flip_p99: over.flip_p99.or(self.flip_p99),
            max_region: over.max_region.or(self.max_region),
            reason: over.reason.clone().or_else(|| self.reason.clone()),
        }
    }

    /// The tolerance these keys make of [`default_tolerance`].
    pub fn tolerance(&self) -> Tolerance {
        let d = default_tolerance();
        Tolerance {
            channel: self.channel.unwrap_or(d.channel),
            max_pixels: self.max_pixels.unwrap_or(d.max_pixels),
            flip_mean: self.flip_mean.unwrap_or(d.flip_mean),
            flip_p99: self.flip_p99.unwrap_or(d.flip_p99),
            max_region: self.max_region.unwrap_or(d.max_region),
            reason: self.reason.clone().unwrap_or_else(|| {
                let set = [
                    self.channel.is_some(),
                    self.max_pixels.is_some(),
                    self.flip_mean.is_some(),
                    self.flip_p99.is_some(),
                    self.max_region.is_some(),
                ];
                if set.contains(&true) { "simreel compare's default with the keys given".into() } else { d.reason }
            }),
        }
    }
}

/// `40` (a count), `0.1%` or `0.001` (a share of the image): how `--max-pixels` is given.
pub fn parse_pixel_budget(s: &str) -> Result<PixelBudget, String> {
    let t = s.trim();
    if let Ok(n) = t.parse::<u64>() {
        return Ok(PixelBudget::Count(n));
    }
    let share = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
        None => t.parse::<f64>(),
    }
    .map_err(|_| format!("\"{s}\" is neither a number of pixels (40) nor a share of the image (0.1%, 0.001)"))?;
    if !(0.0..=1.0).contains(&share) {
        return Err(format!("\"{s}\" is not a share of the image: it must be from 0 to 1 (0% to 100%)"));
    }
    Ok(PixelBudget::Ratio(share))
}

/// A number from 0 to 1 (`--flip-mean`, `--flip-p99`).
pub fn parse_unit(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("\"{s}\" is not a number from 0 to 1")),
    }
}

/// A value of a tolerance file.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Int(i64),
    Float(f64),
    Text(String),
}

impl Value {
    fn parse(v: &str) -> Result<Value, String> {
        if let Some(inner) = v.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            return unescape(inner).map(Value::Text);
        }
        if let Some(inner) = v.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
            return Ok(Value::Text(inner.to_string()));
        }
        let digits = v.replace('_', "");
        if let Ok(i) = digits.parse::<i64>() {
            return Ok(Value::Int(i));
        }
        match digits.parse::<f64>() {
            Ok(x) if x.is_finite() && digits.bytes().any(|b| b.is_ascii_digit()) => Ok(Value::Float(x)),
            _ => Err(format!("`{v}` is not a number or a quoted string")),
        }
    }

    fn number(&self) -> f64 {
        match self {
            Value::Int(i) => *i as f64,
            Value::Float(x) => *x,
            Value::Text(_) => f64::NAN,
        }
    }

    fn text(&self) -> String {
        match self {
            Value::Int(i) => i.to_string(),
            Value::Float(x) => x.to_string(),
            Value::Text(t) => format!("{t:?}"),
        }
    }
}

/// A TOML basic string's escapes.
fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        out.push(match (c, c == '\\') {
            (_, false) => c,
            (_, true) => match chars.next() {
                Some('n') => '\n',
                Some('t') => '\t',
                Some('"') => '"',
                Some('\\') => '\\',
                other => return Err(format!("`\\{}` is not an escape a tolerance file takes", other.unwrap_or(' '))),
            },
        });
    }
    Ok(out)
}

/// A line without its `#` comment (a `#` inside quotes is kept).
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (c, quote) {
            ('"' | '\'', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            ('#', None) => return &line[..i],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixel_budgets() {
        assert!(PixelBudget::Count(3).allows(3, 100));
        assert!(!PixelBudget::Count(3).allows(4, 100));
        assert!(PixelBudget::Ratio(0.01).allows(10, 1000));
        assert!(!PixelBudget::Ratio(0.01).allows(11, 1000));
    }

    #[test]
    fn a_tolerance_file_is_read_with_each_mistake_named_by_line() {
        let keys = ToleranceKeys::parse("# for llvmpipe\nchannel = 3\nmax_pixels = 0.002 # a share\nflip_mean = 0\nmax_region = 1_000\nreason = \"one GPU's \\\"rounding\\\" # not a comment\"\n").unwrap();
        assert_eq!(keys.channel, Some(3));
        assert_eq!(keys.max_pixels, Some(PixelBudget::Ratio(0.002)));
        assert_eq!(keys.flip_mean, Some(0.0));
        assert_eq!(keys.max_region, Some(1000));
        assert_eq!(keys.reason.as_deref(), Some("one GPU's \"rounding\" # not a comment"));
        assert_eq!(ToleranceKeys::parse("max_pixels = 65").unwrap().max_pixels, Some(PixelBudget::Count(65)));
        for (text, says) in [
            ("chanel = 3", "line 1: unknown key `chanel`"),
            ("\nchannel = 300", "line 2: `channel = 300`"),
            ("max_pixels = 1.5", "`max_pixels = 1.5`: is a share"),
            ("max_pixels = -2", "is negative"),
            ("flip_p99 = 2", "must be from 0 to 1"),
            ("reason = 3", "a quoted string"),
            ("channel = \"3\"", "an integer"),
            ("channel = 3\nchannel = 4", "line 2: `channel` is given twice"),
            ("channel", "is not `key = value`"),
            ("channel = nan", "is not a number"),
        ] {
            let e = ToleranceKeys::parse(text).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
