//! One studio per set of served folders: the first holds a lock file (in the user's runtime
//! folder, named by the folders it serves) with its address in it; a second one finds the lock
//! held and says where the first is, instead of starting. The operating system lets go of the lock
//! when the process ends, however it ends.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use crate::frame::Fnv;

/// A held lock; released when dropped.
pub struct Lock {
    file: File,
    pub path: PathBuf,
}

/// Another studio serves these folders, at this address (empty while it is starting).
pub struct Held(pub String);

/// The lock file of a studio serving `inputs`.
pub fn path_for(inputs: &[PathBuf]) -> PathBuf {
    let mut names: Vec<String> =
        inputs.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()).display().to_string()).collect();
    names.sort();
    let mut h = Fnv::new();
    for n in &names {
        h.bytes(n.as_bytes());
        h.bytes(b"\0");
    }
    let dir = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).filter(|d| d.is_dir()).unwrap_or_else(std::env::temp_dir);
    dir.join(format!("simreel-studio-{:016x}.lock", h.finish()))
}

impl Lock {
    /// Takes the lock at `path`, or says who holds it.
    pub fn take(path: &Path) -> std::io::Result<Result<Lock, Held>> {
        let mut file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Ok(Lock { file, path: path.to_path_buf() })),
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut url = String::new();
                file.read_to_string(&mut url)?;
                Ok(Err(Held(url.trim().to_string())))
            }
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// Writes the address a second studio will be pointed to.
    pub fn announce(&mut self, url: &str) -> std::io::Result<()> {
        self.file.set_len(0)?;
        self.file.rewind()?;
        self.file.write_all(url.as_bytes())?;
        self.file.flush()
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}
