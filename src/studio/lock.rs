//! One studio per set of served folders: the first holds a lock file (in the user's runtime
//! folder, else the system's temporary folder, named by the user and the folders it serves) with
//! its address in it; a second one finds the lock held and says where the first is, instead of
//! starting. The operating system lets go of the lock when the process ends, however it ends.
//!
//! The file holds the address the studio printed, token included, and the address it listens on
//! (one line each), nothing else: it is readable and writable by its owner only (0600), and a
//! file there that is a link, or another user's, is refused, never written through.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use crate::frame::Fnv;

/// A held lock; released when dropped.
pub struct Lock {
    file: File,
    pub path: PathBuf,
}

/// Another studio serves these folders: the address it printed (empty while it is starting) and
/// the address it listens on.
pub struct Held {
    pub url: String,
    pub listening: Option<String>,
}

/// The folder lock files go in: the user's runtime folder (private to the user), else a folder of
/// their own in the system's temporary folder (`simreel-studio-<uid>`, 0700), made if missing and
/// refused, saying what to do, when someone else made it.
fn folder() -> std::io::Result<PathBuf> {
    if let Some(d) = crate::environment::Environment::current().runtime_dir.clone() {
        return Ok(d);
    }
    let dir = std::env::temp_dir().join(format!("simreel-studio-{}", own_uid().unwrap_or(0)));
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        let m = std::fs::symlink_metadata(&dir)?;
        if !m.is_dir() || own_uid().is_some_and(|me| m.uid() != me) || m.mode() & 0o077 != 0 {
            return Err(std::io::Error::other(format!(
                "{} is not a folder of yours alone (another user may have made it): remove it, or set XDG_RUNTIME_DIR to a folder of your own",
                dir.display()
            )));
        }
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The lock file of a studio serving `inputs`, for this user.
pub fn path_for(inputs: &[PathBuf]) -> std::io::Result<PathBuf> {
    let mut names: Vec<String> =
        inputs.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()).display().to_string()).collect();
    names.sort();
    let mut h = Fnv::new();
    // the user too: in a temporary folder shared by all, each user's studio has its own file
    h.bytes(&own_uid().unwrap_or(0).to_le_bytes());
    for n in &names {
        h.bytes(n.as_bytes());
        h.bytes(b"\0");
    }
    Ok(folder()?.join(format!("simreel-studio-{:016x}.lock", h.finish())))
}

/// This process's user, where the system says (Linux: the owner of `/proc/self`).
#[cfg(unix)]
fn own_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").ok().map(|m| m.uid())
}

#[cfg(not(unix))]
fn own_uid() -> Option<u32> {
    None
}

/// Opens (`create_new`: creates) the file at `path`, made readable and writable by its owner
/// only: relative to its folder's handle, never through a link of that name.
fn open_private(path: &Path, create_new: bool) -> std::io::Result<File> {
    let (dir, name) = simreel_compare::fs::split(path)?;
    let dir = simreel_compare::fs::Folder::open(dir)?;
    let file = if create_new { dir.create_new(name, true)? } else { dir.open_or_create(name, true)? };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        check_own(&file)?;
        // a file left by an earlier version, readable by all: it is about to hold the token
        if file.metadata()?.permissions().mode() & 0o077 != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
    }
    Ok(file)
}

/// Refuses `file` unless it is a plain file of this user's with no other name.
#[cfg(unix)]
fn check_own(file: &File) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let refuse = |why: &str| Err(std::io::Error::other(format!("{why}; remove it, or set XDG_RUNTIME_DIR to a folder of your own")));
    let opened = file.metadata()?;
    if !opened.is_file() {
        return refuse("it is not a plain file");
    }
    if own_uid().is_some_and(|me| opened.uid() != me) {
        return refuse("it belongs to another user");
    }
    if opened.nlink() != 1 {
        return refuse("it has other names (hard links)");
    }
    Ok(())
}

impl Lock {
    /// Takes the lock at `path`, or says who holds it.
    pub fn take(path: &Path) -> std::io::Result<Result<Lock, Held>> {
        let mut file = open_private(path, false).map_err(|e| {
            if matches!(e.kind(), std::io::ErrorKind::InvalidInput | std::io::ErrorKind::PermissionDenied) {
                std::io::Error::other(format!("{e}; remove it, or set XDG_RUNTIME_DIR to a folder of your own"))
            } else {
                e
            }
        })?;
        match file.try_lock() {
            Ok(()) => Ok(Ok(Lock { file, path: path.to_path_buf() })),
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut text = String::new();
                file.read_to_string(&mut text)?;
                let mut lines = text.lines().map(str::trim);
                let url = lines.next().unwrap_or("").to_string();
                let listening = lines.next().and_then(|l| l.strip_prefix("listening on ")).map(str::to_string);
                Ok(Err(Held { url, listening }))
            }
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// Writes the address a second studio will be pointed to (token included), and the address
    /// this one listens on.
    pub fn announce(&mut self, url: &str, listening: std::net::SocketAddr) -> std::io::Result<()> {
        self.file.set_len(0)?;
        self.file.rewind()?;
        writeln!(self.file, "{url}\nlistening on {listening}")?;
        self.file.flush()
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
        let _ = simreel_compare::fs::remove_stale(&opener_path(&self.path));
    }
}

/// The page a browser is opened on (`--open`) for the studio of the lock file `lock`: beside it.
pub fn opener_path(lock: &Path) -> PathBuf {
    lock.with_extension("html")
}

/// Writes a page that sends the browser to `url`, readable by this user only, and returns its
/// path: a browser is opened on it instead of on `url`, so that the token never stands on a
/// command line (which every user of the machine can read).
pub fn write_opener(lock: &Path, url: &str) -> std::io::Result<PathBuf> {
    let path = opener_path(lock);
    simreel_compare::fs::remove_stale(&path)?;
    // a new file (never through a link, never another user's)
    let mut f = open_private(&path, true)?;
    let url = url.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;");
    writeln!(
        f,
        "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url={url}\"><title>simreel studio</title><p><a href=\"{url}\">Open the studio</a></p>"
    )?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn the_lock_file_is_private_and_links_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("simreel-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.lock");
        // left by an earlier version, readable by all
        std::fs::write(&path, "").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let Ok(mut lock) = Lock::take(&path).unwrap() else { panic!("not held") };
        lock.announce("http://127.0.0.1:1/?token=t", "127.0.0.1:1".parse().unwrap()).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let Err(held) = Lock::take(&path).unwrap() else { panic!("held") };
        assert_eq!((held.url.as_str(), held.listening.as_deref()), ("http://127.0.0.1:1/?token=t", Some("127.0.0.1:1")));
        drop(lock);
        let victim = dir.join("victim");
        std::fs::write(&victim, "mine").unwrap();
        let link = dir.join("b.lock");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(Lock::take(&link).is_err(), "a link is not followed");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
        let opener = write_opener(&path, "http://127.0.0.1:1/?token=t").unwrap();
        assert_eq!(std::fs::metadata(&opener).unwrap().permissions().mode() & 0o777, 0o600);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
