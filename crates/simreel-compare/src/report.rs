//! What a golden check leaves behind in its report folder: for every failing frame the actual and
//! expected images, an error heatmap, a signed difference and an expected | diff | actual strip;
//! `summary.json`; `junit.xml` for CI systems; and `report.html`, one self-contained page (images
//! embedded) with side-by-side, slider and hover-swap views, worst failures first, and the bless
//! command for each; passed frames are listed with a thumbnail.

use std::fmt::Write as _;
use std::path::Path;

mod junit;
mod markdown;
mod page;
mod pictures;

use junit::junit;
use page::html;
pub use pictures::Pictures;

use super::compare::{self, Comparison};
use super::regions::{self, Region};
use crate::Error;
use crate::fs::replace as write_replacing;
use crate::image::{self as picture, Image, encode_png, encode_png_rows};
use crate::text::xml;

/// How a failure is accepted: the command that accepts it, or why nothing can be accepted here.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Accept {
    Command(String),
    NotHere(String),
}

impl Accept {
    /// The command, where there is one.
    pub fn command(&self) -> Option<&str> {
        match self {
            Accept::Command(c) => Some(c),
            Accept::NotHere(_) => None,
        }
    }

    /// As a line for a list of commands to paste: the command, or why not as a shell comment.
    pub fn line(&self) -> String {
        match self {
            Accept::Command(c) => c.clone(),
            Accept::NotHere(why) => format!("# {why}"),
        }
    }
}

/// What a report entry is about: a frame of a scene (`golden check`), or an image file matched
/// by its path (`simreel compare`, pending images of tests).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Subject {
    Frame {
        scene: String,
        frame: u32,
    },
    /// The path relative to the compared folders (the file name for two files).
    File {
        path: String,
    },
}

impl Subject {
    pub fn frame(scene: &str, frame: u32) -> Subject {
        Subject::Frame { scene: scene.to_string(), frame }
    }

    /// The stem of its images in the report folder (`<stem>__actual.png`, `.jpg` for a JPEG kept
    /// as it was, …): a frame's scene and number; a file's path made one name, with a hash of the path so that `a/b.png` and
    /// `a_b.png` never share one.
    pub fn stem(&self) -> String {
        match self {
            Subject::Frame { scene, frame } => format!("{scene}__frame_{frame:04}"),
            Subject::File { path } => {
                // at most 100 characters (a file name has 255 bytes), the path's end kept
                let flat: String = path.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
                let flat = &flat[flat.len().saturating_sub(100)..];
                let hash = path.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
                format!("{flat}__{:08x}", hash as u32)
            }
        }
    }

    /// In short: `terrain:3` (as `--filter` takes it), `renders/title.png`.
    pub fn label(&self) -> String {
        match self {
            Subject::Frame { scene, frame } => format!("{scene}:{frame}"),
            Subject::File { path } => path.clone(),
        }
    }

    /// The JUnit test suite it belongs to: its scene, or the comparison of files.
    fn suite(&self) -> &str {
        match self {
            Subject::Frame { scene, .. } => scene,
            Subject::File { .. } => "compare",
        }
    }

    /// The JUnit test case's name: `frame 0003`, or the file's path.
    fn case(&self) -> String {
        match self {
            Subject::Frame { frame, .. } => format!("frame {frame:04}"),
            Subject::File { path } => path.clone(),
        }
    }
}

/// Two folders (or files) compared by `simreel compare`, as the report names them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Compared {
    pub expected: String,
    pub actual: String,
    /// The two as absolute paths: an accept writes only under what the comparison was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_dir: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual_dir: Option<String>,
}

/// One checked frame or file, as the report shows it.
pub struct Entry {
    pub subject: Subject,
    pub passed: bool,
    /// What happened, in words ("identical", "different", "no golden image"...).
    pub verdict: String,
    pub comparison: Option<Comparison>,
    pub expected: Option<Image>,
    pub expected_file: Option<String>,
    /// What was compared with the expected image (none: a file only the expected side has).
    pub actual: Option<Image>,
    pub actual_file: Option<String>,
    /// What the comparison saw: the SHA-256 of each compared file ([`crate::hash::sha256`]), or
    /// of a check's rendered frame's pixels; an accept copies only that.
    pub sha256: Hashes,
    /// The simulation side: whether its state digest matched the golden one.
    pub state_message: String,
    pub tolerance_reason: String,
    pub accept: Accept,
    /// A side could not be read as a picture (not a failure of the comparison: bad input).
    pub unreadable: bool,
    /// A failed pair's files as they were read and compared: the report embeds and copies these
    /// bytes (a PNG or JPEG as it is), never the file read again (it may have changed since).
    pub bytes: FileBytes,
    /// A golden check's frame: what it was rendered from and on.
    pub rendered: Option<Rendered>,
}

/// The bytes of a compared pair's files, each side where it had one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileBytes {
    pub expected: Option<Vec<u8>>,
    pub actual: Option<Vec<u8>>,
}

/// The SHA-256 of what a comparison compared, each side where it had one.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Hashes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
}

/// What a golden check rendered a frame from and on: an accept on another machine (`simreel
/// golden bless --from-report`) checks it against the scene there before it approves the report's
/// image of the frame.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rendered {
    /// The scene file as the check was given it (relative to where it ran).
    pub scene_file: String,
    /// The approved images' folder the check compared with, as it was given.
    pub goldens: String,
    /// The scene's identity at the checked size (its simulation's and its drawing's hashes).
    pub identity: String,
    /// The frame's simulation-state digest.
    pub state: String,
    /// The adapter it was rendered on, as the renderer describes adapters.
    pub adapter: serde_json::Value,
    /// The simreel that rendered it (version and source hash).
    pub simreel: String,
}

/// Per-scene sequence facts.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SequenceNote {
    pub scene: String,
    pub first_diverging: Option<u32>,
    /// Actual frame-to-frame change over the golden one (1 = same motion), when measurable;
    /// infinite when the golden sequence stands still and the actual one moves.
    #[serde(with = "maybe_infinite")]
    pub flicker: Option<f64>,
    pub flicker_failed: bool,
}

/// `Option<f64>` in JSON with infinity kept (as `"inf"`), which JSON numbers cannot hold.
mod maybe_infinite {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Num {
        Number(f64),
        Text(String),
    }

    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        v.map(|x| if x.is_finite() { Num::Number(x) } else { Num::Text(if x > 0.0 { "inf" } else { "-inf" }.into()) }).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Ok(match Option::<Num>::deserialize(d)? {
            None => None,
            Some(Num::Number(x)) => Some(x),
            Some(Num::Text(t)) => Some(if t.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY }),
        })
    }
}

/// One checked frame as the report files show it, with its part of `report.html` already
/// drawn: what a shard of a golden check leaves in `report.json`, so that `golden merge` writes
/// the report one machine's check would have written.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Record {
    #[serde(flatten)]
    pub subject: Subject,
    pub passed: bool,
    pub verdict: String,
    /// Worst failures first: -1 for a passed frame.
    pub severity: f64,
    pub differing_pixels: Option<u64>,
    pub max_channel_diff: Option<u8>,
    pub mean_abs_diff: Option<f64>,
    pub flip_mean: Option<f64>,
    pub flip_p99: Option<f64>,
    /// Compact regions of change that failed the frame, heaviest first.
    #[serde(default)]
    pub regions: Vec<Region>,
    /// The weight of the heaviest region of change, failing or not.
    #[serde(default)]
    pub heaviest_region: Option<u32>,
    pub expected_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual_file: Option<String>,
    #[serde(default)]
    pub sha256: Hashes,
    pub state: String,
    pub tolerance_reason: String,
    pub accept: Accept,
    /// A side could not be read as a picture.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unreadable: bool,
    pub metrics: String,
    /// The frame's card (failed) or table row (passed) in `report.html`, images embedded.
    pub html: String,
    /// A golden check's frame: what it was rendered from and on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rendered: Option<Rendered>,
}

/// Everything a report's files are written from (a shard's `report.json`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Report {
    pub adapter: String,
    /// Set when a scene rendered on an adapter its goldens were not approved on (which, and
    /// which they were approved on): its failures may be the adapter's, not regressions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_adapter: Option<String>,
    /// What `simreel compare` compared (none for a golden check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compared: Option<Compared>,
    pub records: Vec<Record>,
    pub sequences: Vec<SequenceNote>,
    /// Which shard of a split check wrote it, and of what.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ReportShard>,
}

/// What a shard of a split check was given and took: `golden merge` checks that the shards
/// were one check's (one version, one list of scenes) and dealt every scene once.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReportShard {
    pub index: u32,
    pub count: u32,
    pub simreel: String,
    /// Every scene of the check, as name and scene-file hash, in order.
    pub scenes: Vec<(String, String)>,
    /// The names of the scenes this shard checked.
    pub checked: Vec<String>,
}

impl Report {
    /// The report of checked `entries`.
    pub fn of(entries: &[Entry], sequences: &[SequenceNote], adapter: &str) -> Report {
        Report::with_pictures(entries, sequences, adapter).0
    }

    /// The report of checked `entries`, and the pictures of each failure (encoded once, for its
    /// files and its page), made in parallel.
    pub fn with_pictures(entries: &[Entry], sequences: &[SequenceNote], adapter: &str) -> (Report, Vec<(String, Pictures)>) {
        let pictures: Vec<Option<Pictures>> = crate::par::map(entries, |e| (!e.passed).then(|| Pictures::of(e)));
        let records = entries
            .iter()
            .zip(&pictures)
            .map(|(e, pics)| {
                let c = e.comparison.as_ref();
                Record {
                    subject: e.subject.clone(),
                    passed: e.passed,
                    verdict: e.verdict.clone(),
                    severity: if e.passed { -1.0 } else { c.map_or(100.0, |c| c.severity()) },
                    differing_pixels: c.map(|c| c.differing_pixels),
                    max_channel_diff: c.map(|c| c.max_channel_diff),
                    mean_abs_diff: c.map(|c| c.mean_abs_diff),
                    flip_mean: c.and_then(|c| c.flip_mean),
                    flip_p99: c.and_then(|c| c.flip_p99),
                    regions: c.map(|c| c.regions.clone()).unwrap_or_default(),
                    heaviest_region: c.map(|c| c.heaviest_region),
                    expected_file: e.expected_file.clone(),
                    actual_file: e.actual_file.clone(),
                    sha256: e.sha256.clone(),
                    state: e.state_message.clone(),
                    tolerance_reason: e.tolerance_reason.clone(),
                    accept: e.accept.clone(),
                    unreadable: e.unreadable,
                    metrics: metrics_line(e),
                    html: match pics {
                        Some(p) => failed_card(e, p),
                        None => passed_row(e),
                    },
                    rendered: e.rendered.clone(),
                }
            })
            .collect();
        let pictures = entries.iter().zip(pictures).filter_map(|(e, p)| Some((e.subject.stem(), p?))).collect();
        let mut report = Report {
            adapter: adapter.to_string(),
            other_adapter: None,
            compared: None,
            records,
            sequences: sequences.to_vec(),
            shard: None,
        };
        report.sort();
        (report, pictures)
    }

    /// Several shards' reports as one: the adapters named once each.
    pub fn merged(parts: Vec<Report>) -> Report {
        let mut adapters: Vec<String> = Vec::new();
        let mut others: Vec<String> = Vec::new();
        let mut report =
            Report { adapter: String::new(), other_adapter: None, compared: None, records: Vec::new(), sequences: Vec::new(), shard: None };
        for p in parts {
            if !p.adapter.is_empty() && !adapters.contains(&p.adapter) {
                adapters.push(p.adapter);
            }
            if let Some(o) = p.other_adapter.filter(|o| !others.contains(o)) {
                others.push(o);
            }
            report.records.extend(p.records);
            report.sequences.extend(p.sequences);
        }
        report.adapter = adapters.join("; ");
        report.other_adapter = (!others.is_empty()).then(|| others.join("; "));
        report.sort();
        report
    }

    /// Worst failures first, then by scene and frame (or path); sequences by scene.
    fn sort(&mut self) {
        self.records.sort_by(|a, b| b.severity.total_cmp(&a.severity).then(a.subject.cmp(&b.subject)));
        self.sequences.sort_by(|a, b| a.scene.cmp(&b.scene));
    }

    pub fn failures(&self) -> usize {
        self.records.iter().filter(|r| !r.passed).count() + self.sequences.iter().filter(|s| s.flicker_failed).count()
    }

    /// Writes `summary.json`, `junit.xml` and `report.html` into `dir`, and a shard's
    /// `report.json` (what `golden merge` reads).
    /// `summary.md` (the failures with small pictures, for a CI job's summary) and, for a shard,
    /// `report.json` (what `golden merge` reads). The report's failures' pictures must be in
    /// `dir` already.
    pub fn write_files(&self, dir: &Path) -> Result<(), Error> {
        if self.shard.is_some() {
            crate::fs::atomic(&dir.join("report.json"), &serde_json::to_vec(self).expect("a report serialises"))?;
        }
        let accept = self.accept_from_report(dir);
        let summary = super::summary::Summary { accept_from_report: accept.clone(), ..super::summary::Summary::of(self) };
        write_replacing(&dir.join("summary.json"), summary.to_json().as_bytes())?;
        write_replacing(&dir.join("junit.xml"), junit(self, dir).as_bytes())?;
        write_replacing(&dir.join("summary.md"), markdown::summary(self, dir, accept.as_deref()).as_bytes())?;
        write_replacing(&dir.join("report.html"), html(self, accept.as_deref()).as_bytes())
    }

    /// The one command that accepts, on another machine (where this report folder was
    /// downloaded to `dir`), every failed frame of it that can be accepted: `simreel golden bless
    /// SCENES --from-report DIR`, with the check's `--goldens`. None when there is no such frame.
    pub fn accept_from_report(&self, dir: &Path) -> Option<String> {
        let failed: Vec<&Rendered> =
            self.records.iter().filter(|r| !r.passed && r.accept.command().is_some()).filter_map(|r| r.rendered.as_ref()).collect();
        let mut files: Vec<&str> = failed.iter().map(|r| r.scene_file.as_str()).collect();
        files.sort_unstable();
        files.dedup();
        let goldens = &failed.first()?.goldens;
        let mut c = format!(
            "simreel golden bless {} --from-report {}",
            files.iter().map(|f| crate::text::sh(f)).collect::<Vec<_>>().join(" "),
            crate::text::sh_path(dir)
        );
        if goldens != "tests/golden" {
            let _ = write!(c, " --goldens {}", crate::text::sh(goldens));
        }
        Some(c)
    }
}

/// Largest thumbnail of a passed frame in the report, pixels.
const THUMB: (u32, u32) = (160, 90);

fn data_url(img: &Image) -> String {
    data_url_of(picture::Format::Png, &encode_png(img))
}

fn data_url_of(format: picture::Format, bytes: &[u8]) -> String {
    let mime = if format == picture::Format::Jpeg { "jpeg" } else { "png" };
    crate::hash::base64_after(format!("data:image/{mime};base64,"), bytes)
}

/// Writes the whole report into `dir` (created; files of an earlier report are replaced) and
/// returns it. A shard of a split check says which (`shard`).
pub fn write(
    dir: &Path,
    entries: &[Entry],
    sequences: &[SequenceNote],
    adapter: &str,
    other_adapter: Option<&str>,
    shard: Option<ReportShard>,
) -> Result<Report, Error> {
    let (report, pictures) = Report::with_pictures(entries, sequences, adapter);
    write_report(dir, Report { shard, other_adapter: other_adapter.map(str::to_string), ..report }, &pictures)
}

/// Writes `report` into `dir` (created; files of an earlier report are replaced) with the
/// failures' `pictures`, as [`Report::with_pictures`] made them.
pub fn write_report(dir: &Path, report: Report, pictures: &[(String, Pictures)]) -> Result<Report, Error> {
    crate::fs::remove_stale(dir).map_err(|source| Error::Remove { path: dir.to_path_buf(), source })?;
    crate::fs::Folder::create(dir).map_err(Error::write(dir))?;
    for (stem, pics) in pictures {
        for p in &pics.0 {
            write_replacing(&dir.join(format!("{stem}__{}.{}", p.name, p.extension())), &p.bytes)?;
        }
    }
    report.write_files(dir)?;
    Ok(report)
}

/// The figures beside the verdict (which already names the pixel counts, the first region and the
/// limits that decided): the mean difference, FLIP's statistics where computed, every failing
/// region, or the heaviest region's weight.
fn metrics_line(e: &Entry) -> String {
    match &e.comparison {
        None => e.verdict.clone(),
        Some(c) => {
            let mut s = format!("mean |diff| {:.3}", c.mean_abs_diff);
            if let (Some(m), Some(p)) = (c.flip_mean, c.flip_p99) {
                let _ = write!(s, ", FLIP mean {m:.4}, p99 {p:.4}");
            }
            if !c.regions.is_empty() {
                let each: Vec<String> = c.regions.iter().take(5).map(|r| compare::region_text(r, c.region_limit)).collect();
                let more = if c.regions.len() > 5 { format!(" and {} more", c.regions.len() - 5) } else { String::new() };
                let _ = write!(
                    s,
                    "; {} compact region{} of change beyond anti-aliasing: {}{more}",
                    c.regions.len(),
                    if c.regions.len() == 1 { "" } else { "s" },
                    each.join("; ")
                );
            } else {
                let _ = write!(s, ", heaviest region of change weighs {} (limit {})", c.heaviest_region, c.region_limit);
            }
            s
        }
    }
}

/// Where the failing regions are shown: cyan, which the magma scale of the heatmap never takes.
const REGION_OUTLINE: [u8; 4] = [0, 230, 255, 255];

/// A failed frame's (or file's) card in `report.html`, inside its `<div class="card fail">`,
/// with its `pics` embedded.
fn failed_card(e: &Entry, pics: &Pictures) -> String {
    // room for the embedded pictures at once (base64: 4 bytes for every 3)
    let mut h = String::with_capacity(pics.0.iter().map(|p| p.bytes.len() / 3 * 4 + 64).sum::<usize>() + 4096);
    let _ = writeln!(h, "<h2>{}</h2>", xml(&e.subject.label()));
    let _ = writeln!(h, "<div><b>{}</b>: {}</div><div>{}</div>", xml(&e.verdict), xml(&metrics_line(e)), xml(&e.state_message));
    let _ = writeln!(h, "<div class=\"muted\">tolerance: {}</div>", xml(&e.tolerance_reason));
    match &e.accept {
        Accept::NotHere(why) => _ = writeln!(h, "<div>no image to accept here: {}</div>", xml(why)),
        Accept::Command(c) => _ = writeln!(h, "<div>accept the new image: <code>{}</code></div>", xml(c)),
    }
    match (&e.expected, &e.comparison, &e.actual) {
        (Some(_), Some(c), Some(_)) => {
            let (expected, actual, diff, signed) = (pics.url("expected"), pics.url("actual"), pics.url("diff"), pics.url("signed"));
            let heat = if c.map_is_flip() { "FLIP" } else { "largest channel difference" };
            let _ = writeln!(
                h,
                "<div class=\"views\"><button onclick=\"show(this.closest('.card'),'where')\">where</button><button onclick=\"show(this.closest('.card'),'side')\">side by side</button><button onclick=\"show(this.closest('.card'),'slider')\">slider</button><button onclick=\"show(this.closest('.card'),'hover')\">hover swap</button></div>"
            );
            h.push_str(&where_view(c, &pics.url("marks")));
            let _ = writeln!(
                h,
                "<div class=\"view\" data-view=\"side\"><div class=\"row\"><figure><img class=\"expected\" alt=\"expected\" src=\"{expected}\"><figcaption>expected</figcaption></figure><figure><img class=\"actual\" alt=\"actual\" src=\"{actual}\"><figcaption>actual</figcaption></figure><figure><div class=\"stack\"><img class=\"faded\" alt=\"\" data-from=\"expected\"><img class=\"diff\" alt=\"error\" src=\"{diff}\"></div><figcaption>error ({heat}, magma) over the faded expected picture; failing regions boxed in cyan</figcaption></figure><figure><img alt=\"signed difference\" src=\"{signed}\"><figcaption>signed: red brighter, blue darker</figcaption></figure></div></div>"
            );
            let _ = writeln!(
                h,
                "<div class=\"view\" data-view=\"slider\"><div class=\"slider\"><img alt=\"expected under the slider\" data-from=\"expected\"><img class=\"over\" alt=\"actual over the slider\" data-from=\"actual\"><input class=\"cut\" type=\"range\" min=\"0\" max=\"100\" value=\"50\" style=\"width:100%\"></div><figcaption>left of the cut: actual; right: expected</figcaption></div>"
            );
            let _ = writeln!(
                h,
                "<div class=\"view\" data-view=\"hover\"><img class=\"swap\" alt=\"hover to see the expected image\" data-from=\"actual\"><figcaption>actual; hover for expected</figcaption></div>"
            );
        }
        (Some(exp), None, Some(act)) => {
            // two sizes: side by side, each as it is
            let _ = writeln!(
                h,
                "<div class=\"row\"><figure><img class=\"expected\" alt=\"expected\" src=\"{}\"><figcaption>expected, {}×{}</figcaption></figure><figure><img class=\"actual\" alt=\"actual\" src=\"{}\"><figcaption>actual, {}×{}</figcaption></figure></div>",
                pics.url("expected"),
                exp.width,
                exp.height,
                pics.url("actual"),
                act.width,
                act.height
            );
        }
        (_, _, Some(_)) => {
            let _ = writeln!(
                h,
                "<figure><img alt=\"actual\" src=\"{}\"><figcaption>actual (no approved image)</figcaption></figure>",
                pics.url("actual")
            );
        }
        (Some(_), _, None) => {
            let _ = writeln!(
                h,
                "<figure><img alt=\"expected\" src=\"{}\"><figcaption>expected (nothing to compare it with)</figcaption></figure>",
                pics.url("expected")
            );
        }
        (None, _, None) => {}
    }
    h
}

/// How many failing regions the `where` view zooms into (the boxes number them all).
const ZOOMS: usize = 8;

/// The first view of a failure: the actual picture faded with its changed pixels in red and the
/// failing regions boxed and numbered in place (the `marks` picture at `url` over the actual one,
/// which the page holds once; scaled to the card), then each region magnified: expected |
/// actual | error.
fn where_view(c: &Comparison, url: &str) -> String {
    let (w, h) = (c.width.max(1) as f64, c.height.max(1) as f64);
    let pct = |v: f64, of: f64| format!("{:.3}%", 100.0 * v / of);
    let mut v = String::with_capacity(url.len() + 2048);
    let _ = write!(
        v,
        "<div class=\"view on\" data-view=\"where\"><div class=\"where\"><img class=\"faded\" alt=\"the actual picture, faded\" data-from=\"actual\"><img class=\"marks\" alt=\"where the pictures differ\" src=\"{url}\">"
    );
    for (k, r) in c.regions.iter().enumerate() {
        // the box drawn on the picture lies 2 to 3 pixels outside the region
        let (x, y) = (r.x as f64 - 3.0, r.y as f64 - 3.0);
        let _ = write!(
            v,
            "<span class=\"box\" data-n=\"{n}\" title=\"{t}\" style=\"left:{};top:{};width:{};height:{}\">{n}</span>",
            pct(x, w),
            pct(y, h),
            pct(r.width as f64 + 6.0, w),
            pct(r.height as f64 + 6.0, h),
            n = k + 1,
            t = xml(&compare::region_text(r, c.region_limit)),
        );
    }
    let what = match c.regions.len() {
        0 => "no region fails by itself: the pixel counts decide".to_string(),
        n => format!("{} boxed and numbered", crate::text::count(n as u64, "failing region", "failing regions")),
    };
    let _ = write!(
        v,
        "</div><figcaption>the actual picture, faded; pixels beyond {} levels in red (the further off, the stronger); {what}</figcaption>",
        c.channel_limit
    );
    if !c.regions.is_empty() {
        v.push_str("<div class=\"row zooms\">");
        for (k, r) in c.regions.iter().take(ZOOMS).enumerate() {
            // the region with 6 pixels around it, magnified to about 160 pixels
            let (x0, y0) = (r.x.saturating_sub(6), r.y.saturating_sub(6));
            let (x1, y1) = ((r.x + r.width + 6).min(c.width), (r.y + r.height + 6).min(c.height));
            let (zw, zh) = (x1 - x0, y1 - y0);
            let scale = (160 / zw.max(zh).max(1)).clamp(1, 16);
            let _ = write!(v, "<figure data-n=\"{}\"><div class=\"row\">", k + 1);
            for (which, label) in [("expected", "expected"), ("actual", "actual"), ("diff", "error")] {
                let _ = write!(
                    v,
                    "<div class=\"zoom\" data-bg=\"{which}\" title=\"{label}\" style=\"width:{}px;height:{}px;background-size:{}px {}px;background-position:-{}px -{}px\"></div>",
                    zw * scale,
                    zh * scale,
                    c.width * scale,
                    c.height * scale,
                    x0 * scale,
                    y0 * scale
                );
            }
            let _ = write!(
                v,
                "</div><figcaption>{}: {}; expected | actual | error, ×{scale}</figcaption></figure>",
                k + 1,
                xml(&compare::region_text(r, c.region_limit))
            );
        }
        if c.regions.len() > ZOOMS {
            let _ = write!(v, "<div class=\"muted\">and {} more regions, boxed above</div>", c.regions.len() - ZOOMS);
        }
        v.push_str("</div>");
    }
    v.push_str("</div>\n");
    v
}

/// A passed frame's (or file's) row in `report.html`'s table, with a thumbnail.
fn passed_row(e: &Entry) -> String {
    let thumb = e.actual.as_ref().map(|a| {
        let (tw, th) = picture::fit(a.width, a.height, THUMB.0, THUMB.1);
        // small files: a report lists every checked frame
        let url = data_url(&picture::thumbnail(a, tw, th));
        format!("<img class=\"thumb\" alt=\"{}\" width=\"{tw}\" height=\"{th}\" src=\"{url}\">", xml(&e.subject.label()))
    });
    let (what, which) = match &e.subject {
        Subject::Frame { scene, frame } => (xml(scene), frame.to_string()),
        Subject::File { path } => (xml(path), String::new()),
    };
    format!(
        "<tr><td>{}</td><td>{what}</td><td>{which}</td><td>{}</td><td>{}</td></tr>\n",
        thumb.unwrap_or_default(),
        xml(&e.verdict),
        xml(&e.state_message)
    )
}

#[cfg(test)]
mod tests;
