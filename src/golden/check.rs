//! A golden check on this machine's adapter: the frames a scene's `[golden]` table lists,
//! rendered and compared with the approved images that apply to the adapter, each frame's report
//! entry, and each scene's sequence facts. Needs the renderer (the `render` feature).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::compare::{self, Comparison};
use super::report::{self, Entry, SequenceNote};
use super::{Accept, GoldenError, Paths, adapter};
use crate::output::frame_file_name;
use crate::output::png::{self, Decoded};
use crate::pipeline::{self, Job, PipelineError, ProgressMode};
use crate::render::{AdapterRequest, AdapterSummary, Pool};
use crate::scene::golden::{GoldenSpec, Tolerance};
use crate::scene::{Format, Scene};

/// The tolerance and approved-image folders that apply to `adapter` (most specific first).
pub struct Applied<'a> {
    pub tolerance: &'a Tolerance,
    pub dirs: Vec<PathBuf>,
    /// Folder new goldens for this adapter are written to (`None`: no override covers it).
    pub bless_dir: Option<PathBuf>,
    pub key: String,
    /// Neither lavapipe nor an adapter an override covers: the goldens were not approved on it.
    pub other: bool,
}

pub fn applied<'a>(spec: &'a GoldenSpec, scene_dir: &Path, adapter: &AdapterSummary) -> Applied<'a> {
    if adapter.is_lavapipe() {
        return Applied {
            tolerance: &spec.tolerance,
            dirs: vec![scene_dir.to_path_buf()],
            bless_dir: Some(scene_dir.to_path_buf()),
            key: "lavapipe (canonical)".into(),
            other: false,
        };
    }
    let best = spec
        .overrides
        .iter()
        .map(|o| (o.specificity(&adapter.backend, &adapter.vendor, &adapter.driver_words()), o))
        .filter(|(s, _)| *s > 0)
        .max_by_key(|(s, _)| *s)
        .map(|(_, o)| o);
    match best {
        Some(o) => Applied {
            tolerance: &o.tolerance,
            dirs: vec![scene_dir.join(&o.images), scene_dir.to_path_buf()],
            bless_dir: Some(scene_dir.join(&o.images)),
            key: format!("override \"{}\"", o.images),
            other: false,
        },
        None => Applied {
            tolerance: &spec.tolerance,
            dirs: vec![scene_dir.to_path_buf()],
            bless_dir: None,
            key: "other adapter (the goldens were approved on lavapipe; no override covers this one): canonical tolerance".into(),
            other: true,
        },
    }
}

/// Approved images for `frame` in the first folder that has any: `frame_NNNN.png` and any
/// `frame_NNNN.<label>.png` alternatives, sorted.
fn approved(dirs: &[PathBuf], frame: u32, total: u32) -> Vec<PathBuf> {
    let name = frame_file_name(frame, total);
    let stem = name.trim_end_matches(".png");
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else { continue };
        let mut found: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                n == name || (n.starts_with(&format!("{stem}.")) && n.ends_with(".png"))
            })
            .collect();
        if !found.is_empty() {
            found.sort();
            return found;
        }
    }
    Vec::new()
}

pub(super) fn state_path(dir: &Path, frame: u32, total: u32) -> PathBuf {
    dir.join(frame_file_name(frame, total).replace(".png", ".state.txt"))
}

fn read_state(dirs: &[PathBuf], frame: u32, total: u32) -> Option<String> {
    dirs.iter()
        .find_map(|d| simreel_compare::fs::read_trusted(&state_path(d, frame, total)).ok())
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
}

/// `scene` as a golden check renders it: at its `[golden]` size.
pub(super) fn as_checked(scene: &Scene, spec: &GoldenSpec) -> Scene {
    let mut s = scene.clone();
    (s.look.width, s.look.height) = spec.size;
    s
}

/// Renders the golden frames of `scene` into `into/<scene>/` on a renderer of `renderers` and
/// returns the outcome.
pub(super) fn render_golden(
    scene: &Scene,
    spec: &GoldenSpec,
    frames: &[u32],
    into: &Path,
    adapter: &AdapterRequest,
    mode: ProgressMode,
    renderers: &mut Pool,
) -> Result<pipeline::Outcome, PipelineError> {
    let job = Job::new(as_checked(scene, spec), into)
        .frames(frames.to_vec())
        .formats(vec![Format::Png])
        .adapter(adapter.clone())
        .without_snapshots();
    let outcome = pipeline::run_with(&job, mode, &AtomicBool::new(false), renderers)?;
    // what was written, where only this user writes: what an accept from this run may take
    super::seen::record(&outcome.frames_dir, &outcome.manifest.frames);
    Ok(outcome)
}

/// The outcome of checking scenes.
pub struct CheckSummary {
    pub entries: Vec<Entry>,
    pub sequences: Vec<SequenceNote>,
    pub adapter: String,
    /// Set when a scene rendered on an adapter its goldens were not approved on: which, and
    /// which they were approved on.
    pub other_adapter: Option<String>,
}

impl CheckSummary {
    pub fn failures(&self) -> usize {
        self.entries.iter().filter(|e| !e.passed).count() + self.sequences.iter().filter(|s| s.flicker_failed).count()
    }
}

/// Why a frame checked on another adapter than its goldens' cannot be accepted from that check.
pub const OTHER_ADAPTER: &str =
    "not on this adapter: the goldens were approved on lavapipe; check there, or give this adapter a [[golden.overrides]] entry";

/// Checks every scene (each must have `[golden]`) on the adapter `plan` chose for it, writes the
/// report, returns what happened. A shard of a split check passes `shard`: what it was given and
/// took, for its report.
pub fn check(
    scenes: &[Scene],
    paths: &Paths,
    plan: &adapter::AdapterPlan,
    mode: ProgressMode,
    shard: Option<report::ReportShard>,
) -> Result<CheckSummary, GoldenError> {
    let (mut entries, mut sequences, mut adapters, mut others) = (Vec::new(), Vec::new(), Vec::<String>::new(), Vec::<String>::new());
    // goldens are mostly of a few sizes: a renderer is made once for each
    let mut renderers = Pool::new(3);
    for scene in scenes {
        let spec = scene.golden.as_ref().ok_or_else(|| GoldenError::NoGolden { scene: scene.name.clone() })?;
        let request = plan.request(&scene.name);
        let outcome = render_golden(scene, spec, &spec.frames, &paths.run_dir(), &request, mode, &mut renderers)?;
        let used = outcome.adapter.to_string();
        let rule = applied(spec, &paths.goldens.join(&scene.name), &outcome.adapter);
        if rule.other && !others.contains(&used) {
            others.push(used.clone());
        }
        if !adapters.contains(&used) {
            adapters.push(used);
        }
        // what identifies the scene's frames in the report, worked out once for all of them
        let identity = as_checked(scene, spec).identity().to_string();
        let checked =
            spec.frames.iter().map(|&f| check_frame(scene, &identity, &rule, f, &outcome, paths)).collect::<Result<Vec<_>, _>>()?;
        sequences.push(sequence_note(scene, spec, &checked));
        entries.extend(checked.into_iter().map(|(entry, _)| entry));
    }
    let other_adapter = (!others.is_empty()).then(|| format!("{}, not lavapipe, which the goldens were approved on", others.join("; ")));
    let adapter = adapters.join("; ");
    report::write(&paths.report_dir(), &entries, &sequences, &adapter, other_adapter.as_deref(), shard)?;
    Ok(CheckSummary { entries, sequences, adapter, other_adapter })
}

/// Frame `f` of a check's render of `scene` against its approved images under `rule`: the report's
/// entry, and the approved image it was compared with (for the sequence's flicker).
fn check_frame(
    scene: &Scene,
    identity: &str,
    rule: &Applied,
    f: u32,
    outcome: &pipeline::Outcome,
    paths: &Paths,
) -> Result<(Entry, Option<Decoded>), GoldenError> {
    let total = scene.sim.timing.frames;
    let actual = png::read(&outcome.frames_dir.join(frame_file_name(f, total)))?;
    let state_actual = outcome.manifest.frames.iter().find(|e| e.index == f).map(|e| e.state.clone()).unwrap_or_default();
    let state_message = match read_state(&rule.dirs, f, total) {
        None => "no golden state digest".to_string(),
        Some(s) if s == state_actual => "simulation state identical (only the rendering can differ)".to_string(),
        Some(s) => format!("simulation state CHANGED: golden [{s}] now [{state_actual}]"),
    };
    let candidates = approved(&rule.dirs, f, total);
    let best = best_match(&candidates, &actual, rule.tolerance)?;
    let (passed, verdict, comparison, expected, expected_file) = match best {
        None => (false, format!("no golden image in {}", rule.dirs[0].display()), None, None, None),
        Some((c, file, exp)) => {
            let alt = if candidates.len() > 1 { format!(" (best of {} approved images)", candidates.len()) } else { String::new() };
            (c.verdict.passed(), format!("{}{alt}", c.describe()), Some(c), Some(exp), Some(file.display().to_string()))
        }
    };
    let verdict = if rule.other { format!("other adapter: {verdict}") } else { verdict };
    let entry = Entry {
        subject: report::Subject::frame(&scene.name, f),
        passed,
        verdict,
        comparison,
        expected: expected.clone(),
        expected_file,
        actual_file: None,
        sha256: report::Hashes { expected: None, actual: Some(super::trust::pixels_sha256(&actual)) },
        actual: Some(actual),
        state_message,
        tolerance_reason: format!("{}: {}", rule.key, rule.tolerance.describe()),
        unreadable: false,
        bytes: Default::default(),
        accept: if rule.other {
            Accept::NotHere(OTHER_ADAPTER.into())
        } else {
            Accept::Command(super::bless_command(scene, Some(f), paths))
        },
        rendered: Some(report::Rendered {
            scene_file: scene.path.display().to_string(),
            goldens: paths.goldens.display().to_string(),
            identity: identity.to_string(),
            state: state_actual,
            adapter: serde_json::to_value(&outcome.adapter).expect("an adapter serialises"),
            simreel: crate::BUILD.to_string(),
        }),
    };
    Ok((entry, expected))
}

/// The approved image `actual` comes closest to: a passing one before a failing one, then the
/// least severe.
fn best_match(candidates: &[PathBuf], actual: &Decoded, tol: &Tolerance) -> Result<Option<(Comparison, PathBuf, Decoded)>, GoldenError> {
    let mut best: Option<(Comparison, PathBuf, Decoded)> = None;
    for c in candidates {
        let expected = png::read(c)?;
        let cmp = compare::compare(&expected, actual, tol);
        let better = best.as_ref().is_none_or(|(b, _, _)| {
            (cmp.verdict.passed() && !b.verdict.passed()) || (cmp.verdict.passed() == b.verdict.passed() && cmp.severity() < b.severity())
        });
        if better {
            best = Some((cmp, c.clone(), expected));
        }
    }
    Ok(best)
}

/// A scene's sequence facts: the first frame that failed, and the flicker, the largest ratio of
/// the actual frame-to-frame change to the golden sequence's.
fn sequence_note(scene: &Scene, spec: &GoldenSpec, checked: &[(Entry, Option<Decoded>)]) -> SequenceNote {
    let first_diverging = spec.frames.iter().zip(checked).filter(|(_, (e, _))| !e.passed).map(|(&f, _)| f).min();
    let ratios = checked.windows(2).filter_map(|w| {
        let ((Some(a), Some(ga)), (Some(b), Some(gb))) = ((&w[0].0.actual, &w[0].1), (&w[1].0.actual, &w[1].1)) else { return None };
        let (golden, actual) = (compare::mean_abs_diff(ga, gb), compare::mean_abs_diff(a, b));
        (golden.is_finite() && actual.is_finite()).then(|| match (golden > 0.0, actual > 0.0) {
            (true, _) => actual / golden,
            (false, true) => f64::INFINITY,
            (false, false) => 1.0,
        })
    });
    let flicker = ratios.fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))));
    let flicker_failed = matches!((flicker, spec.max_flicker), (Some(r), Some(max)) if r > max);
    SequenceNote { scene: scene.name.clone(), first_diverging, flicker, flicker_failed }
}
