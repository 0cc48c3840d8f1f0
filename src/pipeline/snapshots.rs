//! Saved simulation states in `OUT/<scene>/snapshots/` ([`crate::sim::Simulation::snapshot`]):
//! a render saves one every 1/32 of the scene and at its last frame, and a later run of the same
//! scene file by the same version (a shard of a split render, a rerun, a render at another size)
//! starts its simulation from the nearest one before its first frame instead of from the start.
//! Kinds whose replay is cheap save none.

use std::path::{Path, PathBuf};

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

/// What identifies a snapshot's scene and maker: version, the scene file's hash, the frame.
fn header(scene: &Scene, frame: u32) -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
    h.push(b'\n');
    h.extend_from_slice(&scene.source_hash.to_le_bytes());
    h.extend_from_slice(&frame.to_le_bytes());
    h
}

/// Saves `state` (the simulation's snapshot at `frame`), unless one is there already.
pub fn save(frames_dir: &Path, scene: &Scene, frame: u32, state: &[u8]) -> Result<(), OutputError> {
    let file = path(frames_dir, frame, scene.render.frames);
    if file.is_file() {
        return Ok(());
    }
    let dir = file.parent().expect("a snapshot has a folder");
    std::fs::create_dir_all(dir).map_err(|source| OutputError::Write { path: dir.to_path_buf(), source })?;
    let mut bytes = header(scene, frame);
    bytes.extend_from_slice(state);
    write_atomic(&file, &bytes)
}

/// The latest snapshot of this scene, by this version, at or before `frame`: its frame and the
/// simulation's bytes. Files of another scene file or version are passed over.
pub fn nearest(frames_dir: &Path, scene: &Scene, frame: u32) -> Option<(u32, Vec<u8>)> {
    let total = scene.render.frames;
    let entries = std::fs::read_dir(frames_dir.join(FOLDER)).ok()?;
    let mut frames: Vec<u32> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("frame_")?.strip_suffix(".state")?.parse::<u32>().ok())
        .filter(|&f| f <= frame && f < total)
        .collect();
    frames.sort_unstable_by(|a, b| b.cmp(a));
    frames.into_iter().find_map(|f| {
        let bytes = std::fs::read(path(frames_dir, f, total)).ok()?;
        let head = header(scene, f);
        bytes.starts_with(&head).then(|| (f, bytes[head.len()..].to_vec()))
    })
}
