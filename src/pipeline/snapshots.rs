//! Saved simulation states in `OUT/<scene>/snapshots/` ([`crate::sim::Simulation::snapshot`]):
//! a render saves one every 1/32 of the scene and at its last frame, and a later run of the same
//! simulation by the same build (a shard of a split render, a rerun, a render at another size)
//! starts its simulation from the nearest one before its first frame instead of from the start.
//! Kinds whose replay is cheap save none.

use std::path::{Path, PathBuf};

use crate::frame::Fnv;
use crate::output::{OutputError, frame_file_name, write_atomic};
use crate::scene::Scene;

const FOLDER: &str = "snapshots";
const MAGIC: &[u8] = b"simreel snapshot\n";

/// About this many snapshots over a whole scene.
const PER_SCENE: u32 = 32;

/// Whether a render saves the state at `frame` of a scene of `total` frames: every 1/32 of the
/// scene.
pub fn due(frame: u32, total: u32) -> bool {
    let every = total.div_ceil(PER_SCENE).max(1);
    frame > 0 && frame.is_multiple_of(every)
}

fn path(frames_dir: &Path, frame: u32, total: u32) -> PathBuf {
    frames_dir.join(FOLDER).join(frame_file_name(frame, total).replace(".png", ".state"))
}

/// What identifies a snapshot's scene and maker: version and build (a fingerprint of the
/// sources: the version stays while the code changes), what the scene's simulation depends on
/// (its fingerprint: an edit to the camera or a colour keeps the saved states), the frame, and a
/// checksum of the state that follows.
fn header(scene: &Scene, frame: u32, state: &[u8]) -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend_from_slice(crate::BUILD.as_bytes());
    h.push(b'\n');
    h.extend_from_slice(&scene.identity().simulation.to_le_bytes());
    h.extend_from_slice(&frame.to_le_bytes());
    h.extend_from_slice(&Fnv::hash(state).to_le_bytes());
    h
}

/// The state in a snapshot file, when the file is whole and of this scene, build and frame.
fn read(file: &Path, scene: &Scene, frame: u32) -> Option<Vec<u8>> {
    let bytes = std::fs::read(file).ok()?;
    let len = header(scene, frame, &[]).len();
    let state = bytes.get(len..)?;
    (bytes[..len] == header(scene, frame, state)[..]).then(|| state.to_vec())
}

/// Saves `state` (the simulation's snapshot at `frame`), unless the same is there already; a
/// file of another build or scene, or a damaged one, is replaced.
pub fn save(frames_dir: &Path, scene: &Scene, frame: u32, state: &[u8]) -> Result<(), OutputError> {
    let file = path(frames_dir, frame, scene.sim.timing.frames);
    if read(&file, scene, frame).is_some() {
        return Ok(());
    }
    let dir = file.parent().expect("a snapshot has a folder");
    std::fs::create_dir_all(dir).map_err(|source| OutputError::Write { path: dir.to_path_buf(), source })?;
    let mut bytes = header(scene, frame, state);
    bytes.extend_from_slice(state);
    write_atomic(&file, &bytes)
}

/// The snapshots of this scene, by this build, at or before `frame`, latest first: each frame and
/// the simulation's bytes, read as they are asked for. Files of another scene file or build, or
/// damaged ones, are passed over.
pub fn nearest<'a>(frames_dir: &'a Path, scene: &'a Scene, frame: u32) -> impl Iterator<Item = (u32, Vec<u8>)> + 'a {
    let total = scene.sim.timing.frames;
    let mut frames: Vec<u32> = std::fs::read_dir(frames_dir.join(FOLDER))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("frame_")?.strip_suffix(".state")?.parse::<u32>().ok())
        .filter(|&f| f <= frame && f < total)
        .collect();
    frames.sort_unstable_by(|a, b| b.cmp(a));
    frames.into_iter().filter_map(move |f| read(&path(frames_dir, f, total), scene, f).map(|state| (f, state)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str =
        "kind = \"flock\"\nseed = 3\n[render]\nwidth = 64\nheight = 48\nframes = 64\n[light]\nambient = 0.4\n[flock]\nagents = 20\n";

    #[test]
    fn a_saved_state_serves_the_same_simulation_drawn_otherwise_and_no_other() {
        let dir = std::env::temp_dir().join(format!("simreel-snapshots-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let scene = |text: &str| crate::scene::parse(text, Path::new("s.toml")).unwrap_or_else(|e| panic!("{e}"));
        let base = scene(SCENE);
        save(&dir, &base, 8, b"the state at 8").unwrap();
        let found = |s: &Scene| nearest(&dir, s, 20).collect::<Vec<_>>();
        assert_eq!(found(&base), [(8, b"the state at 8".to_vec())]);
        // another light: the same simulation, the same state
        assert_eq!(found(&scene(&SCENE.replace("ambient = 0.4", "ambient = 0.6"))), [(8, b"the state at 8".to_vec())]);
        // another seed: another simulation
        assert!(found(&scene(&SCENE.replace("seed = 3", "seed = 4"))).is_empty());
        assert!(nearest(&dir, &base, 7).next().is_none(), "only states at or before the frame");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
