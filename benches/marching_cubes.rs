//! Marching-cubes extraction on the benchmark fields of `../shared/bench/mc_peers.py` at 64³, 128³
//! and 256³: single pass on one thread, and chunked on the rayon pool. The field is built outside
//! the timing; output buffers are reused.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use simreel::sim::terrain::{mc, reference_fields};

fn extraction(c: &mut Criterion) {
    for field in ["sphere", "terrain"] {
        let mut group = c.benchmark_group(format!("mc_{field}"));
        group.sample_size(20);
        for n in [64usize, 128, 256] {
            let data = reference_fields::build(field, n).expect("known field");
            let grid = mc::ScalarGrid::new(&data, [n, n, n]);
            group.throughput(Throughput::Elements((n * n * n) as u64));
            let mut mesh = mc::IsoMesh::default();
            group.bench_with_input(BenchmarkId::new("single_pass", n), &n, |b, _| {
                b.iter(|| mc::extract_into(&grid, 0.0, usize::MAX, &mut mesh));
            });
            group.bench_with_input(BenchmarkId::new("chunked_parallel", n), &n, |b, &n| {
                b.iter(|| mc::extract_into(&grid, 0.0, mc::auto_layers_per_chunk(n), &mut mesh));
            });
        }
        group.finish();
    }
}

criterion_group!(benches, extraction);
criterion_main!(benches);
