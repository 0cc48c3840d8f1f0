//! `simreel merge`: the shards of a split render (`render --shard I/N`, one per machine) put
//! together. Every shard must be there and agree with the others — scene, settings (size, MSAA,
//! adapter, version), the frames of the whole — and every frame must be written exactly once;
//! then the GIF, the animations and the manifest are written as one machine's render writes them
//! (the same PNG pixels give the same GIF bytes).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::output::layout::SceneFolder;
use crate::output::manifest::{Manifest, ShardInfo, Timings};
use crate::output::{OutputError, claim::Claim};
use crate::pipeline::{self, PipelineError};
use crate::scene::{Format, Scene};

#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("{dir}: no shard manifests (shard-I-of-N.json): render the scene with --shard I/N into {out} first")]
    NoShards { dir: PathBuf, out: PathBuf },
    #[error("{dir} holds shards of different splits ({counts}): remove the stale ones")]
    MixedSplits { dir: PathBuf, counts: String },
    #[error("shard {index}/{count} of {scene} is missing (frames {first}..{last}): run `simreel render … --shard {index}/{count}`")]
    MissingShard { scene: String, index: u32, count: u32, first: u32, last: u32 },
    #[error("shard {index}/{count} of {scene} does not agree with shard {with}/{count}: {what}")]
    Disagree { scene: String, index: u32, count: u32, with: u32, what: String },
    #[error(
        "shard {index}/{count} of {scene} has not written frames {frames} (killed half-way?): rerun it with --resume, the frames it has are kept"
    )]
    Unfinished { scene: String, index: u32, count: u32, frames: String },
    #[error("shard {index}/{count} of {scene} lists frame {frame}, which is not in its block of the split")]
    NotItsFrame { scene: String, index: u32, count: u32, frame: u32 },
    #[error("{scene}: frame {frame} is listed by shards {a} and {b}")]
    Twice { scene: String, frame: u32, a: u32, b: u32 },
    #[error("{scene}: the scene changed since the shards rendered it (its identity is {now}, theirs {then}): render the shards again")]
    SceneChanged { scene: String, now: String, then: String },
    #[error("{}: {reason}", path.display())]
    BadShard { path: PathBuf, reason: String },
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    #[error(transparent)]
    Output(#[from] OutputError),
}

impl MergeError {
    /// Whether the shards may still change into a mergeable set: some still to come, or an
    /// earlier run's in the way until theirs replace them (`merge --wait` waits on these).
    pub fn may_settle(&self) -> bool {
        matches!(
            self,
            MergeError::NoShards { .. }
                | MergeError::MissingShard { .. }
                | MergeError::Unfinished { .. }
                | MergeError::MixedSplits { .. }
                | MergeError::Disagree { .. }
                | MergeError::SceneChanged { .. }
                | MergeError::Twice { .. }
        )
    }
}

/// The scene files of every scene with shards in `out`, as the shards' manifests name them, and
/// what was passed over: a manifest is read back (whoever can write `out` writes it), so only a
/// `.toml` file under the working folder is taken, never a file it names elsewhere (a key, a
/// credentials file); the others are said, to be named by hand.
pub fn scenes_with_shards(out: &Path) -> Result<(Vec<PathBuf>, Vec<String>), OutputError> {
    let (mut taken, mut passed) = (Vec::new(), Vec::new());
    let here = std::env::current_dir().ok().and_then(|d| std::fs::canonicalize(d).ok());
    for (manifest, named) in shard_scene_files(out)? {
        let path = PathBuf::from(&named);
        let plain = path.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir));
        let under = if path.is_absolute() {
            here.as_ref().is_some_and(|h| std::fs::canonicalize(&path).is_ok_and(|p| p.starts_with(h)))
        } else {
            plain && here.as_ref().is_some_and(|h| std::fs::canonicalize(&path).is_ok_and(|p| p.starts_with(h)))
        };
        if under && path.extension().is_some_and(|e| e == "toml") {
            taken.push(path);
        } else {
            passed.push(format!(
                "{} names the scene file {}, not a .toml file under this folder: not read (name the scene to merge it)",
                manifest.display(),
                simreel_compare::text::shown(&named)
            ));
        }
    }
    Ok((taken, passed))
}

/// The scene file each scene's first shard manifest in `out` names, with the manifest.
fn shard_scene_files(out: &Path) -> Result<Vec<(PathBuf, String)>, OutputError> {
    let entries = std::fs::read_dir(out).map_err(|source| OutputError::Read { path: out.to_path_buf(), source })?;
    let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let mut scenes = Vec::new();
    for dir in dirs {
        let shard = std::fs::read_dir(&dir).ok().and_then(|it| {
            it.flatten().map(|e| e.path()).find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("shard-")))
        });
        if let Some((p, m)) = shard.and_then(|p| Some((p.clone(), Manifest::read(&p)?))) {
            scenes.push((p, m.scene_file));
        }
    }
    Ok(scenes)
}

/// What a merge wrote.
#[derive(Debug)]
pub struct Merged {
    pub shards: u32,
    pub frames: usize,
    pub gif: Option<PathBuf>,
    pub animations: Vec<PathBuf>,
    /// The animations not made, and why (a split of some frames leaves the whole alone).
    pub left: Vec<String>,
    /// What the GIF gave up to fit its budget, when it had to.
    pub gif_fit: Option<String>,
    pub manifest: PathBuf,
}

/// Reads one shard manifest, which must name itself as its file does.
fn read_shard(path: &Path, i: u32, n: u32) -> Result<Manifest, MergeError> {
    let bad = |reason: String| MergeError::BadShard { path: path.to_path_buf(), reason };
    if i == 0 || i > n {
        return Err(bad(format!("shard {i} of {n} does not exist: shards are numbered 1 to {n}")));
    }
    let m = Manifest::read(path).ok_or_else(|| bad("not a shard manifest simreel can read".into()))?;
    match &m.shard {
        Some(s) if (s.index, s.count) == (i, n) && !s.blocks_cover_the_selection() => {
            Err(bad("its split of the frames does not cover the selection end to end once".into()))
        }
        Some(s) if (s.index, s.count) == (i, n) => Ok(m),
        Some(s) => Err(bad(format!("it says it is shard {}/{}", s.index, s.count))),
        None => Err(bad("it is a whole render's manifest, not a shard's".into())),
    }
}

/// The shard manifests in `dir`, by index, all of one split: the `count` given (opened by name),
/// or whatever the folder lists.
fn read_shards(dir: &Path, out: &Path, count: Option<u32>) -> Result<(u32, BTreeMap<u32, Manifest>), MergeError> {
    if let Some(n) = count {
        let mut found = BTreeMap::new();
        for i in 1..=n {
            let path = dir.join(ShardInfo::file_name(i, n));
            if path.is_file() {
                found.insert(i, read_shard(&path, i, n)?);
            }
        }
        if found.is_empty() {
            return Err(MergeError::NoShards { dir: dir.to_path_buf(), out: out.to_path_buf() });
        }
        return Ok((n, found));
    }
    let mut found: Vec<(u32, u32, Manifest)> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|source| OutputError::Read { path: dir.to_path_buf(), source })?.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some((i, n, ".json")) = ShardInfo::parse_stem(&name) else { continue };
        found.push((i, n, read_shard(&entry.path(), i, n)?));
    }
    let mut counts: Vec<u32> = found.iter().map(|f| f.1).collect();
    counts.sort_unstable();
    counts.dedup();
    match counts.as_slice() {
        [] => Err(MergeError::NoShards { dir: dir.to_path_buf(), out: out.to_path_buf() }),
        [n] => Ok((*n, found.into_iter().map(|(i, _, m)| (i, m)).collect())),
        _ => Err(MergeError::MixedSplits {
            dir: dir.to_path_buf(),
            counts: counts.iter().map(|n| format!("of {n}")).collect::<Vec<_>>().join(", "),
        }),
    }
}

fn info(m: &Manifest) -> ShardInfo {
    m.shard.clone().unwrap_or(ShardInfo { index: 0, count: 0, selection: Vec::new(), blocks: Vec::new() })
}

/// How shard manifest `m` disagrees with `first` (another shard's of the same scene), if it does.
fn disagreement(m: &Manifest, first: &Manifest) -> Option<String> {
    if (&m.simreel, &m.build) != (&first.simreel, &first.build) {
        let build = |m: &Manifest| if m.build.is_empty() { format!("{} (an earlier build)", m.simreel) } else { m.build.clone() };
        return Some(format!("rendered by simreel {} against {}", build(m), build(first)));
    }
    if m.settings_hash != first.settings_hash {
        let (a, b) = (&m.adapter_info, &first.adapter_info);
        return Some(if (m.width, m.height) != (first.width, first.height) {
            format!("rendered at {}×{} against {}×{}", m.width, m.height, first.width, first.height)
        } else if m.adapter != first.adapter {
            let class = if (a.device_type.as_str(), a.driver.as_str()) == (b.device_type.as_str(), b.driver.as_str()) {
                " (the same kind of adapter, but not the same: its pixels may differ)"
            } else {
                ""
            };
            format!("rendered on {} against {}{class}", m.adapter, first.adapter)
        } else {
            format!("settings (MSAA) hash {} against {}", m.settings_hash, first.settings_hash)
        });
    }
    if m.identity != first.identity {
        return Some(format!("scene {} against {}", m.identity, first.identity));
    }
    let (mine, theirs) = (info(m), info(first));
    if mine.selection != theirs.selection {
        return Some("a different frame selection (--frames)".into());
    }
    if mine.blocks() != theirs.blocks() {
        return Some("a different split of the frames (the render named other scenes?)".into());
    }
    None
}

/// Checks the shards of `scene` and returns every frame's entry in frame order.
fn check(scene: &Scene, count: u32, shards: &BTreeMap<u32, Manifest>) -> Result<Vec<crate::output::manifest::FrameEntry>, MergeError> {
    let name = scene.name.clone();
    let (&with, first) = shards.iter().next().expect("at least one shard");
    for (&index, m) in shards {
        if let Some(what) = disagreement(m, first) {
            return Err(MergeError::Disagree { scene: name, index, count, with, what });
        }
    }
    // the scene as the shards rendered it (at their size), as it is now
    let now = as_rendered(scene, first).identity();
    if first.identity != now {
        return Err(MergeError::SceneChanged { scene: name, now: now.to_string(), then: first.identity.to_string() });
    }
    let whole = info(first);
    for b in whole.blocks() {
        if !shards.contains_key(&b.shard) {
            let frames = whole.frames_of(b.shard);
            let (a, z) = (frames.first().copied().unwrap_or(0), frames.last().copied().unwrap_or(0));
            return Err(MergeError::MissingShard { scene: name, index: b.shard, count, first: a, last: z });
        }
    }
    let mut owner: BTreeMap<u32, (u32, crate::output::manifest::FrameEntry)> = BTreeMap::new();
    for (&index, m) in shards {
        let block = whole.frames_of(index);
        if let Some(e) = m.frames.iter().find(|e| block.binary_search(&e.index).is_err()) {
            return Err(MergeError::NotItsFrame { scene: name, index, count, frame: e.index });
        }
        let written: std::collections::HashSet<u32> = m.frames.iter().map(|e| e.index).collect();
        let missing: Vec<String> = block.iter().filter(|f| !written.contains(f)).map(|f| f.to_string()).collect();
        if !missing.is_empty() {
            let frames = if missing.len() > 8 {
                format!("{} … {} ({} frames)", missing[0], missing[missing.len() - 1], missing.len())
            } else {
                missing.join(", ")
            };
            return Err(MergeError::Unfinished { scene: name.clone(), index, count, frames });
        }
        for e in &m.frames {
            if let Some((other, _)) = owner.get(&e.index) {
                return Err(MergeError::Twice { scene: name.clone(), frame: e.index, a: *other, b: index });
            }
            owner.insert(e.index, (index, e.clone()));
        }
    }
    Ok(owner.into_values().map(|(_, e)| e).collect())
}

/// `scene` at the size the shard of manifest `m` rendered it.
fn as_rendered(scene: &Scene, m: &Manifest) -> Scene {
    let mut sized = scene.clone();
    (sized.look.width, sized.look.height) = (m.width, m.height);
    sized
}

/// Merges the shards of `scene` in `out/<scene>/`: checks them, then writes the manifest (the
/// shards' frames, and the folder's other frames as they were) and, when every frame of the scene
/// is there and of the scene as it is now, the GIF (when `formats` asks for one), the APNG and the
/// videos. Holds the scene's lock while it works, so a second merge (or a whole render) of the
/// same scene is refused meanwhile.
pub fn merge(out: &Path, scene: &Scene, formats: &[Format], shards: Option<u32>) -> Result<Merged, MergeError> {
    let folder = SceneFolder::of(out, scene);
    let dir = folder.dir();
    if !dir.is_dir() {
        return Err(MergeError::NoShards { dir, out: out.to_path_buf() });
    }
    let _claim = Claim::take(&dir)?;
    let (count, shards) = read_shards(&dir, out, shards)?;
    let frames = check(scene, count, &shards)?;
    let first = shards.values().next().expect("a shard");
    let mut paths: Vec<PathBuf> = Vec::with_capacity(frames.len());
    for e in &frames {
        // a shard's manifest is read back: only a plain file of the scene's folder is merged
        let Some(p) = crate::output::layout::own_file(&dir, &e.file) else {
            return Err(OutputError::Read {
                path: dir.join(&e.file),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "a shard listed this frame, but no plain file of that name is in its folder",
                ),
            }
            .into());
        };
        paths.push(p);
    }
    let sized = as_rendered(scene, first);
    // a frame of another version of the scene is not merged as this one's
    let identity = sized.identity();
    if let Some(e) = frames.iter().find(|e| e.identity != crate::output::layout::frame_identity(identity, &first.settings_hash, e.index)) {
        return Err(MergeError::SceneChanged {
            scene: scene.name.clone(),
            now: identity.to_string(),
            then: format!("frame {}'s {}", e.index, e.identity),
        });
    }
    let videos = formats.iter().any(|f| f.needs_ffmpeg());
    let ffmpeg = if videos { Some(crate::output::animation::ffmpeg().map_err(PipelineError::from)?) } else { None };
    let old = Manifest::read(&folder.manifest());
    let selection: Vec<u32> = frames.iter().map(|e| e.index).collect();
    let animations = pipeline::whole::Animations::new(&sized, &folder, formats, &first.settings_hash, old.as_ref(), &[]);
    let mut all = frames;
    all.extend(pipeline::whole::carried(old.as_ref(), &folder, scene.frames(), &selection));
    all.sort_by_key(|e| e.index);
    if selection.len() as u64 == scene.frames() as u64 {
        pipeline::whole::remove_strays(&folder)?;
    }
    let finished = animations.finish(&all, &[], ffmpeg.as_deref(), &pipeline::whole::Unwatched)?;
    // the last frame's shard simulated the state the whole render ends in
    let last = shards.values().max_by_key(|m| m.frames.iter().map(|e| e.index).max()).expect("a shard");
    let sum = |f: fn(&Timings) -> f64| shards.values().map(|m| f(&m.timings)).sum::<f64>();
    let wall = sum(|t| t.wall_s);
    let (simulate, render, encode) = (sum(|t| t.simulate_s), sum(|t| t.render_s), sum(|t| t.encode_s));
    let stages = shards.values().filter_map(|m| m.timings.stages.clone()).reduce(|a, b| a.plus(&b));
    let slowest = stages.as_ref().map_or_else(String::new, |s| s.slowest().0.to_string());
    let gif = animations.gif(&finished.records).map(PathBuf::from);
    let manifest = Manifest {
        frames: all,
        gif: gif.as_ref().map(|p| p.display().to_string()),
        animations: finished.records.clone(),
        timings: Timings {
            // the shards' time, and the animations made here
            wall_s: wall + finished.seconds.values().sum::<f64>(),
            simulate_s: simulate,
            render_s: render,
            encode_s: encode,
            frames_per_second: paths.len() as f64 / wall.max(1e-9),
            slowest_stage: slowest,
            // the shards ran apart: their startups and steady rates are theirs
            startup_s: 0.0,
            adapter_s: None,
            device_s: None,
            steady_fps: 0.0,
            stages,
            animations_s: finished.seconds.clone(),
            peak_memory_bytes: shards.values().filter_map(|m| m.timings.peak_memory_bytes).max(),
        },
        final_state: last.final_state.clone(),
        simulated_from: None,
        stale_states: 0,
        shard: None,
        ..first.clone()
    };
    let path = folder.manifest();
    manifest.write(&path)?;
    let written = finished.written.iter().filter(|p| p.extension().is_none_or(|x| x != "gif")).cloned().collect();
    let gif = gif.filter(|g| finished.written.contains(g) || finished.current.contains(g));
    Ok(Merged {
        shards: count,
        frames: paths.len(),
        gif,
        animations: written,
        left: finished.left,
        gif_fit: finished.fitted,
        manifest: path,
    })
}
