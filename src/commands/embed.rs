//! `simreel embed`: the scene, the web player, a poster of the first frame drawn here, a page and
//! the snippet for a post, in one folder a static site can host.

use std::path::Path;

use anyhow::Context;
use simreel::output::embed;
use simreel::render::{AdapterRequest, BackendChoice, Renderer};

use super::BadInput;

pub fn run(scene_path: &Path, out: &Path, player: Option<&Path>, backend: BackendChoice) -> anyhow::Result<()> {
    let scene = super::load(scene_path)?;
    if scene.kind_name() == "figure" {
        return Err(BadInput(format!(
            "{}: a figure cannot be embedded (its panels are scenes of their own): embed one of its scenes",
            scene_path.display()
        ))
        .into());
    }
    let text = String::from_utf8(simreel_compare::fs::read_trusted(scene_path)?).context("the scene file")?;
    let files = find_player(player, scene.kind_name())?;
    simreel::output::warn_of_shared_folders();
    let poster = poster(&scene, backend)?;
    let done = embed::write(&scene, &text, &files, &poster, out)?;
    println!("wrote {} (wasm {:.1} MB; serve it gzipped)", done.folder.display(), done.wasm_bytes as f64 / 1e6);
    println!("open it through a web server (browsers do not run WebAssembly from file://), e.g.:");
    println!("  python3 -m http.server -b 127.0.0.1 -d {} 8000   # then http://127.0.0.1:8000/", done.folder.display());
    println!("paste into a post, with the folder's files beside it:\n{}", done.snippet.trim_end());
    Ok(())
}

/// The player's files: from `--player`, else beside this program.
fn find_player(asked: Option<&Path>, kind: &str) -> anyhow::Result<Vec<(&'static str, Vec<u8>)>> {
    if let Some(dir) = asked {
        return embed::read_player(dir, kind).map_err(|e| BadInput(e).into());
    }
    let exe = std::env::current_exe().context("finding this program")?;
    let candidates = embed::player_candidates(&exe);
    let mut why = Vec::new();
    for dir in &candidates {
        if dir.join(embed::PLAYER_FILES[0]).exists() {
            match embed::read_player(dir, kind) {
                Ok(files) => return Ok(files),
                Err(e) => why.push(e),
            }
        }
    }
    let looked: Vec<String> = candidates.iter().map(|d| d.display().to_string()).collect();
    Err(BadInput(format!(
        "no web player for this simreel{}: scripts/build-web builds one into target/web (looked in {}; or pass --player DIR)",
        if why.is_empty() { String::new() } else { format!(" ({})", why.join("; ")) },
        looked.join(", ")
    ))
    .into())
}

/// The scene's first frame, drawn by this renderer, as PNG: what the page shows before the player
/// starts and where no backend can draw.
fn poster(scene: &simreel::scene::Scene, backend: BackendChoice) -> anyhow::Result<Vec<u8>> {
    let look = &scene.look;
    let mut renderer = Renderer::new(&AdapterRequest { backend, name: None }, look.width, look.height, look.msaa)?;
    let mut player = simreel::kinds::build(scene);
    let frame = player.frame(0);
    let first = renderer.submit(&frame)?;
    let image = match first {
        Some(i) => i,
        None => renderer.next_image()?.context("the renderer gave no image")?,
    };
    Ok(simreel::output::png::encode(&image.rgba, image.width, image.height, simreel::output::png::Effort::Small))
}
