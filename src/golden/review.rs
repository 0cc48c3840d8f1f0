//! `simreel golden review`: the comparator's review ([`simreel_compare::review`]) with the frames
//! of a golden check accepted by blessing them from the check's own render. The terminal walk,
//! pending images of tests and compared files are the comparator's.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use simreel_compare::review::{self as inner, Frames};
pub use simreel_compare::review::{Accepted, Failure, Last, Tally, commands, failures_of, image, last_out, pending_failures};
use simreel_compare::trust::Folders;

use super::{GoldenError, Paths};
use crate::scene::Scene;

/// A check's frames, blessed from its render: the scenes loaded on first need.
struct Scenes<'a> {
    load: &'a mut dyn FnMut() -> Result<Vec<Scene>, GoldenError>,
    paths: &'a Paths,
}

impl Frames for Scenes<'_> {
    fn bless(&mut self, scene: &str, frame: u32, sha256: &str) -> Result<Accepted, simreel_compare::Error> {
        Ok(bless_frame(&(self.load)()?, scene, frame, sha256, self.paths)?)
    }

    fn command(&mut self, scene: &str, frame: u32) -> simreel_compare::Accept {
        frame_command((self.load)().ok().as_deref().unwrap_or_default(), scene, frame, self.paths)
    }
}

/// The command that accepts `frame` of `scene`, made from the scene file here and the folders
/// given (never printed from a report).
pub fn frame_command(scenes: &[Scene], scene: &str, frame: u32, paths: &Paths) -> simreel_compare::Accept {
    match scenes.iter().find(|s| s.name == scene) {
        Some(s) => simreel_compare::Accept::Command(super::bless_command(s, Some(frame), paths)),
        None => simreel_compare::Accept::NotHere(format!(
            "{}:{frame}: no scene of that name among the scenes given here",
            simreel_compare::text::shown(scene)
        )),
    }
}

/// Gives each of a report's frames the command that accepts it, made here from `scenes`.
pub fn with_commands(list: &mut [Failure], scenes: &[Scene], paths: &Paths) {
    let mut here = Scenes { load: &mut || Ok(scenes.to_vec()), paths };
    inner::with_commands(list, &mut here);
}

/// A check's frame blessed from the check's own render, which must still have the pixels whose
/// SHA-256 the report recorded.
#[cfg(feature = "render")]
fn bless_frame(scenes: &[Scene], scene: &str, frame: u32, sha256: &str, paths: &Paths) -> Result<Accepted, GoldenError> {
    let chosen = scenes
        .iter()
        .find(|s| s.name == scene)
        .ok_or_else(|| GoldenError::Filter(format!("no scene named {scene} among the scenes given")))?;
    let b = super::bless::bless_reviewed(chosen, frame, sha256, paths)?;
    Ok(Accepted { written: b.written, removed: Vec::new() })
}

/// Without the renderer a check's frames cannot be blessed (nor checked).
#[cfg(not(feature = "render"))]
fn bless_frame(_: &[Scene], scene: &str, frame: u32, _: &str, _: &Paths) -> Result<Accepted, GoldenError> {
    Err(GoldenError::BadInput(format!(
        "{scene}:{frame}: accepting a check's frame needs simreel built with its renderer (the `render` feature)"
    )))
}

/// The report folder of the last run of `which` under `paths`.
pub fn report_dir(paths: &Paths, which: Last) -> PathBuf {
    inner::report_dir(&paths.out, which)
}

/// The last check's failures, in the report's order (worst first), and its adapter.
pub fn failures(paths: &Paths) -> Result<(Vec<Failure>, String), GoldenError> {
    Ok(failures_of(&paths.merged_report_dir())?)
}

/// The folders a review run here works in: the current folder, `--out` and `--goldens`.
pub fn folders(paths: &Paths) -> Folders {
    Folders::of_review(&paths.out, &paths.goldens, crate::environment::Environment::current().home.as_deref())
}

/// Accepts one failure ([`simreel_compare::review::accept`]); a frame is blessed from the
/// check's render, `scenes` loaded on first need.
pub fn accept(
    scenes: &mut dyn FnMut() -> Result<Vec<Scene>, GoldenError>,
    f: &Failure,
    paths: &Paths,
    folders: &Folders,
) -> Result<Accepted, GoldenError> {
    Ok(inner::accept(&mut Scenes { load: scenes, paths }, f, folders)?)
}

/// Walks `list` with a person at a terminal ([`simreel_compare::review::interactive`]).
pub fn interactive(
    scenes: &mut dyn FnMut() -> Result<Vec<Scene>, GoldenError>,
    list: &[Failure],
    paths: &Paths,
    dir: &Path,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<Tally, GoldenError> {
    Ok(inner::interactive(&mut Scenes { load: scenes, paths }, list, &folders(paths), dir, input, out)?)
}

/// `simreel golden review`: the last check's (or comparison's) failures walked at the terminal,
/// or, without one (in CI, piped), the commands that accept them.
pub fn run(
    scenes: &mut dyn FnMut() -> Result<Vec<Scene>, GoldenError>,
    paths: &Paths,
    which: Last,
    accept_all: bool,
) -> Result<(), GoldenError> {
    Ok(inner::run(&mut Scenes { load: scenes, paths }, &paths.out, &folders(paths), which, accept_all)?)
}

/// `simreel golden review --pending DIR`: the pending images of tests under `dir`, walked.
pub fn run_pending(dir: &Path, paths: &Paths, accept_all: bool) -> Result<(), GoldenError> {
    Ok(inner::run_pending(dir, &folders(paths), accept_all)?)
}
