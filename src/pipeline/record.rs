//! The manifest a run leaves: what it wrote, how, and how long it took, beside the entries and
//! animation records of what it did not touch.

use std::time::Duration;

use super::{Shared, rendered_count};
use crate::output;
use crate::output::manifest::{FrameEntry, Manifest, StageTimes, Stages, Timings};
use crate::scene::Format;

/// The manifest of a finished (or stopped) job: what was written, how, and how long it took;
/// the entries of the frames it did not render and the records of the animations it did not
/// make, as they were.
pub(super) fn build_manifest(shared: &Shared, wall: Duration, gif: bool) -> Manifest {
    let adapter = &shared.adapter;
    let (scene, r, timing) = (&shared.job.scene, &shared.job.scene.look, shared.job.scene.sim.timing);
    let mut written = shared.written.lock().expect("written").clone();
    written.sort_unstable();
    let wall_s = wall.as_secs_f64();
    let rendered = rendered_count(shared);
    let stages = stages(shared, rendered as u64);
    let (first, last) = shared.finished_at.lock().expect("finished at").map_or((wall_s, wall_s), |(a, b)| {
        (a.duration_since(shared.started).as_secs_f64(), b.duration_since(shared.started).as_secs_f64())
    });
    let frames = if shared.out.png {
        let states = shared.states.lock().expect("states");
        let hashes = shared.hashes.lock().expect("hashes");
        let mut frames: Vec<FrameEntry> = written
            .iter()
            .map(|&f| {
                let (state, facts) = states.get(&f).cloned().unwrap_or_default();
                let identity = output::layout::frame_identity(shared.identity, &shared.settings, f);
                let sha256 = hashes.get(&f).cloned().unwrap_or_default();
                FrameEntry { index: f, file: shared.out.file(f), identity, state, facts, sha256 }
            })
            .collect();
        frames.extend(shared.carried.iter().cloned());
        frames.sort_by_key(|e| e.index);
        frames
    } else {
        Vec::new()
    };
    Manifest {
        simreel: env!("CARGO_PKG_VERSION").to_string(),
        build: crate::BUILD.to_string(),
        scene: scene.name.clone(),
        scene_file: scene.path.display().to_string(),
        overrides: scene.overrides.clone(),
        identity: shared.identity,
        settings_hash: shared.settings.clone(),
        kind: scene.kind_name().to_string(),
        seed: scene.sim.seed,
        adapter: adapter.to_string(),
        adapter_info: adapter.clone(),
        width: r.width,
        height: r.height,
        fps: timing.fps,
        frames_in_scene: timing.frames,
        frames,
        gif: shared.out.gif.as_ref().filter(|_| gif).map(|p| p.display().to_string()).or_else(|| {
            shared
                .records
                .iter()
                .any(|r| r.format == Format::Gif.name())
                .then(|| shared.out.folder.animation(Format::Gif))
                .flatten()
                .map(|p| p.display().to_string())
        }),
        animations: shared.records.clone(),
        timings: Timings {
            wall_s,
            simulate_s: stages.simulate.busy_s,
            render_s: stages.render.busy_s,
            encode_s: stages.encode.busy_s,
            frames_per_second: rendered as f64 / wall_s.max(1e-9),
            slowest_stage: stages.slowest().0.to_string(),
            startup_s: first,
            adapter_s: shared.opening.map(|o| o.adapter.as_secs_f64()),
            device_s: shared.opening.map(|o| o.device.as_secs_f64()),
            steady_fps: if last > first { (rendered - 1) as f64 / (last - first) } else { 0.0 },
            stages: Some(stages),
            animations_s: Default::default(),
            peak_memory_bytes: crate::output::manifest::peak_memory(),
        },
        final_state: shared.final_state.lock().expect("state").clone(),
        simulated_from: *shared.simulated_from.lock().expect("start"),
        stale_states: *shared.stale_states.lock().expect("stale states"),
        shard: shared.job.shard.clone(),
    }
}

/// Each stage's times for `frames` frames rendered.
fn stages(shared: &Shared, frames: u64) -> Stages {
    let clock = shared.clock.lock().expect("clock");
    let times = |threads: usize, t: super::progress::StageTime| {
        StageTimes::of(threads as u32, frames, t.busy.as_secs_f64(), t.idle.as_secs_f64(), t.blocked.as_secs_f64())
    };
    let gpu = *shared.gpu.lock().expect("gpu clock");
    // waiting for the encoders to give a staging buffer back is waiting on the next stage
    let mut render = clock.render;
    render.busy = render.busy.saturating_sub(gpu.lent_wait);
    render.blocked += gpu.lent_wait;
    Stages {
        simulate: times(1, clock.simulate),
        render: times(1, render).with_gpu(gpu.gpu_wait.as_secs_f64(), render.cpu.map(|c| c.as_secs_f64())),
        encode: times(shared.workers, clock.encode),
    }
}
