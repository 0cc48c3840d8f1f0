//! One simulation step of a 200 000-blade meadow with a walker: the wind field sampled on its grid,
//! every blade's length-keeping shape, the pressed blades' springs and the trees' lean; on one core
//! and on the whole rayon pool. Target: ≤ 4 ms a step on one core (≤ 20 ns a blade). Also one
//! whole frame of `scenes/wind_meadow.toml` as the simulation hands it to the renderer (step,
//! culling, level of detail, batches).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use simreel::kinds::{FromScene, Played};
use simreel::scene;
use simreel::sim::wind::WindSim;

const MEADOW: &str = "kind = \"wind\"\nseed = 5\n[render]\nfps = 30\nduration = 600.0\n\
[wind]\ngust = { amplitude = 2.4, scale = 9.0, period = 3.0 }\nswirl = { amplitude = 0.5, scale = 5.0 }\n\
[[wind.front]]\nat = 4.0\n\
[[wind.walker]]\npath = [[0.0, -29.0, 0.0], [20.0, 29.0, 0.0]]\n\
[[wind.grass]]\narea = [58.0, 58.0]\ndensity = 60\n\
[[wind.tree]]\nat = [0.0, 35.0]\n";

fn meadow() -> WindSim {
    let s = scene::parse(MEADOW, std::path::Path::new("bench.toml")).expect("bench scene");
    let mut sim = WindSim::from_scene(&s).expect("a wind scene");
    assert!(sim.meadow().len() > 200_000, "{} blades", sim.meadow().len());
    // two seconds in: the walker is in the grass and has left a trail
    sim.advance_to(2.0);
    sim
}

fn step(c: &mut Criterion) {
    let mut group = c.benchmark_group("wind_step");
    group.sample_size(20);
    let blades = meadow().meadow().len() as u64;
    group.throughput(Throughput::Elements(blades));
    let single = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    for (label, pool) in [("one_core", Some(&single)), ("all_cores", None)] {
        let mut sim = meadow();
        let dt = sim.step_seconds();
        group.bench_with_input(BenchmarkId::new(label, blades), &blades, |b, _| {
            b.iter(|| {
                let next = sim.time() + dt;
                match pool {
                    Some(p) => p.install(|| sim.advance_to(next)),
                    None => sim.advance_to(next),
                }
            })
        });
    }
    group.finish();
}

fn frame(c: &mut Criterion) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = scene::load(&root.join("scenes/wind_meadow.toml")).expect("wind_meadow.toml");
    let mut sim = Played::<WindSim>::of(&s).expect("a wind scene");
    let mut f = 0u32;
    c.bench_function("wind_meadow_frame", |b| {
        b.iter(|| {
            f = (f + 1) % s.sim.timing.frames;
            if f == 0 {
                sim = Played::of(&s).expect("a wind scene");
            }
            sim.frame(f)
        })
    });
}

criterion_group!(benches, step, frame);
criterion_main!(benches);
