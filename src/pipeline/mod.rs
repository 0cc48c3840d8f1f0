//! One render job, stage by stage and concurrently: the simulation thread produces frame N + 1
//! while the GPU renders frame N and encoder threads write frame N − 1 (bounded channels between
//! them). PNG files are written as frames arrive; GIF frames are quantized in parallel and written
//! in frame order. Progress bars on a terminal, JSON lines on request; Ctrl-C stops cleanly and
//! keeps every finished frame for `--resume`.

mod assemble;
pub mod budget;
mod encode;
mod interrupt;
pub mod patience;
mod progress;
mod record;
mod resume;
pub mod snapshots;
mod stages;
pub mod whole;

pub use assemble::{gif_from_folder, gif_from_frames};
pub use interrupt::{STOP_GRACE, stop_on_interrupt};
use progress::{Progress, Stage, StageClock, Wait};

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::frame::{Fnv, FrameData};
use crate::output::layout::SceneFolder;
use crate::output::manifest::{AnimationEntry, FrameEntry, Manifest};
use crate::output::{self, OutputError};
use crate::render::{AdapterRequest, AdapterSummary, Mapped, Opening, Pool, RenderClock, RenderError};
use crate::scene::{Format, Scene};
use record::build_manifest;
use resume::kept_frames;

/// What to render, validated.
#[derive(Clone, Debug)]
pub struct Job {
    pub scene: Scene,
    /// Sorted, unique, within the scene.
    pub frames: Vec<u32>,
    /// Frames go to `out_dir/<name>/`, the GIF to `out_dir/<name>.gif`.
    pub out_dir: PathBuf,
    pub formats: Vec<Format>,
    pub adapter: AdapterRequest,
    pub resume: bool,
    /// One shard of a split render (which, every frame of the whole render, the split): this job
    /// renders its block of those (in `frames`) and writes its frames and a shard manifest;
    /// `simreel merge` writes the GIF, the animations and the manifest.
    pub shard: Option<output::manifest::ShardInfo>,
    /// Start the simulation from the nearest saved state before the first frame, and save states
    /// as it goes (`OUT/<scene>/snapshots/`); golden checks simulate from the start.
    pub snapshots: bool,
}

impl Job {
    /// Every frame of `scene` into `out_dir`, in the formats the scene asks for, on the adapter
    /// a plain request picks, starting from and saving simulation states, not resuming.
    pub fn new(scene: Scene, out_dir: impl Into<PathBuf>) -> Job {
        let frames = (0..scene.frames()).collect();
        let formats = scene.output.formats.clone();
        Job {
            scene,
            frames,
            out_dir: out_dir.into(),
            formats,
            adapter: AdapterRequest::default(),
            resume: false,
            shard: None,
            snapshots: true,
        }
    }

    /// Only `frames` (sorted, unique, within the scene).
    pub fn frames(self, frames: Vec<u32>) -> Job {
        Job { frames, ..self }
    }

    pub fn formats(self, formats: Vec<Format>) -> Job {
        Job { formats, ..self }
    }

    pub fn adapter(self, adapter: AdapterRequest) -> Job {
        Job { adapter, ..self }
    }

    /// Keep the frames an earlier run of the same frames (same identity) finished.
    pub fn resume(self, resume: bool) -> Job {
        Job { resume, ..self }
    }

    /// Simulate from the start and save no states (golden checks).
    pub fn without_snapshots(self) -> Job {
        Job { snapshots: false, ..self }
    }

    /// Where the job's files go.
    pub fn folder(&self) -> SceneFolder {
        SceneFolder::of(&self.out_dir, &self.scene)
    }

    /// Whether it renders every frame of its scene (and is not a shard of a split render).
    pub fn is_whole(&self) -> bool {
        self.shard.is_none() && self.frames.len() as u64 == self.scene.frames() as u64
    }

    /// The run of frames this job makes a clip of (`--frames 0..29`), first and last.
    pub fn clip(&self) -> Option<(u32, u32)> {
        whole::clip_of(&self.frames, self.scene.frames())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// Bars on stderr when it is a terminal.
    Bars,
    /// One JSON line per finished frame on stdout.
    Json,
    Quiet,
}

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("scene {scene}: the simulation broke at frame {frame}: {what}")]
    Simulation { scene: String, frame: u32, what: String },
    #[error("interrupted: {done} of {} of {scene} {} written; rerun with --resume to finish", crate::text::count(*total as u64, "frame", "frames"), if *done == 1 { "is" } else { "are" })]
    Interrupted { scene: String, done: usize, total: usize },
    #[error("scene {scene}: the encoder threads stopped before every frame was written")]
    EncodersStopped { scene: String },
    #[error("scene {scene}: the renderer returned frame {frame}, which this job did not submit (a bug in simreel)")]
    UnexpectedFrame { scene: String, frame: u32 },
    #[error("{}: {why}; render it smaller (--size, --draft), with less in it, or on a GPU (`simreel adapters` lists this machine's)", path.display())]
    TooSlow { path: PathBuf, why: String },
}

impl PipelineError {
    pub fn exit_class(&self) -> crate::exit::ExitClass {
        match self {
            PipelineError::Render(r) => r.exit_class(),
            PipelineError::Interrupted { .. } => crate::exit::ExitClass::Interrupted,
            PipelineError::TooSlow { .. } => crate::exit::ExitClass::BadInput,
            _ => crate::exit::ExitClass::Runtime,
        }
    }
}

/// What a finished job wrote.
#[derive(Debug)]
pub struct Outcome {
    pub manifest: Manifest,
    pub adapter: AdapterSummary,
    pub frames_dir: PathBuf,
    pub gif: Option<PathBuf>,
    /// APNG, MP4, WebM, WebP and AVIF files made from the frames.
    pub animations: Vec<PathBuf>,
    /// Frames kept from an earlier run (`--resume`).
    pub reused: usize,
    /// Frames rendered by this run.
    pub rendered: usize,
    /// Why an earlier run's frames were not kept by `--resume`, when they were not.
    pub stale: Option<String>,
    /// Animations already made from these very frames, kept as they were.
    pub current: Vec<PathBuf>,
    /// The animations not made, and why (a render of some frames leaves the whole alone).
    pub left: Vec<String>,
    /// Frames a longer version of the scene left past its end, removed.
    pub removed: usize,
    /// Saved states of another version of the simulation (or another build), passed over.
    pub stale_states: u32,
    /// The frames of saved states of this very simulation that it refused (damaged, or edited
    /// by someone who recomputed the checksum): passed over, and said.
    pub refused_states: Vec<u32>,
    /// What the GIF gave up to fit its budget (`gif_max_size`), when it had to.
    pub gif_fit: Option<String>,
    /// The clips of the run of frames rendered (`--frames 0..29`: `<name>.0-29.mp4`).
    pub clips: Vec<PathBuf>,
}

/// A frame on its way from the simulation to the renderer.
enum Simulated {
    Frame(Box<FrameData>),
    /// A frame an earlier run finished: nothing to render.
    Kept(u32),
    /// The simulation broke here. It travels behind the frames before it, so those are still
    /// rendered and written (and kept for `--resume`) before the job stops.
    Fault(PipelineError),
}

/// A frame on its way from the renderer to the encoders.
enum Work {
    /// In its staging buffer, which takes another frame once the encoder is done with it.
    Rendered(Mapped),
    /// A frame an earlier run finished: its PNG is read back if the GIF needs it.
    Kept(u32),
}

/// Where one job's files go.
struct Outputs {
    folder: SceneFolder,
    frames_dir: PathBuf,
    manifest: PathBuf,
    /// The GIF written as the frames come (a render of every frame whose GIF is not current).
    gif: Option<PathBuf>,
    png: bool,
}

impl Outputs {
    fn of(job: &Job) -> Self {
        let folder = job.folder();
        let manifest = match &job.shard {
            Some(s) => folder.shard_manifest(s.index, s.count),
            None => folder.manifest(),
        };
        Outputs {
            frames_dir: folder.dir(),
            manifest,
            gif: None,
            // a shard's frames are what the merge assembles: always PNG
            // a GIF with a budget may be made again from the frames
            png: job.formats.iter().any(|f| f.needs_png())
                || job.shard.is_some()
                || (job.formats.contains(&Format::Gif) && job.scene.output.gif_max_size.is_some()),
            folder,
        }
    }

    fn file(&self, frame: u32) -> String {
        self.folder.frame_name(frame)
    }

    fn frame_path(&self, frame: u32) -> PathBuf {
        self.folder.frame(frame)
    }
}

/// What the stages of a running job share.
struct Shared<'a> {
    job: &'a Job,
    out: Outputs,
    /// The frames folder, opened once when the run took it ([`output::claim::Claim::folder`]).
    frames: output::Folder,
    cancel: &'a AtomicBool,
    /// Set with the first failure: every stage stops before its next frame.
    abort: AtomicBool,
    failure: Mutex<Option<PipelineError>>,
    clock: Mutex<StageClock>,
    progress: Progress,
    /// Frames an earlier run finished, kept by `--resume`.
    kept: HashSet<u32>,
    /// The SHA-256 of each frame's file: written now, or kept from the earlier run.
    hashes: Mutex<BTreeMap<u32, String>>,
    /// State digest of each frame: simulated now, or carried over from the earlier run.
    states: Mutex<BTreeMap<u32, FrameState>>,
    /// Frames whose outputs are complete, in the order they finished.
    written: Mutex<Vec<u32>>,
    /// Digest of the last state simulated.
    final_state: Mutex<String>,
    /// The saved state the simulation started from, when it did not start from frame 0.
    simulated_from: Mutex<Option<u32>>,
    /// What the manifest records of the run, and when it was last written while the job runs
    /// (a run killed without warning leaves that much for `--resume`).
    adapter: AdapterSummary,
    identity: crate::scene::Identity,
    settings: String,
    /// The manifest entries of the frames this job does not render, kept as they are, and the
    /// records of the animations in the folder.
    carried: Vec<FrameEntry>,
    records: Vec<AnimationEntry>,
    /// Saved states of another version of the simulation the run passed over.
    stale_states: Mutex<u32>,
    /// Saved states of this simulation it refused to take.
    refused_states: Mutex<Vec<u32>>,
    /// The job's frames its GIF shows (`gif_fps`): the others are not quantized for it.
    gif_sampling: crate::output::gif::Sampling,
    started: Instant,
    checkpoint: Mutex<Instant>,
    /// When the first and the last frame this run rendered were finished.
    finished_at: Mutex<Option<(Instant, Instant)>>,
    /// What opening the renderer took, when this job opened it.
    opening: Option<Opening>,
    /// The renderer's GPU waits and copies in this job.
    gpu: Mutex<RenderClock>,
    /// Encoder threads.
    workers: usize,
    /// The simulation built and its first frame made while the renderer opened
    /// ([`stages::head_start`]).
    head: Mutex<Option<stages::Head>>,
}

impl Shared<'_> {
    /// Records the first failure and stops every stage.
    fn fail(&self, e: PipelineError) {
        self.abort.store(true, Ordering::SeqCst);
        self.failure.lock().expect("failure slot").get_or_insert(e);
    }

    fn stopped(&self) -> bool {
        self.abort.load(Ordering::SeqCst) || self.cancel.load(Ordering::SeqCst)
    }

    /// Runs `f`, adding its time to `stage`.
    fn timed<T>(&self, stage: Stage, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        self.clock.lock().expect("clock").add(stage, t.elapsed(), None);
        out
    }

    /// [`Shared::timed`], with the CPU time the thread spent in `f`.
    fn timed_cpu<T>(&self, stage: Stage, f: impl FnOnce() -> T) -> T {
        let (t, cpu) = (Instant::now(), progress::thread_cpu());
        let out = f();
        let cpu = cpu.zip(progress::thread_cpu()).map(|(a, b)| b.saturating_sub(a));
        self.clock.lock().expect("clock").add(stage, t.elapsed(), cpu);
        out
    }

    /// Runs `f` (a channel's send or receive), adding its time to what `stage` waited.
    fn waiting<T>(&self, stage: Stage, wait: Wait, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        self.clock.lock().expect("clock").wait(stage, wait, t.elapsed());
        out
    }

    /// Frame `frame`'s outputs are complete.
    fn finished(&self, frame: u32) {
        self.written.lock().expect("written").push(frame);
        // the startup and the steady rate are of the frames this run renders (a frame `--resume`
        // kept passes through in no time)
        if self.kept.contains(&frame) {
            return;
        }
        let now = Instant::now();
        let mut at = self.finished_at.lock().expect("finished at");
        *at = Some(at.map_or((now, now), |(first, _)| (first, now)));
    }

    /// Writes the manifest of what is finished so far, at most every [`checkpoint_every`].
    fn checkpoint(&self) {
        if !self.out.png {
            return;
        }
        let Ok(mut last) = self.checkpoint.try_lock() else { return };
        if last.elapsed() < checkpoint_every() {
            return;
        }
        *last = Instant::now();
        let m = build_manifest(self, self.started.elapsed(), false);
        // a failed checkpoint costs only what a kill would lose; the final manifest reports errors
        let _ = m.write(&self.out.manifest);
    }

    /// Where frame `frame` stands in the job's (sorted) frame list: the GIF's frame order.
    fn position(&self, frame: u32) -> Result<usize, PipelineError> {
        self.job.frames.binary_search(&frame).map_err(|_| PipelineError::UnexpectedFrame { scene: self.job.scene.name.clone(), frame })
    }
}

/// How often a running job rewrites its manifest: every 2 s, or `SIMREEL_CHECKPOINT_MS`.
fn checkpoint_every() -> Duration {
    crate::environment::Environment::current().checkpoint_every()
}

/// The settings besides the scene file that decide the pixels, this build of simreel among them:
/// a resumed run, and the shards a merge joins, must match them.
fn settings_hash(job: &Job, adapter: &str) -> String {
    let mut h = Fnv::new();
    let r = &job.scene.look;
    h.bytes(format!("{}x{} msaa{} {} {}", r.width, r.height, r.msaa, adapter, crate::BUILD).as_bytes());
    format!("{:016x}", h.finish())
}

/// A frame's state digest and its facts as JSON.
type FrameState = (String, serde_json::Map<String, serde_json::Value>);

/// Runs `job`: simulate, render, encode, write. `cancel` (Ctrl-C) stops it between frames.
pub fn run(job: &Job, mode: ProgressMode, cancel: &AtomicBool) -> Result<Outcome, PipelineError> {
    run_with(job, mode, cancel, &mut Pool::new(1))
}

/// [`run`] on a renderer of `renderers` (one made for an earlier job of the same adapter, size
/// and samples is reused).
pub fn run_with(job: &Job, mode: ProgressMode, cancel: &AtomicBool, renderers: &mut Pool) -> Result<Outcome, PipelineError> {
    let wall = Instant::now();
    let scene = &job.scene;
    let r = &scene.look;
    let head = stages::head_start(job);
    let renderer = renderers.get(&job.adapter, r.width, r.height, r.msaa)?;
    let opening = renderer.take_opening();
    let adapter = renderer.adapter().clone();
    // a frame a software adapter would take too long over is refused before its folder is touched
    // (the command said the warning, `patience::check`, before any job started)
    patience::check(job, &adapter)?;
    renderer.set_patience(patience::patience(job));
    // one writer per scene output; what killed runs left behind goes first
    let mut out = Outputs::of(job);
    // MP4, WebM, WebP and AVIF need ffmpeg: found out before anything is rendered
    let videos = job.formats.iter().any(|f| f.needs_ffmpeg()) && job.shard.is_none();
    let ffmpeg = if videos { Some(output::animation::ffmpeg()?) } else { None };
    // shards share the folder, each with its own lock; they leave the sweep to runs that own it
    // whole (a temporary from another machine's live shard looks like a dead process's here)
    let _claim = match &job.shard {
        Some(s) => output::claim::Claim::take_as(
            &out.frames_dir,
            &format!(".simreel-{}.lock", output::manifest::ShardInfo::stem(s.index, s.count)),
        )?,
        None => {
            let claim = output::claim::Claim::take(&out.frames_dir)?;
            claim.sweep(&out.frames_dir, &out.folder.beside(&job.formats, job.clip()));
            claim
        }
    };
    let identity = scene.identity();
    let settings = settings_hash(job, &adapter.to_string());
    let expected = |f: u32| output::layout::frame_identity(identity, &settings, f);
    // what the folder holds: a shard reads its own manifest, a render the scene's
    let old = if out.png { Manifest::read(&out.manifest) } else { None };
    let (kept, stale) = kept_frames(job, old.as_ref(), &expected);
    let animations =
        job.shard.is_none().then(|| whole::Animations::new(scene, &out.folder, &job.formats, &settings, old.as_ref(), &job.frames));
    let gif_current = animations.as_ref().is_some_and(|a| a.is_current(Format::Gif));
    out.gif = streamed_gif(job, &out.folder, gif_current);
    let frames = _claim.folder().try_clone().map_err(|source| OutputError::Write { path: out.frames_dir.clone(), source })?;
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 16);
    let shared = Shared {
        job,
        frames,
        cancel,
        abort: AtomicBool::new(false),
        failure: Mutex::new(None),
        clock: Mutex::new(StageClock::default()),
        progress: Progress::new(mode, &scene.name, job.frames.len() as u64),
        kept: kept.keys().copied().collect(),
        hashes: Mutex::new(kept.iter().map(|(f, (_, h))| (*f, h.clone())).collect()),
        states: Mutex::new(kept.into_iter().map(|(f, (s, _))| (f, s)).collect()),
        written: Mutex::new(Vec::new()),
        final_state: Mutex::new(String::new()),
        simulated_from: Mutex::new(None),
        carried: if job.shard.is_some() { Vec::new() } else { whole::carried(old.as_ref(), &out.folder, scene.frames(), &job.frames) },
        records: animations.as_ref().map(whole::Animations::records).unwrap_or_default(),
        out,
        adapter: adapter.clone(),
        identity,
        settings: settings.clone(),
        stale_states: Mutex::new(0),
        refused_states: Mutex::new(Vec::new()),
        gif_sampling: assemble::gif_sampling(scene, job.frames.len()),
        started: wall,
        checkpoint: Mutex::new(Instant::now()),
        finished_at: Mutex::new(None),
        opening,
        gpu: Mutex::new(RenderClock::default()),
        workers,
        head: Mutex::new(head),
    };
    let gif_written = stages::run(&shared, renderer);
    shared.progress.finish();
    let mut manifest = build_manifest(&shared, wall.elapsed(), false);
    let rendered = rendered_count(&shared);
    let stopped = shared.failure.lock().expect("failure slot").is_some() || cancel.load(Ordering::SeqCst);
    // the whole scene: its leftovers past its end, its animations (not after a failure, nor for a
    // shard: the merge makes them)
    let mut finished = whole::Outcome::default();
    let mut removed = 0;
    if let (Some(animations), false) = (&animations, stopped) {
        if job.is_whole() {
            removed = whole::remove_strays(&shared.out.folder)?;
        }
        let streamed = if gif_written { vec![Format::Gif] } else { Vec::new() };
        finished = animations.finish(&manifest.frames, &streamed, ffmpeg.as_deref(), &shared.progress)?;
        manifest.animations = finished.records.clone();
        // the whole run's time, the animations' too; the frames' rate stays theirs
        manifest.timings.wall_s = wall.elapsed().as_secs_f64();
        manifest.timings.animations_s = finished.seconds.clone();
        manifest.gif = animations.gif(&manifest.animations);
    }
    if shared.out.png {
        manifest.write(&shared.out.manifest)?;
    }
    if let Some(e) = shared.failure.into_inner().expect("failure slot") {
        return Err(e);
    }
    if cancel.load(Ordering::SeqCst) {
        let done = shared.written.into_inner().expect("written").len();
        return Err(PipelineError::Interrupted { scene: scene.name.clone(), done, total: job.frames.len() });
    }
    let gif = out_gif(&finished);
    Ok(Outcome {
        manifest,
        adapter,
        frames_dir: shared.out.frames_dir,
        gif,
        animations: finished.written.iter().filter(|p| p.extension().is_none_or(|x| x != "gif")).cloned().collect(),
        reused: shared.kept.len(),
        rendered,
        stale,
        current: finished.current,
        left: finished.left,
        gif_fit: finished.fitted,
        clips: finished.clips,
        removed,
        stale_states: *shared.stale_states.lock().expect("stale states"),
        refused_states: std::mem::take(&mut *shared.refused_states.lock().expect("refused states")),
    })
}

/// The GIF written as the frames come: the whole scene's when every frame is rendered and it is
/// not already made from these very frames (`current`), or the clip's when the render is of a run
/// of frames (`--frames 0..29`).
fn streamed_gif(job: &Job, folder: &SceneFolder, current: bool) -> Option<PathBuf> {
    if !job.formats.contains(&Format::Gif) || job.shard.is_some() {
        return None;
    }
    match job.clip() {
        Some((first, last)) => folder.clip(Format::Gif, first, last),
        None if job.is_whole() && !current => folder.animation(Format::Gif),
        None => None,
    }
}

/// The GIF this run wrote, if it wrote one.
fn out_gif(finished: &whole::Outcome) -> Option<PathBuf> {
    finished.written.iter().find(|p| p.extension().is_some_and(|x| x == "gif")).cloned()
}

/// Frames this run rendered (not those `--resume` kept).
fn rendered_count(shared: &Shared) -> usize {
    shared.written.lock().expect("written").iter().filter(|f| !shared.kept.contains(f)).count()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn a_handler_that_cannot_be_installed_says_so() {
        // the first installation in a process succeeds; a second cannot, and is told, not dropped
        let first = super::stop_on_interrupt(Arc::new(AtomicBool::new(false)), 130);
        let second = super::stop_on_interrupt(Arc::new(AtomicBool::new(false)), 130);
        assert!(first.is_ok(), "{first:?}");
        let e = second.unwrap_err();
        assert!(e.starts_with("Ctrl-C cannot be caught (") && e.contains("--resume"), "{e}");
    }
}
