//! `simreel golden bless`: approve images, from two renders that must agree or from the last
//! check's, into the folder of the adapter they were rendered on.

use std::path::{Path, PathBuf};

use super::{GoldenError, Paths, adapter, applied, as_checked, render_golden, state_path};
use crate::output::layout::{SceneFolder, frame_identity};
use crate::output::manifest::Manifest;
use crate::output::png::{self, Decoded, Effort};
use crate::output::{frame_file_name, write_atomic};
use crate::pipeline::{self, ProgressMode};
use crate::render::{AdapterRequest, AdapterSummary, Pool};
use crate::scene::Scene;
use crate::scene::golden::GoldenSpec;

/// `--filter SCENE[:FRAMES]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    pub scene: String,
    pub frames: Option<String>,
}

impl Filter {
    pub fn parse(s: &str) -> Filter {
        match s.split_once(':') {
            Some((a, b)) => Filter { scene: a.to_string(), frames: Some(b.to_string()) },
            None => Filter { scene: s.to_string(), frames: None },
        }
    }

    /// The golden frames of `scene` (which the filter names) that the filter keeps: all of them
    /// without a frame spec; an error for a bad spec or a frame that is not a golden frame.
    pub fn golden_frames(&self, scene: &Scene) -> Result<Vec<u32>, GoldenError> {
        let spec = scene.golden.as_ref().ok_or_else(|| GoldenError::NoGolden { scene: scene.name.clone() })?;
        let Some(text) = &self.frames else { return Ok(spec.frames.clone()) };
        let wanted = crate::scene::frames::parse_frames(text, scene.sim.timing.frames)
            .map_err(|e| GoldenError::Filter(format!("{}:{text}: {e}", self.scene)))?;
        let others: Vec<String> = wanted.iter().filter(|f| !spec.frames.contains(f)).map(u32::to_string).collect();
        if !others.is_empty() {
            let golden: Vec<String> = spec.frames.iter().map(u32::to_string).collect();
            let (frames, are, them) = if others.len() == 1 { ("frame", "is", "it") } else { ("frames", "are", "them") };
            return Err(GoldenError::Filter(format!(
                "{}:{text}: {frames} {} {are} not among {}'s golden frames ({}); add {them} to its [golden] frames first",
                self.scene,
                others.join(", "),
                self.scene,
                golden.join(", ")
            )));
        }
        Ok(wanted)
    }
}

/// What blessing did to one scene.
#[derive(Debug)]
pub struct Blessed {
    pub scene: String,
    pub dir: PathBuf,
    pub written: Vec<PathBuf>,
    pub unchanged: usize,
    /// The adapter the images were rendered on, recorded beside them.
    pub adapter: AdapterSummary,
}

/// One frame to approve: its image and the simulation state it shows.
struct Candidate {
    frame: u32,
    image: Decoded,
    state: String,
}

/// Where the images a bless approves come from.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// Two renders here, which must agree.
    Render,
    /// The last `golden check`'s render here (`--from-last-run`).
    LastRun,
    /// The failed frames of a check's report folder, downloaded from where the check ran
    /// (`--from-report DIR`): each as that check rendered it.
    Report(&'a Path),
}

/// Writes new goldens for the scenes (narrowed by `filter`): renders twice on the adapter `plan`
/// chose and refuses when the renders differ, or takes the last check's images, or a report's
/// (`source`). Only files whose pixels (or state digest) changed are written; PNGs are
/// compressed hard to stay small. The adapter is recorded beside the images (by a partial bless
/// only where no record is there yet).
pub fn bless(
    scenes: &[Scene],
    filter: Option<&Filter>,
    source: Source,
    paths: &Paths,
    plan: &adapter::AdapterPlan,
    mode: ProgressMode,
) -> Result<Vec<Blessed>, GoldenError> {
    let report = match source {
        Source::Report(dir) => Some(super::from_report::Failed::read(dir)?),
        _ => None,
    };
    let chosen: Vec<&Scene> = scenes
        .iter()
        .filter(|s| filter.is_none_or(|f| f.scene == s.name))
        .filter(|s| report.as_ref().is_none_or(|r| r.has(&s.name) || filter.is_some()))
        .collect();
    if let Some(r) = &report
        && chosen.is_empty()
    {
        return Err(r.none_of(scenes));
    }
    // an adapter no folder takes images from is refused before any scene renders
    for scene in &chosen {
        let spec = scene.golden.as_ref().ok_or_else(|| GoldenError::NoGolden { scene: scene.name.clone() })?;
        let dir = paths.goldens.join(&scene.name);
        if let Some(c) = plan.choice(&scene.name).filter(|c| applied(spec, &dir, &c.adapter).bless_dir.is_none()) {
            return Err(GoldenError::NoOverride { scene: scene.name.clone(), adapter: c.adapter.to_string() });
        }
    }
    let mut done = Vec::new();
    for scene in chosen {
        let spec = scene.golden.as_ref().ok_or_else(|| GoldenError::NoGolden { scene: scene.name.clone() })?;
        let frames = match (filter, &report) {
            (Some(f), _) => f.golden_frames(scene)?,
            (None, Some(r)) => r.frames_of(&scene.name),
            (None, None) => spec.frames.clone(),
        };
        let (candidates, adapter_used) = match (source, &report) {
            (Source::Report(dir), Some(r)) => {
                let (frames, adapter) = r.approve(scene, spec, &frames, dir, paths)?;
                let candidates = frames.into_iter().map(|(frame, image, state)| Candidate { frame, image, state }).collect();
                (candidates, adapter)
            }
            (Source::LastRun, _) => last_run(scene, spec, &frames, paths)?,
            _ => render_twice(scene, spec, &frames, paths, &plan.request(&scene.name), mode)?,
        };
        let dest = applied(spec, &paths.goldens.join(&scene.name), &adapter_used)
            .bless_dir
            .ok_or_else(|| GoldenError::NoOverride { scene: scene.name.clone(), adapter: adapter_used.to_string() })?;
        // a partial bless leaves an existing record alone: most of the images are still its adapter's
        let whole = frames.len() == spec.frames.len();
        done.push(write_changed(scene, &dest, &candidates, adapter_used, whole)?);
    }
    Ok(done)
}

/// Frame `frame` of `scene` approved from a review of the last check's report: the check's render
/// of it, only while it still has the pixels whose SHA-256 the report recorded (the report is
/// read back: what was looked at is what is approved).
pub fn bless_reviewed(scene: &Scene, frame: u32, sha256: &str, paths: &Paths) -> Result<Blessed, GoldenError> {
    let spec = scene.golden.as_ref().ok_or_else(|| GoldenError::NoGolden { scene: scene.name.clone() })?;
    let frames = Filter { scene: scene.name.clone(), frames: Some(frame.to_string()) }.golden_frames(scene)?;
    let (candidates, adapter_used) = last_run(scene, spec, &frames, paths)?;
    if candidates.iter().any(|c| super::trust::pixels_sha256(&c.image) != sha256) {
        return Err(GoldenError::Untrusted(format!(
            "{}:{frame}: the last check's render of it is not the one its report showed (it changed since); check again",
            scene.name
        )));
    }
    let dest = applied(spec, &paths.goldens.join(&scene.name), &adapter_used)
        .bless_dir
        .ok_or_else(|| GoldenError::NoOverride { scene: scene.name.clone(), adapter: adapter_used.to_string() })?;
    write_changed(scene, &dest, &candidates, adapter_used, frames.len() == spec.frames.len())
}

/// What the last `golden check` rendered of `frames`, refused when it rendered another version of
/// the scene or at another size.
fn last_run(scene: &Scene, spec: &GoldenSpec, frames: &[u32], paths: &Paths) -> Result<(Vec<Candidate>, AdapterSummary), GoldenError> {
    let checked = as_checked(scene, spec);
    let folder = SceneFolder::of(&paths.run_dir(), &checked);
    let m = Manifest::read(&folder.manifest()).ok_or_else(|| {
        GoldenError::NoLastRun(format!(
            "no earlier check of {} in {} (a check with `--out DIR` renders into DIR/golden-run: give bless the same --out)",
            scene.name,
            folder.dir().display()
        ))
    })?;
    let identity = checked.identity();
    let mut out = Vec::new();
    for &frame in frames {
        let e = m
            .frames
            .iter()
            .find(|e| e.index == frame)
            .ok_or_else(|| GoldenError::NoLastRun(format!("frame {frame} of {} is not in the last run", scene.name)))?;
        // each frame is what the scene is now, or it is not approved
        if e.identity != frame_identity(identity, &m.settings_hash, frame) {
            let why = format!(
                "the last run of {} in {} drew frame {frame} of another version of the scene; run `simreel golden check` again (with the --out it is given here)",
                scene.name,
                folder.dir().display()
            );
            return Err(GoldenError::NoLastRun(why));
        }
        // the manifest is read back: its file is this frame's own, a plain file in the folder
        let file = (e.file == folder.frame_name(frame)).then(|| crate::output::layout::own_file(&folder.dir(), &e.file)).flatten();
        let file = file.ok_or_else(|| {
            GoldenError::NoLastRun(format!(
                "frame {frame} of the last run of {} in {} is not a plain file named {}; run `simreel golden check` again",
                scene.name,
                folder.dir().display(),
                folder.frame_name(frame)
            ))
        })?;
        // and the very file this user's check wrote (the folder, its manifest and its report may
        // be someone else's work)
        let bytes = crate::output::read_plain(&file)?;
        let hash = crate::output::manifest::content_hash(&bytes);
        match super::seen::recorded(&folder.dir(), frame) {
            Ok(h) if h == hash => {}
            Ok(_) => {
                return Err(GoldenError::Untrusted(format!(
                    "frame {frame} of the last run of {} in {} is not the file your check wrote (it was replaced since); run `simreel golden check` again",
                    scene.name,
                    folder.dir().display()
                )));
            }
            Err(why) => return Err(GoldenError::Untrusted(format!("frame {frame} of the last run of {}: {why}", scene.name))),
        }
        let image = png::decode(&bytes).map_err(|reason| crate::output::OutputError::BadPng { path: file.clone(), reason })?;
        out.push(Candidate { frame, image, state: e.state.clone() });
    }
    Ok((out, m.adapter_info))
}

/// `frames` rendered twice; refused when the two renders differ in a pixel or a state (a bug to
/// report, not to bless).
fn render_twice(
    scene: &Scene,
    spec: &GoldenSpec,
    frames: &[u32],
    paths: &Paths,
    adapter: &AdapterRequest,
    mode: ProgressMode,
) -> Result<(Vec<Candidate>, AdapterSummary), GoldenError> {
    let second = paths.out.join("golden-run-second");
    // each on a renderer of its own: a render that depended on what an earlier one left would
    // show here
    let a = render_golden(scene, spec, frames, &paths.run_dir(), adapter, mode, &mut Pool::new(1))?;
    let b = render_golden(scene, spec, frames, &second, adapter, mode, &mut Pool::new(1))?;
    let read = |o: &pipeline::Outcome, frame: u32| -> Result<Candidate, GoldenError> {
        let image = png::read(&o.frames_dir.join(frame_file_name(frame, scene.sim.timing.frames)))?;
        let state = o.manifest.frames.iter().find(|e| e.index == frame).map(|e| e.state.clone()).unwrap_or_default();
        Ok(Candidate { frame, image, state })
    };
    let (mut out, mut differ, mut what) = (Vec::new(), Vec::new(), String::new());
    for &frame in frames {
        let (first, again) = (read(&a, frame)?, read(&b, frame)?);
        if first.state != again.state {
            what = format!("simulation state [{}] then [{}]", first.state, again.state);
            differ.push(frame);
        } else if first.image.rgba != again.image.rgba {
            what = "same simulation state, different pixels".into();
            differ.push(frame);
        }
        out.push(first);
    }
    crate::output::remove_stale(&second)?;
    if !differ.is_empty() {
        return Err(GoldenError::NonDeterministic { scene: scene.name.clone(), frames: differ, what });
    }
    Ok((out, a.adapter))
}

/// Writes into `dest` the images and state files that differ from what is there.
fn write_changed(
    scene: &Scene,
    dest: &Path,
    candidates: &[Candidate],
    adapter: AdapterSummary,
    whole: bool,
) -> Result<Blessed, GoldenError> {
    let total = scene.sim.timing.frames;
    let (mut written, mut unchanged) = (Vec::new(), 0);
    for c in candidates {
        let (img, path) = (&c.image, dest.join(frame_file_name(c.frame, total)));
        let same = png::read(&path).is_ok_and(|old| (old.width, old.height) == (img.width, img.height) && old.rgba == img.rgba);
        if same {
            unchanged += 1;
        } else {
            write_atomic(&path, &png::encode(&img.rgba, img.width, img.height, Effort::Small))?;
            written.push(path);
        }
        let sp = state_path(dest, c.frame, total);
        let old = simreel_compare::fs::read_trusted(&sp).ok().map(|b| String::from_utf8_lossy(&b).trim().to_string());
        if old.as_deref() != Some(c.state.as_str()) {
            write_atomic(&sp, format!("{}\n", c.state).as_bytes())?;
            written.push(sp);
        }
    }
    if whole || adapter::recorded(dest)?.is_none() {
        written.extend(adapter::record(dest, &adapter)?);
    }
    Ok(Blessed { scene: scene.name.clone(), dir: dest.to_path_buf(), written, unchanged, adapter })
}
