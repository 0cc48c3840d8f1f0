//! Times a flock scene's simulation with its agent count changed (same canvas: a denser crowd)
//! and prints one JSON line: `{"agents":…, "threads":…, "ms_per_step":…, "ms_per_frame":…, …}`.
//!
//! `cargo run --release --example flock_bench -- --scene scenes/flock_crowd.toml --agents 100000
//! --frames 10 [--threads N] [--runs R]`
//! Simulates frames 1..=FRAMES from a fresh start R times (default 3) and reports the median;
//! frame 0 (the spawn) is not timed. One thread by default; `--threads 0` is all cores.
//! `ms_per_digest` is one digest of the last frame (the per-frame facts a manifest records).

use std::time::Instant;

use simreel::kinds::FromScene;
use simreel::scene::KindSpec;
use simreel::scene::flock::Count;
use simreel::sim::Simulation;
use simreel::sim::flock::FlockSim;

fn main() {
    let mut scene = "scenes/flock_crowd.toml".to_string();
    let (mut agents, mut frames, mut threads, mut runs) = (10_000u32, 10u32, 1usize, 3usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| fail(&format!("{a} needs a value")));
        let number = |v: String| v.parse::<usize>().unwrap_or_else(|_| fail(&format!("{a} takes a whole number")));
        match a.as_str() {
            "--scene" => scene = val(),
            "--agents" => agents = number(val()) as u32,
            "--frames" => frames = number(val()) as u32,
            "--threads" => threads = number(val()),
            "--runs" => runs = number(val()).max(1),
            "-h" | "--help" => {
                println!("flock_bench --scene FILE --agents N --frames F [--threads T (0: all cores)] [--runs R]");
                return;
            }
            other => fail(&format!("unknown argument {other}")),
        }
    }
    let mut s = simreel::scene::load(std::path::Path::new(&scene)).unwrap_or_else(|e| fail(&e.to_string()));
    let KindSpec::Flock(spec) = &mut s.sim.kind else { fail(&format!("{scene} is not a flock scene")) };
    spec.agents = Count::Fixed(agents);
    let steps_per_frame = spec.step_hz as f64 / s.sim.timing.fps as f64;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let (mut times, mut digests) = (Vec::new(), Vec::new());
    pool.install(|| {
        for _ in 0..runs {
            let mut sim = FlockSim::from_scene(&s).expect("a flock scene");
            sim.advance(0);
            let t = Instant::now();
            for f in 1..=frames {
                sim.advance(f);
            }
            times.push(t.elapsed().as_secs_f64());
            // the frame's digest (its facts: counts, mean speed, mean spacing), once a frame
            let t = Instant::now();
            std::hint::black_box(sim.digest());
            digests.push(t.elapsed().as_secs_f64());
        }
    });
    times.sort_by(f64::total_cmp);
    digests.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let per_frame = median / frames as f64 * 1e3;
    println!(
        "{{\"scene\":\"{scene}\",\"agents\":{agents},\"threads\":{},\"frames\":{frames},\"ms_per_frame\":{per_frame:.3},\"ms_per_step\":{:.3},\"ms_per_digest\":{:.3},\"runs_s\":{times:?}}}",
        pool.current_num_threads(),
        per_frame / steps_per_frame,
        digests[digests.len() / 2] * 1e3,
    );
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}
