//! What this user's golden renders wrote, kept where only this user writes: a golden check (and
//! a bless's first render) records the SHA-256 of each frame file it wrote into the run folder,
//! in `<state dir>/golden-runs/<hash of the folder>.json` ([`crate::environment::Environment`]'s
//! `state_dir`, 0700). Accepting a frame from the last run (`--from-last-run`, `golden review`,
//! the studio's Goldens view) takes a frame only while its file is the one recorded there: the
//! run folder, its manifest and its report are in the output folder, which someone else may be
//! able to write, so none of them can say which pixels were rendered.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::frame::Fnv;
use crate::output::manifest::FrameEntry;

/// The record of a run folder: where it is, and each frame's file hash.
#[derive(serde::Serialize, serde::Deserialize)]
struct Record {
    folder: PathBuf,
    frames: BTreeMap<u32, String>,
}

/// The record's file for the run folder `dir` (as the system resolves it), when there is a state
/// folder.
fn file_of(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let state = crate::environment::Environment::current().state_dir.clone()?;
    let real = std::fs::canonicalize(dir).ok()?;
    let name = format!("{:016x}.json", Fnv::hash(real.as_os_str().as_encoded_bytes()));
    Some((state.join("golden-runs").join(name), real))
}

/// Records what a render wrote into the run folder `dir`: its frames' file hashes. Without a
/// state folder nothing is kept (an accept from that run is then refused, and says why).
pub fn record(dir: &Path, frames: &[FrameEntry]) {
    let Some((file, folder)) = file_of(dir) else { return };
    let frames = frames.iter().filter(|e| !e.sha256.is_empty()).map(|e| (e.index, e.sha256.clone())).collect();
    let Ok(json) = serde_json::to_vec(&Record { folder, frames }) else { return };
    let Some(records) = file.parent() else { return };
    // the folders are this user's alone
    if crate::output::folder(records).is_ok() {
        #[cfg(unix)]
        for d in [records, records.parent().unwrap_or(records)] {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700));
        }
        let _ = crate::output::write_atomic(&file, &json);
    }
}

/// The hash this user's render recorded for `frame` of the run folder `dir`, or why there is none.
pub fn recorded(dir: &Path, frame: u32) -> Result<String, String> {
    let Some((file, folder)) = file_of(dir) else {
        return Err("no state folder to keep what your checks rendered (set HOME or XDG_STATE_HOME)".into());
    };
    let none = || format!("no record in {} that your own check rendered it (check again here)", file.display());
    let bytes = simreel_compare::fs::read_trusted(&file).map_err(|_| none())?;
    let r: Record = serde_json::from_slice(&bytes).map_err(|_| none())?;
    if r.folder != folder {
        return Err(none());
    }
    r.frames.get(&frame).cloned().ok_or_else(none)
}
