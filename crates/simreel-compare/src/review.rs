//! Reviewing the last comparison's (or golden check's) failures one by one, as `cargo insta
//! review` does: accept (a compared file is copied over the expected one; a pending image of a
//! test moves over its approved image; a check's frame is blessed by the program that rendered
//! it, [`Frames`]; each file written atomically), reject (the golden stays), skip.
//! `simreel-compare review` and `simreel golden review` walk them in a terminal; simreel's
//! studio does the same in the page.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use crate::Error;
use crate::regions::Region;
use crate::report::{Accept, Subject};
use crate::trust::Folders;

/// The report folder of a golden check under its output folder.
pub const CHECK_REPORT: &str = "golden-report";

/// How a check's frame is accepted: by the program that rendered it, from its own render.
pub trait Frames {
    /// Blesses `frame` of `scene`, whose render must still have the pixels with this SHA-256.
    fn bless(&mut self, scene: &str, frame: u32, sha256: &str) -> Result<Accepted, Error>;

    /// The command that accepts `frame` of `scene`, made from what is here (the scene's file,
    /// the folders given), never from the report.
    fn command(&mut self, scene: &str, frame: u32) -> Accept {
        let _ = (scene, frame);
        Accept::NotHere(FRAME_ELSEWHERE.to_string())
    }
}

/// What a report's frame says where nothing here can rebuild its command.
pub const FRAME_ELSEWHERE: &str = "a check's frame: accept it with `simreel golden review`, which renders it";

/// Gives each frame of `list` the command that accepts it, made by `frames` from what is here.
pub fn with_commands(list: &mut [Failure], frames: &mut dyn Frames) {
    for f in list.iter_mut() {
        if let (Subject::Frame { scene, frame }, Accept::NotHere(why)) = (&f.subject, &f.accept)
            && why == FRAME_ELSEWHERE
        {
            f.accept = frames.command(scene, *frame);
        }
    }
}

/// A review of files only: a check's frame cannot be accepted here.
pub struct NoFrames;

impl Frames for NoFrames {
    fn bless(&mut self, scene: &str, frame: u32, _: &str) -> Result<Accepted, Error> {
        Err(Error::BadInput(format!("{scene}:{frame}: a check's frame is accepted with `simreel golden review`, which renders it")))
    }
}

/// A frame the last check failed (or a file `simreel compare` failed), as its `summary.json` says.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Failure {
    pub subject: Subject,
    /// For a compared file: the expected file, and the actual one (none when only the expected
    /// side has it: accepting removes the expected file).
    pub files: Option<(String, Option<String>)>,
    /// A pending image of a test (`assert_image!`): accepting moves it over the approved one,
    /// rejecting removes it.
    pub pending: bool,
    /// What the comparison saw of each side: an accept copies (or removes) only that.
    pub sha256: crate::report::Hashes,
    /// For a compared file: the folders (or files) the comparison was given, absolute; an accept
    /// writes and reads only under them.
    pub compared: Option<(PathBuf, PathBuf)>,
    pub verdict: String,
    pub state: String,
    pub regions: Vec<Region>,
    /// How it is accepted.
    pub accept: Accept,
    /// The report's images of it, `<stem>__{expected,actual,diff,panel}.png` in the report folder
    /// (none when there was no golden to compare with).
    pub images: Option<String>,
}

/// Which last run a review walks: a golden check's report, or `simreel compare`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Last {
    Check,
    Compare,
}

impl Last {
    /// Its report folder's name under the output folder.
    pub fn folder(self) -> &'static str {
        match self {
            Last::Check => CHECK_REPORT,
            Last::Compare => crate::files::REPORT,
        }
    }
}

/// The report folder of the last run of `which` under the output folder `out`.
pub fn report_dir(out: &Path, which: Last) -> PathBuf {
    out.join(which.folder())
}

/// The output folder whose report of `which` is the last one written: `out` when it was given
/// (`explicit`), else the newest `summary.json` of `out` and of the folders one or two levels below
/// the current one (a check or comparison with `--out build/golden` reports in
/// `build/golden/golden-report/`); hidden folders and links are not searched. With the folder, what
/// to say when it is not `out`, or, when no report was found, where the search looked.
pub fn last_out(out: &Path, which: Last, explicit: bool) -> (PathBuf, Option<String>) {
    if explicit {
        return (out.to_path_buf(), None);
    }
    let summary = |dir: &Path| report_dir(dir, which).join("summary.json");
    let modified = |dir: &Path| std::fs::metadata(summary(dir)).and_then(|m| m.modified()).ok();
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = modified(out).map(|t| (t, out.to_path_buf())).into_iter().collect();
    let below = |dir: &Path| -> Vec<PathBuf> {
        let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
        let mut v: Vec<PathBuf> = rd
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) && !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .collect();
        v.sort();
        v
    };
    let here = Path::new(".");
    for one in below(here) {
        for dir in std::iter::once(one.clone()).chain(below(&one)) {
            let dir = dir.strip_prefix(here).map(Path::to_path_buf).unwrap_or(dir);
            if dir != out
                && let Some(t) = modified(&dir)
            {
                found.push((t, dir));
            }
        }
    }
    let looked = format!(
        "looked in {} and in every folder up to two levels below this one; give the --out the {} was given",
        report_dir(out, which).display(),
        if which == Last::Compare { "comparison" } else { "check" }
    );
    match found.iter().max_by(|a, b| a.0.cmp(&b.0)) {
        None => (out.to_path_buf(), Some(looked)),
        Some((_, dir)) if dir == out => (out.to_path_buf(), None),
        Some((_, dir)) => {
            let others = if found.len() > 1 { format!(", the newest of {} found", found.len()) } else { String::new() };
            (
                dir.clone(),
                Some(format!("the last report is {}{others}: reviewing it (--out chooses another)", report_dir(dir, which).display())),
            )
        }
    }
}

/// The failures the report in `dir` lists, and its adapter (for a comparison of files, what was
/// compared).
pub fn failures_of(dir: &Path) -> Result<(Vec<Failure>, String), Error> {
    let file = dir.join("summary.json");
    let summary = crate::summary::Summary::read(&file)?;
    let compared =
        summary.compared.as_ref().and_then(|c| Some((PathBuf::from(c.expected_dir.as_ref()?), PathBuf::from(c.actual_dir.as_ref()?))));
    let hidden = |s: &str| s.chars().any(crate::text::is_hidden);
    // a printed command names files from here where it can (as the comparison was given them)
    let here = std::env::current_dir().ok();
    let from_here = |p: &str| {
        let p = PathBuf::from(p);
        here.as_ref().and_then(|h| p.strip_prefix(h).ok().map(Path::to_path_buf)).unwrap_or(p)
    };
    let list = summary
        .frames
        .into_iter()
        .filter(|f| !f.passed)
        .map(|f| {
            // a name that hides characters (escapes, a newline) is never shown nor acted on
            let names = [Some(f.subject.label()), f.expected_file.clone(), f.actual_file.clone(), f.images.clone()];
            if let Some(name) = names.iter().flatten().find(|n| hidden(n)) {
                return Err(Error::Untrusted(format!(
                    "{}: the name {} holds control characters: the report is refused",
                    file.display(),
                    crate::text::shown(name)
                )));
            }
            // the command that accepts it is made here from the names checked above, never
            // printed from the file (a frame's by whoever knows its scene: `with_commands`)
            let accept = match (&f.subject, f.bless, f.cannot_accept) {
                (_, _, Some(why)) => Accept::NotHere(crate::text::shown(&why).into_owned()),
                (Subject::Frame { .. }, Some(_), None) => Accept::NotHere(FRAME_ELSEWHERE.to_string()),
                (Subject::File { .. }, Some(_), None) => match (&f.expected_file, &f.actual_file) {
                    (Some(e), a) => {
                        let sides = match (a, &f.sha256.expected) {
                            (None, _) => crate::files::Sides::ExpectedOnly,
                            (Some(_), None) => crate::files::Sides::ActualOnly,
                            (Some(_), Some(_)) => crate::files::Sides::Both,
                        };
                        let pair = crate::files::Pair {
                            path: f.subject.label(),
                            expected: from_here(e),
                            actual: from_here(a.as_deref().unwrap_or_default()),
                            sides,
                        };
                        crate::files::accept_command(&pair)
                    }
                    (None, _) => Accept::NotHere("the report does not say which files it compared".into()),
                },
                (_, None, None) => {
                    let what = format!("{}: failed {} has neither `bless` nor `cannot_accept`", file.display(), f.subject.label());
                    return Err(Error::BadInput(what));
                }
            };
            // the pictures' stem in the report folder: one plain name
            let images = f.images.filter(|s| !s.is_empty() && !s.contains(['/', '\\']) && !s.starts_with('.'));
            let files = match (&f.subject, f.expected_file) {
                (Subject::File { .. }, Some(expected)) => Some((expected, f.actual_file)),
                (Subject::File { path }, None) => {
                    return Err(Error::BadInput(format!("{}: compared file {path} has no `expected_file`", file.display())));
                }
                (Subject::Frame { .. }, _) => None,
            };
            Ok(Failure {
                accept,
                subject: f.subject,
                files,
                pending: false,
                sha256: f.sha256,
                compared: compared.clone(),
                verdict: crate::text::shown(&f.verdict).into_owned(),
                state: crate::text::shown(&f.state).into_owned(),
                regions: f.regions,
                images,
            })
        })
        .collect::<Result<_, Error>>()?;
    let what = match summary.compared {
        Some(c) => format!("{} against {}", c.actual, c.expected),
        None => summary.adapter,
    };
    let what = crate::text::shown(&what).into_owned();
    Ok((list, what))
}

/// The image of a failure the report folder `dir` holds: `expected`, `actual`, `diff` or
/// `panel` (the three side by side).
pub fn image(dir: &Path, f: &Failure, which: &str) -> Option<PathBuf> {
    let p = dir.join(format!("{}__{which}.png", f.images.as_ref()?));
    p.is_file().then_some(p)
}

/// What accepting a failure wrote (or removed): defined where files are accepted.
pub use crate::files::Accepted;

/// Accepts one failure. A frame: the image the last check rendered, and its state digest,
/// become the golden (written atomically, only what changed), when the render still has the
/// pixels the report recorded, blessed by `frames` (a comparison of files needs none). A
/// compared file: the actual file is copied over the expected one (atomically, folders
/// made), or, when only the expected side has it, the expected file is removed.
///
/// The report is read back, so what it names is checked first ([`crate::trust`]): files only
/// under the folders the comparison was given and under `folders` (the reviewer's own), pictures
/// only, no symbolic link on the way, and only the content the comparison recorded.
pub fn accept(frames: &mut dyn Frames, f: &Failure, folders: &Folders) -> Result<Accepted, Error> {
    match (&f.subject, &f.files) {
        (Subject::Frame { scene, frame }, _) => {
            let sha = f.sha256.actual.as_deref().ok_or_else(|| unrecorded(&f.subject))?;
            frames.bless(scene, *frame, sha)
        }
        (Subject::File { .. }, Some((expected, actual))) => {
            let (expected, actual) = (Path::new(expected), actual.as_deref().map(Path::new));
            let (e_dir, a_dir) = f.compared.as_ref().map(|(e, a)| (e.as_path(), a.as_path())).ok_or_else(|| unrecorded(&f.subject))?;
            // pending images were found under the folder the review was given: it is the
            // folder that accept works in
            let own;
            let folders = if f.pending {
                own = Folders::new([e_dir], None);
                &own
            } else {
                folders
            };
            let outside = |p: &Path, d: &Path| {
                Error::Untrusted(format!("{} is not under {}, which the comparison was given", p.display(), d.display()))
            };
            if !crate::trust::lies_under(expected, e_dir) {
                return Err(outside(expected, e_dir));
            }
            folders.check(expected, "the expected file")?;
            let copy = match actual {
                Some(a) if !crate::trust::lies_under(a, a_dir) => return Err(outside(a, a_dir)),
                Some(a) => Some((folders.check(a, "the actual file")?, f.sha256.actual.as_deref().ok_or_else(|| unrecorded(&f.subject))?)),
                None => None,
            };
            let done = crate::files::accept(expected, copy, f.sha256.expected.as_deref())?;
            if let (true, Some(a)) = (f.pending, actual) {
                crate::fs::remove_stale(a).map_err(|e| Error::BadInput(format!("cannot remove {}: {e}", a.display())))?;
            }
            Ok(done)
        }
        (Subject::File { path }, None) => Err(Error::BadInput(format!("{path}: the report does not say which files it compared"))),
    }
}

/// A report that does not record what its comparison saw (one of an earlier simreel) is not
/// accepted from.
fn unrecorded(s: &Subject) -> Error {
    Error::Untrusted(format!(
        "{}: the report does not record what was compared (its folders and content hashes); compare or check again",
        s.label()
    ))
}

/// What a review did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub accepted: Vec<Subject>,
    pub rejected: usize,
    pub skipped: usize,
    /// Accepts refused because the report named something an accept may not touch.
    pub refused: usize,
}

/// Walks `failures` with a person at a terminal: each shown, then a letter and Enter: `a`
/// accept, `r` reject, `s` skip, `o` open the side-by-side image, `A` accept this and all the
/// rest, `R` reject this and all the rest, `q` stop. The end of input stops, as `q`.
pub fn interactive(
    frames: &mut dyn Frames,
    list: &[Failure],
    folders: &Folders,
    dir: &Path,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<Tally, Error> {
    let mut tally = Tally::default();
    let mut all: Option<bool> = None;
    let n = list.len();
    'frames: for (i, f) in list.iter().enumerate() {
        let _ = writeln!(out, "\n[{}/{n}] {} — {}", i + 1, f.subject.label(), f.verdict);
        for r in f.regions.iter().take(3) {
            let _ = writeln!(out, "    changed region {}×{} at ({}, {}), {} pixels", r.width, r.height, r.x, r.y, r.pixels);
        }
        if !f.state.is_empty() {
            let _ = writeln!(out, "    {}", f.state);
        }
        if let Some(p) = image(dir, f, "panel") {
            let _ = writeln!(out, "    golden | difference | now: {}", p.display());
        }
        loop {
            let choice = match all {
                Some(true) => 'a',
                Some(false) => 'r',
                None => {
                    let _ = write!(out, "accept a, reject r, skip s, open o, accept the rest A, reject the rest R, quit q: ");
                    let _ = out.flush();
                    let mut line = String::new();
                    if input.read_line(&mut line).unwrap_or(0) == 0 {
                        break 'frames;
                    }
                    line.trim().chars().next().unwrap_or('?')
                }
            };
            match choice {
                'a' | 'A' => {
                    all = all.or((choice == 'A').then_some(true));
                    let b = match accept(frames, f, folders) {
                        Ok(b) => b,
                        // a report that names what it may not is said, and the review goes on
                        Err(e @ Error::Untrusted(_)) => {
                            let _ = writeln!(out, "    {e}");
                            tally.refused += 1;
                            break;
                        }
                        Err(e) => return Err(e),
                    };
                    let mut what: Vec<String> = b.written.iter().map(|p| p.display().to_string()).collect();
                    what.extend(b.removed.iter().map(|p| format!("removed {}", p.display())));
                    let what = if what.is_empty() { "nothing changed".to_string() } else { what.join(", ") };
                    let _ = writeln!(out, "    accepted: {what}");
                    tally.accepted.push(f.subject.clone());
                }
                'r' | 'R' => {
                    all = all.or((choice == 'R').then_some(false));
                    if let (true, Some((_, Some(a)))) = (f.pending, &f.files) {
                        let _ = crate::fs::remove_stale(Path::new(a));
                    }
                    let _ = writeln!(out, "    rejected: the golden stays");
                    tally.rejected += 1;
                }
                's' => tally.skipped += 1,
                'o' => {
                    let pending = f.files.as_ref().and_then(|(_, a)| a.clone()).filter(|_| f.pending).map(PathBuf::from);
                    match image(dir, f, "panel").or_else(|| image(dir, f, "actual")).or(pending) {
                        Some(p) => open(&p, out),
                        None => {
                            let _ = writeln!(out, "    no image to open (there was no golden to compare with)");
                        }
                    }
                    continue;
                }
                'q' => break 'frames,
                _ => {
                    let _ = writeln!(out, "    one of a, r, s, o, A, R, q");
                    continue;
                }
            }
            break;
        }
    }
    tally.skipped += list.len() - tally.accepted.len() - tally.rejected - tally.skipped - tally.refused;
    Ok(tally)
}

/// A review: the last comparison's or check's failures (under the output folder `out`) walked
/// at the terminal, or, without one (in CI, piped), the commands that accept them. An accept
/// works in `folders` ([`Folders::of_review`]).
pub fn run(frames: &mut dyn Frames, out: &Path, folders: &Folders, which: Last, accept_all: bool) -> Result<(), Error> {
    let (mut list, what) = failures_of(&report_dir(out, which))?;
    with_commands(&mut list, frames);
    if list.is_empty() {
        let last = if which == Last::Compare { "comparison" } else { "check" };
        println!("nothing to review: the last {last} in {} ({what}) passed", report_dir(out, which).display());
        return Ok(());
    }
    walk(frames, &list, folders, &report_dir(out, which), accept_all)
}

/// `list` walked at the terminal, or, without one (in CI, piped), the commands that accept each;
/// with `accept_all`, every one accepted without asking (as `cargo insta accept`).
fn walk(frames: &mut dyn Frames, list: &[Failure], folders: &Folders, dir: &Path, accept_all: bool) -> Result<(), Error> {
    use std::io::IsTerminal;
    let tally = if accept_all {
        interactive(frames, list, folders, dir, &mut "A\n".as_bytes(), &mut std::io::stdout())?
    } else if std::io::stdin().is_terminal() {
        let stdin = std::io::stdin();
        interactive(frames, list, folders, dir, &mut stdin.lock(), &mut std::io::stdout())?
    } else {
        print!("{}", commands(list));
        return Ok(());
    };
    let refused = if tally.refused > 0 { format!(", refused {}", tally.refused) } else { String::new() };
    println!("\naccepted {}, rejected {}, skipped {}{refused}", tally.accepted.len(), tally.rejected, tally.skipped);
    if tally.refused > 0 {
        return Err(Error::Untrusted(format!(
            "{} the report named what an accept may not touch (above); nothing of {} was written",
            crate::text::count(tally.refused as u64, "accept:", "accepts:"),
            if tally.refused == 1 { "it" } else { "them" }
        )));
    }
    Ok(())
}

/// The pending images of tests under `dir` (`assert_image!`'s `<name>.new.png`), each compared
/// with its approved image under `tol`.
pub fn pending_failures(dir: &Path, tol: &crate::Tolerance) -> Result<Vec<Failure>, Error> {
    let sh = crate::text::sh_path;
    let dir = std::path::absolute(dir).map_err(|e| Error::BadInput(format!("{}: {e}", dir.display())))?;
    crate::assert::pending(&dir)
        .into_iter()
        .map(|(approved, new)| {
            let (old, now) = (crate::fs::read_plain(&approved), crate::fs::read_plain(&new));
            let sha256 = crate::report::Hashes {
                expected: old.as_deref().ok().map(crate::hash::sha256),
                actual: now.as_deref().ok().map(crate::hash::sha256),
            };
            let verdict = match (old, now) {
                (_, Err(e)) => return Err(Error::BadInput(format!("cannot read {}: {e}", new.display()))),
                (Err(_), Ok(_)) => "no approved image yet".to_string(),
                (Ok(a), Ok(n)) => match (crate::image::decode(&a), crate::image::decode(&n)) {
                    (Ok(a), Ok(n)) if (a.width, a.height) != (n.width, n.height) => {
                        format!("size mismatch: approved {}×{}, pending {}×{}", a.width, a.height, n.width, n.height)
                    }
                    (Ok(a), Ok(n)) => crate::compare::compare(&a, &n, tol).describe(),
                    (Err(e), _) => format!("the approved image cannot be read: {e}"),
                    (_, Err(e)) => return Err(Error::BadInput(format!("{}: {e}", new.display()))),
                },
            };
            let path = approved.strip_prefix(&dir).unwrap_or(&approved).display().to_string();
            Ok(Failure {
                accept: Accept::Command(format!("mv -- {} {}", sh(&new), sh(&approved))),
                subject: Subject::File { path },
                files: Some((approved.display().to_string(), Some(new.display().to_string()))),
                pending: true,
                sha256,
                // found under the folder the review was given: the folder an accept works in
                compared: Some((dir.clone(), dir.clone())),
                verdict,
                state: String::new(),
                regions: Vec::new(),
                images: None,
            })
        })
        .collect()
}

/// `review --pending DIR`: the pending images of tests under `dir`, walked (an accept works in
/// `dir`).
pub fn run_pending(dir: &Path, folders: &Folders, accept_all: bool) -> Result<(), Error> {
    let list = pending_failures(dir, &crate::tolerance::default_tolerance())?;
    if list.is_empty() {
        println!("nothing to review: no pending images (*.new.png) under {}", dir.display());
        return Ok(());
    }
    walk(&mut NoFrames, &list, folders, dir, accept_all)
}

/// What `simreel golden review` prints without a terminal: the command that accepts each failure.
pub fn commands(list: &[Failure]) -> String {
    let mut s =
        format!("{} failed in the last run; to accept one, run its command:\n", crate::text::count(list.len() as u64, "image", "images"));
    for f in list {
        s.push_str(&format!("{}  # {}: {}\n", f.accept.line(), f.subject.label(), f.verdict));
    }
    s
}

/// Opens `path` in the system's image viewer, and says the path: where no viewer opens (a
/// terminal over SSH, a container) it is what the reader has. A viewer command that fails
/// within 2 s is said.
fn open(path: &Path, out: &mut dyn Write) {
    let cmd = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let _ = writeln!(out, "    {}", path.display());
    let spawned = std::process::Command::new(cmd).arg(path).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(out, "    no viewer opened it ({cmd}: {e})");
            return;
        }
    };
    let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while std::time::Instant::now() < until {
        match child.try_wait() {
            Ok(Some(status)) if !status.success() => {
                let _ = writeln!(out, "    no viewer opened it ({cmd} ended with {status})");
                return;
            }
            Ok(Some(_)) | Err(_) => return,
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    }
}
