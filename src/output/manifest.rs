//! `out/<scene>/manifest.json`: what a render wrote and how (scene hash, adapter, frames, timings),
//! so a rerun can tell which frames are already done and a person can see what produced the files.

use std::path::Path;

use super::OutputError;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Manifest {
    pub simreel: String,
    pub scene: String,
    pub scene_file: String,
    /// FNV-1a of the scene file, hex.
    pub scene_hash: String,
    /// Everything that decides the pixels besides the scene file (size, MSAA, adapter), hashed.
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
    pub timings: Timings,
    /// State digest of the last frame simulated.
    pub final_state: String,
    /// For one shard of a split render: which, and every frame of the whole render.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardInfo>,
}

/// Shard `index` (1-based) of `count`, and the frames all the shards render together.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct ShardInfo {
    pub index: u32,
    pub count: u32,
    pub selection: Vec<u32>,
}

impl ShardInfo {
    /// The file a shard's manifest goes to, in the scene's frames folder.
    pub fn file_name(index: u32, count: u32) -> String {
        format!("shard-{index}-of-{count}.json")
    }

    /// The frames of `selection` shard `index` of `count` renders: a contiguous block, the blocks
    /// as even as whole frames allow.
    pub fn block(selection: &[u32], index: u32, count: u32) -> &[u32] {
        let n = selection.len();
        let at = |i: u32| n * i as usize / count as usize;
        &selection[at(index - 1)..at(index)]
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct FrameEntry {
    pub index: u32,
    pub file: String,
    /// State digest of the simulation at this frame (empty when a resumed run kept the file).
    #[serde(default)]
    pub state: String,
    /// The digest's facts by name, numbers as numbers: a per-frame trace that charts can plot
    /// (`values = "frames.*.facts.seek"` in a figure).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub facts: serde_json::Map<String, serde_json::Value>,
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
    pub wall_s: f64,
    pub simulate_s: f64,
    pub render_s: f64,
    pub encode_s: f64,
    pub frames_per_second: f64,
    /// The stage that took longest.
    pub slowest_stage: String,
    /// The process's peak resident memory so far, bytes (Linux's VmHWM; absent elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_memory_bytes: Option<u64>,
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

    /// The manifest at `path`, if there is a readable one.
    pub fn read(path: &Path) -> Option<Manifest> {
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    }
}
