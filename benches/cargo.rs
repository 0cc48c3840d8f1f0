//! One game frame (1/60 s) of `scenes/cargo_walk.toml` for each integrator: the exact one (two
//! closed-form steps on the 120 Hz clock, each with the support's acceleration from three pose
//! evaluations) and the seed's (finite differences, two semi-implicit substeps). Also one whole
//! frame as the simulation hands it to the renderer (poses, skinned straps, the strip chart).
//! The seed's cost claim is "microseconds a frame"; rendering dominates.

use criterion::{Criterion, criterion_group, criterion_main};
use simreel::kinds::Played;
use simreel::scene;
use simreel::sim::cargo::CargoSim;

fn walk(integrator: &str) -> Played<CargoSim> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/cargo_walk.toml");
    let text = std::fs::read_to_string(path).expect("scenes/cargo_walk.toml").replace("duration = 12.0", "duration = 80000.0");
    let text = text.replace("fill = 0.5", &format!("fill = 0.5\nintegrator = \"{integrator}\""));
    let s = scene::parse(&text, std::path::Path::new(path)).expect("cargo_walk");
    let mut sim = Played::<CargoSim>::of(&s).expect("a cargo scene");
    sim.advance_to(1.0);
    sim
}

fn step(c: &mut Criterion) {
    let mut group = c.benchmark_group("cargo_game_frame");
    for integrator in ["exact", "euler_capped"] {
        let mut sim = walk(integrator);
        let mut t = 1.0;
        group.bench_function(integrator, |b| {
            b.iter(|| {
                t += 1.0 / 60.0;
                sim.advance_to(t);
            })
        });
    }
    group.finish();
    let mut sim = walk("exact");
    let mut frame = 30;
    c.bench_function("cargo_frame_data", |b| {
        b.iter(|| {
            frame += 1;
            sim.frame(frame)
        })
    });
}

criterion_group!(benches, step);
criterion_main!(benches);
