//! Saved simulation states in `OUT/<scene>/snapshots/` ([`crate::sim::Simulation::snapshot`]):
//! a render saves one every 1/32 of the scene and at its last frame, and a later run of the same
//! simulation by the same build (a shard of a split render, a rerun, a render at another size)
//! starts its simulation from the nearest one before its first frame instead of from the start.
//! Kinds whose replay is cheap save none.

use std::path::Path;

use crate::frame::Fnv;
use crate::output::layout::SceneFolder;
use crate::output::{OutputError, write_atomic};
use crate::scene::Scene;

const MAGIC: &[u8] = b"simreel snapshot\n";

/// About this many snapshots over a whole scene.
const PER_SCENE: u32 = 32;

/// Whether a render saves the state at `frame` of a scene of `total` frames: every 1/32 of the
/// scene.
pub fn due(frame: u32, total: u32) -> bool {
    let every = total.div_ceil(PER_SCENE).max(1);
    frame > 0 && frame.is_multiple_of(every)
}

/// What identifies a snapshot's scene and maker: version and build (a fingerprint of the
/// sources: the version stays while the code changes), the simulation's identity (the hash of
/// everything it is built from: an edit to the camera or a colour keeps the saved states), the
/// frame, and a checksum of the state that follows.
fn header(simulation: u64, frame: u32, state: &[u8]) -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend_from_slice(crate::BUILD.as_bytes());
    h.push(b'\n');
    h.extend_from_slice(&simulation.to_le_bytes());
    h.extend_from_slice(&frame.to_le_bytes());
    h.extend_from_slice(&Fnv::hash(state).to_le_bytes());
    h
}

/// The state in a snapshot file, when the file is whole and of this simulation, build and frame.
fn read(file: &Path, simulation: u64, frame: u32) -> Option<Vec<u8>> {
    // a plain file, never one a link leads to (the folder may be shared)
    let bytes = crate::output::read_plain(file).ok()?;
    let len = header(simulation, frame, &[]).len();
    let state = bytes.get(len..)?;
    (bytes[..len] == header(simulation, frame, state)[..]).then(|| state.to_vec())
}

/// Saves `state` (the simulation's snapshot at `frame`), unless the same is there already; a
/// file of another build or simulation, or a damaged one, is replaced.
pub fn save(folder: &SceneFolder, scene: &Scene, frame: u32, state: &[u8]) -> Result<(), OutputError> {
    let file = folder.snapshot(frame);
    let simulation = scene.identity().simulation;
    if read(&file, simulation, frame).is_some() {
        return Ok(());
    }
    let mut bytes = header(simulation, frame, state);
    bytes.extend_from_slice(state);
    write_atomic(&file, &bytes)
}

/// The frames the folder holds saved states for, at or before `frame`, latest first.
fn saved_frames(folder: &SceneFolder, total: u32, frame: u32) -> Vec<u32> {
    let mut frames: Vec<u32> = std::fs::read_dir(folder.snapshots())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("frame_")?.strip_suffix(".state")?.parse::<u32>().ok())
        .filter(|&f| f <= frame && f < total)
        .collect();
    frames.sort_unstable_by(|a, b| b.cmp(a));
    frames
}

/// The snapshots of this scene's simulation, by this build, at or before `frame`, latest first:
/// each frame and the simulation's bytes, read as they are asked for. Files of another version
/// of the simulation or another build, or damaged ones, are passed over: never restored.
pub fn nearest<'a>(folder: &'a SceneFolder, scene: &'a Scene, frame: u32) -> impl Iterator<Item = (u32, Vec<u8>)> + 'a {
    let simulation = scene.identity().simulation;
    saved_frames(folder, scene.frames(), frame)
        .into_iter()
        .filter_map(move |f| read(&folder.snapshot(f), simulation, f).map(|state| (f, state)))
}

/// How many of the folder's saved states for frames after `after` and at or before `frame` are
/// not this simulation's by this build: states a render passed over for an earlier one, or for
/// the start (and says so).
pub fn stale(folder: &SceneFolder, scene: &Scene, after: Option<u32>, frame: u32) -> u32 {
    let simulation = scene.identity().simulation;
    let prefix = |f: u32| header(simulation, f, &[]);
    saved_frames(folder, scene.frames(), frame)
        .into_iter()
        .filter(|&f| after.is_none_or(|a| f > a))
        .filter(|&f| {
            let want = prefix(f);
            // the header up to the checksum: build, simulation, frame
            let known = &want[..want.len() - 8];
            let mut head = vec![0; known.len()];
            let file = folder.snapshot(f);
            let same = simreel_compare::fs::split(&file)
                .and_then(|(dir, name)| simreel_compare::fs::Folder::open(dir)?.open_file(name))
                .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut head))
                .is_ok()
                && head == known;
            !same
        })
        .count() as u32
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
        let folder = SceneFolder::of(&dir, &base);
        save(&folder, &base, 8, b"the state at 8").unwrap();
        let found = |s: &Scene| nearest(&folder, s, 20).collect::<Vec<_>>();
        assert_eq!(found(&base), [(8, b"the state at 8".to_vec())]);
        assert_eq!(stale(&folder, &base, None, 20), 0);
        // another light: the same simulation, the same state
        let lit = scene(&SCENE.replace("ambient = 0.4", "ambient = 0.6"));
        assert_eq!(found(&lit), [(8, b"the state at 8".to_vec())]);
        assert_eq!(stale(&folder, &lit, None, 20), 0);
        // another seed, or another trail kept: another simulation, whose state is never restored
        for other in [SCENE.replace("seed = 3", "seed = 4"), SCENE.replace("agents = 20", "agents = 20\ntrail = 5")] {
            let other = scene(&other);
            assert!(found(&other).is_empty());
            assert_eq!(stale(&folder, &other, None, 20), 1, "counted as passed over");
            assert_eq!(stale(&folder, &other, Some(8), 20), 0, "none after the state used");
        }
        assert!(nearest(&folder, &base, 7).next().is_none(), "only states at or before the frame");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
