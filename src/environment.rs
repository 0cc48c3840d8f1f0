//! What simreel takes from its environment: the variables are read once, by the command line
//! ([`Environment::read`], then [`Environment::install`]), and the library asks
//! [`Environment::current`]. No library module reads a variable itself, so a program that calls
//! simreel gets the same results whatever its own environment holds, unless it installs one.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// The variables simreel heeds, as read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Environment {
    /// `SIMREEL_BACKEND`: the graphics API a request that leaves the choice open prefers.
    pub backend: Option<String>,
    /// `SIMREEL_ADAPTER`: the adapter (a substring of its name) such a request prefers.
    pub adapter: Option<String>,
    /// `SIMREEL_FFMPEG`: the ffmpeg that encodes MP4, WebM, WebP and AVIF (else the one on the PATH).
    pub ffmpeg: Option<PathBuf>,
    /// `SIMREEL_CHECKPOINT_MS`: how often a running render rewrites its manifest (2 s).
    pub checkpoint: Option<Duration>,
    /// This user's folder for what simreel keeps between runs where only they write
    /// (`$XDG_STATE_HOME/simreel`, else `$HOME/.local/state/simreel`): what their golden checks
    /// rendered ([`crate::golden`]'s records).
    pub state_dir: Option<PathBuf>,
    /// `XDG_RUNTIME_DIR` as the user set it (a folder of theirs alone, where the studio keeps its
    /// lock), when it is an existing folder.
    pub runtime_dir: Option<PathBuf>,
    /// `HOME`: the home folder itself is never a folder an accept writes in.
    pub home: Option<PathBuf>,
}

/// The names of the variables, as messages quote them.
pub const BACKEND: &str = "SIMREEL_BACKEND";
pub const ADAPTER: &str = "SIMREEL_ADAPTER";
pub const FFMPEG: &str = "SIMREEL_FFMPEG";
pub const CHECKPOINT_MS: &str = "SIMREEL_CHECKPOINT_MS";

static INSTALLED: OnceLock<Environment> = OnceLock::new();

impl Environment {
    /// This process's variables (empty values count as unset).
    pub fn read() -> Environment {
        Environment::from_lookup(|k| std::env::var(k).ok())
    }

    /// The variables `lookup` gives.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Environment {
        let set = |k: &str| lookup(k).filter(|v| !v.trim().is_empty());
        Environment {
            backend: set(BACKEND),
            adapter: set(ADAPTER),
            ffmpeg: set(FFMPEG).map(PathBuf::from),
            checkpoint: set(CHECKPOINT_MS).and_then(|v| v.trim().parse::<u64>().ok()).map(Duration::from_millis),
            // XDG: a relative XDG_STATE_HOME is to be ignored
            state_dir: set("XDG_STATE_HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .or_else(|| set("HOME").map(|h| PathBuf::from(h).join(".local/state")).filter(|p| p.is_absolute()))
                .map(|p| p.join("simreel")),
            runtime_dir: set("XDG_RUNTIME_DIR").map(PathBuf::from).filter(|p| p.is_absolute() && p.is_dir()),
            home: set("HOME").map(PathBuf::from).filter(|p| p.is_absolute()),
        }
    }

    /// Makes `self` what [`Environment::current`] answers, once: later calls change nothing and
    /// say so (`false`).
    pub fn install(self) -> bool {
        INSTALLED.set(self).is_ok()
    }

    /// The installed environment, or an empty one (nothing set) where none was installed.
    pub fn current() -> &'static Environment {
        static EMPTY: Environment =
            Environment { backend: None, adapter: None, ffmpeg: None, checkpoint: None, state_dir: None, runtime_dir: None, home: None };
        INSTALLED.get().unwrap_or(&EMPTY)
    }

    /// How often a running render rewrites its manifest.
    pub fn checkpoint_every(&self) -> Duration {
        self.checkpoint.unwrap_or(Duration::from_secs(2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_trimmed_and_empty_ones_are_unset() {
        let vars = [(BACKEND, " gl "), (ADAPTER, ""), (FFMPEG, "/opt/ffmpeg"), (CHECKPOINT_MS, "20")];
        let e = Environment::from_lookup(|k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string()));
        assert_eq!(e.backend.as_deref(), Some(" gl "));
        assert_eq!(e.adapter, None);
        assert_eq!(e.ffmpeg, Some(PathBuf::from("/opt/ffmpeg")));
        assert_eq!(e.checkpoint_every(), Duration::from_millis(20));
        assert_eq!(Environment::from_lookup(|_| None).checkpoint_every(), Duration::from_secs(2));
    }
}
