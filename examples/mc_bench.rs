//! Times marching-cubes extraction alone on a benchmark field (the formulas of
//! `scripts/peers/mc_peers.py`) and prints one JSON line:
//! `{"median_s":…, "times_s":[…], "vertices":…, "triangles":…, "area":…}` (area in voxel units).
//!
//! `cargo run --release --example mc_bench -- --field sphere --n 256 --runs 5 [--threads N]
//! [--algorithm marching_cubes|surface_nets|surface_nets_per_cell]`
//! One thread (the default) runs the single-pass extraction; more threads run the chunked one on a
//! rayon pool of that size. One untimed warm-up precedes the timed runs.

use std::time::Instant;

use simreel::sim::terrain::{dual, mc, reference_fields};

fn main() {
    let mut field = "sphere".to_string();
    let mut n = 128usize;
    let mut runs = 5usize;
    let mut threads = 1usize;
    let mut algorithm = "marching_cubes".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| fail(&format!("{a} needs a value")));
        match a.as_str() {
            "--field" => field = val(),
            "--n" => n = val().parse().unwrap_or_else(|_| fail("--n takes an integer")),
            "--runs" => runs = val().parse().unwrap_or_else(|_| fail("--runs takes an integer")),
            "--threads" => threads = val().parse().unwrap_or_else(|_| fail("--threads takes an integer")),
            "--algorithm" => algorithm = val(),
            "-h" | "--help" => {
                println!(
                    "mc_bench --field sphere|terrain --n N --runs R [--threads T] [--algorithm marching_cubes|surface_nets|surface_nets_per_cell]"
                );
                return;
            }
            other => fail(&format!("unknown argument {other}")),
        }
    }
    if n < 2 || runs == 0 || threads == 0 {
        fail("--n must be at least 2, --runs and --threads at least 1");
    }
    let data = reference_fields::build(&field, n).unwrap_or_else(|| fail("--field is sphere or terrain"));
    let grid = mc::ScalarGrid::new(&data, [n, n, n]);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let mut mesh = mc::IsoMesh::default();
    let mut times = Vec::with_capacity(runs);
    pool.install(|| {
        let layers = mc::auto_layers_per_chunk(n);
        // One thread: a single pass (one chunk). Output buffers are reused between runs.
        let layers = if threads == 1 { usize::MAX } else { layers };
        let once = |mesh: &mut mc::IsoMesh| match algorithm.as_str() {
            "marching_cubes" => mc::extract_into(&grid, 0.0, layers, mesh),
            "surface_nets" => dual::extract_into(&grid, 0.0, &dual::Placement::Mean, dual::Vertices::PerPiece, layers, mesh),
            "surface_nets_per_cell" => dual::extract_into(&grid, 0.0, &dual::Placement::Mean, dual::Vertices::PerCell, layers, mesh),
            other => fail(&format!("--algorithm {other}: marching_cubes, surface_nets or surface_nets_per_cell")),
        };
        once(&mut mesh);
        for _ in 0..runs {
            let t = Instant::now();
            once(&mut mesh);
            times.push(t.elapsed().as_secs_f64());
        }
    });
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let (sum, _) = reference_fields::checksum(&data);
    println!(
        "{{\"median_s\":{median},\"times_s\":{times:?},\"vertices\":{},\"triangles\":{},\"area\":{},\"threads\":{threads},\"field\":\"{field}\",\"n\":{n},\"algorithm\":\"simreel {}\",\"general_cubes\":{},\"tunnels\":{},\"field_checksum\":\"{sum}\"}}",
        mesh.positions.len(),
        mesh.triangle_count(),
        mesh.area(),
        match algorithm.as_str() {
            "surface_nets" => "surface nets",
            "surface_nets_per_cell" => "surface nets, a vertex a cell",
            _ => "marching cubes (asymptotic decider + MC33 interior test)",
        },
        mesh.stats.general_cubes,
        mesh.stats.tunnels,
    );
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}
