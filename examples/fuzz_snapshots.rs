//! Fuzzes the saved simulation states of every shipped scene (see `src/fuzz/snapshot.rs`) and
//! prints one JSON line a scene: cases, refused, accepted, failures, the slowest case. Run it
//! under a memory cap, so that a state that asks for memory it should not aborts the run:
//!
//! `(ulimit -v 4000000; cargo run --release --example fuzz_snapshots -- --budget 4000 --play 3)`

use std::path::Path;
use std::time::Duration;

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let (budget, play, seed) = (arg("--budget", 400) as usize, arg("--play", 2) as u32, arg("--seed", 1));
    let only = std::env::args().skip_while(|a| a != "--only").nth(1);
    let mut failed = 0;
    for file in simreel::scene::scene_files(Path::new("scenes")).expect("scenes/ is readable") {
        let scene = simreel::scene::load(&file).unwrap_or_else(|e| panic!("{e}"));
        if only.as_deref().is_some_and(|o| o != scene.name) {
            continue;
        }
        let at = scene.frames() / 3;
        eprintln!("{}: snapshot at frame {at}", scene.name);
        let r = simreel::fuzz::snapshot::round(&scene, at, budget, play, Duration::from_secs(20), seed);
        failed += r.failures.len();
        println!(
            "{}",
            serde_json::json!({
                "scene": scene.name, "bytes": r.bytes, "cases": r.cases, "refused": r.refused, "accepted": r.accepted,
                "slowest_ms": r.slowest.as_secs_f64() * 1e3, "failures": r.failures.len(),
                "first_failures": r.failures.iter().take(5).collect::<Vec<_>>(),
            })
        );
    }
    std::process::exit(if failed > 0 { 1 } else { 0 });
}
