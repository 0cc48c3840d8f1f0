//! `simreel compare EXPECTED ACTUAL`: golden checks of anyone's images. Two image files, or two
//! folders whose pictures (PNG of any bit depth with or without alpha, JPEG, WebP) are matched
//! by their path relative to each folder, go through the same comparator as `golden check`
//! ([`super::compare`]) and into the same report (HTML, JUnit, `summary.json`); a file only one
//! side has fails. Accepting copies the actual file over the expected one ([`accept`]), through
//! `simreel golden review --compare` or the printed command.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::compare;
use super::report::{self, Compared, Entry, Report, Subject};
use super::{Accept, GoldenError};
use crate::output::picture;
use crate::output::png::Decoded;
use crate::scene::golden::{DEFAULT_MAX_REGION, PixelBudget, Tolerance};

/// The report's folder under the output folder.
pub const REPORT: &str = "compare-report";

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

/// Tolerance keys a file (`--tolerance`) or flags may set, each optional: those not set keep
/// [`default_tolerance`]'s. The file's keys are those of a scene's `[golden.tolerance]`.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToleranceKeys {
    pub channel: Option<u8>,
    pub max_pixels: Option<PixelBudget>,
    pub flip_mean: Option<f64>,
    pub flip_p99: Option<f64>,
    pub max_region: Option<u32>,
    pub reason: Option<String>,
}

impl ToleranceKeys {
    /// The keys in the TOML file `path`: an error naming it (and the line) for a key that is not a
    /// tolerance's, a value of the wrong type, or one out of range.
    pub fn read(path: &Path) -> Result<ToleranceKeys, GoldenError> {
        let bad = |why: String| GoldenError::BadInput(format!("{}: {why}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read it ({e})")))?;
        let keys: ToleranceKeys = toml::from_str(&text).map_err(|e| bad(e.to_string().trim_end().to_string()))?;
        for (name, v) in [("flip_mean", keys.flip_mean), ("flip_p99", keys.flip_p99)] {
            if v.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
                return Err(bad(format!("`{name}` must be from 0 to 1")));
            }
        }
        if let Some(PixelBudget::Ratio(s)) = keys.max_pixels.filter(|b| matches!(b, PixelBudget::Ratio(s) if !(0.0..=1.0).contains(s))) {
            return Err(bad(if s < 0.0 {
                format!("`max_pixels = {s}` is negative: a count of pixels (an integer) or a share of the image (0 to 1)")
            } else {
                format!("`max_pixels = {s}` is a share of the image: it must be from 0 to 1 (an integer is a count)")
            }));
        }
        Ok(keys)
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
            reason: self.reason.clone().unwrap_or(d.reason),
        }
    }
}

/// One pair to compare: a path relative to the compared folders, its file on each side (where
/// it is, or would be), and which sides have it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    pub path: String,
    pub expected: PathBuf,
    pub actual: PathBuf,
    pub sides: Sides,
}

/// Which of the compared folders have a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sides {
    Both,
    ExpectedOnly,
    ActualOnly,
}

impl Pair {
    fn in_expected(&self) -> bool {
        self.sides != Sides::ActualOnly
    }

    fn in_actual(&self) -> bool {
        self.sides != Sides::ExpectedOnly
    }
}

/// What to compare, how, and where the report goes.
#[derive(Clone, Debug)]
pub struct Plan {
    pub expected: PathBuf,
    pub actual: PathBuf,
    pub tolerance: Tolerance,
    /// The report goes to `out/compare-report/`.
    pub out: PathBuf,
}

impl Plan {
    pub fn report_dir(&self) -> PathBuf {
        self.out.join(REPORT)
    }
}

/// The pairs `expected` and `actual` make: two files are one pair (named by the actual file's
/// name); two folders, every picture under either matched by relative path, sorted; nothing
/// under `skip` (the report's own folder, which may lie inside either) is taken.
pub fn pairs(expected: &Path, actual: &Path, skip: &Path) -> Result<Vec<Pair>, GoldenError> {
    let kind = |p: &Path| match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => Ok(true),
        Ok(_) => Ok(false),
        Err(e) => Err(GoldenError::BadInput(format!("cannot read {}: {e}", p.display()))),
    };
    match (kind(expected)?, kind(actual)?) {
        (false, false) => {
            let name = actual.file_name().unwrap_or(actual.as_os_str()).to_string_lossy().into_owned();
            Ok(vec![Pair { path: name, expected: expected.to_path_buf(), actual: actual.to_path_buf(), sides: Sides::Both }])
        }
        (true, true) => {
            let (e, a) = (pictures(expected, skip)?, pictures(actual, skip)?);
            let mut names: Vec<&String> = e.iter().chain(a.iter()).collect();
            names.sort();
            names.dedup();
            Ok(names
                .into_iter()
                .map(|n| Pair {
                    path: n.clone(),
                    expected: expected.join(n),
                    actual: actual.join(n),
                    sides: match (e.contains(n), a.contains(n)) {
                        (true, false) => Sides::ExpectedOnly,
                        (false, true) => Sides::ActualOnly,
                        _ => Sides::Both,
                    },
                })
                .collect())
        }
        (dir, _) => {
            let (d, f) = if dir { (expected, actual) } else { (actual, expected) };
            Err(GoldenError::BadInput(format!("{} is a folder and {} a file: compare two files or two folders", d.display(), f.display())))
        }
    }
}

/// The pictures under `dir` (any depth), as `/`-separated paths relative to it, sorted.
fn pictures(dir: &Path, skip: &Path) -> Result<std::collections::BTreeSet<String>, GoldenError> {
    let mut found = std::collections::BTreeSet::new();
    for file in files_under(dir, skip)?.into_iter().filter(|f| picture::is_picture(f)) {
        let rel = file.strip_prefix(dir).unwrap_or(&file);
        let parts: Option<Vec<&str>> = rel.iter().map(|c| c.to_str()).collect();
        let Some(parts) = parts else {
            return Err(GoldenError::BadInput(format!("{}: a file name that is not UTF-8", file.display())));
        };
        found.insert(parts.join("/"));
    }
    Ok(found)
}

/// The files under `dir` (any depth; symbolic links followed to files, not to folders, so no
/// loops), leaving out the folder `skip` (absolute).
pub(crate) fn files_under(dir: &Path, skip: &Path) -> Result<Vec<PathBuf>, GoldenError> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(here) = stack.pop() {
        let list = std::fs::read_dir(&here).map_err(|e| GoldenError::BadInput(format!("cannot list {}: {e}", here.display())))?;
        for entry in list.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                if absolute(&path) != skip {
                    stack.push(path);
                }
            } else if path.is_file() {
                found.push(path);
            }
        }
    }
    Ok(found)
}

/// `p` made absolute (from the current folder), without resolving links.
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// A picture's file, read whole.
fn bytes(path: &Path) -> Result<Vec<u8>, GoldenError> {
    std::fs::read(path).map_err(|e| GoldenError::BadInput(format!("cannot read {}: {e}", path.display())))
}

/// Decodes a picture read from `path`: an error naming it when it is not one.
fn decode(path: &Path, bytes: &[u8]) -> Result<Decoded, GoldenError> {
    picture::decode_as(bytes, None).map_err(|e| GoldenError::BadInput(format!("{}: not a picture simreel can read ({e})", path.display())))
}

/// Compares every pair of `plan`, writes the report, returns it. Pairs are compared in parallel
/// on rayon's threads; the report's order does not depend on it.
pub fn compare_all(plan: &Plan) -> Result<Report, GoldenError> {
    // the report folder is replaced whole: it must hold neither side
    let report_dir = absolute(&plan.report_dir());
    for side in [&plan.expected, &plan.actual] {
        if absolute(side).starts_with(&report_dir) {
            return Err(GoldenError::BadInput(format!(
                "{} is inside the report's folder {}, which each comparison replaces: give another --out",
                side.display(),
                plan.report_dir().display()
            )));
        }
    }
    let list = pairs(&plan.expected, &plan.actual, &report_dir)?;
    if list.is_empty() {
        return Err(GoldenError::BadInput(format!(
            "no pictures (PNG, JPEG, WebP) in {} or {}",
            plan.expected.display(),
            plan.actual.display()
        )));
    }
    let entries = list.par_iter().map(|p| entry(p, &plan.tolerance)).collect::<Result<Vec<_>, _>>()?;
    let compared = Compared {
        expected: plan.expected.display().to_string(),
        actual: plan.actual.display().to_string(),
        expected_dir: Some(absolute(&plan.expected).display().to_string()),
        actual_dir: Some(absolute(&plan.actual).display().to_string()),
    };
    let (report, pictures) = Report::with_pictures(&entries, &[], "");
    drop(entries);
    Ok(report::write_report(&plan.report_dir(), Report { compared: Some(compared), ..report }, &pictures)?)
}

/// One pair's report entry. A passed pair keeps only a thumbnail of its image (a report of
/// thousands of large files stays small in memory).
fn entry(p: &Pair, tol: &Tolerance) -> Result<Entry, GoldenError> {
    let read_if = |present: bool, f: &Path| if present { bytes(f).map(Some) } else { Ok(None) };
    let (e_bytes, a_bytes) = rayon::join(|| read_if(p.in_expected(), &p.expected), || read_if(p.in_actual(), &p.actual));
    let (e_bytes, a_bytes) = (e_bytes?, a_bytes?);
    let mut e = Entry {
        subject: Subject::File { path: p.path.clone() },
        passed: false,
        verdict: String::new(),
        comparison: None,
        expected: None,
        // absolute: a review or the studio accepts from wherever it runs
        expected_file: Some(absolute(&p.expected).display().to_string()),
        actual: None,
        actual_file: p.in_actual().then(|| absolute(&p.actual).display().to_string()),
        sha256: report::Hashes {
            expected: e_bytes.as_deref().map(super::trust::sha256),
            actual: a_bytes.as_deref().map(super::trust::sha256),
        },
        state_message: String::new(),
        tolerance_reason: tol.reason.clone(),
        accept: accept_command(p),
    };
    let decode_if = |f: &Path, b: &Option<Vec<u8>>| b.as_deref().map(|b| decode(f, b)).transpose();
    // a file that is not a picture (a Git LFS pointer not pulled, a truncated file) fails its
    // pair, named; the other pairs are still compared and reported
    let unreadable = |mut e: Entry, why: GoldenError| {
        e.verdict = format!("cannot be read: {why}");
        e
    };
    if e_bytes.is_some() && e_bytes == a_bytes {
        // the same file twice: decoded once, compared with itself (every row equal: quick)
        match decode(&p.expected, e_bytes.as_deref().unwrap_or_default()) {
            Ok(img) => passed(&mut e, compare::compare(&img, &img, tol), &img),
            Err(why) => return Ok(unreadable(e, why)),
        }
        return Ok(e);
    }
    let (expected, actual) = rayon::join(|| decode_if(&p.expected, &e_bytes), || decode_if(&p.actual, &a_bytes));
    let (expected, actual) = match (expected, actual) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(why), _) | (_, Err(why)) => return Ok(unreadable(e, why)),
    };
    match (expected, actual) {
        (Some(expected), None) => {
            e.verdict = "only in EXPECTED: ACTUAL has no such file".into();
            e.expected = Some(expected);
        }
        (None, actual) => {
            e.verdict = "only in ACTUAL: EXPECTED has no such file".into();
            e.actual = actual;
        }
        (Some(expected), Some(actual)) if (expected.width, expected.height) != (actual.width, actual.height) => {
            e.verdict = format!(
                "size mismatch: {} is {}×{}, {} is {}×{}",
                p.expected.display(),
                expected.width,
                expected.height,
                p.actual.display(),
                actual.width,
                actual.height
            );
            (e.expected, e.actual) = (Some(expected), Some(actual));
        }
        (Some(expected), Some(actual)) => {
            let c = compare::compare(&expected, &actual, tol);
            if c.verdict.passed() {
                passed(&mut e, c, &actual);
            } else {
                e.verdict = c.describe();
                (e.expected, e.actual, e.comparison) = (Some(expected), Some(actual), Some(c));
            }
        }
    }
    Ok(e)
}

/// `e` passed by `c`: it keeps a thumbnail of `actual` for the report's list, no error map.
fn passed(e: &mut Entry, c: compare::Comparison, actual: &Decoded) {
    let (w, h) = picture::fit(actual.width, actual.height, 160, 90);
    e.passed = true;
    e.verdict = c.describe();
    e.actual = Some(picture::thumbnail(actual, w, h));
    e.comparison = Some(compare::Comparison { flip_map: None, ..c });
}

/// The command that accepts a pair's actual side: copy it over (or into) the expected folder, or
/// remove the expected file that the actual side no longer has.
fn accept_command(p: &Pair) -> Accept {
    let sh = |f: &Path| crate::plan::sh(&f.display().to_string());
    let (e, a) = (sh(&p.expected), sh(&p.actual));
    Accept::Command(match (p.sides, p.expected.parent().filter(|d| !d.as_os_str().is_empty())) {
        (Sides::ExpectedOnly, _) => format!("rm -- {e}"),
        (Sides::ActualOnly, Some(dir)) => format!("mkdir -p -- {} && cp -- {a} {e}", sh(dir)),
        _ => format!("cp -- {a} {e}"),
    })
}

/// Accepts a compared file: `actual` copied over `expected` (written atomically, its folder made),
/// or, with no actual file, `expected` removed. Each side is taken only while it has the content
/// whose SHA-256 the comparison recorded (`actual`'s hash; `expected_sha256` for a removal), and
/// a picture is copied only under a name of its own format. The paths are checked by the caller
/// ([`super::trust::Folders::check`]).
pub fn accept(
    expected: &Path,
    actual: Option<(&Path, &str)>,
    expected_sha256: Option<&str>,
) -> Result<super::review::Accepted, GoldenError> {
    let io = |what: &str, p: &Path, e: std::io::Error| GoldenError::BadInput(format!("cannot {what} {}: {e}", p.display()));
    let changed = |p: &Path| {
        GoldenError::Untrusted(format!(
            "{} is not what was compared (its content changed since, or the report does not say what it was); compare again",
            p.display()
        ))
    };
    match actual {
        Some((a, sha256)) => {
            let bytes = std::fs::read(a).map_err(|e| io("read", a, e))?;
            if super::trust::sha256(&bytes) != sha256 {
                return Err(changed(a));
            }
            let format = image::guess_format(&bytes).map_err(|_| GoldenError::Untrusted(format!("{} is not a picture", a.display())))?;
            let named = image::ImageFormat::from_path(expected).ok();
            if named != Some(format) {
                let name = |f: Option<image::ImageFormat>| f.map_or("no picture format".to_string(), |f| format!("{f:?}").to_uppercase());
                return Err(GoldenError::BadInput(format!(
                    "{} is a {} picture and {} is named as {}: accepting would write one format under the other's name; convert it, or accept by hand",
                    a.display(),
                    name(Some(format)),
                    expected.display(),
                    name(named)
                )));
            }
            if std::fs::read(expected).is_ok_and(|old| old == bytes) {
                return Ok(super::review::Accepted { written: Vec::new(), removed: Vec::new() });
            }
            if let Some(dir) = expected.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| io("make", dir, e))?;
            }
            crate::output::write_atomic(expected, &bytes)?;
            Ok(super::review::Accepted { written: vec![expected.to_path_buf()], removed: Vec::new() })
        }
        None => {
            let now = std::fs::read(expected).map_err(|e| io("read", expected, e))?;
            if expected_sha256 != Some(super::trust::sha256(&now).as_str()) {
                return Err(changed(expected));
            }
            std::fs::remove_file(expected).map_err(|e| io("remove", expected, e))?;
            Ok(super::review::Accepted { written: Vec::new(), removed: vec![expected.to_path_buf()] })
        }
    }
}
