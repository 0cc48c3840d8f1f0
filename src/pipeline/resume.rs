//! `--resume`: which frames an earlier run left that this run keeps as they are.

use std::collections::BTreeMap;

use super::{FrameState, Job};
use crate::output::{self, manifest::Manifest};
use crate::text::count;

/// The frames `--resume` keeps: each one's state and the SHA-256 of its file.
type Kept = BTreeMap<u32, (FrameState, String)>;

/// The frames of the job an earlier run finished as this one would (each frame's identity the
/// same, its file there, a plain file with the SHA-256 the manifest recorded when it was written),
/// with their state digests: with `--resume`, those are kept. When some of the earlier run's
/// frames are of something else, or were changed since, also why (they are rendered again).
pub(super) fn kept_frames(job: &Job, old: Option<&Manifest>, expected: &dyn Fn(u32) -> String) -> (Kept, Option<String>) {
    let Some(m) = old.filter(|_| job.resume) else { return (BTreeMap::new(), None) };
    let (mut kept, mut other, mut changed) = (BTreeMap::new(), 0, 0);
    let dir = job.folder().dir();
    let folder = output::Folder::open(&dir).ok();
    for e in m.frames.iter().filter(|e| job.frames.binary_search(&e.index).is_ok()) {
        if e.identity != expected(e.index) {
            other += 1;
            continue;
        }
        if output::layout::own_file(&dir, &e.file).is_none() {
            continue;
        }
        // the file as it was written (a manifest of an earlier version records no hash: drawn again)
        let same =
            folder.as_ref().and_then(|f| f.read(e.file.as_ref()).ok()).is_some_and(|b| output::manifest::content_hash(&b) == e.sha256);
        if same {
            kept.insert(e.index, ((e.state.clone(), e.facts.clone()), e.sha256.clone()));
        } else {
            changed += 1;
        }
    }
    let why = if m.build != crate::BUILD {
        // read back: shown escaped, as every string from a file is
        let by = if m.build.is_empty() { format!("{} (an earlier build)", m.simreel) } else { m.build.clone() };
        let by = simreel_compare::text::shown(&by.chars().take(80).collect::<String>()).into_owned();
        format!("another build of simreel ({by}, this is {})", crate::BUILD)
    } else if m.identity != job.scene.identity() {
        "another version of the scene".to_string()
    } else {
        "other settings (size, MSAA or adapter)".to_string()
    };
    let was = |n: usize| if n == 1 { "was" } else { "were" };
    let mut stale: Vec<String> = Vec::new();
    if other > 0 {
        stale.push(format!("{} there {} rendered by {why}", count(other as u64, "frame", "frames"), was(other)));
    }
    if changed > 0 {
        stale.push(format!(
            "{} there {} not the file{} the last run wrote",
            count(changed as u64, "frame", "frames"),
            was(changed),
            if changed == 1 { "" } else { "s" }
        ));
    }
    (kept, (!stale.is_empty()).then(|| stale.join("; ")))
}
