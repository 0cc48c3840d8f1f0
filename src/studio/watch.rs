//! Watching the served files: the operating system's events (inotify, FSEvents, …) or polling
//! (`--poll`, for file systems without events: network and container mounts), both through a
//! debouncer, so that an editor's save (a write, or a new file renamed over the old one, with a
//! swap file beside it) arrives as one batch of paths.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::time::Duration;

use notify::{PollWatcher, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer, new_debouncer_opt};

/// How long the debouncer waits for a save's events to settle.
pub const SETTLE: Duration = Duration::from_millis(80);
/// How often `--poll` looks at the files.
pub const POLL_EVERY: Duration = Duration::from_millis(250);

enum Inner {
    Native(Debouncer<RecommendedWatcher, RecommendedCache>),
    Poll(Debouncer<PollWatcher, RecommendedCache>),
}

/// The watcher, and the folders it watches (and whether below them).
pub struct Watcher {
    inner: Inner,
    watching: BTreeMap<PathBuf, bool>,
}

impl Watcher {
    /// Sends the paths of each settled batch of changes to `tx`.
    pub fn start(poll: bool, tx: Sender<Vec<PathBuf>>) -> Result<Watcher, String> {
        let handler = move |result: DebounceEventResult| {
            if let Ok(events) = result {
                let paths: Vec<PathBuf> = events.into_iter().flat_map(|e| e.event.paths).collect();
                if !paths.is_empty() {
                    let _ = tx.send(paths);
                }
            }
        };
        let inner = if poll {
            let config = notify::Config::default().with_poll_interval(POLL_EVERY);
            Inner::Poll(new_debouncer_opt(SETTLE, None, handler, RecommendedCache::new(), config).map_err(|e| e.to_string())?)
        } else {
            Inner::Native(new_debouncer(SETTLE, None, handler).map_err(|e| e.to_string())?)
        };
        Ok(Watcher { inner, watching: BTreeMap::new() })
    }

    /// Watches exactly these folders (with their subfolders where true); a folder that cannot be
    /// watched (it was removed) is passed over.
    pub fn set(&mut self, dirs: &[(PathBuf, bool)]) {
        let wanted: BTreeMap<PathBuf, bool> = dirs.iter().cloned().collect();
        let gone: Vec<PathBuf> = self.watching.iter().filter(|(d, r)| wanted.get(*d) != Some(r)).map(|(d, _)| d.clone()).collect();
        for d in gone {
            let _ = match &mut self.inner {
                Inner::Native(w) => w.unwatch(&d),
                Inner::Poll(w) => w.unwatch(&d),
            };
            self.watching.remove(&d);
        }
        for (d, recursive) in wanted {
            if self.watching.contains_key(&d) {
                continue;
            }
            let mode = if recursive { RecursiveMode::Recursive } else { RecursiveMode::NonRecursive };
            let ok = match &mut self.inner {
                Inner::Native(w) => w.watch(&d, mode),
                Inner::Poll(w) => w.watch(&d, mode),
            };
            if ok.is_ok() {
                self.watching.insert(d, recursive);
            }
        }
    }
}
