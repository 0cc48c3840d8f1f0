//! Folders other users can write. Writing there is safe from planted links (every write is made
//! relative to the folder's handle, exclusively, under an unguessable name), but whoever else
//! can write the folder can replace what simreel wrote after it wrote it, as ssh warns about a
//! group-writable key: so a front end says so, once per folder, through [`on_shared_folder`].

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// How other users can write a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shared {
    pub folder: PathBuf,
    /// Why, in words: "writable by everyone", "owned by user 1002", "writable by group 1001
    /// (staff), which has other members".
    pub why: String,
}

impl std::fmt::Display for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is {}: another user can replace or remove what simreel writes there after it is written; use a folder only you can write (--out), or check what you take from it",
            self.folder.display(),
            self.why
        )
    }
}

static NOTICE: OnceLock<fn(&Shared)> = OnceLock::new();

/// Has `say` told of each shared folder written in, once per folder for the whole process (the
/// command lines print a warning; a library user hears nothing unless it asks).
pub fn on_shared_folder(say: fn(&Shared)) {
    let _ = NOTICE.set(say);
}

pub(super) fn notice(s: &Shared) {
    static SAID: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let Some(say) = NOTICE.get() else { return };
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.contains(&s.folder) {
        said.push(s.folder.clone());
        drop(said);
        say(s);
    }
}

#[cfg(unix)]
pub(super) fn of(dir: &super::sys::Handle, path: &Path) -> Option<Shared> {
    let (owner, group, mode) = super::sys::owner_and_mode(dir)?;
    let me = super::sys::me();
    let sticky = mode & 0o1000 != 0;
    // a sticky folder of one's own: others may add names but not replace or remove one's files
    let guarded = sticky && owner == me;
    let why = if owner != me && owner != 0 && mode & 0o200 != 0 {
        format!("owned by another user (uid {owner}{})", user_name(owner).map(|n| format!(", {n}")).unwrap_or_default())
    } else if mode & 0o002 != 0 && !guarded {
        "writable by every user".to_string()
    } else if mode & 0o020 != 0 && !guarded && group_has_others(group, me) {
        format!("writable by group {group}{}, which has other members", group_name(group).map(|n| format!(" ({n})")).unwrap_or_default())
    } else {
        return None;
    };
    let folder = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    Some(Shared { folder, why })
}

#[cfg(not(unix))]
pub(super) fn of(_dir: &super::sys::Handle, _path: &Path) -> Option<Shared> {
    None
}

/// The lines of a colon-separated system database (`/etc/passwd`, `/etc/group`), read once.
#[cfg(unix)]
fn table(path: &'static str, cell: &'static OnceLock<Option<Vec<Vec<String>>>>) -> Option<&'static [Vec<String>]> {
    cell.get_or_init(|| {
        let text = std::fs::read_to_string(path).ok()?;
        Some(text.lines().filter(|l| !l.starts_with('#')).map(|l| l.split(':').map(str::to_string).collect()).collect())
    })
    .as_deref()
}

#[cfg(unix)]
fn users() -> Option<&'static [Vec<String>]> {
    static CELL: OnceLock<Option<Vec<Vec<String>>>> = OnceLock::new();
    table("/etc/passwd", &CELL)
}

#[cfg(unix)]
fn groups() -> Option<&'static [Vec<String>]> {
    static CELL: OnceLock<Option<Vec<Vec<String>>>> = OnceLock::new();
    table("/etc/group", &CELL)
}

#[cfg(unix)]
fn user_name(uid: u32) -> Option<String> {
    users()?.iter().find(|u| u.get(2).is_some_and(|id| id.parse() == Ok(uid))).map(|u| u[0].clone())
}

#[cfg(unix)]
fn group_name(gid: u32) -> Option<String> {
    groups()?.iter().find(|g| g.get(2).is_some_and(|id| id.parse() == Ok(gid))).map(|g| g[0].clone())
}

/// Whether a user other than `me` is in group `gid` (as its primary group or as a member). A
/// group the databases do not show (a directory service) counts as shared: better a warning
/// too many than a shared folder unsaid.
#[cfg(unix)]
fn group_has_others(gid: u32, me: u32) -> bool {
    let (Some(users), Some(groups)) = (users(), groups()) else { return true };
    let Some(group) = groups.iter().find(|g| g.get(2).is_some_and(|id| id.parse() == Ok(gid))) else { return true };
    let my_name = user_name(me);
    let members = group.get(3).map(String::as_str).unwrap_or("");
    if members.split(',').filter(|m| !m.is_empty()).any(|m| Some(m) != my_name.as_deref()) {
        return true;
    }
    users.iter().any(|u| u.get(3).is_some_and(|g| g.parse() == Ok(gid)) && u.get(2).is_some_and(|id| id.parse() != Ok(me)))
}
