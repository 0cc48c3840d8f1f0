//! `out/<scene>/manifest.json`: what a render wrote and how (the scene's identity, adapter, frames,
//! timings), so a rerun can tell which frames are already done and a person can see what produced
//! the files. Every frame carries its own identity ([`super::layout::frame_identity`]): a render
//! of some frames updates theirs and leaves the others' as they were, so the manifest always says
//! what each file in the folder is.

use std::path::Path;

use super::OutputError;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Manifest {
    pub simreel: String,
    /// The build that wrote it ([`crate::BUILD`]); empty in manifests of earlier builds.
    #[serde(default)]
    pub build: String,
    pub scene: String,
    pub scene_file: String,
    /// The values given over the scene file's (`--set KEY=VALUE`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
    /// The scene's identity: the hashes of what its simulation and its drawing are made from
    /// (zeros in manifests of earlier builds, whose frames are then of another identity).
    #[serde(default)]
    pub identity: crate::scene::Identity,
    /// Everything that decides the pixels besides the scene file (size, MSAA, adapter, build), hashed.
    pub settings_hash: String,
    pub kind: String,
    pub seed: u64,
    pub adapter: String,
    /// The adapter's backend, vendor and driver (golden checks pick their tolerance by them).
    #[serde(default)]
    pub adapter_info: crate::render::AdapterSummary,
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub frames_in_scene: u32,
    /// Frame files written or found complete, by frame number.
    pub frames: Vec<FrameEntry>,
    pub gif: Option<String>,
    /// The animations of the whole scene in the folder, each with what it was made from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub animations: Vec<AnimationEntry>,
    pub timings: Timings,
    /// State digest of the last frame simulated.
    pub final_state: String,
    /// The saved simulation state (`snapshots/frame_N.state`) this run started from, when it did
    /// not simulate from the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated_from: Option<u32>,
    /// Saved states found for this scene that were of another version of it, or another build,
    /// and so were not restored.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stale_states: u32,
    /// For one shard of a split render: which, and every frame of the whole render.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardInfo>,
}

/// Shard `index` (1-based) of `count`, the frames all the shards render together, and how they
/// are split among the shards.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct ShardInfo {
    pub index: u32,
    pub count: u32,
    pub selection: Vec<u32>,
    /// The shards that render part of this scene, each with its block of `selection`, in order;
    /// a shard not listed renders none of it (the split is by cost over every scene of the
    /// command, [`crate::split`]). Empty in manifests of earlier versions: even blocks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Block>,
}

/// Shard `shard` renders positions `from..to` of a split render's selection.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Block {
    pub shard: u32,
    pub from: u32,
    pub to: u32,
}

impl ShardInfo {
    /// `shard-I-of-N`: what a shard's files and folders are named after.
    pub fn stem(index: u32, count: u32) -> String {
        super::layout::shard_stem(index, count)
    }

    /// The shard a name starting `shard-I-of-N` names, and the rest of the name.
    pub fn parse_stem(name: &str) -> Option<(u32, u32, &str)> {
        super::layout::parse_shard_stem(name)
    }

    /// The file a shard's manifest goes to, in the scene's frames folder.
    pub fn file_name(index: u32, count: u32) -> String {
        super::layout::shard_manifest_name(index, count)
    }

    /// The blocks of the split: as recorded, or the even contiguous blocks of earlier versions.
    pub fn blocks(&self) -> Vec<Block> {
        if !self.blocks.is_empty() {
            return self.blocks.clone();
        }
        let n = self.selection.len();
        let at = |i: u32| (n * i as usize / self.count.max(1) as usize) as u32;
        (1..=self.count).map(|shard| Block { shard, from: at(shard - 1), to: at(shard) }).collect()
    }

    /// The frames shard `shard` renders (none when it takes no part of this scene).
    pub fn frames_of(&self, shard: u32) -> &[u32] {
        let n = self.selection.len();
        match self.blocks().into_iter().find(|b| b.shard == shard) {
            Some(b) => &self.selection[(b.from as usize).min(n)..(b.to as usize).clamp((b.from as usize).min(n), n)],
            None => &[],
        }
    }

    /// Whether the blocks are a split of the whole selection: shards 1..=count in order, each
    /// block non-empty, together covering the selection end to end once.
    pub fn blocks_cover_the_selection(&self) -> bool {
        let blocks = self.blocks();
        let mut at = 0;
        let mut last = 0;
        for b in &blocks {
            if b.from != at || b.to <= b.from || b.shard <= last || b.shard > self.count {
                return false;
            }
            (at, last) = (b.to, b.shard);
        }
        at as usize == self.selection.len()
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// An animation of the whole scene (GIF, APNG, MP4, WebM) and what it was made from.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct AnimationEntry {
    pub format: String,
    pub file: String,
    /// [`super::layout::animation_source`] of the frames it holds and its settings.
    pub source: String,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct FrameEntry {
    pub index: u32,
    pub file: String,
    /// What the frame is ([`super::layout::frame_identity`]): the scene's identity, the settings
    /// and its number.
    #[serde(default)]
    pub identity: String,
    /// State digest of the simulation at this frame (empty when a resumed run kept the file).
    #[serde(default)]
    pub state: String,
    /// The digest's facts by name, numbers as numbers: a per-frame trace that charts can plot
    /// (`values = "frames.*.facts.seek"` in a figure).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub facts: serde_json::Map<String, serde_json::Value>,
    /// The SHA-256 of the frame's file as it was written: `--resume` keeps a frame only while its
    /// file still has it (whoever can write the folder can replace a frame).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sha256: String,
}

/// The SHA-256 of a file's bytes, in hex ([`FrameEntry::sha256`]).
pub fn content_hash(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A state digest's facts as JSON: numbers where they read as numbers, else strings.
pub fn facts_json(facts: &[(String, String)]) -> serde_json::Map<String, serde_json::Value> {
    facts
        .iter()
        .map(|(k, v)| {
            let value = if let Ok(i) = v.parse::<i64>() {
                serde_json::Value::from(i)
            } else {
                match v.parse::<f64>() {
                    Ok(n) if n.is_finite() => serde_json::Number::from_f64(n).map_or_else(|| v.clone().into(), serde_json::Value::Number),
                    _ => serde_json::Value::String(v.clone()),
                }
            };
            (k.clone(), value)
        })
        .collect()
}

/// Seconds spent per stage (stages overlap, so they add up to more than the wall time).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Timings {
    /// The whole run: its frames, then the animations made from them.
    pub wall_s: f64,
    /// The simulation's busy time (`stages.simulate.busy_s`).
    pub simulate_s: f64,
    /// The render stage's busy time, waiting for the GPU included (`stages.render.busy_s`).
    pub render_s: f64,
    /// PNG frames written (and a GIF's frames quantised as they came), summed over the encoder
    /// threads (`stages.encode.busy_s`).
    pub encode_s: f64,
    /// Frames rendered a second, over the time until the last frame was written (the
    /// animations made after are in `animations_s`), startup included.
    pub frames_per_second: f64,
    /// The stage whose rate alone is lowest (`stages.*.fps`): what bounds `steady_fps`.
    pub slowest_stage: String,
    /// From the job's start to its first frame written: opening the adapter (when this job
    /// opened it), the simulation's first step, the first frame's render and encode.
    #[serde(default)]
    pub startup_s: f64,
    /// Of the startup, finding the adapter and opening its device (pipelines, targets); absent
    /// when the job drew on a renderer an earlier job of the command had made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_s: Option<f64>,
    /// Frames written a second after the first: (frames − 1) ÷ (last written − first written).
    #[serde(default)]
    pub steady_fps: f64,
    /// Where each stage's time went.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stages: Option<Stages>,
    /// Seconds each animation (or clip) made after the frames took, by format: an ffmpeg encode,
    /// an APNG, a GIF made from the frames or made again to fit its budget.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub animations_s: std::collections::BTreeMap<String, f64>,
    /// The process's peak resident memory so far, bytes (Linux's VmHWM; absent elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_memory_bytes: Option<u64>,
}

/// Each stage's time (`simulate`, `render`, `encode`).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Stages {
    pub simulate: StageTimes,
    pub render: StageTimes,
    pub encode: StageTimes,
}

impl Stages {
    /// The stage whose rate alone is lowest, and that rate.
    pub fn slowest(&self) -> (&'static str, f64) {
        let all = [("simulate", &self.simulate), ("render", &self.render), ("encode", &self.encode)];
        all.into_iter().map(|(n, s)| (n, s.fps)).min_by(|a, b| a.1.total_cmp(&b.1)).expect("three stages")
    }

    /// Two runs' stages together (the shards of a split render): times add up, rates are the
    /// frames of both over the busy time of both.
    pub fn plus(&self, other: &Stages) -> Stages {
        Stages {
            simulate: self.simulate.plus(&other.simulate),
            render: self.render.plus(&other.render),
            encode: self.encode.plus(&other.encode),
        }
    }
}

/// One stage's seconds, summed over its threads: working on frames (`busy_s`), waiting for a
/// frame to work on (`idle_s`), and waiting for the next stage to take a finished one
/// (`blocked_s`; the render stage's includes waiting for the encoders to give back the staging
/// buffers they read frames from). Of the render stage's busy time: waiting for the GPU to finish
/// frames (`gpu_wait_s`), and what its thread spent on a CPU (`cpu_s`, where the system says:
/// recording and submitting; a driver that makes the submitting thread wait adds to the busy
/// time, not to this).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct StageTimes {
    pub threads: u32,
    /// Frames through the stage.
    pub frames: u64,
    pub busy_s: f64,
    pub idle_s: f64,
    pub blocked_s: f64,
    /// The rate the stage alone would give: frames ÷ (busy ÷ threads).
    pub fps: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_wait_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<f64>,
    /// `cpu_s` a frame, milliseconds: the render stage's cost outside the GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ms_per_frame: Option<f64>,
}

impl StageTimes {
    /// A stage's times from its busy, idle and blocked seconds over `frames` frames on `threads`.
    pub fn of(threads: u32, frames: u64, busy_s: f64, idle_s: f64, blocked_s: f64) -> StageTimes {
        let fps = if busy_s > 0.0 { frames as f64 * threads.max(1) as f64 / busy_s } else { 0.0 };
        StageTimes { threads, frames, busy_s, idle_s, blocked_s, fps, ..StageTimes::default() }
    }

    /// With the render stage's GPU waits, and its thread's CPU time when known.
    pub fn with_gpu(self, gpu_wait_s: f64, cpu_s: Option<f64>) -> StageTimes {
        let per_frame = cpu_s.filter(|_| self.frames > 0).map(|c| 1e3 * c / self.frames as f64);
        StageTimes { gpu_wait_s: Some(gpu_wait_s), cpu_s, cpu_ms_per_frame: per_frame, ..self }
    }

    fn plus(&self, o: &StageTimes) -> StageTimes {
        let sum = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a + b);
        let t = StageTimes::of(
            self.threads.max(o.threads),
            self.frames + o.frames,
            self.busy_s + o.busy_s,
            self.idle_s + o.idle_s,
            self.blocked_s + o.blocked_s,
        );
        match sum(self.gpu_wait_s, o.gpu_wait_s) {
            Some(g) => t.with_gpu(g, sum(self.cpu_s, o.cpu_s)),
            None => t,
        }
    }
}

/// This process's peak resident memory (`VmHWM` in /proc/self/status), where the system says.
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse::<u64>().ok()?;
    Some(kb * 1024)
}

impl Manifest {
    pub fn write(&self, path: &Path) -> Result<(), OutputError> {
        let json = serde_json::to_vec_pretty(self).expect("manifest serialises");
        super::write_atomic(path, &json)
    }

    /// The manifest at `path`, if there is a readable one. A manifest is read back, so it is
    /// untrusted: one whose frame files are not plain names in its own folder (a path, `..`) is
    /// not one simreel wrote, and is taken as none.
    pub fn read(path: &Path) -> Option<Manifest> {
        let m: Manifest = serde_json::from_slice(&super::read_plain(path).ok()?).ok()?;
        m.frames.iter().all(|e| super::layout::is_plain_name(&e.file)).then_some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::ShardInfo;

    #[test]
    fn shard_names_read_back() {
        assert_eq!(ShardInfo::parse_stem(&ShardInfo::file_name(3, 12)), Some((3, 12, ".json")));
        assert_eq!(ShardInfo::parse_stem(&ShardInfo::stem(1, 4)), Some((1, 4, "")));
        assert_eq!(ShardInfo::parse_stem("shard-x-of-4"), None);
        assert_eq!(ShardInfo::parse_stem("frame_0001.png"), None);
    }
}
