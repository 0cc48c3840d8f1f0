//! `summary.json`, what a golden check (or `golden merge`) leaves for machines and for the
//! commands after it: one type, written by the report and read back by `golden review` and the
//! studio's Goldens view, so that a field missing or of the wrong type is an error naming the
//! file rather than a default (an empty scene, frame 0, "no failures").

use std::path::Path;

use super::Error;
use super::regions::Region;
use super::report::{Compared, Report, SequenceNote, Subject};

/// The check as a whole, and every frame it checked.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// The adapter (or adapters, `; `-separated, after a merge) the frames were rendered on.
    pub adapter: String,
    /// Frames checked.
    pub checked: usize,
    /// Frames and sequences that failed.
    pub failed: usize,
    pub frames: Vec<FrameSummary>,
    pub sequences: Vec<SequenceSummary>,
    /// Set when a scene rendered on another adapter than its goldens were approved on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_adapter: Option<String>,
    /// What `simreel compare` compared (absent for a golden check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compared: Option<Compared>,
    /// The command that accepts every failed frame that can be accepted, as the check rendered
    /// it, from this report folder downloaded into a clone of the project (`simreel golden
    /// bless SCENES --from-report DIR`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept_from_report: Option<String>,
}

/// One checked frame (`scene` and `frame`), or file of `simreel compare` (`path`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FrameSummary {
    #[serde(flatten)]
    pub subject: Subject,
    pub passed: bool,
    pub verdict: String,
    pub differing_pixels: Option<u64>,
    pub max_channel_diff: Option<u8>,
    pub mean_abs_diff: Option<f64>,
    pub flip_mean: Option<f64>,
    pub flip_p99: Option<f64>,
    pub heaviest_region: Option<u32>,
    pub regions: Vec<Region>,
    pub expected_file: Option<String>,
    /// The file compared with the expected one (`simreel compare`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual_file: Option<String>,
    /// What the comparison saw of each side ([`super::report::Hashes`]): an accept copies only that.
    #[serde(default)]
    pub sha256: super::report::Hashes,
    pub state: String,
    pub tolerance_reason: String,
    /// The command that accepts a failed frame (none for a passed one, or one that cannot be
    /// accepted from this check: `cannot_accept` says why).
    pub bless: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cannot_accept: Option<String>,
    /// The stem of a failed frame's images in the report folder.
    pub images: Option<String>,
    /// A side could not be read as a picture.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unreadable: bool,
    /// A golden check's frame: what it was rendered from and on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rendered: Option<super::report::Rendered>,
}

/// One scene's sequence facts.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SequenceSummary {
    pub scene: String,
    pub first_diverging_frame: Option<u32>,
    pub flicker: Option<f64>,
    pub flicker_failed: bool,
}

/// The largest `summary.json` read: a check of ten thousand failed frames writes a few MB; a
/// larger file was not written by a check.
pub const MAX_SUMMARY_BYTES: u64 = 64 << 20;

impl Summary {
    /// The summary of `report`.
    pub fn of(report: &Report) -> Summary {
        let frames = report
            .records
            .iter()
            .map(|r| FrameSummary {
                subject: r.subject.clone(),
                passed: r.passed,
                verdict: r.verdict.clone(),
                differing_pixels: r.differing_pixels,
                max_channel_diff: r.max_channel_diff,
                mean_abs_diff: r.mean_abs_diff,
                flip_mean: r.flip_mean,
                flip_p99: r.flip_p99,
                heaviest_region: r.heaviest_region,
                regions: r.regions.clone(),
                expected_file: r.expected_file.clone(),
                actual_file: r.actual_file.clone(),
                sha256: r.sha256.clone(),
                state: r.state.clone(),
                tolerance_reason: r.tolerance_reason.clone(),
                unreadable: r.unreadable,
                bless: r.accept.command().filter(|_| !r.passed).map(str::to_string),
                cannot_accept: match &r.accept {
                    super::Accept::NotHere(why) if !r.passed => Some(why.clone()),
                    _ => None,
                },
                images: (!r.passed).then(|| r.subject.stem()),
                rendered: r.rendered.clone(),
            })
            .collect();
        let sequences = report.sequences.iter().map(SequenceSummary::of).collect();
        Summary {
            adapter: report.adapter.clone(),
            checked: report.records.len(),
            failed: report.failures(),
            frames,
            sequences,
            other_adapter: report.other_adapter.clone(),
            compared: report.compared.clone(),
            accept_from_report: None,
        }
    }

    /// As `summary.json` holds it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a summary serialises")
    }

    /// The summary in `file`: an error naming it when it is missing, not JSON, or lacks a field.
    pub fn read(file: &Path) -> Result<Summary, Error> {
        // a plain file of the output folder (never a link someone else put there, never a FIFO)
        let bytes = crate::fs::read_plain_at_most(file, MAX_SUMMARY_BYTES).map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => Error::BadInput(format!("{e}: not a summary a check wrote")),
            _ => Error::NoLastRun(format!("no golden check has written {} yet ({e})", file.display())),
        })?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::BadInput(format!("{} is not a golden check's summary: it is not text", file.display())))?;
        serde_json::from_str(&text).map_err(|e| {
            Error::BadInput(format!("{} is not a golden check's summary: {e}; run `simreel golden check` again", file.display()))
        })
    }
}

impl SequenceSummary {
    fn of(s: &SequenceNote) -> SequenceSummary {
        // a flicker that cannot be a JSON number (a still golden sequence that now moves) is
        // written as none; `flicker_failed` says whether it failed
        SequenceSummary {
            scene: s.scene.clone(),
            first_diverging_frame: s.first_diverging,
            flicker: s.flicker.filter(|f| f.is_finite()),
            flicker_failed: s.flicker_failed,
        }
    }
}
