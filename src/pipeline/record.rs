//! The manifest a run leaves: what it wrote, how, and how long it took, beside the entries and
//! animation records of what it did not touch.

use std::time::Duration;

use super::{Shared, rendered_count};
use crate::output;
use crate::output::manifest::{FrameEntry, Manifest, Timings};
use crate::scene::Format;

/// The manifest of a finished (or stopped) job: what was written, how, and how long it took;
/// the entries of the frames it did not render and the records of the animations it did not
/// make, as they were.
pub(super) fn build_manifest(shared: &Shared, wall: Duration, gif: bool) -> Manifest {
    let adapter = &shared.adapter;
    let (scene, r, timing) = (&shared.job.scene, &shared.job.scene.look, shared.job.scene.sim.timing);
    let mut written = shared.written.lock().expect("written").clone();
    written.sort_unstable();
    let clock = shared.clock.lock().expect("clock");
    let wall_s = wall.as_secs_f64();
    let stages = [("simulate", clock.simulate), ("render", clock.render), ("encode", clock.encode)];
    let slowest = stages.iter().max_by_key(|(_, d)| *d).map_or("", |(n, _)| n).to_string();
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
            simulate_s: clock.simulate.as_secs_f64(),
            render_s: clock.render.as_secs_f64(),
            encode_s: clock.encode.as_secs_f64(),
            frames_per_second: rendered_count(shared) as f64 / wall_s.max(1e-9),
            slowest_stage: slowest,
            animations_s: Default::default(),
            peak_memory_bytes: crate::output::manifest::peak_memory(),
        },
        final_state: shared.final_state.lock().expect("state").clone(),
        simulated_from: *shared.simulated_from.lock().expect("start"),
        stale_states: *shared.stale_states.lock().expect("stale states"),
        shard: shared.job.shard.clone(),
    }
}
