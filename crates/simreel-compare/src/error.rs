//! What can go wrong, each with the exit class a command gives it ([`Error::exit_code`]).

use std::path::PathBuf;

/// An error of the comparator, its report or a review.
#[derive(Debug)]
pub enum Error {
    /// Input that makes no sense (a missing or unreadable file, a bad option): exit 2.
    BadInput(String),
    /// A file read back (a report's summary) names something an accept may not touch: exit 2.
    Untrusted(String),
    /// A review with no earlier run to review: exit 2.
    NoLastRun(String),
    /// Some compared files differ or are on one side only: exit 4.
    Differ { failed: usize, compared: usize, report: String, review: String },
    /// A file could not be written: exit 1.
    Write { path: PathBuf, source: std::io::Error },
    /// A stale file (an earlier report's) could not be removed: exit 1.
    Remove { path: PathBuf, source: std::io::Error },
    /// An error of the program that uses this crate (blessing a rendered frame): its caller
    /// takes it back out (`downcast`) for its own exit class.
    Other(Box<dyn std::error::Error + Send + Sync>),
}

/// Exit codes of the `simreel-compare` and `simreel` commands.
pub mod exit {
    pub const RUNTIME: u8 = 1;
    pub const BAD_INPUT: u8 = 2;
    pub const DIFFER: u8 = 4;
}

impl Error {
    /// The exit code a command gives this error; `None` for [`Error::Other`], whose code its
    /// source says.
    pub fn exit_code(&self) -> Option<u8> {
        match self {
            Error::BadInput(_) | Error::Untrusted(_) | Error::NoLastRun(_) => Some(exit::BAD_INPUT),
            Error::Differ { .. } => Some(exit::DIFFER),
            Error::Write { .. } | Error::Remove { .. } => Some(exit::RUNTIME),
            Error::Other(_) => None,
        }
    }

    pub(crate) fn write(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
        move |source| Error::Write { path: path.to_path_buf(), source }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::BadInput(s) | Error::NoLastRun(s) => f.write_str(s),
            Error::Untrusted(s) => write!(f, "refusing to accept: {s}"),
            Error::Differ { failed, compared, report, review } => {
                write!(
                    f,
                    "{failed} of {} {}; report: {report}; review: {review}",
                    crate::text::count(*compared as u64, "compared image", "compared images"),
                    if *failed == 1 { "differs" } else { "differ" }
                )
            }
            Error::Write { path, .. } => write!(f, "cannot write {}", path.display()),
            Error::Remove { path, .. } => write!(f, "cannot remove {}, which is stale; remove it by hand and run again", path.display()),
            Error::Other(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Write { source, .. } | Error::Remove { source, .. } => Some(source),
            Error::Other(e) => e.source(),
            _ => None,
        }
    }
}
