//! Errors of the scene layer: a file that cannot be read, a file with problems (each with its
//! line, column and key), or a scene too big for this machine.

use std::fmt;
use std::path::PathBuf;

/// One problem in a scene file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    /// Dotted TOML key path (`terrain.shapes[1].radius`), empty for the document.
    pub key: String,
    pub message: String,
    pub hint: Option<String>,
}

/// Diagnostics printed as `file:line:col: key: message (hint)`, one per line.
pub struct Listing<'a> {
    pub path: &'a std::path::Path,
    pub items: &'a [Diagnostic],
}

impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_items(f, self.items, Some(self.path))
    }
}

/// `items`, one a line: `file:line:col: ` first where `at` names the file, then
/// `key: message (hint)`.
fn write_items(f: &mut fmt::Formatter<'_>, items: &[Diagnostic], at: Option<&std::path::Path>) -> fmt::Result {
    for (i, d) in items.iter().enumerate() {
        if i > 0 {
            writeln!(f)?;
        }
        if let Some(path) = at {
            write!(f, "{}:{}:{}: ", path.display(), d.line, d.col)?;
        }
        if !d.key.is_empty() {
            write!(f, "{}: ", d.key)?;
        }
        write!(f, "{}", d.message)?;
        if let Some(h) = &d.hint {
            write!(f, " ({h})")?;
        }
    }
    Ok(())
}

#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error("cannot read scene file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} has {} problem{}:\n{}{}", path.display(), diagnostics.len() + more, if diagnostics.len() + more == 1 { "" } else { "s" }, Listing { path, items: diagnostics }, More(*more))]
    Invalid {
        path: PathBuf,
        /// The first problems in file order (at most [`super::reader::LISTED`]).
        diagnostics: Vec<Diagnostic>,
        /// How many more there are.
        more: usize,
    },
    #[error("{} with --set {given} has {} problem{}:\n{}{}", path.display(), diagnostics.len() + more, if diagnostics.len() + more == 1 { "" } else { "s" }, ByKey(diagnostics), More(*more))]
    Overridden {
        path: PathBuf,
        /// The overrides, as given (`flock.theme="light" render.fps=25`).
        given: String,
        /// The problems of the file with its overrides (their lines are of the edited text, so
        /// they are said by key).
        diagnostics: Vec<Diagnostic>,
        more: usize,
    },
    #[error("{}: {what} needs about {} but only {} is available ({by}); reduce it or pass a smaller --size/--frames", path.display(), human_bytes(*needed), human_bytes(*available))]
    TooBig { path: PathBuf, what: String, needed: u64, available: u64, by: String },
}

impl SceneError {
    /// A scene that cannot be read, is invalid or too big for this machine is bad input: 2.
    pub fn exit_class(&self) -> crate::exit::ExitClass {
        crate::exit::ExitClass::BadInput
    }
}

/// Diagnostics printed as `key: message (hint)`, one per line.
struct ByKey<'a>(&'a [Diagnostic]);

impl fmt::Display for ByKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_items(f, self.0, None)
    }
}

/// "\nand N more problems" after a cut listing; nothing when complete.
struct More(usize);

impl fmt::Display for More {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => Ok(()),
            1 => write!(f, "\n… and 1 more problem"),
            n => write!(f, "\n… and {n} more problems"),
        }
    }
}

/// 1536 → "1.5 KiB".
pub fn human_bytes(b: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 { format!("{b} B") } else { format!("{v:.1} {}", units[u]) }
}
