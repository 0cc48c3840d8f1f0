//! The simulation and render stages of a job, and the simulation's head start: its first frame
//! made while the renderer opens.

use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::{Duration, Instant};

use super::progress::{Stage, Wait};
use super::{Job, PipelineError, Shared, Simulated, Work, encode, snapshots};
use crate::frame::FrameData;
use crate::render::{RenderClock, Renderer};

/// Runs the stages: the simulation on a thread, the encoders on one a worker, the GIF's writer on
/// one, and the render stage on the calling thread. Returns whether the GIF written as the frames
/// came is complete.
pub(super) fn run(shared: &Shared, renderer: &mut Renderer) -> bool {
    let workers = shared.workers;
    // the encoders read frames from the renderer's staging buffers: as many as are queued for
    // them, being encoded and on their way are lent out at once
    let (work_tx, work_rx) = sync_channel(workers);
    renderer.lend(2 * workers + 1);
    let work_rx = Mutex::new(work_rx);
    std::thread::scope(|s| {
        let (sim_tx, sim_rx) = sync_channel(2);
        s.spawn(move || simulate(shared, sim_tx));
        let (gif_tx, gif_rx) = sync_channel(workers * 2);
        for _ in 0..workers {
            let (work_rx, gif_tx) = (&work_rx, gif_tx.clone());
            s.spawn(move || encode::encode(shared, work_rx, gif_tx));
        }
        drop(gif_tx);
        let gif = shared.out.gif.as_deref().map(|path| s.spawn(move || encode::assemble_gif(shared, path, gif_rx)));
        render_frames(shared, renderer, sim_rx, work_tx);
        gif.is_some_and(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

/// A simulation and its frame 0, made on a thread of their own, with the time they took.
pub(super) type Head = std::thread::JoinHandle<(crate::sim::Player, Box<FrameData>, Duration)>;

/// Builds the simulation and makes its frame 0 on a thread of its own, for a job that starts at
/// the scene's start (and is not resuming, which would keep that frame): the first frame of a
/// terrain or a meadow costs 0.1 s of meshing, about what opening a device does, and the two go
/// on together.
pub(super) fn head_start(job: &Job) -> Option<Head> {
    if job.frames.first() != Some(&0) || job.resume {
        return None;
    }
    let scene = job.scene.clone();
    let spawned = std::thread::Builder::new().name("simreel-head".into()).spawn(move || {
        let t = Instant::now();
        let mut sim = crate::kinds::build(&scene);
        let data = Box::new(sim.frame(0));
        (sim, data, t.elapsed())
    });
    // without a thread, the simulation stage builds it as it always did
    spawned.ok()
}

/// The simulation stage: every frame of the job in order, on its own thread. A kept frame is
/// stepped through with the next one (a simulation's state at a frame depends on every step
/// before it), not described on its own. The simulation starts from the nearest saved state
/// before the first frame to describe, and saves its state now and then ([`snapshots`]).
pub(super) fn simulate(shared: &Shared, tx: SyncSender<Simulated>) {
    let scene = &shared.job.scene;
    let first = shared.job.frames.iter().copied().find(|f| !shared.kept.contains(f));
    // the first frame made while the renderer opened, where the job starts at the scene's start
    // (no state is ever saved at frame 0, so none would have been restored)
    let head = shared.head.lock().expect("head").take().and_then(|h| h.join().ok()).filter(|_| first == Some(0));
    let (mut sim, mut ready) = match head {
        Some((sim, data, took)) => {
            shared.clock.lock().expect("clock").add(Stage::Simulate, took, None);
            (sim, Some(data))
        }
        None => (crate::kinds::build(scene), None),
    };
    if let Some(first) = first.filter(|_| shared.job.snapshots && ready.is_none()) {
        // a state the simulation refuses (its numbers out of range, its counts wrong) is passed
        // over for an earlier one, or the start
        let mut refused = Vec::new();
        let restored = shared.timed(Stage::Simulate, || {
            for (at, state) in snapshots::nearest(&shared.out.folder, scene, first) {
                if sim.restore(at, &state) {
                    return Some(at);
                }
                refused.push(at);
            }
            None
        });
        *shared.refused_states.lock().expect("refused states") = refused;
        *shared.simulated_from.lock().expect("start") = restored;
        // states of another version of the simulation nearer the first frame: never restored
        *shared.stale_states.lock().expect("stale states") = snapshots::stale(&shared.out.folder, scene, restored, first);
    }
    let last = shared.job.frames.last().copied();
    for &f in &shared.job.frames {
        if shared.stopped() {
            break;
        }
        if shared.kept.contains(&f) {
            shared.progress.simulate.inc(1);
            if shared.waiting(Stage::Simulate, Wait::Blocked, || tx.send(Simulated::Kept(f))).is_err() {
                break;
            }
            continue;
        }
        let data = match ready.take() {
            Some(data) => data,
            None => Box::new(shared.timed(Stage::Simulate, || sim.frame(f))),
        };
        let digest = sim.digest();
        let mut facts = crate::output::manifest::facts_json(&digest.facts);
        // the frame's time, so that a chart can plot the trace in seconds
        if let Some(t) = serde_json::Number::from_f64(scene.sim.timing.time_of(f)) {
            facts.entry("time").or_insert(serde_json::Value::Number(t));
        }
        shared.states.lock().expect("states").insert(f, (digest.to_string(), facts));
        shared.progress.simulate.inc(1);
        if let Some(fault) = sim.fault() {
            let _ =
                tx.send(Simulated::Fault(PipelineError::Simulation { scene: scene.name.clone(), frame: fault.frame, what: fault.what }));
            break;
        }
        if shared.job.snapshots && (snapshots::due(f, scene.sim.timing.frames) || Some(f) == last) {
            // a snapshot only saves later runs time: one that cannot be written is passed over
            let _ = shared.timed(Stage::Simulate, || sim.snapshot().map(|state| snapshots::save(&shared.out.folder, scene, f, &state)));
        }
        if shared.waiting(Stage::Simulate, Wait::Blocked, || tx.send(Simulated::Frame(data))).is_err() {
            break;
        }
    }
    *shared.final_state.lock().expect("state") = sim.digest().to_string();
}

/// The render stage, on the calling thread: frames are submitted as they arrive and come back
/// through the renderer's readback ring (several in flight), then go to the encoders.
pub(super) fn render_frames(shared: &Shared, renderer: &mut Renderer, rx: Receiver<Simulated>, tx: SyncSender<Work>) {
    let forward = |work: Work| {
        shared.progress.render.inc(1);
        if shared.waiting(Stage::Render, Wait::Blocked, || tx.send(work)).is_err() {
            shared.fail(PipelineError::EncodersStopped { scene: shared.job.scene.name.clone() });
        }
    };
    let start = renderer.clock();
    let gpu = |renderer: &Renderer| {
        let now = renderer.clock();
        *shared.gpu.lock().expect("gpu clock") =
            RenderClock { gpu_wait: now.gpu_wait - start.gpu_wait, lent_wait: now.lent_wait - start.lent_wait };
    };
    while let Ok(msg) = shared.waiting(Stage::Render, Wait::Idle, || rx.recv()) {
        if shared.stopped() {
            break;
        }
        let data = match msg {
            Simulated::Kept(f) => {
                forward(Work::Kept(f));
                continue;
            }
            Simulated::Frame(data) => data,
            Simulated::Fault(e) => {
                shared.fail(e);
                break;
            }
        };
        let submitted = shared.timed_cpu(Stage::Render, || renderer.submit_mapped(&data));
        gpu(renderer);
        match submitted {
            Ok(Some(img)) => forward(Work::Rendered(img)),
            Ok(None) => {}
            Err(e) => {
                shared.fail(e.into());
                break;
            }
        }
    }
    // what is still in flight
    loop {
        let next = shared.timed_cpu(Stage::Render, || renderer.next_mapped());
        gpu(renderer);
        match next {
            Ok(Some(img)) => forward(Work::Rendered(img)),
            Ok(None) => break,
            Err(e) => {
                shared.fail(e.into());
                break;
            }
        }
    }
}
