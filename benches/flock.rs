//! One fixed step of the flock with 50 000 agents (and 5 000 for scale), single-threaded and on
//! the whole rayon pool. Target: at least 60 steps per second on one core.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use simreel::kinds::FromScene;
use simreel::scene;
use simreel::sim::flock::FlockSim;

fn world(agents: u32) -> FlockSim {
    // Canvas sized so each agent has about 180 square units: the crowd scene's density.
    let side = ((agents as f64 * 180.0) / (16.0 * 9.0)).sqrt();
    let text = format!(
        "kind = \"flock\"\nseed = 9\n[render]\nwidth = 640\nheight = 360\nframes = 600\n[flock]\nagents = {agents}\nnodes = 60\ncanvas = [{}, {}]\nseparation_radius = 9.0\ncursor = [[0.0, 100.0, 100.0], [10.0, {}, {}]]\nclicks = [[5.0]]\n",
        16.0 * side,
        9.0 * side,
        16.0 * side,
        9.0 * side
    );
    let s = scene::parse(&text, std::path::Path::new("bench.toml")).expect("bench scene");
    let mut sim = FlockSim::from_scene(&s).expect("a flock scene");
    // two simulated seconds, so agents are spread over seek, work and curious
    for _ in 0..120 {
        sim.world_mut().step();
    }
    sim
}

fn step(c: &mut Criterion) {
    let mut group = c.benchmark_group("flock_step");
    group.sample_size(20);
    for agents in [5_000u32, 50_000] {
        group.throughput(Throughput::Elements(agents as u64));
        let mut one = world(agents);
        let single = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
        group.bench_with_input(BenchmarkId::new("one_core", agents), &agents, |b, _| b.iter(|| single.install(|| one.world_mut().step())));
        let mut all = world(agents);
        group.bench_with_input(BenchmarkId::new("all_cores", agents), &agents, |b, _| b.iter(|| all.world_mut().step()));
    }
    group.finish();
}

criterion_group!(benches, step);
criterion_main!(benches);
