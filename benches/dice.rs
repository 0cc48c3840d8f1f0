//! One fixed step (1/120 s, 6 substeps) of the dice table: 3 and 5 dice in the middle of a roll
//! (tumbling, colliding, touching the floor). Target: at most 100 µs for 5 dice. Five dice fill
//! two packs, which a scene steps on two threads; `dice/5 one thread` is the same step on one.
//! Run it as `cargo bench --bench dice` (criterion runs it on the global rayon pool, so the
//! two-thread split is on whenever the machine has two cores).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use simreel::sim::dice::table::Table;
use simreel::sim::rng::Rng;

fn rolling(n: usize) -> Table {
    let mut t = Table::single(&vec![55.0; n], Rng::new(7));
    t.throw(0);
    // 1.6 s in: the dice are landing and tumbling
    for _ in 0..192 {
        t.step();
    }
    t
}

fn step(c: &mut Criterion) {
    let mut group = c.benchmark_group("dice_step");
    group.sample_size(30);
    for n in [3usize, 5] {
        let base = rolling(n);
        group.bench_with_input(BenchmarkId::new("dice", n), &n, |b, _| {
            b.iter_batched_ref(|| base.clone(), |t| t.step(), criterion::BatchSize::SmallInput)
        });
    }
    let mut base = rolling(5);
    base.set_two_threads(false);
    group.bench_function("dice/5 one thread", |b| b.iter_batched_ref(|| base.clone(), |t| t.step(), criterion::BatchSize::SmallInput));
    group.finish();
    // the lane-packed constraint solve alone: one substep of four dice (no contacts)
    let base = rolling(4);
    let mut group = c.benchmark_group("dice_pack");
    group.sample_size(30);
    group.bench_function("substep_solve", |b| {
        b.iter_batched_ref(|| base.packs()[0].clone(), |p| p.solve(1.0 / 720.0), criterion::BatchSize::SmallInput)
    });
    group.bench_function("substep_limits", |b| {
        b.iter_batched_ref(|| base.packs()[0].clone(), |p| p.enforce_limits(), criterion::BatchSize::SmallInput)
    });
    group.finish();
}

criterion_group!(benches, step);
criterion_main!(benches);
