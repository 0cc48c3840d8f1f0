//! The folder handles of [`super::Folder`] on Unix: `openat` and friends (through rustix) on a
//! descriptor of the folder, so that no step resolves a path another user can change.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::Kind;

/// An open folder.
pub type Handle = OwnedFd;

/// A folder opened to look in and to make files in, never through a link (`O_NOFOLLOW`).
const DIR: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

/// How many links a path may lead through, as the system allows (Linux's 40).
const MAX_LINKS: u32 = 40;

fn io(e: Errno) -> std::io::Error {
    std::io::Error::from(e)
}

fn said(e: Errno, what: String) -> std::io::Error {
    std::io::Error::new(std::io::Error::from(e).kind(), format!("{what}: {}", std::io::Error::from(e)))
}

/// Opens the folder at `path` component by component (making missing ones where `create`):
/// each name is opened without following a link; a link found on the way is followed only when
/// it belongs to this user or to root, so one that another user planted leads nowhere.
pub fn open_dir(path: &Path, create: bool) -> std::io::Result<Handle> {
    let start = if path.has_root() { "/" } else { "." };
    let fd = rustix::fs::openat(CWD, start, DIR, Mode::empty()).map_err(|e| said(e, format!("cannot open {start}")))?;
    walk(fd, PathBuf::from(start), path, create, &mut 0)
}

/// The names of `p` to walk, `..` kept (a link's target is resolved as the system would).
fn parts(p: &Path) -> impl DoubleEndedIterator<Item = OsString> + '_ {
    p.components().filter_map(|c| match c {
        Component::Normal(n) => Some(n.to_os_string()),
        Component::ParentDir => Some(OsString::from("..")),
        _ => None,
    })
}

/// Whether a link with this owner may be followed: this user's or root's.
fn trusted(owner: u32) -> bool {
    owner == me() || owner == 0
}

fn foreign_link(here: &Path, owner: u32) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        format!(
            "{} is a symbolic link of another user's (uid {owner}): simreel follows only your own links and root's, since another user could have planted it; name what it leads to instead",
            here.display()
        ),
    )
}

/// Walks `path` from the folder `fd` (named `walked`), as [`open_dir`] does; `links` counts the
/// links followed so far.
fn walk(mut fd: Handle, mut walked: PathBuf, path: &Path, create: bool, links: &mut u32) -> std::io::Result<Handle> {
    let mut todo: VecDeque<OsString> = parts(path).collect();
    let mut made = 0;
    while let Some(name) = todo.pop_front() {
        let here = walked.join(&name);
        match rustix::fs::openat(&fd, name.as_os_str(), DIR, Mode::empty()) {
            Ok(next) => {
                fd = next;
                walked = here;
            }
            Err(Errno::NOENT) if create && name != ".." => {
                made += 1;
                if made > 64 {
                    return Err(std::io::Error::other(format!("{} keeps disappearing while it is made", here.display())));
                }
                match rustix::fs::mkdirat(&fd, name.as_os_str(), Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => todo.push_front(name),
                    Err(e) => return Err(said(e, format!("cannot make {}", here.display()))),
                }
            }
            // O_NOFOLLOW on a link: ELOOP (Linux, macOS), EMLINK (FreeBSD), ENOTDIR (NetBSD)
            Err(e @ (Errno::LOOP | Errno::MLINK | Errno::NOTDIR)) => {
                let st = rustix::fs::statat(&fd, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)
                    .map_err(|e| said(e, here.display().to_string()))?;
                if FileType::from_raw_mode(st.st_mode) != FileType::Symlink {
                    return Err(said(e, format!("{} is not a folder", here.display())));
                }
                let target = follow(&fd, &name, &here, st.st_uid, links)?;
                if target.has_root() {
                    fd = rustix::fs::openat(CWD, "/", DIR, Mode::empty()).map_err(io)?;
                    walked = PathBuf::from("/");
                }
                for part in parts(&target).rev() {
                    todo.push_front(part);
                }
            }
            Err(e) => return Err(said(e, format!("cannot open {}", here.display()))),
        }
    }
    Ok(fd)
}

/// The target of the link `name` in `dir` (at `here`, owned by `owner`), when it may be followed.
fn follow(dir: &Handle, name: &OsStr, here: &Path, owner: u32, links: &mut u32) -> std::io::Result<PathBuf> {
    if !trusted(owner) {
        return Err(foreign_link(here, owner));
    }
    *links += 1;
    if *links > MAX_LINKS {
        return Err(said(Errno::LOOP, here.display().to_string()));
    }
    let target = rustix::fs::readlinkat(dir, name, Vec::new()).map_err(|e| said(e, here.display().to_string()))?;
    Ok(PathBuf::from(OsString::from_vec(target.into_bytes())))
}

/// The plain file `name` in `dir` (at `folder`), opened to read, following a link only where it
/// is this user's or root's (each folder on the link's way as [`open_dir`] walks it).
pub fn open_trusted(dir: &Handle, name: &OsStr, folder: &Path) -> std::io::Result<std::fs::File> {
    let (mut dir, mut name, mut folder) = (dir.try_clone()?, name.to_os_string(), folder.to_path_buf());
    let mut links = 0;
    loop {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let here = folder.join(&name);
        match rustix::fs::openat(&dir, name.as_os_str(), flags, Mode::empty()) {
            Ok(fd) => return plain(fd, &here),
            Err(Errno::LOOP | Errno::MLINK) => {
                let st = rustix::fs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)
                    .map_err(|e| said(e, here.display().to_string()))?;
                let target = follow(&dir, &name, &here, st.st_uid, &mut links)?;
                let (parent, leaf) = super::split(&target)?;
                let (parent, leaf) = (parent.to_path_buf(), leaf.to_os_string());
                dir = if parent.has_root() {
                    let root = rustix::fs::openat(CWD, "/", DIR, Mode::empty()).map_err(io)?;
                    walk(root, PathBuf::from("/"), &parent, false, &mut links)?
                } else {
                    walk(dir, folder.clone(), &parent, false, &mut links)?
                };
                folder = if parent.has_root() { parent } else { folder.join(parent) };
                name = leaf;
            }
            Err(e) => return Err(said(e, here.display().to_string())),
        }
    }
}

/// `fd` as a file when it is a plain one.
fn plain(fd: OwnedFd, here: &Path) -> std::io::Result<std::fs::File> {
    let st = rustix::fs::fstat(&fd).map_err(io)?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{} is not a plain file", here.display())));
    }
    // a plain file reads the same with or without O_NONBLOCK
    Ok(std::fs::File::from(fd))
}

/// Whether `path`, a link, may be followed (this user's or root's).
pub fn trusted_link(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| trusted(m.uid()))
}

/// The folder `name` in `dir`, never through a link; made where `create` and missing.
pub fn child_dir(dir: &Handle, name: &OsStr, create: bool) -> std::io::Result<Handle> {
    if create {
        match rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(io(e)),
        }
    }
    rustix::fs::openat(dir, name, DIR, Mode::empty()).map_err(|e| match e {
        Errno::LOOP | Errno::MLINK => std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("{} is a symbolic link: simreel never writes through one here", Path::new(name).display()),
        ),
        e => io(e),
    })
}

/// Makes the folder `name` in `dir`, of this user's alone (0700); one that exists is an
/// [`std::io::ErrorKind::AlreadyExists`] error.
pub fn make_private_dir(dir: &Handle, name: &OsStr) -> std::io::Result<()> {
    rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o700)).map_err(io)
}

/// A new temporary file for `name` in `dir` ([`super::temp_name`]), made exclusively and never
/// through a link; a name taken (by a leftover, or by someone else) is passed over for another.
pub fn create_temp(dir: &Handle, name: &OsStr) -> std::io::Result<(OsString, std::fs::File)> {
    for _ in 0..16 {
        let tmp = super::temp_name(name);
        match new_file(dir, &tmp, 0o666) {
            Ok(f) => return Ok((tmp, f)),
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(io(e)),
        }
    }
    Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, "every temporary name tried was taken"))
}

fn new_file(dir: &Handle, name: &OsStr, mode: u32) -> Result<std::fs::File, Errno> {
    let flags = OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(mode)).map(std::fs::File::from)
}

pub fn create_new(dir: &Handle, name: &OsStr, private: bool) -> std::io::Result<std::fs::File> {
    new_file(dir, name, if private { 0o600 } else { 0o666 }).map_err(io)
}

pub fn open_or_create(dir: &Handle, name: &OsStr, private: bool) -> std::io::Result<std::fs::File> {
    let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NOCTTY | OFlags::CLOEXEC;
    let mode = Mode::from_raw_mode(if private { 0o600 } else { 0o666 });
    rustix::fs::openat(dir, name, flags, mode).map(std::fs::File::from).map_err(|e| match e {
        Errno::LOOP | Errno::MLINK => std::io::Error::new(std::io::ErrorKind::InvalidInput, "it is a symbolic link"),
        e => io(e),
    })
}

/// The plain file `name` in `dir`, opened to read: never through a link, and without blocking
/// on a FIFO (which, like a device or a folder, is then refused).
pub fn open_file(dir: &Handle, name: &OsStr, folder: &Path) -> std::io::Result<std::fs::File> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let here = folder.join(name);
    let fd = rustix::fs::openat(dir, name, flags, Mode::empty()).map_err(|e| match e {
        Errno::LOOP | Errno::MLINK => std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is a symbolic link: simreel reads what it was pointed at by a file only from plain files", here.display()),
        ),
        e => said(e, here.display().to_string()),
    })?;
    plain(fd, &here)
}

pub fn rename(dir: &Handle, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
    rustix::fs::renameat(dir, from, dir, to).map_err(io)
}

pub fn kind(dir: &Handle, name: &OsStr) -> std::io::Result<Kind> {
    let st = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).map_err(io)?;
    Ok(match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => Kind::File,
        FileType::Directory => Kind::Folder,
        FileType::Symlink => Kind::Link,
        _ => Kind::Other,
    })
}

/// Removes `name` from `dir`: a file or a link itself, or a folder after everything in it (each
/// entry relative to the folder's own handle, never through a link).
pub fn remove(dir: &Handle, name: &OsStr) -> std::io::Result<()> {
    match kind(dir, name)? {
        Kind::Folder => {
            let sub = rustix::fs::openat(dir, name, DIR, Mode::empty()).map_err(io)?;
            for entry in names_of(&sub)? {
                remove(&sub, &entry)?;
            }
            rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR).map_err(io)
        }
        _ => rustix::fs::unlinkat(dir, name, AtFlags::empty()).map_err(io),
    }
}

fn names_of(dir: &Handle) -> std::io::Result<Vec<OsString>> {
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let n = entry.file_name().to_bytes();
        if n != b"." && n != b".." {
            names.push(OsStr::from_bytes(n).to_os_string());
        }
    }
    Ok(names)
}

pub fn names(dir: &Handle, folder: &Path) -> std::io::Result<Vec<OsString>> {
    names_of(dir).map_err(|e| std::io::Error::new(e.kind(), format!("cannot list {}: {e}", folder.display())))
}

/// The folder's owner, group and mode.
pub fn owner_and_mode(dir: &Handle) -> Option<(u32, u32, u32)> {
    rustix::fs::fstat(dir).ok().map(|st| (st.st_uid, st.st_gid, st.st_mode))
}

/// This process's effective user.
#[allow(unsafe_code)]
pub fn me() -> u32 {
    // the C library's own call (which std links): rustix's `process` half would cost a cold
    // build of a test suite with `assert_image!` a tenth of its time for this one number
    unsafe extern "C" {
        fn geteuid() -> u32;
    }
    // SAFETY: geteuid takes nothing, touches no memory and cannot fail (POSIX); uid_t is a
    // 32-bit unsigned integer on every Unix Rust supports
    unsafe { geteuid() }
}

pub fn clone(dir: &Handle) -> std::io::Result<Handle> {
    dir.try_clone()
}
