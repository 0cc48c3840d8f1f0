//! The studio's Goldens view: runs the golden check over the served scenes that have a
//! `[golden]` table, lists the failing frames with the report's images, and accepts (blesses,
//! from the check's own render) or rejects each.

use std::sync::Arc;

use serde_json::{Value, json};

use super::ctx::{Ctx, Review};
use super::http::{Refusal, param, percent_encode, refuse};
use crate::golden::review::{self, Failure};
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

fn url(rel: &str) -> String {
    format!("/files/out/golden-report/{}", percent_encode(rel))
}

/// `GET /api/golden`: the last check's failures and what was decided about each.
pub fn state(ctx: &Ctx) -> Value {
    let r = ctx.review.lock().expect("review");
    // no check yet is no failure; a summary that cannot be read is said, not taken as none
    let (read, unreadable) = match review::failures(&paths(ctx)) {
        Ok(read) => (read, None),
        Err(crate::golden::GoldenError::NoLastRun(_)) => Default::default(),
        Err(e) => (Default::default(), Some(e.to_string())),
    };
    let (list, adapter) = read;
    let failures: Vec<Value> = list
        .iter()
        .map(|f| {
            let decided = if r.accepted.iter().any(|(s, n, _)| *s == f.scene && *n == f.frame) {
                Some("accepted")
            } else if r.rejected.iter().any(|(s, n)| *s == f.scene && *n == f.frame) {
                Some("rejected")
            } else {
                None
            };
            let images = f.images.as_ref().map(|stem| {
                json!({
                    "expected": url(&format!("{stem}__expected.png")),
                    "actual": url(&format!("{stem}__actual.png")),
                    "diff": url(&format!("{stem}__diff.png")),
                })
            });
            json!({ "scene": f.scene, "frame": f.frame, "verdict": f.verdict, "state": f.state, "regions": f.regions, "bless": f.accept.command(), "images": images, "decided": decided })
        })
        .collect();
    let report = ctx.out.join("golden-report/report.html").is_file().then(|| url("report.html"));
    json!({
        "running": r.running,
        "error": unreadable.or_else(|| r.error.clone()),
        "adapter": adapter,
        "notes": r.notes,
        "scenes": golden_scenes(ctx).iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
        "report": report,
        "failures": failures,
        "accepted": r.accepted.iter().map(|(s, f, files)| json!({ "scene": s, "frame": f, "files": files })).collect::<Vec<_>>(),
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

/// The failure `scene=`, `frame=` names in the last check.
fn failure(ctx: &Ctx, q: &[(String, String)]) -> Result<Failure, Refusal> {
    let scene = param(q, "scene").ok_or_else(|| refuse(400, "which scene? (scene=)"))?;
    let frame: u32 = param(q, "frame").and_then(|f| f.parse().ok()).ok_or_else(|| refuse(400, "which frame? (frame=)"))?;
    let (list, _) = review::failures(&paths(ctx)).map_err(|e| refuse(409, e.to_string()))?;
    list.into_iter()
        .find(|f| f.scene == scene && f.frame == frame)
        .ok_or_else(|| refuse(404, format!("{scene}:{frame} did not fail in the last check")))
}

/// `POST /api/golden/accept`: the frame the check rendered becomes the golden.
pub fn accept(ctx: &Ctx, q: &[(String, String)]) -> Result<Value, Refusal> {
    let f = failure(ctx, q)?;
    if ctx.review.lock().expect("review").running {
        return Err(refuse(409, "a check is running"));
    }
    let blessed = review::accept(&golden_scenes(ctx), &f, &paths(ctx)).map_err(|e| refuse(500, e.to_string()))?;
    let files: Vec<String> = blessed.written.iter().map(|p| p.display().to_string()).collect();
    let mut r = ctx.review.lock().expect("review");
    r.rejected.retain(|(s, n)| !(*s == f.scene && *n == f.frame));
    r.accepted.push((f.scene.clone(), f.frame, files.clone()));
    drop(r);
    ctx.hub.send(json!({ "type": "golden", "state": "accepted", "scene": f.scene, "frame": f.frame }));
    Ok(json!({ "scene": f.scene, "frame": f.frame, "written": files }))
}

/// `POST /api/golden/reject`: the golden stays; the page moves on.
pub fn reject(ctx: &Ctx, q: &[(String, String)]) -> Result<Value, Refusal> {
    let f = failure(ctx, q)?;
    let mut r = ctx.review.lock().expect("review");
    if !r.rejected.iter().any(|(s, n)| *s == f.scene && *n == f.frame) && !r.accepted.iter().any(|(s, n, _)| *s == f.scene && *n == f.frame)
    {
        r.rejected.push((f.scene.clone(), f.frame));
    }
    Ok(json!({ "scene": f.scene, "frame": f.frame }))
}
