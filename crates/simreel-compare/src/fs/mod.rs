//! Files written so that whoever looks sees the old file or the whole new one, and so that no
//! other user of the machine can steer a write or a read-back somewhere else.
//!
//! Every write goes through a [`Folder`]: a handle on a folder opened once, component by
//! component, following a symbolic link only where it belongs to this user or to root (a link
//! another user planted in a shared folder is refused, never followed). Its files are then made
//! relative to that handle: a temporary file with an unguessable name, created exclusively
//! and never through a link, filled, then renamed over the file's own name in the same folder.
//! Nothing re-resolves a path after the folder is open, so swapping a folder of the path for a
//! link between a check and a write changes nothing. Files named by something simreel reads
//! back (a report, a manifest, a pending image) are read the same way: relative to a folder
//! handle, plain files only, never through a link, never a FIFO or a device.

#[cfg(not(unix))]
mod portable;
mod shared;
#[cfg(unix)]
mod unix;

use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

#[cfg(not(unix))]
use portable as sys;
pub use shared::{Shared, on_shared_folder};
#[cfg(unix)]
use unix as sys;

/// A folder opened once; its files are made, replaced, read and removed by name relative to it.
#[derive(Debug)]
pub struct Folder {
    handle: sys::Handle,
    path: PathBuf,
    /// Whether other users can write here: worked out (and said, once) at the first write.
    shared: OnceLock<Option<Shared>>,
}

impl Folder {
    /// The folder at `path`, which must exist. A symbolic link on the way is followed only when
    /// it belongs to this user or to root.
    pub fn open(path: &Path) -> std::io::Result<Folder> {
        Ok(Folder::at(sys::open_dir(path, false)?, path))
    }

    /// The folder at `path`, made (with any folder above it) where missing; links as in
    /// [`Folder::open`].
    pub fn create(path: &Path) -> std::io::Result<Folder> {
        Ok(Folder::at(sys::open_dir(path, true)?, path))
    }

    fn at(handle: sys::Handle, path: &Path) -> Folder {
        Folder { handle, path: path.to_path_buf(), shared: OnceLock::new() }
    }

    /// A second handle on the same folder (wherever it has been moved since).
    pub fn try_clone(&self) -> std::io::Result<Folder> {
        Ok(Folder { handle: sys::clone(&self.handle)?, path: self.path.clone(), shared: self.shared.clone() })
    }

    /// The path the folder was opened by (for messages: the folder itself is the handle).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder `name` inside this one (never through a link), made where `create` and missing.
    pub fn child(&self, name: &OsStr, create: bool) -> std::io::Result<Folder> {
        plain_name(name)?;
        if create {
            self.note_shared();
        }
        Ok(Folder::at(sys::child_dir(&self.handle, name, create)?, &self.path.join(name)))
    }

    /// Writes `bytes` as the file `name`: a temporary file in this folder, renamed over `name`
    /// (`durable`: synced to the disk first, for what is not made again in no time).
    pub fn write(&self, name: &OsStr, bytes: &[u8], durable: bool) -> std::io::Result<()> {
        let mut file = self.atomic(name)?;
        file.write_all(bytes)?;
        file.finish(durable)
    }

    /// A file to fill and then [`AtomicFile::commit`] as `name`.
    pub fn atomic(&self, name: &OsStr) -> std::io::Result<AtomicFile> {
        plain_name(name)?;
        self.note_shared();
        let (tmp, file) = sys::create_temp(&self.handle, name)?;
        let folder = Folder { handle: sys::clone(&self.handle)?, path: self.path.clone(), shared: self.shared.clone() };
        Ok(AtomicFile { folder, name: name.to_os_string(), tmp, writer: Some(std::io::BufWriter::new(file)), committed: false })
    }

    /// The file `name` in the folder at `path` ([`Folder::create`]) to fill and then commit.
    pub fn atomic_at(path: &Path) -> std::io::Result<AtomicFile> {
        let (dir, name) = split(path)?;
        Folder::create(dir)?.atomic(name)
    }

    /// A new file `name`, made exclusively (an existing file or link of that name is an
    /// [`std::io::ErrorKind::AlreadyExists`] error), readable and writable by its owner only
    /// when `private`.
    pub fn create_new(&self, name: &OsStr, private: bool) -> std::io::Result<std::fs::File> {
        plain_name(name)?;
        self.note_shared();
        sys::create_new(&self.handle, name, private)
    }

    /// The file `name`, opened to read and write and made where missing (never through a link
    /// of that name; readable and writable by its owner only when made `private`): a file that
    /// lives on between runs, as a lock does.
    pub fn open_or_create(&self, name: &OsStr, private: bool) -> std::io::Result<std::fs::File> {
        plain_name(name)?;
        self.note_shared();
        sys::open_or_create(&self.handle, name, private)
    }

    /// The plain file `name`, opened to read: a link, a folder, a FIFO or a device is refused
    /// (without blocking on a FIFO).
    pub fn open_file(&self, name: &OsStr) -> std::io::Result<std::fs::File> {
        plain_name(name)?;
        sys::open_file(&self.handle, name, &self.path)
    }

    /// The plain file `name`, opened to read, following a link only where it is this user's or
    /// root's (so a link someone else planted leads nowhere): for files a person named, or a
    /// listing of their folder found.
    pub fn open_trusted(&self, name: &OsStr) -> std::io::Result<std::fs::File> {
        plain_name(name)?;
        sys::open_trusted(&self.handle, name, &self.path)
    }

    /// The contents of the plain file `name` ([`Folder::open_file`]).
    pub fn read(&self, name: &OsStr) -> std::io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut self.open_file(name)?, &mut bytes)?;
        Ok(bytes)
    }

    /// Removes `name`: a file or a link (never what it points to), or a folder with everything
    /// in it. One that is not there is a [`std::io::ErrorKind::NotFound`] error.
    pub fn remove(&self, name: &OsStr) -> std::io::Result<()> {
        plain_name(name)?;
        self.note_shared();
        sys::remove(&self.handle, name)
    }

    /// Renames `from` to `to` within this folder (replacing a file `to`, never writing through a
    /// link of that name).
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
        plain_name(from)?;
        plain_name(to)?;
        self.note_shared();
        sys::rename(&self.handle, from, to)
    }

    /// The names of the folder's entries, in no particular order.
    pub fn names(&self) -> std::io::Result<Vec<OsString>> {
        sys::names(&self.handle, &self.path)
    }

    /// What `name` is, without following a link.
    pub fn kind(&self, name: &OsStr) -> std::io::Result<Kind> {
        plain_name(name)?;
        sys::kind(&self.handle, name)
    }

    /// Whether users other than this one (and root) can write here, and how.
    pub fn shared(&self) -> Option<&Shared> {
        self.shared.get_or_init(|| shared::of(&self.handle, &self.path)).as_ref()
    }

    fn note_shared(&self) {
        if let Some(s) = self.shared() {
            shared::notice(s);
        }
    }
}

/// A new folder of this user's alone (mode 0700) in the system's temporary folder, under an
/// unguessable name (made exclusively: a name someone planted is passed over for another);
/// removed with everything in it when dropped.
#[derive(Debug)]
pub struct TempFolder {
    parent: Folder,
    name: OsString,
    pub folder: Folder,
}

impl TempFolder {
    /// `<temporary folder>/<prefix>-<pid>-<16 hex digits>`.
    pub fn new(prefix: &str) -> std::io::Result<TempFolder> {
        let parent = Folder::open(&std::env::temp_dir())?;
        for _ in 0..16 {
            let name = OsString::from(format!("{prefix}-{}", unguessable()));
            match sys::make_private_dir(&parent.handle, &name) {
                Ok(()) => {
                    let folder = parent.child(&name, false)?;
                    return Ok(TempFolder { parent, name, folder });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, "every temporary folder name tried was taken"))
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = self.parent.remove(&self.name);
    }
}

/// What a name in a folder is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Folder,
    Link,
    /// A FIFO, a device, a socket.
    Other,
}

/// A file written under a temporary name in its folder and renamed to its own name by
/// [`AtomicFile::commit`]: whoever looks sees the old file or the whole new one, never a part.
/// Dropped without a commit (an error, an interruption), it removes its temporary file.
pub struct AtomicFile {
    folder: Folder,
    name: OsString,
    tmp: OsString,
    /// `None` once a commit was tried.
    writer: Option<std::io::BufWriter<std::fs::File>>,
    /// The rename succeeded: the temporary name is gone.
    committed: bool,
}

impl AtomicFile {
    /// Flushes, syncs the data to the disk and renames the file into place.
    pub fn commit(self) -> std::io::Result<()> {
        self.finish(true)
    }

    /// [`AtomicFile::commit`], syncing only where `durable`.
    pub fn finish(mut self, durable: bool) -> std::io::Result<()> {
        let writer = self.writer.take().expect("an AtomicFile is committed once");
        let file = writer.into_inner().map_err(|e| e.into_error())?;
        if durable {
            file.sync_data()?;
        }
        drop(file);
        sys::rename(&self.folder.handle, &self.tmp, &self.name)?;
        self.committed = true;
        Ok(())
    }

    /// The file being written, for a program that writes it itself (ffmpeg): flushed first.
    pub fn file(&mut self) -> std::io::Result<&std::fs::File> {
        let writer = self.writer.as_mut().expect("not committed");
        writer.flush()?;
        Ok(writer.get_ref())
    }

    /// The file's temporary name in its folder.
    pub fn temp_name(&self) -> &OsStr {
        &self.tmp
    }

    /// The temporary file's path (for a program that opens it by name where there is no
    /// `/dev/stdout` to hand it over).
    pub fn temp_path(&self) -> PathBuf {
        self.folder.path.join(&self.tmp)
    }

    /// Where the file goes on commit.
    pub fn path(&self) -> PathBuf {
        self.folder.path.join(&self.name)
    }
}

impl std::io::Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.as_mut().expect("not committed").write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer.as_mut().expect("not committed").write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed {
            self.writer = None; // closed before it is removed
            let _ = sys::remove(&self.folder.handle, &self.tmp);
        }
    }
}

/// `name` as one plain name of a folder's entry: not empty, no separator, not `.` or `..`.
fn plain_name(name: &OsStr) -> std::io::Result<()> {
    let mut parts = Path::new(name).components();
    match (parts.next(), parts.next()) {
        (Some(Component::Normal(n)), None) if n == name => Ok(()),
        _ => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{:?} is not a plain file name", name))),
    }
}

/// The folder a path names its file in (`.` for a bare name) and the file's name.
pub fn split(path: &Path) -> std::io::Result<(&Path, &OsStr)> {
    let name = match path.components().next_back() {
        Some(Component::Normal(n)) => n,
        _ => return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{} does not name a file", path.display()))),
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Ok((dir, name))
}

/// The temporary name a file `name` is written under: `<name>.<pid>-<16 hex digits>.tmp`
/// ([`unguessable`]), so nobody can plant a link under it beforehand, and a later run can tell
/// a dead run's leftovers by the process id.
pub fn temp_name(name: &OsStr) -> OsString {
    let mut tmp = name.to_os_string();
    tmp.push(format!(".{}.tmp", unguessable()));
    tmp
}

/// `<pid>-<16 hex digits>`, the digits unguessable: a SipHash under a key from the system's
/// random source (the standard library's `RandomState`, each one fresh), of a counter and the
/// time.
fn unguessable() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNT.fetch_add(1, Ordering::Relaxed));
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    format!("{}-{:016x}", std::process::id(), h.finish())
}

/// The process id in a temporary's name ([`temp_name`], or the `<file>.<pid>.tmp` of earlier
/// versions), when `name` is one.
pub fn temp_owner(name: &str) -> Option<u32> {
    let stem = name.strip_suffix(".tmp")?;
    let (_, last) = stem.rsplit_once('.')?;
    let pid = match last.split_once('-') {
        Some((pid, random)) if random.len() == 16 && random.bytes().all(|b| b.is_ascii_hexdigit()) => pid,
        Some(_) => return None,
        None => last,
    };
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Writes `bytes` to `path` through a temporary file in its folder (made where missing), without
/// waiting for the disk (`durable`: with, for files that are not made again in no time).
pub fn write_renaming(path: &Path, bytes: &[u8], durable: bool) -> std::io::Result<()> {
    let (dir, name) = split(path)?;
    Folder::create(dir)?.write(name, bytes, durable)
}

/// The contents of the plain file at `path`, read as [`Folder::read`] reads (no link at its end,
/// no FIFO, no device).
pub fn read_plain(path: &Path) -> std::io::Result<Vec<u8>> {
    let (dir, name) = split(path)?;
    Folder::open(dir)?.read(name)
}

/// [`read_plain`] of a file that may be at most `max` bytes: a larger one is refused before it
/// is read (a report or a manifest planted to make a reader take gigabytes).
pub fn read_plain_at_most(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let (dir, name) = split(path)?;
    let mut file = Folder::open(dir)?.open_file(name)?;
    let len = file.metadata()?.len();
    if len > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is {len} bytes: more than the {max} bytes such a file may have", path.display()),
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(&mut file, max + 1), &mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} grew past {max} bytes while it was read", path.display()),
        ));
    }
    Ok(bytes)
}

/// The contents of the file at `path`, following links only where they are this user's or
/// root's ([`Folder::open_trusted`]; never a FIFO or a device).
pub fn read_trusted(path: &Path) -> std::io::Result<Vec<u8>> {
    let (dir, name) = split(path)?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut Folder::open(dir)?.open_trusted(name)?, &mut bytes)?;
    Ok(bytes)
}

/// Whether the link at `path` may be followed: this user's or root's.
pub fn trusted_link(path: &Path) -> bool {
    sys::trusted_link(path)
}

/// Removes a stale file, or a folder with everything in it; one that is not there is fine.
pub fn remove_stale(path: &Path) -> std::io::Result<()> {
    let (dir, name) = split(path)?;
    let removed = Folder::open(dir).and_then(|f| f.remove(name));
    match removed {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// [`write_renaming`] for a report's files, made again in no time from what is kept.
#[cfg(feature = "full")]
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> Result<(), crate::Error> {
    write_renaming(path, bytes, false).map_err(crate::Error::write(path))
}

/// [`write_renaming`] for what a person accepted: on disk before the rename.
pub(crate) fn atomic(path: &Path, bytes: &[u8]) -> Result<(), crate::Error> {
    write_renaming(path, bytes, true).map_err(crate::Error::write(path))
}

#[cfg(test)]
mod tests;

/// The implementation for systems without `openat`, compiled and tried here too (no Windows
/// toolchain builds in CI).
#[cfg(all(test, unix))]
#[path = "portable.rs"]
mod portable_here;
