//! Fork–join at the scale of microseconds: [`join`] runs two closures at once, one on the
//! calling thread and one on a helper thread that spins briefly between jobs instead of going
//! back to sleep. A dice table steps its packs of dice through six substeps of about 12 µs
//! each, with contacts between dice in between; a thread pool that parks its workers between
//! jobs (rayon's does) wakes them too late to gain anything at that grain.
//!
//! The helper is one process-wide thread, started on first use. A job the helper has not
//! picked up by the time the caller has finished its own half is taken back and run by the
//! caller, so a sleeping or busy helper never costs more than running both halves in turn.
//! Which thread runs which half never changes a result: the halves share no data.
//!
//! Its races are tested by a stress test (`stress_many_callers_random_delays` below): several
//! caller threads, random delays in both halves and between joins (so the helper sometimes claims
//! a job, sometimes has it taken back, sometimes parks and is woken), occasional panics, and a
//! check after every join that both halves ran exactly once and finished everything they wrote;
//! a watchdog fails it if a join never returns. (loom and miri would need a nightly toolchain or
//! a rewrite against loom's types; on x86's strong memory order the test cannot see a missing
//! fence, only lost, repeated, early or stuck jobs.)

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long the helper keeps looking for the next job before it parks.
const SPIN: Duration = Duration::from_micros(200);

const IDLE: u32 = 0;
const POSTED: u32 = 1;
const CLAIMED: u32 = 2;
const DONE: u32 = 3;

/// A posted job: a type-erased `FnOnce` living on the poster's stack.
#[derive(Clone, Copy)]
struct Task {
    run: unsafe fn(*mut ()),
    data: *mut (),
}

struct Slot {
    state: AtomicU32,
    job: UnsafeCell<Option<Task>>,
    sleeping: AtomicBool,
    /// The panic of the posted half, if it panicked, for the caller to raise.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

// SAFETY: `job` is written only by the poster while the state is IDLE and taken only by the one
// thread that moved the state from POSTED to CLAIMED; the atomics order those accesses.
unsafe impl Sync for Slot {}

struct Helper {
    slot: &'static Slot,
    thread: Thread,
    /// One poster at a time; a caller that finds the helper taken runs both halves itself.
    poster: Mutex<()>,
}

static HELPER: OnceLock<Option<Helper>> = OnceLock::new();

fn start() -> Option<Helper> {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return None;
    }
    let slot: &'static Slot = Box::leak(Box::new(Slot {
        state: AtomicU32::new(IDLE),
        job: UnsafeCell::new(None),
        sleeping: AtomicBool::new(false),
        panic: Mutex::new(None),
    }));
    let handle = std::thread::Builder::new().name("simreel-duo".into()).spawn(move || serve(slot)).ok()?;
    Some(Helper { slot, thread: handle.thread().clone(), poster: Mutex::new(()) })
}

fn serve(slot: &'static Slot) {
    loop {
        let mut since = Instant::now();
        let mut spins = 0u32;
        loop {
            if slot.state.load(Ordering::Acquire) == POSTED
                && slot.state.compare_exchange(POSTED, CLAIMED, Ordering::AcqRel, Ordering::Acquire).is_ok()
            {
                break;
            }
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(64) || since.elapsed() < SPIN {
                std::hint::spin_loop();
                continue;
            }
            slot.sleeping.store(true, Ordering::SeqCst);
            // a job posted between the last look and `sleeping` must not be missed
            if slot.state.load(Ordering::SeqCst) != POSTED {
                std::thread::park();
                seen(Path::Parked);
            }
            slot.sleeping.store(false, Ordering::SeqCst);
            since = Instant::now();
        }
        // this thread claimed the posted job; the poster waits for DONE before its stack frame
        // (which holds the closure) goes away
        seen(Path::Helper);
        run_claimed(slot);
        slot.state.store(DONE, Ordering::Release);
    }
}

/// Runs the job this thread claimed, keeping a panic for the caller.
fn run_claimed(slot: &Slot) {
    // SAFETY: the calling thread claimed the posted job (POSTED → CLAIMED), and the poster waits
    // for DONE or runs it itself before its stack frame (which holds the closure) goes away.
    let job = unsafe { (*slot.job.get()).take() };
    if let Some(job) = job {
        // SAFETY: `run` matches `data` (both set together by `join`).
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| unsafe { (job.run)(job.data) })) {
            *slot.panic.lock().unwrap_or_else(|p| p.into_inner()) = Some(payload);
        }
    }
}

/// Calls the `FnOnce` stored in `*data` (an `Option<B>`).
unsafe fn call<B: FnOnce()>(data: *mut ()) {
    // SAFETY: `data` points at the `Option<B>` on the poster's stack, alive until DONE.
    let f = unsafe { &mut *(data as *mut Option<B>) }.take();
    if let Some(f) = f {
        f();
    }
}

/// Waits for the posted half when dropped (also while unwinding from a panic in the caller's
/// half: the helper may be running a closure that borrows the caller's stack).
struct Finish<'a> {
    slot: &'a Slot,
}

impl Finish<'_> {
    fn finish(&self) {
        let slot = self.slot;
        if slot.state.compare_exchange(POSTED, CLAIMED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            // the helper never took it: run it here
            seen(Path::TakenBack);
            run_claimed(slot);
        } else {
            let mut spins = 0u32;
            while slot.state.load(Ordering::Acquire) != DONE {
                // the helper may have been preempted: after a while, let it have the core
                spins = spins.saturating_add(1);
                if spins < 4096 { std::hint::spin_loop() } else { std::thread::yield_now() }
            }
        }
    }
}

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.finish();
        self.slot.state.store(IDLE, Ordering::Release);
    }
}

/// The ways a join can go, counted in tests so the stress test can show it took each of them.
#[derive(Clone, Copy)]
enum Path {
    /// The helper ran the posted half.
    Helper,
    /// The caller took its posted half back.
    TakenBack,
    /// The helper parked and was woken.
    Parked,
    /// Another caller held the helper: both halves ran here.
    Busy,
}

#[cfg(test)]
static PATHS: [std::sync::atomic::AtomicU64; 4] = [const { std::sync::atomic::AtomicU64::new(0) }; 4];

#[inline(always)]
fn seen(path: Path) {
    #[cfg(test)]
    PATHS[path as usize].fetch_add(1, Ordering::Relaxed);
    let _ = path;
}

/// `a` then `b` on this thread, with [`join`]'s promise: `b` runs even when `a` panics, and the
/// first panic is raised after both.
fn in_turn<A: FnOnce(), B: FnOnce()>(a: A, b: B) {
    let ra = catch_unwind(AssertUnwindSafe(a));
    let rb = catch_unwind(AssertUnwindSafe(b));
    if let Err(payload) = ra.and(rb) {
        resume_unwind(payload);
    }
}

/// Runs `a` and `b`, at once when the helper thread is free, and returns when both are done.
/// A panic in either is raised here after both have finished.
pub fn join<A: FnOnce(), B: FnOnce() + Send>(a: A, b: B) {
    let Some(helper) = HELPER.get_or_init(start) else {
        return in_turn(a, b);
    };
    let _turn = match helper.poster.try_lock() {
        Ok(turn) => turn,
        // a panic in an earlier caller's half poisons the lock; the slot itself is IDLE again
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => {
            seen(Path::Busy);
            return in_turn(a, b);
        }
    };
    let slot = helper.slot;
    let mut b = Some(b);
    // SAFETY: the state is IDLE (we hold the poster lock and every join leaves it IDLE), so
    // nobody reads the job slot now.
    unsafe { *slot.job.get() = Some(Task { run: call::<B>, data: &mut b as *mut Option<B> as *mut () }) };
    // a panic left from a join whose own half panicked first is not this join's
    *slot.panic.lock().unwrap_or_else(|p| p.into_inner()) = None;
    slot.state.store(POSTED, Ordering::SeqCst);
    if slot.sleeping.load(Ordering::SeqCst) {
        helper.thread.unpark();
    }
    let finish = Finish { slot };
    a();
    drop(finish);
    let panic = slot.panic.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some(payload) = panic {
        resume_unwind(payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_halves_run_and_see_their_own_data() {
        for n in 0..2000u64 {
            let (mut x, mut y) = (0u64, 0u64);
            join(|| x = n * 3, || y = n * 5);
            assert_eq!((x, y), (n * 3, n * 5));
        }
    }

    #[test]
    fn a_panic_in_the_helpers_half_reaches_the_caller_after_both_finish() {
        let mut done = false;
        let r = catch_unwind(AssertUnwindSafe(|| {
            join(|| done = true, || panic!("boom"));
        }));
        assert_eq!(r.unwrap_err().downcast_ref::<&str>(), Some(&"boom"));
        assert!(done);
        // and the helper still works afterwards
        let mut z = 0;
        join(|| {}, || z = 7);
        assert_eq!(z, 7);
        // both halves panicking: the caller's panic wins, and nothing is left for the next join
        let r = catch_unwind(AssertUnwindSafe(|| join(|| panic!("first"), || panic!("second"))));
        assert_eq!(r.unwrap_err().downcast_ref::<&str>(), Some(&"first"));
        join(|| {}, || z = 9);
        assert_eq!(z, 9);
    }

    /// Spins (or, rarely, sleeps long enough for the helper to park) for a random while.
    fn pause(rng: &mut crate::sim::rng::Rng) {
        match rng.below(100) {
            0 => std::thread::sleep(Duration::from_micros(300)),
            1..=4 => std::thread::yield_now(),
            _ => {
                let until = Instant::now() + Duration::from_nanos(rng.below(20_000));
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
            }
        }
    }

    #[test]
    fn stress_many_callers_random_delays() {
        const CALLERS: u64 = 4;
        const JOINS: u64 = 2500;
        const WORDS: usize = 64;
        let before = PATHS.each_ref().map(|p| p.load(Ordering::Relaxed));
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        for caller in 0..CALLERS {
            let done_tx = done_tx.clone();
            std::thread::spawn(move || {
                let mut rng = crate::sim::rng::Rng::stream(caller, "duo stress");
                let (mut a_buf, mut b_buf) = ([0u64; WORDS], [0u64; WORDS]);
                let (mut panics, mut runs) = (0u32, [0u32; 2]);
                for n in 0..JOINS {
                    let tag = (caller << 32) | n;
                    let (seed_a, seed_b) = (rng.next_u64(), rng.next_u64());
                    // one join in 200 panics in one of its halves
                    let boom = rng.below(200);
                    let (ran_a, ran_b) = (AtomicU32::new(0), AtomicU32::new(0));
                    let fill = |buf: &mut [u64; WORDS], seed: u64, salt: u64, ran: &AtomicU32, panics: bool| {
                        ran.fetch_add(1, Ordering::Relaxed);
                        let mut r = crate::sim::rng::Rng::new(seed);
                        // written word by word with pauses, so a join that returned before this
                        // half finished would leave old words behind
                        for (i, w) in buf.iter_mut().enumerate() {
                            if i % 16 == 0 {
                                pause(&mut r);
                            }
                            *w = tag ^ salt ^ i as u64;
                        }
                        if panics {
                            panic!("stress {tag}");
                        }
                    };
                    let result = catch_unwind(AssertUnwindSafe(|| {
                        join(|| fill(&mut a_buf, seed_a, 0xA, &ran_a, boom == 0), || fill(&mut b_buf, seed_b, 0xB, &ran_b, boom == 1))
                    }));
                    if boom < 2 {
                        let payload = result.expect_err("the panic reached the caller");
                        assert_eq!(payload.downcast_ref::<String>(), Some(&format!("stress {tag}")));
                        panics += 1;
                    } else {
                        assert!(result.is_ok());
                    }
                    runs[0] += ran_a.load(Ordering::Relaxed);
                    runs[1] += ran_b.load(Ordering::Relaxed);
                    assert_eq!((ran_a.into_inner(), ran_b.into_inner()), (1, 1), "join {tag}: each half runs once");
                    for i in 0..WORDS {
                        assert_eq!(a_buf[i], tag ^ 0xA ^ i as u64, "join {tag}: the caller's half, word {i}");
                        assert_eq!(b_buf[i], tag ^ 0xB ^ i as u64, "join {tag}: the posted half, word {i}");
                    }
                    pause(&mut rng);
                }
                done_tx.send((panics, runs)).expect("report");
            });
        }
        drop(done_tx);
        for _ in 0..CALLERS {
            let (panics, runs) =
                done_rx.recv_timeout(Duration::from_secs(120)).expect("a join never returned (deadlock) or a caller failed");
            assert_eq!(runs, [JOINS as u32; 2]);
            assert!(panics > 0, "the stress drew no panic");
        }
        // every path was taken (other tests may add to the counts, never take from them)
        let taken: Vec<u64> = PATHS.iter().zip(before).map(|(p, b)| p.load(Ordering::Relaxed) - b).collect();
        assert!(taken.iter().all(|&n| n > 0), "helper, taken back, parked, busy: {taken:?}");
    }
}
