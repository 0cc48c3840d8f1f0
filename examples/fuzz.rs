//! Fuzzes the scene reader and validator, the frame-spec and the size parsers (see
//! `src/fuzz/mod.rs`), on every core, and prints one JSON line: runs, runs per second, panics,
//! the slowest input's time, and the largest heap any one input needed (a counting allocator).
//! Inputs that panic are written to `--out` (default `target/fuzz-crashes/`) so they can become
//! regression tests.
//!
//! `cargo run --release --example fuzz -- --runs 1000000 --seed 1`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use simreel::fuzz::{Fuzzer, corpus, round};

/// Counts live heap bytes and their high-water mark since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: the layout is passed on unchanged to the system allocator
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let runs = arg("--runs", 1_000_000);
    let seed = arg("--seed", 1);
    let out = std::env::args().skip_while(|a| a != "--out").nth(1).unwrap_or_else(|| "target/fuzz-crashes".into());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = corpus(root);
    // panics are caught and counted; their messages would only flood the terminal
    std::panic::set_hook(Box::new(|_| {}));
    if std::env::args().any(|a| a == "--heaviest") {
        // one thread, the heap each input needs on its own: prints the heaviest input
        let mut f = Fuzzer::new(corpus, seed);
        let mut worst = (0usize, String::new());
        for _ in 0..runs {
            let (text, spec, size) = (f.scene(), f.frame_spec(), f.size());
            let base = LIVE.load(Ordering::Relaxed);
            PEAK.store(base, Ordering::Relaxed);
            let _ = std::panic::catch_unwind(|| simreel::fuzz::exercise(&text, &spec, &size));
            let used = PEAK.load(Ordering::Relaxed) - base;
            if used > worst.0 {
                worst = (used, format!("{text}\n# frames {spec:?} size {size:?}"));
            }
        }
        println!("heaviest input: {:.1} MiB\n{}", worst.0 as f64 / (1 << 20) as f64, &worst.1[..worst.1.len().min(3000)]);
        return;
    }
    let threads = rayon::current_num_threads() as u64;
    let baseline = LIVE.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let start = std::time::Instant::now();
    let reports: Vec<_> = (0..threads)
        .into_par_iter()
        .map(|t| {
            let mut f = Fuzzer::new(corpus.clone(), seed.wrapping_mul(1_000_003).wrapping_add(t));
            round(&mut f, runs / threads + u64::from(t < runs % threads))
        })
        .collect();
    let secs = start.elapsed().as_secs_f64();
    let total: u64 = reports.iter().map(|r| r.runs).sum();
    let valid: u64 = reports.iter().map(|r| r.valid).sum();
    let panics: Vec<&(String, String)> = reports.iter().flat_map(|r| &r.panics).collect();
    let slowest = reports.iter().map(|r| r.slowest.0).max().unwrap_or_default();
    if !panics.is_empty() {
        std::fs::create_dir_all(&out).expect("crash folder");
        for (i, (input, message)) in panics.iter().enumerate() {
            std::fs::write(format!("{out}/crash_{i:04}.toml"), format!("# {message}\n{input}")).expect("crash file");
        }
    }
    let peak_mib = (PEAK.load(Ordering::Relaxed) - baseline) as f64 / (1 << 20) as f64;
    println!(
        "{{\"runs\":{total},\"valid_scenes\":{valid},\"seconds\":{secs:.1},\"runs_per_second\":{:.0},\"threads\":{threads},\"panics\":{},\"slowest_ms\":{:.2},\"peak_heap_mib\":{peak_mib:.1}}}",
        total as f64 / secs,
        panics.len(),
        slowest.as_secs_f64() * 1e3
    );
    if !panics.is_empty() {
        std::process::exit(1);
    }
}
