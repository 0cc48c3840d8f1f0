//! The studio's Goldens view: runs the golden check over the served scenes that have a
//! `[golden]` table, lists the failing frames with the report's images, and the failing files of
//! the last `simreel compare` into the same output folder, and accepts (blesses, from the check's
//! own render; copies a compared file over the expected one) or rejects each.

use std::sync::Arc;

use serde_json::{Value, json};

use super::ctx::{Ctx, Review};
use super::http::{Refusal, param, percent_encode, refuse};
use crate::golden::report::Subject;
use crate::golden::review::{self, Failure, Last};
use crate::golden::{Paths, adapter, check};
use crate::pipeline::ProgressMode;
use crate::scene::Scene;

fn paths(ctx: &Ctx) -> Paths {
    Paths { goldens: ctx.goldens.clone(), out: ctx.out.clone(), shard: None }
}

/// The served scenes that have goldens.
fn golden_scenes(ctx: &Ctx) -> Vec<Scene> {
    let mut scenes: Vec<Scene> =
        ctx.catalog.lock().expect("catalog").scenes().into_values().filter(|s| s.golden.is_some()).map(|s| (*s).clone()).collect();
    scenes.sort_by(|a, b| a.name.cmp(&b.name));
    scenes
}

fn url(report: &str, rel: &str) -> String {
    format!("/files/out/{report}/{}", percent_encode(rel))
}

/// The failures of the last golden check and of the last comparison, each with its report
/// folder's name; the adapter; and what could not be read (said, not taken as no failures).
fn all_failures(ctx: &Ctx) -> (Vec<(Failure, &'static str)>, Option<String>, Vec<String>) {
    let (mut list, mut adapter, mut unreadable) = (Vec::new(), None, Vec::new());
    for which in [Last::Check, Last::Compare] {
        let dir = review::report_dir(&paths(ctx), which);
        let name = which.folder();
        match failures_once(&dir) {
            Ok((mut found, what)) => {
                if which == Last::Check {
                    adapter = Some(what);
                }
                // the commands the page shows are made here, from the scenes it serves
                review::with_commands(&mut found, &golden_scenes(ctx), &paths(ctx));
                list.extend(found.into_iter().map(|f| (f, name)));
            }
            // no run yet is no failure
            Err(simreel_compare::Error::NoLastRun(_)) => {}
            Err(e) => unreadable.push(e.to_string()),
        }
    }
    (list, adapter, unreadable)
}

/// [`review::failures_of`] read again only when the summary's file changed (its size, time or
/// inode): the page polls the Goldens view, and a summary is read and parsed once, not on every
/// poll.
fn failures_once(dir: &std::path::Path) -> Result<(Vec<Failure>, String), simreel_compare::Error> {
    type Stamp = (u64, Option<std::time::SystemTime>, u64);
    type Seen = std::collections::HashMap<std::path::PathBuf, (Stamp, (Vec<Failure>, String))>;
    static SEEN: std::sync::Mutex<Option<Seen>> = std::sync::Mutex::new(None);
    let stamp = std::fs::metadata(dir.join("summary.json")).ok().map(|m| {
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&m);
        #[cfg(not(unix))]
        let inode = 0;
        (m.len(), m.modified().ok(), inode)
    });
    if let Some(stamp) = stamp
        && let Some((_, kept)) = SEEN.lock().expect("seen").as_ref().and_then(|s| s.get(dir)).filter(|(s, _)| *s == stamp)
    {
        return Ok(kept.clone());
    }
    let read = review::failures_of(dir)?;
    if let Some(stamp) = stamp {
        SEEN.lock().expect("seen").get_or_insert_with(Default::default).insert(dir.to_path_buf(), (stamp, read.clone()));
    }
    Ok(read)
}

/// The query that names a failure to the API: `scene=…&frame=…`, or `path=…` for a file.
fn query(s: &Subject) -> String {
    match s {
        Subject::Frame { scene, frame } => format!("scene={}&frame={frame}", percent_encode(scene)),
        Subject::File { path } => format!("path={}", percent_encode(path)),
    }
}

/// What accepting `f` writes or removes, in words, for the page: the report names the files, and
/// the person accepting sees them before deciding.
fn effect(ctx: &Ctx, f: &Failure) -> String {
    match (&f.subject, &f.files) {
        (Subject::Frame { scene, frame }, _) => {
            format!(
                "Accepting writes the golden image of {scene}:{frame} (and its state digest) under {}",
                ctx.goldens.join(scene).display()
            )
        }
        (Subject::File { .. }, Some((expected, Some(actual)))) => format!("Accepting copies {actual} over {expected}"),
        (Subject::File { .. }, Some((expected, None))) => format!("Accepting removes {expected}"),
        (Subject::File { path }, None) => format!("{path}: the report does not say which files it compared; accepting is refused"),
    }
}

/// `GET /api/golden`: the last check's and comparison's failures and what was decided about each.
pub fn state(ctx: &Ctx) -> Value {
    let (list, adapter, unreadable) = all_failures(ctx);
    let r = ctx.review.lock().expect("review");
    let failures: Vec<Value> = list
        .iter()
        .map(|(f, report)| {
            let decided = if r.accepted.iter().any(|(s, _)| *s == f.subject) {
                Some("accepted")
            } else if r.rejected.contains(&f.subject) {
                Some("rejected")
            } else {
                None
            };
            let images = f.images.as_ref().map(|stem| {
                let has = |which: &str| ctx.out.join(report).join(format!("{stem}__{which}.png")).is_file();
                let at = |which: &str| has(which).then(|| url(report, &format!("{stem}__{which}.png")));
                json!({ "expected": at("expected"), "actual": at("actual"), "diff": at("diff") })
            });
            let mut v = json!({ "label": f.subject.label(), "query": query(&f.subject), "verdict": f.verdict, "state": f.state, "regions": f.regions, "bless": f.accept.command(), "images": images, "decided": decided, "effect": effect(ctx, f) });
            match &f.subject {
                Subject::Frame { scene, frame } => (v["scene"], v["frame"]) = (json!(scene), json!(frame)),
                Subject::File { path } => v["path"] = json!(path),
            }
            v
        })
        .collect();
    // the check's report, else the comparison's
    let report = [Last::Check, Last::Compare]
        .into_iter()
        .map(Last::folder)
        .find(|folder| ctx.out.join(folder).join("report.html").is_file())
        .map(|folder| url(folder, "report.html"));
    let error = if unreadable.is_empty() { r.error.clone() } else { Some(unreadable.join("; ")) };
    json!({
        "running": r.running,
        "error": error,
        "adapter": adapter,
        "notes": r.notes,
        "scenes": golden_scenes(ctx).iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
        "report": report,
        "failures": failures,
        "accepted": r.accepted.iter().map(|(s, files)| json!({ "label": s.label(), "files": files })).collect::<Vec<_>>(),
    })
}

/// `POST /api/golden/check`: checks the served scenes with goldens, in the background.
pub fn start_check(ctx: &Arc<Ctx>) -> Result<Value, Refusal> {
    let scenes = golden_scenes(ctx);
    if scenes.is_empty() {
        return Err(refuse(409, "none of the served scenes has a [golden] table"));
    }
    {
        let mut r = ctx.review.lock().expect("review");
        if r.running {
            return Err(refuse(409, "a check is running"));
        }
        *r = Review { running: true, ..Review::default() };
    }
    ctx.hub.send(json!({ "type": "golden", "state": "running" }));
    let count = scenes.len();
    let ctx = ctx.clone();
    std::thread::spawn(move || {
        let (paths, mut notes) = (paths(&ctx), Vec::new());
        let result = adapter::plan(&scenes, &paths.goldens, &ctx.adapter).and_then(|plan| {
            notes = plan.warnings.iter().chain(&plan.lines()).cloned().collect();
            check(&scenes, &paths, &plan, ProgressMode::Quiet, None)
        });
        let mut r = ctx.review.lock().expect("review");
        r.running = false;
        r.notes = notes;
        let message = match result {
            Ok(s) => format!(
                "{} of {} frames failed{}",
                s.failures(),
                s.entries.len(),
                s.other_adapter.map(|o| format!(" on another adapter: {o}")).unwrap_or_default()
            ),
            Err(e) => {
                r.error = Some(e.to_string());
                e.to_string()
            }
        };
        drop(r);
        ctx.hub.send(json!({ "type": "golden", "state": "done", "message": message }));
    });
    Ok(json!({ "started": count }))
}

/// The failure `scene=` and `frame=` (or `path=`, a compared file) name in the last check (or
/// comparison).
fn failure(ctx: &Ctx, q: &[(String, String)]) -> Result<Failure, Refusal> {
    let subject = match param(q, "path") {
        Some(path) => Subject::File { path: path.to_string() },
        None => {
            let scene = param(q, "scene").ok_or_else(|| refuse(400, "which scene? (scene=), or which file? (path=)"))?;
            let frame: u32 = param(q, "frame").and_then(|f| f.parse().ok()).ok_or_else(|| refuse(400, "which frame? (frame=)"))?;
            Subject::frame(scene, frame)
        }
    };
    let (list, _, unreadable) = all_failures(ctx);
    if let Some(e) = unreadable.first() {
        return Err(refuse(409, e.clone()));
    }
    list.into_iter()
        .map(|(f, _)| f)
        .find(|f| f.subject == subject)
        .ok_or_else(|| refuse(404, format!("{} did not fail in the last check or comparison", subject.label())))
}

/// `POST /api/golden/accept`: the frame the check rendered becomes the golden; a compared file
/// is copied over the expected one.
pub fn accept(ctx: &Ctx, q: &[(String, String)]) -> Result<Value, Refusal> {
    let f = failure(ctx, q)?;
    // held for the whole accept: a check cannot start under it, nor a second accept (a double
    // click) write the same files at the same time
    let mut r = ctx.review.lock().expect("review");
    if r.running {
        return Err(refuse(409, "a check is running"));
    }
    let done = review::accept(&mut || Ok(golden_scenes(ctx)), &f, &paths(ctx), &ctx.folders).map_err(|e| match e {
        crate::golden::GoldenError::Untrusted(_) => refuse(403, e.to_string()),
        e => refuse(500, e.to_string()),
    })?;
    let mut files: Vec<String> = done.written.iter().map(|p| p.display().to_string()).collect();
    files.extend(done.removed.iter().map(|p| format!("removed {}", p.display())));
    r.rejected.retain(|s| *s != f.subject);
    r.accepted.push((f.subject.clone(), files.clone()));
    drop(r);
    ctx.hub.send(json!({ "type": "golden", "state": "accepted", "label": f.subject.label() }));
    Ok(json!({ "label": f.subject.label(), "written": files }))
}

/// `POST /api/golden/reject`: the golden stays; the page moves on.
pub fn reject(ctx: &Ctx, q: &[(String, String)]) -> Result<Value, Refusal> {
    let f = failure(ctx, q)?;
    let mut r = ctx.review.lock().expect("review");
    if !r.rejected.contains(&f.subject) && !r.accepted.iter().any(|(s, _)| *s == f.subject) {
        r.rejected.push(f.subject.clone());
    }
    Ok(json!({ "label": f.subject.label() }))
}
