//! Work spread over threads without a thread pool's crates: scoped threads, results in order.

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many threads parallel work uses: `SIMREEL_THREADS`' value was read by the program into
/// [`set_threads`]; otherwise one per core.
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// Limits the threads parallel work uses (0: one per core).
pub fn set_threads(n: usize) {
    THREADS.store(n, Ordering::Relaxed);
}

/// The threads parallel work uses.
pub fn threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// `f` of every item, in the items' order, computed on up to [`threads`] threads, each taking
/// the next item when it is free (items of unequal cost share out well).
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let n = threads().min(items.len());
    if n <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..n)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        mine.push((i, f(item)));
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// `a()` and `b()`, the second on another thread when there is more than one.
pub fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    if threads() <= 1 {
        return (a(), b());
    }
    std::thread::scope(|s| {
        let other = s.spawn(b);
        let first = a();
        (first, other.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    })
}

/// Rows `0..rows` split into up to [`threads`] bands of whole rows, `f(first_row, band)` run on
/// each band of `out` (`per_row` items a row) in parallel.
pub fn rows<T: Send>(out: &mut [T], per_row: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let rows = out.len() / per_row.max(1);
    let n = threads().min(rows).max(1);
    if n == 1 {
        f(0, out);
        return;
    }
    let band = rows.div_ceil(n);
    std::thread::scope(|s| {
        for (i, chunk) in out.chunks_mut(band * per_row).enumerate() {
            let f = &f;
            s.spawn(move || f(i * band, chunk));
        }
    });
}
