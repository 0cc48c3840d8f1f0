//! Files written so that whoever looks sees the old file or the whole new one.

use std::path::{Path, PathBuf};

/// The temporary name a file is written under before it is renamed to `path`.
pub fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(format!(".{}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// Writes `bytes` to a temporary file next to `path` and renames it into place, without waiting
/// for the disk (`durable`: with, for files that are not made again in no time).
pub fn write_renaming(path: &Path, bytes: &[u8], durable: bool) -> std::io::Result<()> {
    use std::io::Write as _;
    let tmp = temp_path(path);
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| {
            f.write_all(bytes)?;
            if durable { f.sync_data() } else { Ok(()) }
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Removes a stale file, or a folder with everything in it; one that is not there is fine.
pub fn remove_stale(path: &Path) -> std::io::Result<()> {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) => Err(e),
    };
    match removed {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// [`write_renaming`] for a report's files, made again in no time from what is kept.
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> Result<(), crate::Error> {
    write_renaming(path, bytes, false).map_err(crate::Error::write(path))
}

/// [`write_renaming`] for what a person accepted: on disk before the rename.
pub(crate) fn atomic(path: &Path, bytes: &[u8]) -> Result<(), crate::Error> {
    write_renaming(path, bytes, true).map_err(crate::Error::write(path))
}
