//! One writer per scene output: a render holds a lock file in the scene's frames folder for as long
//! as it writes there (a second render of the same scene into the same folder is refused and told
//! which process holds it), and on taking it sweeps the temporary files that runs killed without
//! warning (`kill -9`, a power cut) left behind — only those it can prove are dead runs' own: named
//! like this program's temporaries, for this scene, by a process that no longer exists.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::OutputError;

/// The lock file's name inside a scene's frames folder.
pub const LOCK: &str = ".simreel.lock";

/// This process's hold on a scene's output; released (the lock file removed) when dropped.
#[derive(Debug)]
pub struct Claim {
    /// The frames folder, as opened when the lock was taken.
    folder: super::Folder,
    name: std::ffi::OsString,
}

/// This machine's name, as the lock records it (a container's is its pod's): a lock written on
/// another machine names a process this one cannot see.
pub fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// Whether process `pid` exists: `Some` where the system can tell (Linux's /proc), `None` elsewhere.
pub fn alive(pid: u32) -> Option<bool> {
    let proc = Path::new("/proc");
    proc.join("self").exists().then(|| proc.join(pid.to_string()).exists())
}

/// The process id in a temporary's name ([`simreel_compare::fs::temp_name`]), when `name` is one.
fn temporary_owner(name: &str) -> Option<u32> {
    simreel_compare::fs::temp_owner(name)
}

impl Claim {
    /// Takes the scene's output (`frames_dir`, created if missing): fails with
    /// [`OutputError::Busy`] while a live process holds it; a lock left by a dead one is taken over.
    pub fn take(frames_dir: &Path) -> Result<Claim, OutputError> {
        Claim::take_as(frames_dir, LOCK)
    }

    /// [`Claim::take`] with a lock file of another name: each shard of a split render holds its
    /// own, so shards write into one folder side by side.
    pub fn take_as(frames_dir: &Path, name: &str) -> Result<Claim, OutputError> {
        let folder = super::folder(frames_dir)?;
        let lock = frames_dir.join(name);
        let name = std::ffi::OsStr::new(name);
        for _ in 0..3 {
            // made exclusively, never through a link of that name
            match folder.create_new(name, false) {
                Ok(mut f) => {
                    writeln!(f, "{} {}", std::process::id(), host()).map_err(|source| OutputError::Write { path: lock.clone(), source })?;
                    return Ok(Claim { folder, name: name.to_os_string() });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    // a lock that is not a plain file (a link, a folder) is nobody's: it goes
                    let text = folder.read(name).ok().and_then(|b| String::from_utf8(b).ok()).unwrap_or_default();
                    let mut words = text.split_whitespace();
                    let holder = words.next().and_then(|p| p.parse::<u32>().ok());
                    // a lock from another machine (another node, a pod that was replaced) or naming
                    // this very process (a container's PID 1 after a restart) is a dead run's
                    let here = words.next().is_none_or(|h| h == host());
                    match holder {
                        // a live holder on this machine (or one this system cannot check) keeps it
                        Some(pid) if here && pid != std::process::id() && alive(pid) != Some(false) => {
                            return Err(OutputError::Busy { dir: frames_dir.to_path_buf(), pid });
                        }
                        // left by a process that is gone, elsewhere, or unreadable: take it over
                        _ => {
                            let _ = folder.remove(name);
                        }
                    }
                }
                Err(source) => return Err(OutputError::Write { path: lock, source }),
            }
        }
        Err(OutputError::Write { path: lock, source: std::io::Error::other("the lock file keeps coming back") })
    }

    /// Removes the temporaries dead runs left: `<file>.<pid>.tmp` in the frames folder, and
    /// `<file>.<pid>.tmp` for each of the outputs `beside` it (the GIF, APNG, videos), whose
    /// process is gone. Returns how many.
    pub fn sweep(&self, frames_dir: &Path, beside: &[PathBuf]) -> usize {
        let mut removed = 0;
        let mut sweep_dir = |dir: &Path, belongs: &dyn Fn(&str) -> bool| {
            let Ok(folder) = super::Folder::open(dir) else { return };
            for name in folder.names().unwrap_or_default() {
                let Some(text) = name.to_str() else { continue };
                let dead = temporary_owner(text).is_some_and(|pid| pid != std::process::id() && alive(pid) == Some(false));
                if dead && belongs(text) && folder.remove(&name).is_ok() {
                    removed += 1;
                }
            }
        };
        sweep_dir(frames_dir, &|_| true);
        // saved simulation states (the pipeline's snapshots/)
        sweep_dir(&frames_dir.join("snapshots"), &|_| true);
        for out in beside {
            let (Some(dir), Some(file)) = (out.parent(), out.file_name().and_then(|f| f.to_str())) else { continue };
            let prefix = format!("{file}.");
            sweep_dir(if dir.as_os_str().is_empty() { Path::new(".") } else { dir }, &|name| name.starts_with(&prefix));
        }
        removed
    }
}

impl Claim {
    /// The frames folder, as opened when the lock was taken: what the render writes its frames
    /// into (wherever it has been moved since, never whatever has taken its name).
    pub fn folder(&self) -> &super::Folder {
        &self.folder
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let _ = self.folder.remove(&self.name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_from_another_machine_or_naming_this_process_is_taken_over_a_live_one_is_not() {
        let dir = std::env::temp_dir().join(format!("simreel-claim-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let lock = dir.join(LOCK);
        // process 1 is alive here, but this lock was written on another machine (a replaced pod)
        std::fs::write(&lock, "1 some-other-pod\n").unwrap();
        drop(Claim::take(&dir).expect("another machine's lock is stale"));
        // a container restarted as PID 1 finds its own number in the lock: a dead run's
        std::fs::write(&lock, format!("{} {}\n", std::process::id(), host())).unwrap();
        drop(Claim::take(&dir).expect("this process's own number is stale"));
        // a live process on this machine keeps it (the old format, a bare number, too)
        if Path::new("/proc/1").exists() {
            for text in [format!("1 {}\n", host()), "1\n".to_string()] {
                std::fs::write(&lock, text).unwrap();
                assert!(matches!(Claim::take(&dir), Err(OutputError::Busy { pid: 1, .. })));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn temporaries_are_recognised_by_their_owner() {
        assert_eq!(temporary_owner("frame_0001.png.4242.tmp"), Some(4242));
        assert_eq!(temporary_owner("wind.gif.17.tmp"), Some(17));
        assert_eq!(temporary_owner("frame_0001.png"), None);
        assert_eq!(temporary_owner("notes.tmp"), None);
        assert_eq!(temporary_owner("a.b12.tmp"), None);
        if Path::new("/proc/self").exists() {
            assert_eq!(alive(std::process::id()), Some(true));
            // beyond Linux's largest process id (2²² = 4 194 304)
            assert_eq!(alive(4_194_999), Some(false));
        }
    }
}
