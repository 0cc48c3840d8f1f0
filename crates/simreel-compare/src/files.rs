//! `simreel compare EXPECTED ACTUAL`: golden checks of anyone's images. Two image files, or two
//! folders whose pictures (PNG of any bit depth with or without alpha, JPEG, WebP) are matched
//! by their path relative to each folder, go through the same comparator as `golden check`
//! ([`super::compare`]) and into the same report (HTML, JUnit, `summary.json`); a file only one
//! side has fails. Accepting copies the actual file over the expected one ([`accept`]), through
//! `simreel golden review --compare` or the printed command.

use std::path::{Path, PathBuf};

use super::compare;
use super::report::{self, Compared, Entry, Report, Subject};
use crate::image::{self as picture, Format, Image};
use crate::tolerance::Tolerance;
use crate::{Accept, Error};

/// The report's folder under the output folder.
pub const REPORT: &str = "compare-report";

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
pub fn pairs(expected: &Path, actual: &Path, skip: &Path) -> Result<Vec<Pair>, Error> {
    let kind = |p: &Path| match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => Ok(true),
        Ok(_) => Ok(false),
        Err(e) => Err(Error::BadInput(format!("cannot read {}: {e}", p.display()))),
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
            Err(Error::BadInput(format!("{} is a folder and {} a file: compare two files or two folders", d.display(), f.display())))
        }
    }
}

/// The pictures under `dir` (any depth), as `/`-separated paths relative to it, sorted.
fn pictures(dir: &Path, skip: &Path) -> Result<std::collections::BTreeSet<String>, Error> {
    let mut found = std::collections::BTreeSet::new();
    for file in files_under(dir, skip)?.into_iter().filter(|f| picture::is_picture(f)) {
        let rel = file.strip_prefix(dir).unwrap_or(&file);
        let parts: Option<Vec<&str>> = rel.iter().map(|c| c.to_str()).collect();
        let Some(parts) = parts else {
            return Err(Error::BadInput(format!("{}: a file name that is not UTF-8", file.display())));
        };
        found.insert(parts.join("/"));
    }
    Ok(found)
}

/// The files under `dir` (any depth; symbolic links followed to files, not to folders, so no
/// loops, and only links of this user's or root's: one another user planted in a shared folder
/// is left out), leaving out the folder `skip` (absolute).
pub(crate) fn files_under(dir: &Path, skip: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(here) = stack.pop() {
        let list = std::fs::read_dir(&here).map_err(|e| Error::BadInput(format!("cannot list {}: {e}", here.display())))?;
        for entry in list.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                if absolute(&path) != skip {
                    stack.push(path);
                }
            } else if path.is_file() && (!entry.file_type().is_ok_and(|t| t.is_symlink()) || crate::fs::trusted_link(&path)) {
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

/// A picture's file, read whole (through no link of another user's; never a FIFO).
fn bytes(path: &Path) -> Result<Vec<u8>, Error> {
    crate::fs::read_trusted(path).map_err(|e| Error::BadInput(format!("cannot read {}: {e}", path.display())))
}

/// Decodes a picture read from `path`: an error naming it when it is not one.
fn decode(path: &Path, bytes: &[u8]) -> Result<Image, Error> {
    picture::decode(bytes).map_err(|e| Error::BadInput(format!("{}: {e}", path.display())))
}

/// Compares every pair of `plan`, writes the report, returns it. Pairs are compared in parallel
/// on [`crate::par`]'s threads; the report's order does not depend on it.
pub fn compare_all(plan: &Plan) -> Result<Report, Error> {
    // the report folder is replaced whole: it must hold neither side
    let report_dir = absolute(&plan.report_dir());
    for side in [&plan.expected, &plan.actual] {
        if absolute(side).starts_with(&report_dir) {
            return Err(Error::BadInput(format!(
                "{} is inside the report's folder {}, which each comparison replaces: give another --out",
                side.display(),
                plan.report_dir().display()
            )));
        }
    }
    let list = pairs(&plan.expected, &plan.actual, &report_dir)?;
    if list.is_empty() {
        return Err(Error::BadInput(format!(
            "no pictures (PNG, JPEG, WebP, BMP, TIFF) in {} or {}",
            plan.expected.display(),
            plan.actual.display()
        )));
    }
    let entries = crate::par::map(&list, |p| entry(p, &plan.tolerance)).into_iter().collect::<Result<Vec<_>, _>>()?;
    let compared = Compared {
        expected: plan.expected.display().to_string(),
        actual: plan.actual.display().to_string(),
        expected_dir: Some(absolute(&plan.expected).display().to_string()),
        actual_dir: Some(absolute(&plan.actual).display().to_string()),
    };
    let (report, pictures) = Report::with_pictures(&entries, &[], "");
    drop(entries);
    report::write_report(&plan.report_dir(), Report { compared: Some(compared), ..report }, &pictures)
}

/// What a command that compares prints and returns: a line per pair (unless `quiet`), the
/// outcome, and [`Error::Differ`] (exit 4) when any pair failed, naming the report and the
/// command that reviews it (`review`, such as `simreel-compare review`).
pub fn run(plan: &Plan, quiet: bool, review: &str) -> Result<Report, Error> {
    let report = compare_all(plan)?;
    if !quiet {
        let mut records: Vec<_> = report.records.iter().collect();
        records.sort_by(|a, b| a.subject.cmp(&b.subject));
        for r in records {
            let status = if r.passed {
                "pass"
            } else if r.unreadable {
                "UNREADABLE"
            } else {
                "FAIL"
            };
            eprintln!("{status} {}: {}", r.subject.label(), r.verdict);
        }
    }
    let html = plan.report_dir().join("report.html").display().to_string();
    let unreadable: Vec<&str> = report.records.iter().filter(|r| r.unreadable).map(|r| r.verdict.as_str()).collect();
    if !unreadable.is_empty() {
        let differ = report.records.iter().filter(|r| !r.passed && !r.unreadable).count();
        return Err(Error::BadInput(format!(
            "{} of {} cannot be read ({}){}; report: {html}",
            unreadable.len(),
            crate::text::count(report.records.len() as u64, "compared file", "compared files"),
            unreadable.join("; "),
            if differ > 0 { format!("; {differ} more differ") } else { String::new() }
        )));
    }
    let failed = report.failures();
    if failed > 0 {
        let out = if plan.out.as_path() == Path::new(DEFAULT_OUT) {
            String::new()
        } else {
            format!(" --out {}", crate::text::sh_path(&plan.out))
        };
        return Err(Error::Differ { failed, compared: report.records.len(), report: html, review: format!("{review}{out}") });
    }
    if !quiet {
        let n = report.records.len();
        let all = if n == 1 { "the 1 compared image matches".to_string() } else { format!("all {n} compared images match") };
        eprintln!("{all}; report: {html}");
    }
    Ok(report)
}

/// The largest picture of a size mismatch decoded to be shown in the report (16 megapixels):
/// beyond it the mismatch is said from the headers alone, in no time and no memory.
const SHOWN_MISMATCH_PIXELS: u64 = 16_000_000;

/// Where reports go unless `--out` says otherwise.
pub const DEFAULT_OUT: &str = "out";

/// One pair's report entry. A passed pair keeps only a thumbnail of its image (a report of
/// thousands of large files stays small in memory).
fn entry(p: &Pair, tol: &Tolerance) -> Result<Entry, Error> {
    let read_if = |present: bool, f: &Path| if present { bytes(f).map(Some) } else { Ok(None) };
    let (e_bytes, a_bytes) = crate::par::join(|| read_if(p.in_expected(), &p.expected), || read_if(p.in_actual(), &p.actual));
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
        tolerance_reason: tol.describe(),
        unreadable: false,
        accept: accept_command(p),
        bytes: Default::default(),
        rendered: None,
    };
    let decode_if = |f: &Path, b: &Option<Vec<u8>>| b.as_deref().map(|b| decode(f, b)).transpose();
    // a file that is not a picture (a Git LFS pointer not pulled, a truncated file) fails its
    // pair, named; the other pairs are still compared and reported
    let unreadable = |mut e: Entry, why: Error| {
        e.verdict = format!("cannot be read: {why}");
        e.unreadable = true;
        e.accept = Accept::NotHere("a file that cannot be read is not accepted: replace it with a picture, or remove it".into());
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
    // the headers first: pictures of two sizes are a mismatch at once, nothing decoded where
    // one is large (or larger than the comparator reads: the sizes are enough to fail the pair)
    let head = |b: &Option<Vec<u8>>| b.as_deref().and_then(picture::header::read);
    let heads = [head(&e_bytes), head(&a_bytes)];
    if let [Some(he), Some(ha)] = heads
        && (he.width, he.height) != (ha.width, ha.height)
        && he.pixels().max(ha.pixels()) > SHOWN_MISMATCH_PIXELS.min(picture::header::pixel_cap())
    {
        let over =
            |h: &picture::header::Header| if picture::header::check_cap(h).is_err() { ", more than the comparator reads" } else { "" };
        e.verdict = format!(
            "size mismatch: {} is {}×{}{}, {} is {}×{}{} (read from their headers; too large to be shown)",
            p.expected.display(),
            he.width,
            he.height,
            over(&he),
            p.actual.display(),
            ha.width,
            ha.height,
            over(&ha)
        );
        e.bytes = report::FileBytes { expected: e_bytes, actual: a_bytes };
        return Ok(e);
    }
    let (expected, actual) = crate::par::join(|| decode_if(&p.expected, &e_bytes), || decode_if(&p.actual, &a_bytes));
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
    // an animated PNG is compared on its first frame (its default image), as every comparator
    // does: said, so that a change in a later frame is not taken for checked
    let animated: Vec<String> = [&p.expected, &p.actual]
        .into_iter()
        .zip(heads)
        .filter(|(_, h)| h.is_some_and(|h| h.animated))
        .map(|(path, _)| path.display().to_string())
        .collect();
    if !animated.is_empty() {
        e.verdict.push_str(&format!(" ({} an animated PNG: its first frame compared)", animated.join(" and ")));
    }
    if !e.passed {
        e.bytes = report::FileBytes { expected: e_bytes, actual: a_bytes };
    }
    Ok(e)
}

/// `e` passed by `c`: it keeps a thumbnail of `actual` for the report's list, no error map.
fn passed(e: &mut Entry, c: compare::Comparison, actual: &Image) {
    let (w, h) = picture::fit(actual.width, actual.height, 160, 90);
    e.passed = true;
    e.verdict = c.describe();
    e.actual = Some(picture::thumbnail(actual, w, h));
    e.comparison = Some(compare::Comparison { error_map: None, ..c });
}

/// What accepting a failure wrote (or removed).
#[derive(Debug)]
pub struct Accepted {
    pub written: Vec<std::path::PathBuf>,
    pub removed: Vec<std::path::PathBuf>,
}

/// The command that accepts a pair's actual side: copy it over (or into) the expected folder, or
/// remove the expected file that the actual side no longer has.
pub(crate) fn accept_command(p: &Pair) -> Accept {
    let sh = crate::text::sh_path;
    let (e, a) = (sh(&p.expected), sh(&p.actual));
    if let (Sides::Both | Sides::ActualOnly, Some(named), Some(is)) = (p.sides, Format::of_name(&p.expected), Format::of_name(&p.actual))
        && named != is
    {
        return Accept::NotHere(format!(
            "{} is a {} and {} a {}: copying would put one format under the other's name; convert it to {} first",
            p.actual.display(),
            is.name(),
            p.expected.display(),
            named.name(),
            named.name()
        ));
    }
    Accept::Command(match (p.sides, p.expected.parent().filter(|d| !d.as_os_str().is_empty())) {
        (Sides::ExpectedOnly, _) => format!("rm -- {e}"),
        (Sides::ActualOnly, Some(dir)) => format!("mkdir -p -- {} && cp -- {a} {e}", sh(dir)),
        _ => format!("cp -- {a} {e}"),
    })
}

/// Accepts a compared file: `actual` copied over `expected` (written atomically, its folder made),
/// or, with no actual file, `expected` removed. Both sides are taken only while they have the
/// content whose SHA-256 the comparison recorded (`actual`'s hash; `expected_sha256`, or none: no
/// expected file then, and none now), read through the folder handles that are then written,
/// and a picture is copied only under a name of its own format. The paths are checked by the
/// caller ([`super::trust::Folders::check`]).
pub fn accept(expected: &Path, actual: Option<(&Path, &str)>, expected_sha256: Option<&str>) -> Result<Accepted, Error> {
    let io = |what: &str, p: &Path, e: std::io::Error| Error::BadInput(format!("cannot {what} {}: {e}", p.display()));
    let changed = |p: &Path| {
        Error::Untrusted(format!(
            "{} is not what was compared (its content changed since, or the report does not say what it was); compare again",
            p.display()
        ))
    };
    match actual {
        Some((a, sha256)) => {
            let bytes = crate::fs::read_plain(a).map_err(|e| io("read", a, e))?;
            if super::trust::sha256(&bytes) != sha256 {
                return Err(changed(a));
            }
            let format = Format::sniff(&bytes).ok_or_else(|| Error::Untrusted(format!("{} is not a picture", a.display())))?;
            let named = Format::of_name(expected);
            if named != Some(format) {
                let name = |f: Option<Format>| f.map_or("no picture format", Format::name);
                return Err(Error::BadInput(format!(
                    "{} is a {} picture and {} is named as {}: accepting would write one format under the other's name; convert it, or accept by hand",
                    a.display(),
                    name(Some(format)),
                    expected.display(),
                    name(named)
                )));
            }
            let (dir, name) = crate::fs::split(expected).map_err(|e| io("write", expected, e))?;
            let folder = crate::fs::Folder::create(dir).map_err(|e| io("write", expected, e))?;
            let now = match folder.read(name) {
                Ok(b) => Some(b),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(io("read", expected, e)),
            };
            if now.as_deref().map(super::trust::sha256).as_deref() != expected_sha256 {
                return Err(changed(expected));
            }
            if now.as_deref() == Some(&bytes[..]) {
                return Ok(Accepted { written: Vec::new(), removed: Vec::new() });
            }
            folder.write(name, &bytes, true).map_err(crate::Error::write(expected))?;
            Ok(Accepted { written: vec![expected.to_path_buf()], removed: Vec::new() })
        }
        None => {
            let (dir, name) = crate::fs::split(expected).map_err(|e| io("remove", expected, e))?;
            let folder = crate::fs::Folder::open(dir).map_err(|e| io("remove", expected, e))?;
            let now = folder.read(name).map_err(|e| io("read", expected, e))?;
            if expected_sha256 != Some(super::trust::sha256(&now).as_str()) {
                return Err(changed(expected));
            }
            folder.remove(name).map_err(|e| io("remove", expected, e))?;
            Ok(Accepted { written: Vec::new(), removed: vec![expected.to_path_buf()] })
        }
    }
}
