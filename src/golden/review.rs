//! Reviewing the last golden check's failures one by one, as `cargo insta review` does: accept
//! (the frame the check rendered becomes the golden, with its state digest, each file written
//! atomically), reject (the golden stays), skip. `simreel golden review` walks them in a terminal;
//! the studio's Goldens view does the same in the page.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use super::regions::Region;
use super::{Blessed, Filter, GoldenError, Paths};
use crate::pipeline::ProgressMode;
use crate::scene::Scene;

/// A frame the last check failed, as its `summary.json` says.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Failure {
    pub scene: String,
    pub frame: u32,
    pub verdict: String,
    pub state: String,
    pub regions: Vec<Region>,
    /// How it is accepted.
    pub accept: super::Accept,
    /// The report's images of it, `<stem>__{expected,actual,diff,panel}.png` in the report folder
    /// (none when there was no golden to compare with).
    pub images: Option<String>,
}

/// The last check's failures, in the report's order (worst first), and its adapter.
pub fn failures(paths: &Paths) -> Result<(Vec<Failure>, String), GoldenError> {
    let file = paths.merged_report_dir().join("summary.json");
    let summary = super::summary::Summary::read(&file)?;
    let list = summary
        .frames
        .into_iter()
        .filter(|f| !f.passed)
        .map(|f| {
            let accept = match (f.bless, f.cannot_accept) {
                (Some(c), _) => super::Accept::Command(c),
                (None, Some(why)) => super::Accept::NotHere(why),
                (None, None) => {
                    let what = format!("{}: failed frame {}:{} has neither `bless` nor `cannot_accept`", file.display(), f.scene, f.frame);
                    return Err(GoldenError::BadInput(what));
                }
            };
            Ok(Failure { accept, scene: f.scene, frame: f.frame, verdict: f.verdict, state: f.state, regions: f.regions, images: f.images })
        })
        .collect::<Result<_, GoldenError>>()?;
    Ok((list, summary.adapter))
}

/// The image of a failure the report folder holds: `expected`, `actual`, `diff` or `panel` (the
/// three side by side).
pub fn image(paths: &Paths, f: &Failure, which: &str) -> Option<PathBuf> {
    let p = paths.merged_report_dir().join(format!("{}__{which}.png", f.images.as_ref()?));
    p.is_file().then_some(p)
}

/// Accepts one failing frame: the image the last check rendered, and its state digest, become
/// the golden (written atomically, only what changed).
pub fn accept(scenes: &[Scene], f: &Failure, paths: &Paths) -> Result<Blessed, GoldenError> {
    let filter = Filter { scene: f.scene.clone(), frames: Some(f.frame.to_string()) };
    let scene = scenes
        .iter()
        .find(|s| s.name == f.scene)
        .ok_or_else(|| GoldenError::Filter(format!("no scene named {} among the scenes given", f.scene)))?;
    let mut done =
        super::bless(std::slice::from_ref(scene), Some(&filter), true, paths, &super::adapter::Plan::default(), ProgressMode::Quiet)?;
    done.pop().ok_or_else(|| GoldenError::Filter(format!("{}:{} was not blessed", f.scene, f.frame)))
}

/// What a review did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub accepted: Vec<(String, u32)>,
    pub rejected: usize,
    pub skipped: usize,
}

/// Walks `failures` with a person at a terminal: each shown, then a letter and Enter: `a`
/// accept, `r` reject, `s` skip, `o` open the side-by-side image, `A` accept this and all the
/// rest, `R` reject this and all the rest, `q` stop. The end of input stops, as `q`.
pub fn interactive(
    scenes: &[Scene],
    list: &[Failure],
    paths: &Paths,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<Tally, GoldenError> {
    let mut tally = Tally::default();
    let mut all: Option<bool> = None;
    let n = list.len();
    'frames: for (i, f) in list.iter().enumerate() {
        let _ = writeln!(out, "\n[{}/{n}] {}:{} — {}", i + 1, f.scene, f.frame, f.verdict);
        for r in f.regions.iter().take(3) {
            let _ = writeln!(out, "    changed region {}×{} at ({}, {}), {} pixels", r.width, r.height, r.x, r.y, r.pixels);
        }
        let _ = writeln!(out, "    {}", f.state);
        if let Some(p) = image(paths, f, "panel") {
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
                    let b = accept(scenes, f, paths)?;
                    let what = if b.written.is_empty() {
                        "nothing changed".to_string()
                    } else {
                        b.written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
                    };
                    let _ = writeln!(out, "    accepted: {what}");
                    tally.accepted.push((f.scene.clone(), f.frame));
                }
                'r' | 'R' => {
                    all = all.or((choice == 'R').then_some(false));
                    let _ = writeln!(out, "    rejected: the golden stays");
                    tally.rejected += 1;
                }
                's' => tally.skipped += 1,
                'o' => {
                    match image(paths, f, "panel") {
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
    tally.skipped += list.len() - tally.accepted.len() - tally.rejected - tally.skipped;
    Ok(tally)
}

/// `simreel golden review`: the last check's failures walked at the terminal, or, without one
/// (in CI, piped), the commands that accept them.
pub fn run(scenes: &[Scene], paths: &Paths) -> Result<(), GoldenError> {
    use std::io::IsTerminal;
    let (list, adapter) = failures(paths)?;
    if list.is_empty() {
        println!("nothing to review: the last check (on {adapter}) passed");
        return Ok(());
    }
    if !std::io::stdin().is_terminal() {
        print!("{}", commands(&list));
        return Ok(());
    }
    let stdin = std::io::stdin();
    let tally = interactive(scenes, &list, paths, &mut stdin.lock(), &mut std::io::stdout())?;
    println!("\naccepted {}, rejected {}, skipped {}", tally.accepted.len(), tally.rejected, tally.skipped);
    Ok(())
}

/// What `simreel golden review` prints without a terminal: the command that accepts each failure.
pub fn commands(list: &[Failure]) -> String {
    let mut s =
        format!("{} failed in the last check; to accept one, run its command:\n", crate::text::count(list.len() as u64, "frame", "frames"));
    for f in list {
        s.push_str(&format!("{}  # {}:{}: {}\n", f.accept.line(), f.scene, f.frame, f.verdict));
    }
    s
}

/// Opens `path` in the system's image viewer.
fn open(path: &Path, out: &mut dyn Write) {
    let cmd = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let spawned = std::process::Command::new(cmd).arg(path).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn();
    if let Err(e) = spawned {
        let _ = writeln!(out, "    cannot open it ({cmd}: {e}): {}", path.display());
    }
}
