//! Writing results: PNG frames, GIFs, JSON manifests. Every file is written to a temporary name in
//! its folder and renamed into place, so an interrupted run never leaves a truncated file and a
//! rerun can trust whatever it finds.

pub mod compare;
pub mod gif;
pub mod manifest;
pub mod mesh_file;
pub mod png;
pub mod report;

use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot write {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not a PNG simreel can read: {reason}", path.display())]
    BadPng { path: PathBuf, reason: String },
    #[error("{}: {reason}", path.display())]
    Gif { path: PathBuf, reason: String },
}

fn write_err(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Write { path: path.to_path_buf(), source }
}

/// The temporary name a file is written under before it is renamed to `path`.
pub fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(format!(".{}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// Writes `bytes` to `path` atomically (temporary file in the same folder, then rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Streams into a temporary file next to `path` and renames it into place when `fill` succeeds;
/// the temporary file is removed on failure.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), OutputError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(write_err(dir))?;
    }
    let tmp = temp_path(path);
    let result = (|| {
        let file = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::new(file);
        fill(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_data()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(write_err(path))
}

/// `frame_0007.png`: zero-padded to the digits of the last frame number (at least 4).
pub fn frame_file_name(index: u32, total_frames: u32) -> String {
    let digits = total_frames.saturating_sub(1).max(1).ilog10() as usize + 1;
    format!("frame_{index:0width$}.png", width = digits.max(4))
}
