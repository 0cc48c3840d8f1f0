//! Structure-aware fuzzing of everything that reads user input: scene files (TOML reading,
//! validation, the memory estimate), frame specs and sizes. Stable Rust and no extra crates:
//! inputs are real scenes (the shipped ones, the test scenes) edited the way people and broken
//! tools edit them — values swapped for extreme ones, lines deleted, doubled or borrowed from
//! scenes of other kinds, tables repeated, text cut short, brackets and quotes dropped in, deep
//! nesting — so most inputs get past the TOML parser into validation. A run reports panics,
//! the slowest input and how many inputs it tried; `examples/fuzz.rs` is the command line, and the
//! test suite runs a short, seeded round. Saved simulation states have a fuzzer of their own
//! ([`snapshot`]).

pub mod snapshot;

use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::sim::rng::Rng;

/// Values that have broken readers before: extremes, wrong types, odd strings and shapes.
const VALUES: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "255",
    "256",
    "65536",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "0.0",
    "-0.0",
    "1e308",
    "-1e308",
    "1e-320",
    "5e-324",
    "nan",
    "inf",
    "-inf",
    "0.5",
    "1_000_000",
    "0x7fffffff",
    "0o777",
    "0b101",
    "true",
    "false",
    "\"\"",
    "\"a\"",
    "\"#zzzzzz\"",
    "\"#fff\"",
    "\"auto\"",
    "\"seed\"",
    "\"smooth\"",
    "\"é∑😀\"",
    "[]",
    "[0]",
    "[1, 2]",
    "[1, 2, 3]",
    "[-1e308, 1e308, 0]",
    "[[0, 0, 0]]",
    "[[0.0, 1.0], [0.0, 2.0]]",
    "[[1.0, 0.0], [0.5, 1.0]]",
    "[\"png\", \"gif\"]",
    "[[]]",
    "{}",
    "{ from = 0.0, to = 1e308 }",
    "{ a = 1 }",
    "1979-05-27T07:32:00Z",
    "\"\\u0000\"",
];

/// Bits of TOML syntax dropped in at random places.
const SHARDS: &[&str] = &["[", "]", "[[", "]]", "{", "}", "\"", "'", "=", ",", "\n", "#", ".", "\\", "\u{0}", "\u{feff}", "= =", "[a.b]"];

/// A mutator over a corpus of scene texts.
pub struct Fuzzer {
    rng: Rng,
    corpus: Vec<String>,
}

/// What a round found.
#[derive(Debug, Default)]
pub struct Report {
    pub runs: u64,
    /// Inputs that were valid scenes (the rest were refused with problems listed).
    pub valid: u64,
    /// Inputs that panicked, with the panic message.
    pub panics: Vec<(String, String)>,
    /// The slowest input and its time.
    pub slowest: (Duration, String),
}

/// The scene files under `root`'s `scenes/` (figures included) and `tests/scenes/`, sorted by
/// path. (Parsed as `fuzz.toml`, a figure's panel paths lead nowhere: its reader meets missing
/// files, not the shipped scenes.)
pub fn corpus(root: &Path) -> Vec<String> {
    let mut paths: Vec<std::path::PathBuf> =
        ["scenes", "tests/scenes"].iter().filter_map(|d| crate::scene::scene_files(&root.join(d)).ok()).flatten().collect();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect()
}

fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[rng.below(items.len() as u64) as usize]
}

/// The largest char boundary at or below `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl Fuzzer {
    pub fn new(corpus: Vec<String>, seed: u64) -> Self {
        assert!(!corpus.is_empty(), "fuzzing needs at least one scene to start from");
        Fuzzer { rng: Rng::new(seed), corpus }
    }

    /// A new input: a corpus scene with one to four edits.
    pub fn scene(&mut self) -> String {
        let mut text = pick(&mut self.rng, &self.corpus).clone();
        for _ in 0..1 + self.rng.below(4) {
            text = self.edit(text);
        }
        text
    }

    fn edit(&mut self, text: String) -> String {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        if lines.is_empty() {
            lines.push(String::new());
        }
        let at = self.rng.below(lines.len() as u64) as usize;
        let r = &mut self.rng;
        match r.below(10) {
            // a value swapped for an extreme or wrongly typed one
            0..=2 => {
                if let Some((key, _)) = lines[at].split_once('=') {
                    lines[at] = format!("{key}= {}", pick(r, VALUES));
                }
            }
            3 => {
                lines.remove(at);
            }
            4 => {
                let line = lines[at].clone();
                lines.insert(at, line);
            }
            // a line or table header borrowed from another scene (often of another kind)
            5 => {
                let other = pick(r, &self.corpus);
                let others: Vec<&str> = other.lines().collect();
                if !others.is_empty() {
                    lines.insert(at, pick(r, &others).to_string());
                }
            }
            // a table repeated many times
            6 => {
                let end = (at + 1 + r.below(8) as usize).min(lines.len());
                let block = lines[at..end].join("\n");
                let times = 1 + r.below(200) as usize;
                lines.insert(end, std::iter::repeat_n(block, times).collect::<Vec<_>>().join("\n"));
            }
            7 => {
                let joined = lines.join("\n");
                let cut = floor_boundary(&joined, r.below(joined.len() as u64 + 1) as usize);
                return joined[..cut].to_string();
            }
            8 => {
                let shard = pick(r, SHARDS);
                let line = &mut lines[at];
                let pos = floor_boundary(line, r.below(line.len() as u64 + 1) as usize);
                line.insert_str(pos, shard);
            }
            _ => {
                let depth = 1 + r.below(2000) as usize;
                lines.insert(at, format!("deep = {}1{}", "[".repeat(depth), "]".repeat(depth)));
            }
        }
        lines.join("\n")
    }

    /// A frame spec: numbers, ranges, commas, minus signs and stray characters.
    pub fn frame_spec(&mut self) -> String {
        const PARTS: &[&str] = &["0", "1", "9", "40", "-1", "-5", "..", ",", " ", "4294967295", "99999999999", "-", "x", "1..", "..3", ""];
        (0..self.rng.below(8)).map(|_| *pick(&mut self.rng, PARTS)).collect()
    }

    /// A size: two numbers around an `x`, or not quite.
    pub fn size(&mut self) -> String {
        const PARTS: &[&str] = &["640", "0", "16", "8192", "8193", "4294967296", "-1", "x", "X", "×", " ", "1e3", "", "abc"];
        (0..self.rng.below(5)).map(|_| *pick(&mut self.rng, PARTS)).collect()
    }
}

/// Validates `text` as a scene (and, when valid, estimates its memory), parses a frame spec and
/// a size: everything must return, never panic. Whether the scene was valid.
pub fn exercise(text: &str, frame_spec: &str, size: &str) -> bool {
    let valid = match crate::scene::parse(text, Path::new("fuzz.toml")) {
        Ok(scene) => {
            let _ = scene.memory_estimate(8);
            let _ = crate::scene::frames::parse_frames(frame_spec, scene.sim.timing.frames.min(100_000));
            true
        }
        Err(_) => false,
    };
    let _ = crate::scene::frames::parse_frames(frame_spec, 1000);
    let _ = crate::scene::common::parse_size(size);
    valid
}

/// Runs `runs` inputs from `fuzzer`, catching panics.
pub fn round(fuzzer: &mut Fuzzer, runs: u64) -> Report {
    let mut report = Report::default();
    for _ in 0..runs {
        let (text, spec, size) = (fuzzer.scene(), fuzzer.frame_spec(), fuzzer.size());
        let start = Instant::now();
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| exercise(&text, &spec, &size)));
        let took = start.elapsed();
        report.valid += u64::from(outcome.as_ref().is_ok_and(|v| *v));
        if let Err(panic) = outcome {
            let message = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
            report.panics.push((format!("{text}\n# frames: {spec:?}, size: {size:?}"), message.unwrap_or_default()));
        }
        if took > report.slowest.0 {
            report.slowest = (took, text);
        }
        report.runs += 1;
    }
    report
}
