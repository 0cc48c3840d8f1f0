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
struct Job {
    run: unsafe fn(*mut ()),
    data: *mut (),
}

struct Slot {
    state: AtomicU32,
    job: UnsafeCell<Option<Job>>,
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
            }
            slot.sleeping.store(false, Ordering::SeqCst);
            since = Instant::now();
        }
        // SAFETY: this thread claimed the posted job; the poster waits for DONE before its
        // stack frame (which holds the closure) goes away.
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

/// Runs `a` and `b`, at once when the helper thread is free, and returns when both are done.
/// A panic in either is raised here after both have finished.
pub fn join<A: FnOnce(), B: FnOnce() + Send>(a: A, b: B) {
    let Some(helper) = HELPER.get_or_init(start) else {
        a();
        b();
        return;
    };
    let _turn = match helper.poster.try_lock() {
        Ok(turn) => turn,
        // a panic in an earlier caller's half poisons the lock; the slot itself is IDLE again
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => {
            a();
            b();
            return;
        }
    };
    let slot = helper.slot;
    let mut b = Some(b);
    // SAFETY: the state is IDLE (we hold the poster lock and every join leaves it IDLE), so
    // nobody reads the job slot now.
    unsafe { *slot.job.get() = Some(Job { run: call::<B>, data: &mut b as *mut Option<B> as *mut () }) };
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
}
