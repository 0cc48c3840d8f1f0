//! What a golden check leaves behind in its report folder: for every failing frame the actual and
//! expected images, an error heatmap, a signed difference and an expected | diff | actual strip;
//! `summary.json`; `junit.xml` for CI systems; and `report.html`, one self-contained page (images
//! embedded) with side-by-side, slider and hover-swap views, worst failures first, and the bless
//! command for each; passed frames are listed with a thumbnail.

use std::fmt::Write as _;
use std::path::Path;

use base64::Engine as _;

use super::compare::{self, Comparison};
use super::regions::{self, Region};
use crate::output::png::{self, Decoded, Effort};
use crate::output::{OutputError, picture, write_atomic};

/// One checked frame, as the report shows it.
pub struct Entry {
    pub scene: String,
    pub frame: u32,
    pub passed: bool,
    /// What happened, in words ("identical", "different", "no golden image"...).
    pub verdict: String,
    pub comparison: Option<Comparison>,
    pub expected: Option<Decoded>,
    pub expected_file: Option<String>,
    pub actual: Decoded,
    /// The simulation side: whether its state digest matched the golden one.
    pub state_message: String,
    pub tolerance_reason: String,
    pub accept: super::Accept,
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
    pub scene: String,
    pub frame: u32,
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
    pub state: String,
    pub tolerance_reason: String,
    pub accept: super::Accept,
    pub metrics: String,
    /// The frame's card (failed) or table row (passed) in `report.html`, images embedded.
    pub html: String,
}

/// Everything a report's files are written from (a shard's `report.json`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Report {
    pub adapter: String,
    /// Set when a scene rendered on an adapter its goldens were not approved on (which, and
    /// which they were approved on): its failures may be the adapter's, not regressions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_adapter: Option<String>,
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
        let records = entries
            .iter()
            .map(|e| {
                let c = e.comparison.as_ref();
                Record {
                    scene: e.scene.clone(),
                    frame: e.frame,
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
                    state: e.state_message.clone(),
                    tolerance_reason: e.tolerance_reason.clone(),
                    accept: e.accept.clone(),
                    metrics: metrics_line(e),
                    html: if e.passed { passed_row(e) } else { failed_card(e) },
                }
            })
            .collect();
        let mut report = Report { adapter: adapter.to_string(), other_adapter: None, records, sequences: sequences.to_vec(), shard: None };
        report.sort();
        report
    }

    /// Several shards' reports as one: the adapters named once each.
    pub fn merged(parts: Vec<Report>) -> Report {
        let mut adapters: Vec<String> = Vec::new();
        let mut others: Vec<String> = Vec::new();
        let mut report = Report { adapter: String::new(), other_adapter: None, records: Vec::new(), sequences: Vec::new(), shard: None };
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

    /// Worst failures first, then by scene and frame; sequences by scene.
    fn sort(&mut self) {
        self.records.sort_by(|a, b| b.severity.total_cmp(&a.severity).then(a.scene.cmp(&b.scene)).then(a.frame.cmp(&b.frame)));
        self.sequences.sort_by(|a, b| a.scene.cmp(&b.scene));
    }

    pub fn failures(&self) -> usize {
        self.records.iter().filter(|r| !r.passed).count() + self.sequences.iter().filter(|s| s.flicker_failed).count()
    }

    /// Writes `summary.json`, `junit.xml` and `report.html` into `dir`, and a shard's
    /// `report.json` (what `golden merge` reads).
    pub fn write_files(&self, dir: &Path) -> Result<(), OutputError> {
        if self.shard.is_some() {
            write_atomic(&dir.join("report.json"), &serde_json::to_vec(self).expect("a report serialises"))?;
        }
        write_atomic(&dir.join("summary.json"), super::summary::Summary::of(self).to_json().as_bytes())?;
        write_atomic(&dir.join("junit.xml"), junit(self).as_bytes())?;
        write_atomic(&dir.join("report.html"), html(self).as_bytes())
    }
}

/// Largest thumbnail of a passed frame in the report, pixels.
const THUMB: (u32, u32) = (160, 90);

fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn data_url(img: &Decoded) -> String {
    data_url_with(img, Effort::Fast)
}

fn data_url_with(img: &Decoded, effort: Effort) -> String {
    let bytes = png::encode(&img.rgba, img.width, img.height, effort);
    format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(bytes))
}

pub(super) fn stem_of(scene: &str, frame: u32) -> String {
    format!("{scene}__frame_{frame:04}")
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
) -> Result<Report, OutputError> {
    crate::output::remove_stale(dir)?;
    std::fs::create_dir_all(dir).map_err(|source| OutputError::Write { path: dir.to_path_buf(), source })?;
    for e in entries.iter().filter(|e| !e.passed) {
        let s = stem_of(&e.scene, e.frame);
        let save = |name: &str, img: &Decoded| {
            write_atomic(&dir.join(format!("{s}__{name}.png")), &png::encode(&img.rgba, img.width, img.height, Effort::Fast))
        };
        save("actual", &e.actual)?;
        if let (Some(exp), Some(c)) = (&e.expected, &e.comparison) {
            save("expected", exp)?;
            let heat = marked_heatmap(c);
            save("diff", &heat)?;
            save("signed", &compare::signed_diff(exp, &e.actual))?;
            let (pe, pa) = (compare::pad(exp, c.width, c.height), compare::pad(&e.actual, c.width, c.height));
            save("panel", &compare::strip(&[&pe, &heat, &pa]))?;
        }
    }
    let report = Report { shard, other_adapter: other_adapter.map(str::to_string), ..Report::of(entries, sequences, adapter) };
    report.write_files(dir)?;
    Ok(report)
}

fn junit(report: &Report) -> String {
    let mut scenes: Vec<&str> = report.records.iter().map(|r| r.scene.as_str()).collect();
    scenes.sort();
    scenes.dedup();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"simreel golden\">\n");
    for scene in scenes {
        let mut cases: Vec<&Record> = report.records.iter().filter(|r| r.scene == scene).collect();
        let seq = report.sequences.iter().find(|s| s.scene == scene);
        let flicker_case = seq.is_some_and(|s| s.flicker.is_some());
        let failures = cases.iter().filter(|r| !r.passed).count() + seq.is_some_and(|s| s.flicker_failed) as usize;
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\">",
            xml(scene),
            cases.len() + flicker_case as usize
        );
        cases.sort_by_key(|r| r.frame);
        for r in cases {
            let _ = write!(out, "    <testcase classname=\"golden.{}\" name=\"frame {:04}\"", xml(scene), r.frame);
            if r.passed {
                out.push_str("/>\n");
            } else {
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{}\">{}\n{}\nbless: {}</failure>\n    </testcase>",
                    xml(&r.verdict),
                    xml(&r.metrics),
                    xml(&r.state),
                    xml(&r.accept.line())
                );
            }
        }
        if let Some(s) = seq.filter(|s| s.flicker.is_some()) {
            let _ = write!(out, "    <testcase classname=\"golden.{}\" name=\"flicker\"", xml(scene));
            if s.flicker_failed {
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"flicker {:.2}× the golden sequence\"/>\n    </testcase>",
                    s.flicker.unwrap_or(0.0)
                );
            } else {
                out.push_str("/>\n");
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn metrics_line(e: &Entry) -> String {
    match &e.comparison {
        None => e.verdict.clone(),
        Some(c) => {
            let mut s = format!(
                "{} pixels beyond the channel threshold (max channel difference {}), mean |diff| {:.3}",
                c.differing_pixels, c.max_channel_diff, c.mean_abs_diff
            );
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

const STYLE: &str = r#"
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; background: #f6f7f9; color: #1d2026; }
h1 { font-size: 20px; margin: 0 0 4px; } .muted { color: #667; }
.warn { background: #fff4d6; border: 1px solid #e8c35a; border-radius: 6px; padding: 8px 12px; }
.card { background: #fff; border: 1px solid #dde; border-radius: 8px; padding: 16px; margin: 16px 0; }
.card.fail { border-left: 6px solid #d23; } .card.pass { border-left: 6px solid #2a4; }
.row { display: flex; gap: 12px; flex-wrap: wrap; align-items: flex-start; }
figure { margin: 0; } figcaption { font-size: 12px; color: #556; }
img { image-rendering: pixelated; display: block; } img.thumb { image-rendering: auto; }
code { background: #eef; padding: 2px 6px; border-radius: 4px; user-select: all; }
.slider { position: relative; display: inline-block; }
.slider .over { position: absolute; left: 0; top: 0; }
.views button { margin-right: 6px; } .view { display: none; } .view.on { display: block; }
table { border-collapse: collapse; } td, th { padding: 4px 10px; border-bottom: 1px solid #e4e6ea; text-align: left; }
"#;

const SCRIPT: &str = r#"
function setSlider(input) {
  var over = input.parentElement.querySelector('.over');
  var v = Number(input.value);
  over.style.clipPath = 'inset(0 ' + (100 - v) + '% 0 0)';
  over.dataset.shown = String(v);
}
function show(card, name) {
  card.querySelectorAll('.view').forEach(function (v) { v.classList.toggle('on', v.dataset.view === name); });
}
document.querySelectorAll('input.cut').forEach(function (i) {
  i.addEventListener('input', function () { setSlider(i); });
  setSlider(i);
});
document.querySelectorAll('img.swap').forEach(function (img) {
  img.addEventListener('mouseenter', function () { img.src = img.dataset.expected; img.dataset.shown = 'expected'; });
  img.addEventListener('mouseleave', function () { img.src = img.dataset.actual; img.dataset.shown = 'actual'; });
});
// #slider=N sets every slider (for screenshots); #selftest checks the page in a real browser and
// writes the outcome into <pre id="selftest"> (used by the project's own browser test).
(function () {
  var m = /slider=(\d+)/.exec(location.hash);
  if (m) { document.querySelectorAll('.card').forEach(function (c) { show(c, 'slider'); });
    document.querySelectorAll('input.cut').forEach(function (i) { i.value = m[1]; setSlider(i); }); }
  if (location.hash.indexOf('selftest') < 0) return;
  window.addEventListener('load', selftest);
})();
function selftest() {
  var out = [];
  var imgs = Array.prototype.slice.call(document.images);
  var broken = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); });
  out.push('images ' + imgs.length + ' broken ' + broken.length);
  var input = document.querySelector('input.cut');
  if (input) {
    var card = input.closest('.card'); show(card, 'slider');
    var over = input.parentElement.querySelector('.over');
    input.value = 20; input.dispatchEvent(new Event('input'));
    var w20 = over.getBoundingClientRect().width, c20 = getComputedStyle(over).clipPath;
    input.value = 80; input.dispatchEvent(new Event('input'));
    var c80 = getComputedStyle(over).clipPath;
    out.push('slider ' + (c20 !== c80 ? 'moves' : 'stuck') + ' [' + c20 + '] [' + c80 + '] width ' + Math.round(w20));
  } else { out.push('slider none'); }
  var swap = document.querySelector('img.swap');
  if (swap) {
    var before = swap.src; swap.dispatchEvent(new Event('mouseenter'));
    var during = swap.src; swap.dispatchEvent(new Event('mouseleave'));
    out.push('hover ' + (before !== during && swap.src === before ? 'swaps' : 'stuck'));
  }
  var pre = document.getElementById('selftest'); pre.textContent = out.join('\n');
}
"#;

/// Where the failing regions are shown: cyan, which the magma scale of the heatmap never takes.
const REGION_OUTLINE: [u8; 4] = [0, 230, 255, 255];

/// The error heatmap with a box around each failing region.
fn marked_heatmap(c: &Comparison) -> Decoded {
    regions::outline(&compare::heatmap(c), &c.regions, REGION_OUTLINE)
}

/// A failed frame's card in `report.html`, inside its `<div class="card fail">`.
fn failed_card(e: &Entry) -> String {
    let mut h = String::new();
    let actual = data_url(&e.actual);
    let _ = writeln!(h, "<h2>{} — frame {}</h2>", xml(&e.scene), e.frame);
    let _ = writeln!(h, "<div><b>{}</b>: {}</div><div>{}</div>", xml(&e.verdict), xml(&metrics_line(e)), xml(&e.state_message));
    let _ = writeln!(h, "<div class=\"muted\">tolerance: {}</div>", xml(&e.tolerance_reason));
    match &e.accept {
        super::Accept::NotHere(why) => _ = writeln!(h, "<div>no image to accept here: {}</div>", xml(why)),
        super::Accept::Command(c) => _ = writeln!(h, "<div>accept the new image: <code>{}</code></div>", xml(c)),
    }
    match (&e.expected, &e.comparison) {
        (Some(exp), Some(c)) => {
            let expected = data_url(exp);
            let diff = data_url(&marked_heatmap(c));
            let signed = data_url(&compare::signed_diff(exp, &e.actual));
            let _ = writeln!(
                h,
                "<div class=\"views\"><button onclick=\"show(this.closest('.card'),'side')\">side by side</button><button onclick=\"show(this.closest('.card'),'slider')\">slider</button><button onclick=\"show(this.closest('.card'),'hover')\">hover swap</button></div>"
            );
            let _ = writeln!(
                h,
                "<div class=\"view on\" data-view=\"side\"><div class=\"row\"><figure><img alt=\"expected\" src=\"{expected}\"><figcaption>expected</figcaption></figure><figure><img alt=\"actual\" src=\"{actual}\"><figcaption>actual</figcaption></figure><figure><img alt=\"FLIP error\" src=\"{diff}\"><figcaption>error (FLIP, magma); failing regions boxed in cyan</figcaption></figure><figure><img alt=\"signed difference\" src=\"{signed}\"><figcaption>signed: red brighter, blue darker</figcaption></figure></div></div>"
            );
            let _ = writeln!(
                h,
                "<div class=\"view\" data-view=\"slider\"><div class=\"slider\"><img alt=\"expected under the slider\" src=\"{expected}\"><img class=\"over\" alt=\"actual over the slider\" src=\"{actual}\"><input class=\"cut\" type=\"range\" min=\"0\" max=\"100\" value=\"50\" style=\"width:100%\"></div><figcaption>left of the cut: actual; right: expected</figcaption></div>"
            );
            let _ = writeln!(
                h,
                "<div class=\"view\" data-view=\"hover\"><img class=\"swap\" alt=\"hover to see the expected image\" src=\"{actual}\" data-actual=\"{actual}\" data-expected=\"{expected}\"><figcaption>actual; hover for expected</figcaption></div>"
            );
        }
        _ => {
            let _ =
                writeln!(h, "<figure><img alt=\"actual\" src=\"{actual}\"><figcaption>actual (no approved image)</figcaption></figure>");
        }
    }
    h
}

/// A passed frame's row in `report.html`'s table, with a thumbnail.
fn passed_row(e: &Entry) -> String {
    let (tw, th) = picture::fit(e.actual.width, e.actual.height, THUMB.0, THUMB.1);
    format!(
        "<tr><td><img class=\"thumb\" alt=\"frame {}\" width=\"{tw}\" height=\"{th}\" src=\"{}\"></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        e.frame,
        // small files: a report lists every checked frame
        data_url_with(&picture::resize(&e.actual, tw, th), Effort::Small),
        xml(&e.scene),
        e.frame,
        xml(&e.verdict),
        xml(&e.state_message)
    )
}

fn html(report: &Report) -> String {
    let failed: Vec<&Record> = report.records.iter().filter(|r| !r.passed).collect();
    let total = report.records.len();
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>simreel golden report: {} of {total} failed</title><style>{STYLE}</style></head><body>\n",
        failed.len()
    );
    let _ = writeln!(
        h,
        "<h1>Golden check: {} of {} failed</h1><div class=\"muted\">adapter: {}</div>",
        failed.len(),
        crate::text::count(total as u64, "frame", "frames"),
        xml(&report.adapter)
    );
    if let Some(o) = &report.other_adapter {
        let _ = writeln!(
            h,
            "<p class=\"warn\"><b>Other adapter:</b> {}. Failures here may be that adapter's way of drawing, not regressions: check on the approving adapter before blessing.</p>",
            xml(o)
        );
    }
    for s in &report.sequences {
        let mut parts = Vec::new();
        if let Some(f) = s.first_diverging {
            parts.push(format!("first diverging frame <b>{f}</b>"));
        }
        if let Some(r) = s.flicker {
            parts.push(format!("flicker {r:.2}× the golden sequence{}", if s.flicker_failed { " (<b>too much</b>)" } else { "" }));
        }
        if !parts.is_empty() {
            let _ = writeln!(h, "<div class=\"muted\">{}: {}</div>", xml(&s.scene), parts.join(", "));
        }
    }
    for (k, r) in failed.iter().enumerate() {
        let _ = writeln!(h, "<div class=\"card fail\" id=\"f{k}\">{}</div>", r.html);
    }
    let passed: Vec<&Record> = report.records.iter().filter(|r| r.passed).collect();
    if !passed.is_empty() {
        h.push_str(
            "<div class=\"card pass\"><h2>Passed</h2><table><tr><th></th><th>scene</th><th>frame</th><th>how</th><th>state</th></tr>\n",
        );
        for r in passed {
            h.push_str(&r.html);
        }
        h.push_str("</table></div>\n");
    }
    let _ = writeln!(h, "<pre id=\"selftest\"></pre><script>{SCRIPT}</script></body></html>");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passed_frames_are_listed_with_a_thumbnail_that_fits_the_box() {
        let frame = Decoded { width: 320, height: 240, rgba: [40u8, 90, 200, 255].repeat(320 * 240) };
        let entry = Entry {
            scene: "terrain".into(),
            frame: 45,
            passed: true,
            verdict: "identical".into(),
            comparison: None,
            expected: None,
            expected_file: None,
            actual: frame,
            state_message: "state matches".into(),
            tolerance_reason: String::new(),
            accept: crate::golden::Accept::Command(String::new()),
        };
        let page = html(&Report::of(&[entry], &[], "lavapipe"));
        let at = page.find("<img class=\"thumb\"").expect("a thumbnail");
        let tag = &page[at..at + page[at..].find('>').unwrap()];
        assert!(tag.contains("width=\"120\" height=\"90\""), "{tag}");
        let b64 = tag.split("base64,").nth(1).unwrap().trim_end_matches('"');
        let bytes = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
        let thumb = png::decode(&bytes).unwrap();
        assert_eq!((thumb.width, thumb.height), (120, 90));
        assert!(thumb.rgba.chunks_exact(4).all(|p| p == [40, 90, 200, 255]), "a flat frame stays flat");
    }

    #[test]
    fn a_failing_region_is_boxed_on_the_diff_and_listed_in_the_summary() {
        let golden = Decoded { width: 64, height: 48, rgba: [200u8, 210, 220, 255].repeat(64 * 48) };
        let mut actual = golden.clone();
        for y in 20..25 {
            for x in 30..36 {
                actual.rgba[(y * 64 + x) * 4..(y * 64 + x) * 4 + 3].copy_from_slice(&[20, 20, 20]);
            }
        }
        let tol = crate::scene::golden::Tolerance {
            channel: 2,
            max_pixels: crate::scene::golden::PixelBudget::Count(100),
            flip_mean: 0.0,
            flip_p99: 0.0,
            max_region: crate::scene::golden::DEFAULT_MAX_REGION,
            reason: "test".into(),
        };
        let c = compare::compare(&golden, &actual, &tol);
        assert_eq!(c.verdict, compare::Verdict::Region);
        let heat = marked_heatmap(&c);
        let px = |x: usize, y: usize| &heat.rgba[(y * 64 + x) * 4..(y * 64 + x) * 4 + 4];
        assert_eq!(px(28, 20), REGION_OUTLINE, "left side of the box, two pixels out");
        assert_eq!(px(37, 22), REGION_OUTLINE, "right side");
        assert_ne!(px(32, 22), REGION_OUTLINE, "the region itself is not painted over");
        let entry = Entry {
            scene: "s".into(),
            frame: 3,
            passed: false,
            verdict: c.describe(),
            comparison: Some(c),
            expected: Some(golden),
            expected_file: None,
            actual,
            state_message: String::new(),
            tolerance_reason: String::new(),
            accept: crate::golden::Accept::Command(String::new()),
        };
        let report = Report::of(&[entry], &[], "lavapipe");
        let summary: serde_json::Value = serde_json::from_str(&crate::golden::summary::Summary::of(&report).to_json()).unwrap();
        let f = &summary["frames"][0];
        assert_eq!(f["regions"][0], serde_json::json!({"x": 30, "y": 20, "width": 6, "height": 5, "pixels": 30, "weight": 30}));
        assert_eq!(f["heaviest_region"], 30);
        assert!(report.records[0].metrics.contains("6×5 px at (30, 20), weight 30 > 7"), "{}", report.records[0].metrics);
    }
}
