//! One frame of the animated `scenes/cliffs.toml` as its simulation builds it (field sampled,
//! marching cubes, world-space mesh with colours, hashes): re-sampling the whole field, as before,
//! and only where the moving shapes reach, on the field's cached constant parts. Frames cycle
//! through the whole animation, so the shapes' reach grows and shrinks as it does in a render.
//! Target: ≥ 3× (issue "Speed where users wait", §2).

use criterion::{Criterion, criterion_group, criterion_main};
use simreel::kinds::FromScene;
use simreel::scene;
use simreel::sim::terrain::TerrainSim;

fn cliffs(c: &mut Criterion) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/cliffs.toml");
    let s = scene::load(&path).expect("scenes/cliffs.toml");
    let frames = s.sim.timing.frames;
    let mut group = c.benchmark_group("cliffs_frame");
    group.sample_size(20);
    for (label, full) in [("full_resample", true), ("where_shapes_reach", false)] {
        let mut sim = TerrainSim::from_scene(&s).expect("a terrain scene");
        sim.full_resample = full;
        sim.mesh_at(0);
        let mut frame = 0;
        group.bench_function(label, |b| {
            b.iter(|| {
                frame = (frame + 1) % frames;
                sim.mesh_at(frame)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, cliffs);
criterion_main!(benches);
