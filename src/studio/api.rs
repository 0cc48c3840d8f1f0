//! The studio's API: what the page asks for, as JSON and PNG.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::ctx::Ctx;
use super::http::{Refusal, param, percent_encode, refuse};
use crate::output::layout::SceneFolder;
use crate::scene::{Format, Scene};

/// The stamp of a scene's frames: the page draws again when it changes.
fn stamp(s: &Scene) -> String {
    s.identity().to_string()
}

/// The served scenes: each with what the page shows of it, and its problems.
pub fn scenes(ctx: &Ctx) -> Value {
    let catalog = ctx.catalog.lock().expect("catalog");
    // by folder, then by file: a folder's scenes together
    let mut entries: Vec<&super::catalog::Entry> = catalog.entries.values().collect();
    entries.sort_by(|a, b| (a.path.parent(), a.path.file_name()).cmp(&(b.path.parent(), b.path.file_name())));
    let list: Vec<Value> = entries
        .into_iter()
        .map(|e| {
            let scene = e.scene.as_ref().map(|s| {
                json!({
                    "name": s.name,
                    "kind": s.kind_name(),
                    "frames": s.sim.timing.frames,
                    "fps": s.sim.timing.fps,
                    "width": s.look.width,
                    "height": s.look.height,
                    "stamp": stamp(s),
                    "outputs": outputs(&ctx.out, s),
                })
            });
            json!({ "id": e.path.display().to_string(), "scene": scene, "problem": e.problem })
        })
        .collect();
    json!({ "version": ctx.version.load(Ordering::SeqCst), "out": ctx.out.display().to_string(), "scenes": list })
}

/// What a render of the scene left in the output folder (its animations and manifest), as URLs.
fn outputs(out: &Path, scene: &Scene) -> Value {
    let folder = SceneFolder::of(out, scene);
    let files = [Format::Gif, Format::Apng, Format::Webp, Format::Avif, Format::Mp4, Format::Webm]
        .into_iter()
        .filter_map(|f| Some((f.name(), folder.animation(f)?)))
        .chain([("manifest", folder.manifest())]);
    let mut o = serde_json::Map::new();
    for (what, path) in files {
        let Ok(rel) = path.strip_prefix(out) else { continue };
        if path.is_file() {
            let url = rel.iter().map(|p| percent_encode(&p.to_string_lossy())).collect::<Vec<_>>().join("/");
            o.insert(what.into(), json!(format!("/files/out/{url}")));
        }
    }
    Value::Object(o)
}

/// The scene `scene=` names (one the catalog serves, as it last loaded) and the frame `frame=`.
fn scene_and_frame(ctx: &Ctx, q: &[(String, String)]) -> Result<(Arc<Scene>, u32), Refusal> {
    let id = param(q, "scene").ok_or_else(|| refuse(400, "which scene? (scene=)"))?;
    let scene = {
        let catalog = ctx.catalog.lock().expect("catalog");
        let entry = catalog.entries.get(Path::new(id)).ok_or_else(|| refuse(404, format!("the studio serves no scene {id}")))?;
        entry.scene.clone().ok_or_else(|| refuse(409, format!("{id} has problems and never loaded")))?
    };
    let frame: u32 = param(q, "frame").unwrap_or("0").parse().map_err(|_| refuse(400, "frame= is a frame number"))?;
    if frame >= scene.sim.timing.frames {
        return Err(refuse(404, format!("{} has frames 0..={}", scene.name, scene.sim.timing.frames - 1)));
    }
    Ok((scene, frame))
}

/// A frame as PNG: `draft=1` for the draft.
pub fn frame(ctx: &Ctx, q: &[(String, String)]) -> Result<Vec<u8>, Refusal> {
    let (scene, frame) = scene_and_frame(ctx, q)?;
    let draft = param(q, "draft").is_some_and(|d| d == "1");
    let shot = ctx.engine.frame(scene, frame, draft).map_err(|e| {
        use super::engine::FrameError;
        let status = match e {
            FrameError::GaveWay(_) => 409,
            FrameError::Busy(_) => 503,
            FrameError::Failed(_) => 500,
        };
        refuse(status, e.to_string())
    })?;
    Ok(shot.png.clone())
}

/// A frame's facts (the simulation's state digest there), with how long it took.
pub fn facts(ctx: &Ctx, q: &[(String, String)]) -> Result<Value, Refusal> {
    let (scene, frame) = scene_and_frame(ctx, q)?;
    let draft = param(q, "draft").is_some_and(|d| d == "1");
    let key = super::engine::FrameKey::of(&scene, frame, draft);
    let shot = ctx.engine.cached(&key).map(|s| {
        json!({
            "facts": s.facts.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
            "simulate_ms": s.simulate.as_secs_f64() * 1e3,
            "draw_ms": s.draw.as_secs_f64() * 1e3,
        })
    });
    Ok(json!({ "frame": frame, "time": scene.sim.timing.time_of(frame), "stamp": stamp(&scene), "shot": shot }))
}

/// How the studio is doing: the adapter, frames drawn, cache and memory.
pub fn status(ctx: &Ctx) -> Value {
    let st = ctx.engine.stats();
    json!({
        "version": ctx.version.load(Ordering::SeqCst),
        "drawn": st.drawn,
        "renderers_made_again": st.recovered,
        "idle": st.idle,
        "cached_bytes": st.cached_bytes,
        "adapter": st.adapter.map(|a| a.to_string()),
        "resident_bytes": resident(),
        "rendering": ctx.rendering.lock().expect("rendering").iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "connections": connections(ctx),
    })
}

/// Connections being answered with the token, live pages, requests without the token being
/// answered, and connections whose request is still being read.
fn connections(ctx: &Ctx) -> Value {
    let c = ctx.clients.lock().expect("clients");
    json!({
        "all": c.all,
        "live": c.by_client.values().map(|m| m.1).sum::<usize>(),
        "anonymous": c.anonymous,
        "waiting": c.waiting.len(),
    })
}

/// Resident memory of this process now (`VmRSS`), bytes.
fn resident() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = s.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse::<u64>().ok()?;
    Some(kb * 1024)
}

/// Starts a render of a scene's frames and animations into the output folder, as `simreel
/// render` would; its end is said on the live connection.
pub fn render(ctx: &Arc<Ctx>, q: &[(String, String)]) -> Result<Value, Refusal> {
    let (scene, _) = scene_and_frame(ctx, q)?;
    {
        let mut busy = ctx.rendering.lock().expect("rendering");
        if busy.contains(&scene.path) {
            return Err(refuse(409, format!("{} is being rendered", scene.name)));
        }
        busy.push(scene.path.clone());
    }
    let id = scene.path.display().to_string();
    let name = scene.name.clone();
    ctx.hub.send(json!({ "type": "render", "scene": id, "state": "running" }));
    let ctx2 = ctx.clone();
    std::thread::spawn(move || {
        let result = (ctx2.render)(scene.path.clone());
        ctx2.rendering.lock().expect("rendering").retain(|p| *p != scene.path);
        let (state, message) = match result {
            Ok(m) => ("done", m),
            Err(m) => ("failed", m),
        };
        ctx2.hub.send(json!({ "type": "render", "scene": id, "state": state, "message": message }));
    });
    Ok(json!({ "started": name }))
}
