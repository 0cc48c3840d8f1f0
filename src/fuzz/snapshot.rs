//! Fuzzing of the saved simulation states a render restores from (`OUT/<scene>/snapshots/`):
//! whoever can write the output folder writes them, and the file's checksum is no defence (it is
//! recomputed as easily as the state is edited). A round takes a real snapshot of a scene, puts
//! hostile values (NaN, infinities, `f32::MAX`, the largest and smallest doubles, integer
//! extremes) in place of its words one at a time, restores each into a fresh simulation and plays
//! on from it. Every case must be refused, or carry on to a state whose numbers stay finite;
//! none may panic, hang or ask for memory beyond what the scene needs (the suite runs the
//! rounds in a child process under a memory cap, where such a request aborts).

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use crate::scene::Scene;
use crate::sim::rng::Rng;

/// Values put in place of a 4-byte word: as an `f32` and as an integer.
const WORDS: &[u32] = &[
    0x7fc0_0000, // NaN
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7f7f_ffff, // f32::MAX, 3.4e38
    0xff7f_ffff, // -f32::MAX
    0x0000_0001, // the smallest subnormal
    0xffff_ffff, // u32::MAX
    0x8000_0000, // -0.0, 2^31
];

/// Values put in place of an 8-byte word: as an `f64` and as an integer.
const DOUBLES: &[u64] = &[
    0x7ff8_0000_0000_0000, // NaN
    0x7ff0_0000_0000_0000, // +inf
    0xfff0_0000_0000_0000, // -inf
    0x47ef_ffff_e000_0000, // 3.4e38 (f32::MAX as a double)
    0x7fef_ffff_ffff_ffff, // f64::MAX
    0xffef_ffff_ffff_ffff, // -f64::MAX
    0x0000_0000_0000_0001, // 5e-324
    0xffff_ffff_ffff_ffff, // u64::MAX
    0x0000_0100_0000_0000, // 2^40
];

/// What a round found.
#[derive(Debug, Default)]
pub struct Report {
    /// Hostile snapshots tried.
    pub cases: usize,
    /// Refused by the simulation's reader.
    pub refused: usize,
    /// Taken, then played on from.
    pub accepted: usize,
    /// Cases that panicked, a state that became non-finite after it was taken, or took too long:
    /// which word, which value, what happened.
    pub failures: Vec<String>,
    /// The slowest case.
    pub slowest: Duration,
    /// The snapshot's size in bytes (0: the kind replays and saves none).
    pub bytes: usize,
}

/// The byte offsets a round edits: every 4-byte word of a small snapshot; of a large one
/// `budget` words: the first and last quarter of them at its ends (headers, counts and the tail)
/// and the rest drawn from the middle.
fn offsets(len: usize, budget: usize, rng: &mut Rng) -> Vec<usize> {
    let words: Vec<usize> = (0..len / 4).map(|w| w * 4).collect();
    if words.len() <= budget {
        return words;
    }
    let edge = (budget / 4).min(words.len() / 2);
    let mut picked: Vec<usize> = words[..edge].iter().chain(&words[words.len() - edge..]).copied().collect();
    let middle = &words[edge..words.len() - edge];
    for _ in 0..budget.saturating_sub(picked.len()) {
        if middle.is_empty() {
            break;
        }
        picked.push(middle[(rng.next_u64() % middle.len() as u64) as usize]);
    }
    picked.sort_unstable();
    picked.dedup();
    picked
}

/// Fuzzes the snapshot `scene` saves at frame `at`: about `budget` edited words, each with every
/// hostile value, each case restored into a fresh simulation that then plays `play` frames on
/// (each within `limit`).
pub fn round(scene: &Scene, at: u32, budget: usize, play: u32, limit: Duration, seed: u64) -> Report {
    let mut report = Report::default();
    let mut player = crate::kinds::build(scene);
    for f in 0..=at {
        player.frame(f);
    }
    let Some(state) = player.snapshot() else { return report };
    report.bytes = state.len();
    let last = scene.frames().saturating_sub(1);
    let mut rng = Rng::new(seed);
    let mut fresh = crate::kinds::build(scene);
    for offset in offsets(state.len(), budget, &mut rng) {
        let edits = WORDS.iter().map(|w| w.to_le_bytes().to_vec()).chain(DOUBLES.iter().map(|d| d.to_le_bytes().to_vec()));
        for value in edits.filter(|v| offset + v.len() <= state.len()) {
            let mut bytes = state.clone();
            bytes[offset..offset + value.len()].copy_from_slice(&value);
            if bytes == state {
                continue;
            }
            report.cases += 1;
            let what = |why: &str| format!("{}: byte {offset} set to {}: {why}", scene.name, hex(&value));
            let started = Instant::now();
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                if !fresh.restore(at, &bytes) {
                    return Ok(false);
                }
                for f in (at + 1..=at + play).filter(|&f| f <= last) {
                    fresh.frame(f);
                }
                let d = fresh.digest();
                match d.facts.iter().find(|(_, v)| v.parse::<f64>().is_ok_and(|x| !x.is_finite()) || v.contains("NaN") || v.contains("inf"))
                {
                    Some((k, v)) if fresh.fault().is_none() => Err(format!("taken, and its fact {k} is {v} with no fault said")),
                    _ => Ok(true),
                }
            }));
            let took = started.elapsed();
            report.slowest = report.slowest.max(took);
            let refused = matches!(outcome, Ok(Ok(false)));
            match outcome {
                Ok(Ok(false)) => report.refused += 1,
                Ok(Ok(true)) => report.accepted += 1,
                Ok(Err(why)) => report.failures.push(what(&why)),
                Err(panic) => {
                    let msg = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
                    report.failures.push(what(&format!("panicked: {}", msg.unwrap_or_default())));
                    fresh = crate::kinds::build(scene);
                }
            }
            // the true state back for the next case (a refusal left it untouched; a faulted
            // simulation takes none: built anew)
            if !refused && (fresh.fault().is_some() || !fresh.restore(at, &state)) {
                fresh = crate::kinds::build(scene);
            }
            if took > limit {
                report.failures.push(what(&format!("took {:.1} s", took.as_secs_f64())));
            }
        }
    }
    report
}

fn hex(bytes: &[u8]) -> String {
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    format!("{:#0width$x}", u64::from_le_bytes(word), width = bytes.len() * 2 + 2)
}
