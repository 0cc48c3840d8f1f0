//! Stopping on a signal: Ctrl-C, SIGTERM or SIGHUP sets the job's flag and it stops between
//! frames; a job still running a moment later, or a second signal, ends the process at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long a render stopped by a signal may take to stop between frames before it ends at once.
pub const STOP_GRACE: Duration = Duration::from_secs(3);

/// Sets `flag` on Ctrl-C (and SIGTERM, SIGHUP), so that a running job stops between frames and
/// keeps what it finished; a job still running [`STOP_GRACE`] later (a frame the GPU is still
/// drawing, a long simulation step) ends at once with `code`, as a second signal does: the frames
/// written and the manifest of the last checkpoint (every 2 s) are kept for `--resume`.
pub fn stop_on_interrupt(flag: std::sync::Arc<AtomicBool>, code: i32) -> Result<(), String> {
    use std::io::Write as _;
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            end_now(code); // a second Ctrl-C does not wait
        }
        std::thread::spawn(move || {
            std::thread::sleep(STOP_GRACE);
            // said if it can be (a closed stderr must not keep the process alive)
            let _ = writeln!(
                std::io::stderr(),
                "\ninterrupted: stopped {} s after the signal without waiting for the frame in progress; the frames written are kept, rerun with --resume to finish",
                STOP_GRACE.as_secs()
            );
            end_now(code);
        });
    })
    .map_err(|e| format!("Ctrl-C cannot be caught ({e}): it will stop this render without writing its manifest; frames finished by the last checkpoint (every 2 s) are kept for --resume"))
}

/// Ends the process with `code` now: no exit handler runs that could wait on the software
/// adapter's threads, still drawing a frame.
fn end_now(code: i32) -> ! {
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process; it takes no pointers and touches no Rust state
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}
