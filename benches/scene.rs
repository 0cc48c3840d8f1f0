//! Reading, checking and fingerprinting each shipped scene and figure: `scene::load` (the file
//! read, parsed and validated; a figure's panels and data files with it) and then
//! `Scene::identity` (the canonical hashes of its simulation's part and its drawing's). Every
//! render, `--resume`, merge and studio reload pays this once a scene. Target: under 1 ms for each.
//! Run it as `cargo bench --bench scene`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use simreel::scene;

/// Every shipped scene file, in `scenes/` and `scenes/figures/`, sorted.
fn shipped() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut files: Vec<PathBuf> = [root.clone(), root.join("figures")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap_or_else(|e| panic!("{}: {e}", d.display())))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

fn load_and_identity(c: &mut Criterion) {
    let mut group = c.benchmark_group("scene_load_identity");
    group.sample_size(20).warm_up_time(Duration::from_millis(200)).measurement_time(Duration::from_millis(800));
    for path in shipped() {
        let name = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().display().to_string();
        // a scene that does not load is a broken benchmark, not a fast one
        scene::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        group.bench_function(name, |b| {
            b.iter(|| {
                let s = scene::load(&path).unwrap();
                std::hint::black_box(s.identity())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, load_and_identity);
criterion_main!(benches);
