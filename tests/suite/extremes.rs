//! Every value the schema allows renders, or is refused up front: each numeric key of every kind
//! (and of the tables every scene has) is set to its declared minimum and then its maximum, one at
//! a time, and `simreel render` draws the first frames of the scene under an address-space cap of
//! 8 GiB. Each run must end with exit 0, or exit 2 and a message
//! (refused before anything is drawn: too large for the memory, a value out of range) — never a
//! panic, an abort, a crash or a hang.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use simreel::scene::keys::{Key, Ty};
use simreel::scene::kind_tables::ROOT;

use crate::common::{require_gpu, scratch};

/// The address-space cap each run gets, KiB (`ulimit -v`): 8 GiB, a third of a CI machine, so
/// that the two runs at a time fit beside each other.
const CAP_KIB: u64 = 8 << 20;
/// A run longer than this is a hang.
const LIMIT: Duration = Duration::from_secs(240);

/// One scene to try: what it sets, and its text.
struct Case {
    what: String,
    text: String,
}

fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{x:.1}") } else { format!("{x:e}") }
}

/// A key's least and greatest values, as TOML (each numeric alternative's for a key of several
/// types); none for a key that is not a number.
fn extremes(ty: &Ty) -> Option<Vec<String>> {
    if let Ty::Either(alternatives) = ty {
        let all: Vec<String> = alternatives.iter().filter_map(extremes).flatten().collect();
        return (!all.is_empty()).then_some(all);
    }
    one_type_extremes(ty).map(Vec::from)
}

fn one_type_extremes(ty: &Ty) -> Option<[String; 2]> {
    let vector = |len: usize, x: String| if len == 1 { x } else { format!("[{}]", vec![x; len].join(", ")) };
    Some(match *ty {
        Ty::Int { min, max } => [min.to_string(), max.to_string()],
        Ty::Float { min, max } => [number(min), number(max)],
        Ty::IntIn(list) => [list.first()?.to_string(), list.last()?.to_string()],
        Ty::Vector { len, min, max } | Ty::Animated { len, min, max } => [vector(len, number(min)), vector(len, number(max))],
        Ty::Whole { len, min, max } => [vector(len, min.to_string()), vector(len, max.to_string())],
        _ => return None,
    })
}

/// Every numeric key under `table` (plain tables and arrays of tables followed; an array of tables
/// is marked by a `[]` after its name), with its path.
fn numeric_keys(keys: &'static [Key], path: &mut Vec<&'static str>, out: &mut Vec<(Vec<&'static str>, &'static Key)>) {
    for k in keys {
        match k.ty {
            Ty::Table(t) => {
                path.push(k.name);
                numeric_keys(t.keys, path, out);
                path.pop();
            }
            Ty::Tables(t) => {
                path.push(k.name);
                path.push("[]");
                numeric_keys(t.keys, path, out);
                path.truncate(path.len() - 2);
            }
            _ if extremes(&k.ty).is_some() => {
                let mut p = path.clone();
                p.push(k.name);
                out.push((p, k));
            }
            _ => {}
        }
    }
}

/// The scene of `kind` with the key at `path` set to `value` (TOML text); a golden table's key
/// comes with the tolerance's `reason` a `[golden]` table needs.
fn scene_text(kind: &str, path: &[&str], value: &str) -> String {
    let (table, name) = path.split_at(path.len() - 1);
    let mut text = format!("kind = \"{kind}\"\nname = \"x\"\n");
    if table.is_empty() {
        text.push_str(&format!("{} = {value}\n", name[0]));
        return text;
    }
    let header = match table.iter().position(|p| *p == "[]") {
        Some(at) => {
            format!("[[{}]]", table[..at].join("."))
                + &table[at + 1..].iter().map(|t| format!("\n[{}.{t}]", table[..at].join("."))).collect::<String>()
        }
        None => format!("[{}]", table.join(".")),
    };
    text.push_str(&format!("\n{header}\n{} = {value}\n", name[0]));
    if table[0] == "golden" {
        text.push_str(if table.len() == 1 { "\n[golden.tolerance]\nreason = \"a sweep\"\n" } else { "reason = \"a sweep\"\n" });
    }
    text
}

/// Every case: each kind whose bare scene loads, each numeric key at each end of its range.
fn cases() -> Vec<Case> {
    let tagged = ROOT.tagged.as_ref().expect("scenes are tagged by kind");
    let mut cases = Vec::new();
    for (kind, kind_keys) in tagged.cases {
        if simreel::scene::parse(&format!("kind = \"{kind}\"\n"), Path::new("x.toml")).is_err() {
            continue; // a kind that needs more than its name (a figure's panels)
        }
        let mut keys = Vec::new();
        let common: &'static [Key] = ROOT.keys;
        numeric_keys(common, &mut Vec::new(), &mut keys);
        numeric_keys(kind_keys, &mut Vec::new(), &mut keys);
        for (path, key) in keys {
            for value in extremes(&key.ty).expect("a numeric key") {
                if path.iter().filter(|p| **p == "[]").count() > 1 {
                    continue; // arrays of tables in arrays of tables: their parents' cases cover the reader
                }
                cases.push(Case { what: format!("{kind}: {} = {value}", path.join(".")), text: scene_text(kind, &path, &value) });
            }
        }
    }
    cases
}

/// The frames to draw of `text`: the first, and a few steps in where the scene has them.
fn frames(text: &str) -> String {
    match simreel::scene::parse(text, Path::new("x.toml")) {
        Ok(s) if s.sim.timing.frames > 1 => format!("0,{}", (s.sim.timing.frames - 1).min(3)),
        _ => "0".into(),
    }
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
fn every_key_at_either_end_of_its_range_renders_or_is_refused_up_front() {
    require_gpu();
    let dir = scratch();
    let cases = cases();
    assert!(cases.len() > 100, "only {} cases: the key walk lost its way", cases.len());
    let next = Mutex::new(0usize);
    let failures = Mutex::new(Vec::<String>::new());
    let slowest = Mutex::new((Duration::ZERO, String::new()));
    let refused = Mutex::new(Vec::<String>::new());
    std::thread::scope(|s| {
        for worker in 0..2 {
            let (dir, cases, next, failures, slowest, refused) = (&dir, &cases, &next, &failures, &slowest, &refused);
            s.spawn(move || {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(case) = cases.get(i) else { break };
                    let here = dir.join(format!("w{worker}"));
                    let _ = std::fs::remove_dir_all(&here);
                    std::fs::create_dir_all(&here).unwrap();
                    std::fs::write(here.join("x.toml"), &case.text).unwrap();
                    let t0 = Instant::now();
                    let script = format!(
                        "ulimit -v {CAP_KIB} && exec timeout -s KILL {} {} render x.toml --frames {} --format png --quiet",
                        LIMIT.as_secs(),
                        env!("CARGO_BIN_EXE_simreel"),
                        frames(&case.text)
                    );
                    let o = Command::new("sh")
                        .arg("-c")
                        .arg(script)
                        .current_dir(&here)
                        .env_remove("SIMREEL_BACKEND")
                        .env_remove("SIMREEL_ADAPTER")
                        .stdin(Stdio::null())
                        .output()
                        .unwrap();
                    let took = t0.elapsed();
                    let err = String::from_utf8_lossy(&o.stderr).to_string();
                    let code = o.status.code();
                    let fine = match code {
                        Some(0) => true,
                        Some(2) => err.contains("error") && !err.contains("panicked"),
                        _ => false,
                    };
                    if fine && code == Some(2) {
                        refused.lock().unwrap().push(format!("{}: {}", case.what, err.lines().next().unwrap_or_default()));
                    }
                    if !fine || err.contains("panicked") {
                        let last: String = err.lines().rev().take(4).collect::<Vec<_>>().join(" | ");
                        failures.lock().unwrap().push(format!("{} → exit {code:?} after {took:.1?}: {last}", case.what));
                    }
                    let mut sl = slowest.lock().unwrap();
                    if took > sl.0 {
                        *sl = (took, case.what.clone());
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let (took, what) = slowest.into_inner().unwrap();
    let refused = refused.into_inner().unwrap();
    eprintln!("{} cases, {} refused up front; the slowest: {what} ({took:.1?})", cases.len(), refused.len());
    for r in &refused {
        eprintln!("  refused: {r}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} extremes neither rendered nor were refused:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
