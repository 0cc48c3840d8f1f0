//! The first load of each scene file named (read, parsed, validated: a figure's panels and data
//! files with it), the median of 100 loads after it (as the studio's reload after a save, a golden
//! check or a merge pays it: data files that did not change are not parsed again), and the
//! identity. docs/benchmarks/identity.md.
//!
//!     cargo run --release --example scene_load -- scenes/*.toml scenes/figures/*.toml

use std::time::{Duration, Instant};

fn median(mut d: Vec<Duration>) -> Duration {
    d.sort();
    d[d.len() / 2]
}

fn main() {
    println!("| file | first load | load again (median) | identity (median) |\n|---|---|---|---|");
    for file in std::env::args().skip(1) {
        let path = std::path::Path::new(&file);
        let t = Instant::now();
        let scene = simreel::scene::load(path).unwrap_or_else(|e| panic!("{e}"));
        let first = t.elapsed();
        let again = median(
            (0..100)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(simreel::scene::load(path).unwrap());
                    t.elapsed()
                })
                .collect(),
        );
        let identity = median(
            (0..100)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(scene.identity());
                    t.elapsed()
                })
                .collect(),
        );
        let ms = |d: Duration| format!("{:.3} ms", d.as_secs_f64() * 1e3);
        println!("| `{file}` | {} | {} | {} |", ms(first), ms(again), ms(identity));
    }
}
