//! Writing results: PNG frames, GIFs, JSON manifests. Every file is written to a temporary name in
//! its folder and renamed into place, so an interrupted run never leaves a truncated file and a
//! rerun can trust whatever it finds.

pub mod animation;
pub mod claim;
#[cfg(feature = "render")]
pub mod embed;
#[cfg(feature = "render")]
pub mod gif;
#[cfg(feature = "render")]
pub mod layout;
#[cfg(feature = "render")]
pub mod manifest;
pub mod mesh_file;
pub mod picture;
pub mod png;
pub mod webp;

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
    #[error("cannot remove {}, which is stale; remove it by hand and run again", path.display())]
    Remove {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is being written by process {pid} (another render of this scene); wait for it to finish, or pass another --out", dir.display())]
    Busy { dir: PathBuf, pid: u32 },
    #[error("{} is not a PNG simreel can read: {reason}", path.display())]
    BadPng { path: PathBuf, reason: String },
    #[error("{} is not a picture simreel can read (PNG, JPEG or WebP): {reason}", path.display())]
    BadPicture { path: PathBuf, reason: String },
    #[error("{}: {reason}", path.display())]
    Gif { path: PathBuf, reason: String },
    #[error("{}: {reason}", path.display())]
    Animation { path: PathBuf, reason: String },
    #[error(
        "MP4, WebM, WebP and AVIF are encoded by ffmpeg, which is not installed (Debian/Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg; or set SIMREEL_FFMPEG to its path); PNG, GIF and APNG need nothing"
    )]
    NoFfmpeg,
    #[error(
        "SIMREEL_FFMPEG is {}, which does not run as ffmpeg: {why} (set it to an ffmpeg, or unset it to use the one on the PATH; Debian/Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg)",
        path.display()
    )]
    FfmpegAt { path: PathBuf, why: String },
}

fn write_err(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Write { path: path.to_path_buf(), source }
}

/// Removes a stale file, or a folder with everything in it; one that is not there is fine. Any
/// other failure is an error: what is left could be taken for new output.
pub fn remove_stale(path: &Path) -> Result<(), OutputError> {
    simreel_compare::fs::remove_stale(path).map_err(|source| OutputError::Remove { path: path.to_path_buf(), source })
}

/// Has the command line warn, once per folder, of each folder it writes in that other users can
/// write ([`simreel_compare::fs::Shared`]).
pub fn warn_of_shared_folders() {
    simreel_compare::fs::on_shared_folder(|s| eprintln!("warning: {s}"));
}

/// The folder at `path`, made where missing ([`simreel_compare::fs::Folder`]: opened once, no
/// link of another user's followed on the way).
pub fn folder(path: &Path) -> Result<Folder, OutputError> {
    Folder::create(path).map_err(write_err(path))
}

/// The plain file at `path`, read as a file named by something simreel reads back is read: no
/// link at its end, no FIFO or device.
pub fn read_plain(path: &Path) -> Result<Vec<u8>, OutputError> {
    simreel_compare::fs::read_plain(path).map_err(|source| OutputError::Read { path: path.to_path_buf(), source })
}

pub use simreel_compare::fs::Folder;

/// Writes `bytes` to `path` as [`write_atomic`] does but without waiting for the disk: for files
/// made again in no time from what is kept (a report's pages and pictures), which an
/// interruption must not leave half written but a power cut may lose.
pub fn write_replacing(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    simreel_compare::fs::write_renaming(path, bytes, false).map_err(write_err(path))
}

/// Writes `bytes` to `path` atomically (temporary file in the same folder, then rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Streams into a temporary file next to `path` and renames it into place when `fill` succeeds;
/// the temporary file is removed on failure.
pub fn write_atomic_with(path: &Path, fill: impl FnOnce(&mut AtomicFile) -> std::io::Result<()>) -> Result<(), OutputError> {
    let mut file = AtomicFile::create(path)?;
    fill(&mut file).map_err(write_err(path))?;
    file.commit()
}

/// A file written under a temporary name in its folder and renamed to its own name by
/// [`AtomicFile::commit`]: whoever looks sees the old file or the whole new one, never a part.
/// Dropped without a commit (an error, an interruption), it removes its temporary file. The
/// temporary is made exclusively, under an unguessable name, relative to the folder's handle
/// ([`simreel_compare::fs::AtomicFile`]).
pub struct AtomicFile {
    path: PathBuf,
    file: simreel_compare::fs::AtomicFile,
}

impl AtomicFile {
    /// Creates the folder if needed and opens the temporary file.
    pub fn create(path: &Path) -> Result<Self, OutputError> {
        let file = simreel_compare::fs::Folder::atomic_at(path).map_err(write_err(path))?;
        Ok(AtomicFile { path: path.to_path_buf(), file })
    }

    /// Flushes, syncs the data to disk and renames the file into place.
    pub fn commit(self) -> Result<(), OutputError> {
        self.file.commit().map_err(write_err(&self.path))
    }

    /// The file being written, for a program that fills it itself (ffmpeg): flushed first.
    pub fn file(&mut self) -> Result<&std::fs::File, OutputError> {
        let path = &self.path;
        self.file.file().map_err(write_err(path))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// `frame_0007.png`: zero-padded to the digits of the last frame number (at least 4).
pub fn frame_file_name(index: u32, total_frames: u32) -> String {
    let digits = total_frames.saturating_sub(1).max(1).ilog10() as usize + 1;
    format!("frame_{index:0width$}.png", width = digits.max(4))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("simreel-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn stale_files_and_folders_go_and_a_failure_to_remove_one_is_an_error() {
        let dir = scratch("stale");
        std::fs::create_dir_all(dir.join("report/old")).unwrap();
        std::fs::write(dir.join("report/old/a.png"), b"x").unwrap();
        std::fs::write(dir.join("shard.json"), b"{}").unwrap();
        remove_stale(&dir.join("report")).unwrap();
        remove_stale(&dir.join("shard.json")).unwrap();
        assert!(!dir.join("report").exists() && !dir.join("shard.json").exists());
        // not there: nothing to do
        remove_stale(&dir.join("report")).unwrap();
        // a path through a file cannot be looked at, let alone removed (root cannot either)
        std::fs::write(dir.join("file"), b"x").unwrap();
        let e = remove_stale(&dir.join("file/report")).unwrap_err();
        assert!(matches!(e, OutputError::Remove { .. }) && e.to_string().contains("file/report"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_atomic_file_appears_whole_on_commit_and_never_otherwise() {
        let dir = scratch("atomic");
        let path = dir.join("sub/a.bin");
        let names = || {
            let mut v: Vec<_> =
                std::fs::read_dir(dir.join("sub")).unwrap().flatten().map(|e| e.file_name().into_string().unwrap()).collect();
            v.sort();
            v
        };
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"half").unwrap();
        assert!(!path.exists(), "visible before the commit");
        assert_eq!(names().len(), 1, "the temporary file");
        f.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"half");
        assert_eq!(names(), ["a.bin"]);

        // dropped without a commit: the old file stays, the temporary one goes
        let mut g = AtomicFile::create(&path).unwrap();
        g.write_all(b"replacement").unwrap();
        drop(g);
        assert_eq!(std::fs::read(&path).unwrap(), b"half");
        assert_eq!(names(), ["a.bin"]);

        // a failing fill leaves nothing behind either
        let other = dir.join("sub/b.bin");
        let e = write_atomic_with(&other, |w| {
            w.write_all(b"x")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(matches!(e, Err(OutputError::Write { .. })));
        assert_eq!(names(), ["a.bin"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
