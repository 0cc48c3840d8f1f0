//! Golden-image checks, all in one place: `simreel golden check` renders the frames a scene's
//! `[golden]` table lists, compares them with the approved images under `tests/golden/<scene>/`
//! (canonical ones from lavapipe, override folders for other adapters; the comparator is the
//! `simreel-compare` crate's, re-exported here as [`compare`], [`regions`], [`report`], …) and
//! explains failures: which frame first diverged, whether the simulation state changed or only
//! the rendering, and a report with pictures.
//! Checking never writes goldens; blessing ([`bless`]) renders twice and refuses
//! non-determinism. A check split across machines is dealt and merged in `shards`.

#[cfg(feature = "render")]
pub mod adapter;
#[cfg(feature = "render")]
mod bless;
#[cfg(feature = "render")]
mod check;
#[cfg(feature = "render")]
mod from_report;
pub mod review;
#[cfg(feature = "render")]
mod seen;
#[cfg(feature = "render")]
mod shards;

pub use simreel_compare::{Accept, assert, compare, files, regions, report, summary, trust};

#[cfg(feature = "render")]
pub use bless::{Blessed, Filter, Source, bless};
#[cfg(feature = "render")]
pub use check::{Applied, CheckSummary, OTHER_ADAPTER, applied, check};
#[cfg(feature = "render")]
use check::{as_checked, render_golden, state_path};
#[cfg(feature = "render")]
use shards::shard_report_name;
#[cfg(feature = "render")]
pub use shards::{merge_reports, shard_scenes};

use std::path::{Path, PathBuf};

use crate::output::OutputError;
#[cfg(feature = "render")]
use crate::pipeline::PipelineError;
use crate::scene::{Scene, SceneError};
use crate::text::count;

/// Where goldens, renders and reports live.
#[derive(Clone, Debug)]
pub struct Paths {
    /// `tests/golden`
    pub goldens: PathBuf,
    /// `out`: renders go to `out/golden-run/<scene>/`, the report to `out/golden-report/`.
    pub out: PathBuf,
    /// Shard I of N of a split check: its report goes to `out/golden-report/shard-I-of-N/`.
    pub shard: Option<(u32, u32)>,
}

/// The report folder of a golden check under the output folder (`simreel compare`'s is
/// [`files::REPORT`]).
pub const CHECK_REPORT: &str = simreel_compare::review::CHECK_REPORT;

/// Where approved images live unless `--goldens` says otherwise.
pub const DEFAULT_GOLDENS: &str = "tests/golden";
/// Where a check renders and reports unless `--out` says otherwise.
pub const DEFAULT_OUT: &str = "out";

/// The command that accepts what the check at `paths` rendered of `scene` (`frame`: one frame).
pub(crate) fn bless_command(scene: &Scene, frame: Option<u32>, paths: &Paths) -> String {
    let filter = match frame {
        Some(f) => format!("{}:{f}", scene.name),
        None => scene.name.clone(),
    };
    let sh = simreel_compare::text::sh;
    format!("simreel golden bless {} --filter {} --from-last-run{}", sh(&scene.path.display().to_string()), sh(&filter), paths.options())
}

impl Paths {
    /// The options a command printed for this check (a bless, a review) needs to use the goldens
    /// and the output folder the check used: `--goldens` and `--out` where they are not the
    /// defaults, quoted for a POSIX shell.
    pub fn options(&self) -> String {
        let mut o = String::new();
        for (flag, dir, default) in [("--goldens", &self.goldens, DEFAULT_GOLDENS), ("--out", &self.out, DEFAULT_OUT)] {
            if dir.as_path() != Path::new(default) {
                o.push_str(&format!(" {flag} {}", crate::plan::sh(&dir.display().to_string())));
            }
        }
        o
    }

    pub fn run_dir(&self) -> PathBuf {
        self.out.join("golden-run")
    }

    /// Where this check's report goes.
    pub fn report_dir(&self) -> PathBuf {
        match self.shard {
            #[cfg(feature = "render")]
            Some((i, n)) => self.merged_report_dir().join(shard_report_name(i, n)),
            _ => self.merged_report_dir(),
        }
    }

    /// Where a whole check's report, or the merge of a split check's, goes.
    pub fn merged_report_dir(&self) -> PathBuf {
        self.out.join(CHECK_REPORT)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    #[cfg(feature = "render")]
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// A command-line value that makes no sense for the scenes it is applied to.
    #[error("{0}")]
    BadInput(String),
    /// Some checked frames (or scenes' flicker checks) did not match their goldens (exit code 4).
    #[error(
        "{}{}; report: {report}",
        mismatch_words(*frames_failed, *frames, *flicker_failed),
        other_adapter.as_ref().map(|o| format!(" on another adapter: {o}; they may be the adapter's differences, not regressions")).unwrap_or_default()
    )]
    Mismatch { frames_failed: usize, frames: usize, flicker_failed: usize, report: String, other_adapter: Option<String> },
    /// Some compared files differ or are on one side only (exit code 4).
    #[error(
        "{failed} of {} {}; report: {report}; review: {review}",
        count(*compared as u64, "compared image", "compared images"),
        if *failed == 1 { "differs" } else { "differ" }
    )]
    Differ { failed: usize, compared: usize, report: String, review: String },
    #[error("{scene} has no [golden] table")]
    NoGolden { scene: String },
    #[error("refusing to bless {scene}: two renders differ at frame{} {}: {what}. Non-determinism is a bug to report, not to bless", if frames.len() == 1 { "" } else { "s" }, frames.iter().map(u32::to_string).collect::<Vec<_>>().join(", "))]
    NonDeterministic { scene: String, frames: Vec<u32>, what: String },
    #[error(
        "refusing to bless {scene} on {adapter}: goldens for adapters other than lavapipe go to an override folder; add a [[golden.overrides]] entry for it (backend, vendor, driver, reason)"
    )]
    NoOverride { scene: String, adapter: String },
    #[error("--from-last-run: {0}")]
    NoLastRun(String),
    #[error("--filter {0}")]
    Filter(String),
    #[error("{0}")]
    Shards(String),
    /// A file read back (a report's summary) names something an accept may not touch.
    #[error("refusing to accept: {0}")]
    Untrusted(String),
}

/// "5 of 8 golden frames failed, and the flicker check of 1 scene": frames and the scenes'
/// flicker checks counted apart.
fn mismatch_words(frames_failed: usize, frames: usize, flicker_failed: usize) -> String {
    let flicker = count(flicker_failed as u64, "scene", "scenes");
    match (frames_failed, flicker_failed) {
        (_, 0) => format!("{frames_failed} of {} failed", count(frames as u64, "golden frame", "golden frames")),
        (0, _) => format!("the flicker check of {flicker} failed (every golden frame matches)"),
        _ => format!(
            "{frames_failed} of {} failed, and the flicker check of {flicker}",
            count(frames as u64, "golden frame", "golden frames")
        ),
    }
}

impl GoldenError {
    /// Checks that did not match: 4; a scene, flag or file read back that makes no sense: 2; a
    /// render's own class; anything else: 1.
    pub fn exit_class(&self) -> crate::exit::ExitClass {
        use crate::exit::ExitClass;
        match self {
            #[cfg(feature = "render")]
            GoldenError::Pipeline(p) => p.exit_class(),
            GoldenError::Mismatch { .. } | GoldenError::Differ { .. } => ExitClass::Mismatch,
            GoldenError::NoGolden { .. }
            | GoldenError::NoLastRun(_)
            | GoldenError::Filter(_)
            | GoldenError::BadInput(_)
            | GoldenError::Untrusted(_)
            | GoldenError::Scene(_) => ExitClass::BadInput,
            _ => ExitClass::Runtime,
        }
    }
}

/// The comparator's errors as the golden commands' (same words, same exit class).
impl From<simreel_compare::Error> for GoldenError {
    fn from(e: simreel_compare::Error) -> GoldenError {
        use simreel_compare::Error as E;
        match e {
            E::BadInput(s) => GoldenError::BadInput(s),
            E::Untrusted(s) => GoldenError::Untrusted(s),
            E::NoLastRun(s) => GoldenError::NoLastRun(s),
            E::Differ { failed, compared, report, review } => GoldenError::Differ { failed, compared, report, review },
            E::Write { path, source } => GoldenError::Output(OutputError::Write { path, source }),
            E::Remove { path, source } => GoldenError::Output(OutputError::Remove { path, source }),
            E::Other(other) => match other.downcast::<GoldenError>() {
                Ok(g) => *g,
                Err(other) => GoldenError::BadInput(other.to_string()),
            },
        }
    }
}

/// The golden commands' errors as the comparator's, for a frame blessed during its review.
impl From<GoldenError> for simreel_compare::Error {
    fn from(e: GoldenError) -> simreel_compare::Error {
        use simreel_compare::Error as E;
        match e {
            GoldenError::BadInput(s) => E::BadInput(s),
            GoldenError::Untrusted(s) => E::Untrusted(s),
            GoldenError::NoLastRun(s) => E::NoLastRun(s),
            other => E::Other(Box::new(other)),
        }
    }
}

/// Scene files named on the command line: files as given, folders searched (with their
/// subfolders, such as `scenes/figures/`) for `*.toml`; only scenes with a `[golden]` table are
/// returned from folders.
pub fn collect_scenes(paths: &[PathBuf]) -> Result<Vec<Scene>, crate::scene::SceneError> {
    let mut scenes = Vec::new();
    for p in paths {
        if p.is_dir() {
            for f in crate::scene::scene_files(p)? {
                let s = crate::scene::load(&f)?;
                if s.golden.is_some() {
                    scenes.push(s);
                }
            }
        } else {
            scenes.push(crate::scene::load(p)?);
        }
    }
    Ok(scenes)
}

/// The first two scenes that share a name (and so an output and a golden folder), if any.
pub fn same_name(scenes: &[Scene]) -> Option<(&Scene, &Scene)> {
    scenes.iter().enumerate().find_map(|(i, a)| scenes[i + 1..].iter().find(|b| b.name == a.name).map(|b| (a, b)))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn scenes_sharing_a_name_are_found() {
        let scene =
            |name: &str, file: &str| crate::scene::parse(&format!("kind = \"terrain\"\nname = \"{name}\"\n"), Path::new(file)).unwrap();
        let scenes = [scene("a", "x/a.toml"), scene("b", "x/b.toml"), scene("a", "y/a.toml")];
        let (first, second) = same_name(&scenes).expect("two named a");
        assert_eq!((first.path.as_path(), second.path.as_path()), (Path::new("x/a.toml"), Path::new("y/a.toml")));
        assert!(same_name(&scenes[..2]).is_none());
    }

    #[test]
    fn frames_and_flicker_checks_are_counted_apart() {
        let said = |f, n, s| {
            GoldenError::Mismatch { frames_failed: f, frames: n, flicker_failed: s, report: "r".into(), other_adapter: None }.to_string()
        };
        assert_eq!(said(5, 7, 1), "5 of 7 golden frames failed, and the flicker check of 1 scene; report: r");
        assert_eq!(said(1, 1, 0), "1 of 1 golden frame failed; report: r");
        assert_eq!(said(0, 8, 2), "the flicker check of 2 scenes failed (every golden frame matches); report: r");
    }
}
