//! The folder handles of [`super::Folder`] where there is no `openat` (Windows): the folder's
//! path, with the same exclusive temporary files under unguessable names and no write or read
//! through a link.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::Kind;

pub type Handle = PathBuf;

pub fn open_dir(path: &Path, create: bool) -> std::io::Result<Handle> {
    if create {
        std::fs::create_dir_all(path)?;
    }
    if !std::fs::metadata(path)?.is_dir() {
        return Err(std::io::Error::new(std::io::ErrorKind::NotADirectory, format!("{} is not a folder", path.display())));
    }
    Ok(path.to_path_buf())
}

pub fn child_dir(dir: &Handle, name: &OsStr, create: bool) -> std::io::Result<Handle> {
    let p = dir.join(name);
    if create
        && let Err(e) = std::fs::create_dir(&p)
        && e.kind() != std::io::ErrorKind::AlreadyExists
    {
        return Err(e);
    }
    match kind(dir, name)? {
        Kind::Folder => Ok(p),
        _ => Err(std::io::Error::new(std::io::ErrorKind::NotADirectory, format!("{} is not a plain folder", p.display()))),
    }
}

pub fn make_private_dir(dir: &Handle, name: &OsStr) -> std::io::Result<()> {
    std::fs::create_dir(dir.join(name))
}

pub fn create_temp(dir: &Handle, name: &OsStr) -> std::io::Result<(OsString, std::fs::File)> {
    for _ in 0..16 {
        let tmp = super::temp_name(name);
        match std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(dir.join(&tmp)) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, "every temporary name tried was taken"))
}

pub fn create_new(dir: &Handle, name: &OsStr, _private: bool) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(dir.join(name))
}

pub fn open_or_create(dir: &Handle, name: &OsStr, _private: bool) -> std::io::Result<std::fs::File> {
    if kind(dir, name).is_ok_and(|k| k != Kind::File) {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "it is not a plain file"));
    }
    std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(dir.join(name))
}

pub fn open_file(dir: &Handle, name: &OsStr, folder: &Path) -> std::io::Result<std::fs::File> {
    match kind(dir, name)? {
        Kind::File => std::fs::File::open(dir.join(name)),
        _ => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{} is not a plain file", folder.join(name).display()))),
    }
}

pub fn rename(dir: &Handle, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
    std::fs::rename(dir.join(from), dir.join(to))
}

pub fn kind(dir: &Handle, name: &OsStr) -> std::io::Result<Kind> {
    let m = std::fs::symlink_metadata(dir.join(name))?;
    Ok(if m.file_type().is_symlink() {
        Kind::Link
    } else if m.is_dir() {
        Kind::Folder
    } else if m.is_file() {
        Kind::File
    } else {
        Kind::Other
    })
}

pub fn remove(dir: &Handle, name: &OsStr) -> std::io::Result<()> {
    let p = dir.join(name);
    match kind(dir, name)? {
        Kind::Folder => std::fs::remove_dir_all(p),
        _ => std::fs::remove_file(p),
    }
}

pub fn names(dir: &Handle, _folder: &Path) -> std::io::Result<Vec<OsString>> {
    std::fs::read_dir(dir)?.map(|e| e.map(|e| e.file_name())).collect()
}

pub fn clone(dir: &Handle) -> std::io::Result<Handle> {
    Ok(dir.clone())
}

pub fn open_trusted(dir: &Handle, name: &OsStr, folder: &Path) -> std::io::Result<std::fs::File> {
    let p = dir.join(name);
    if !std::fs::metadata(&p)?.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{} is not a plain file", folder.join(name).display())));
    }
    std::fs::File::open(p)
}

pub fn trusted_link(_path: &Path) -> bool {
    true
}
