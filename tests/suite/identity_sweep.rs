//! The sweep behind "same bytes whatever the output folder holds": for every shipped scene and
//! figure (panel parts included), every value the file holds — numbers, colours, booleans, list
//! items, strings where another valid one exists — and a sample of keys it leaves at their
//! defaults is edited, one at a time; a middle and the last frame of each edited scene are rendered
//! into a copy of the folder of a whole run of the unedited scene (with `--resume`: saved states
//! and kept frames both in play) and into an empty folder, and the bytes must match. Some edits
//! of each scene also go through a split render (two shards and a merge) into a copy of the
//! folder, and through the studio's engine, whose saved states come from the folder too.
//!
//! The test suite tries twelve edits per file, spread over it, into the folder of a run of every
//! few frames; `SIMREEL_SWEEP=all` tries every one (about 1,260 edits, seven minutes on two
//! cores) into the folder of a run of every frame. `SIMREEL_SWEEP_DUMP=FILE` appends the edits
//! tried to FILE as JSON lines (file, what, text, frames), for `scripts/sweep-cli` to run them
//! through any build's command line. Everything runs in this process on
//! renderers made once (`render::Pool`), at 48×32, on two threads, each with its own copy of
//! `scenes/`.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use simreel::output::layout::SceneFolder;
use simreel::pipeline::{self, Job, ProgressMode};
use simreel::render::Pool;
use simreel::scene::keys::{DefaultValue, Key, Table, Ty};
use simreel::scene::{Scene, kind_tables::ROOT};
use toml::de::{DeTable, DeValue};

use crate::common::{require_gpu, root, scratch};

/// The size every run of the sweep draws at (as `--size` gives it).
const SIZE: (u32, u32) = (48, 32);
/// Keys left at their defaults tried per file.
const DEFAULTS: usize = 3;
/// Edits per file that also go through a split render and the studio's engine.
const DEEP: usize = 3;
/// Edits per file the test suite tries, spread over the file; `SIMREEL_SWEEP=all` tries every one.
const SAMPLE: usize = 12;

/// Whether `SIMREEL_SWEEP=all` asks for every edit (and whole runs of every frame).
fn all_edits() -> bool {
    std::env::var("SIMREEL_SWEEP").as_deref() == Ok("all")
}

/// One edit of a file: what it changes, and the file's text with it.
struct Edit {
    what: String,
    text: String,
}

/// A value in a file: where it is (a dotted path for messages), its text's span, and the texts
/// that could take its place.
struct Leaf {
    path: String,
    span: Range<usize>,
    others: Vec<String>,
}

/// The declaration of the key at `path` (table names; array items are not in it) in a scene of
/// kind `kind`.
fn declaration(kind: &str, path: &[String]) -> Option<&'static Key> {
    let tagged = ROOT.tagged.as_ref()?;
    let kind_keys = tagged.cases.iter().find(|(k, _)| *k == kind)?.1;
    let first = path.first()?.as_str();
    let mut key: &'static Key = ROOT.keys.iter().chain(kind_keys.iter()).find(|k| k.name == first)?;
    for name in &path[1..] {
        let table: &'static Table = match key.ty {
            Ty::Table(t) | Ty::Tables(t) => t,
            _ => return None,
        };
        key = table.key(name)?;
    }
    Some(key)
}

fn number_text(x: f64) -> String {
    let s = format!("{x:?}");
    if s.contains('.') || s.contains('e') || s.contains("inf") || s.contains("NaN") { s } else { format!("{s}.0") }
}

/// Texts that could take the place of `value` (at key `key` where declared).
fn others(value: &DeValue, key: Option<&Key>) -> Vec<String> {
    match value {
        DeValue::Integer(i) => match i.as_str().replace('_', "").parse::<i64>() {
            Ok(n) => [n + 1, n - 1, n + 2, n * 2].iter().map(i64::to_string).collect(),
            Err(_) => Vec::new(),
        },
        DeValue::Float(f) => match f.as_str().replace('_', "").parse::<f64>() {
            Ok(x) => [x * 1.1, x + 0.1, x - 0.1, x * 0.9, x + 1.0].iter().map(|v| number_text(*v)).collect(),
            Err(_) => Vec::new(),
        },
        DeValue::Boolean(b) => vec![(!b).to_string()],
        DeValue::String(s) => {
            let quoted = |t: &str| toml::Value::String(t.to_string()).to_string();
            if s.starts_with('#') && s.len() > 3 && s[1..].chars().all(|c| c.is_ascii_hexdigit()) {
                return ["#336699", "#a05a2c"].iter().filter(|c| **c != s.as_ref()).map(|c| quoted(c)).collect();
            }
            match key.map(|k| k.ty) {
                Some(Ty::Choice(choices)) => choices.iter().filter(|c| **c != s.as_ref()).map(|c| quoted(c)).collect(),
                Some(Ty::List(Ty::Choice(choices)) | Ty::NonEmpty(Ty::Choice(choices))) => {
                    choices.iter().filter(|c| **c != s.as_ref()).map(|c| quoted(c)).collect()
                }
                _ => vec![quoted(&format!("{s}x"))],
            }
        }
        _ => Vec::new(),
    }
}

/// Every value of `table` (at `path`), arrays by their first and last items (a row of numbers by
/// its first and last numbers).
fn leaves(table: &DeTable, kind: &str, path: &[String], out: &mut Vec<Leaf>) {
    for (k, v) in table.iter() {
        let name = k.get_ref().to_string();
        // what names a file, or the output folder, is not a value of the scene's
        if path.is_empty() && ["kind", "name"].contains(&name.as_str()) || ["scene", "data", "images"].contains(&name.as_str()) {
            continue;
        }
        let mut here = path.to_vec();
        here.push(name);
        value(v, kind, &here, out);
    }
}

fn value(v: &toml::Spanned<DeValue>, kind: &str, path: &[String], out: &mut Vec<Leaf>) {
    match v.get_ref() {
        DeValue::Table(t) => leaves(t, kind, path, out),
        DeValue::Array(items) => {
            let n = items.len();
            for (i, item) in items.iter().enumerate() {
                let table = matches!(item.get_ref(), DeValue::Table(_));
                if table || i == 0 || i + 1 == n {
                    value(item, kind, path, out);
                }
            }
        }
        scalar => {
            let others = others(scalar, declaration(kind, path));
            if !others.is_empty() {
                out.push(Leaf { path: path.join("."), span: v.span(), others });
            }
        }
    }
}

/// A value of `key`'s type other than its default, as TOML text.
fn non_default(key: &Key) -> Option<String> {
    Some(match (key.ty, key.default) {
        (Ty::Int { min, max }, DefaultValue::Int(d)) => (if d < max { d + 1 } else { d.checked_sub(1).filter(|v| *v >= min)? }).to_string(),
        (Ty::Float { min, max }, DefaultValue::Float(d)) => {
            let v = if d + 0.5 <= max { d + 0.5 } else { (d + min) / 2.0 };
            number_text(v)
        }
        (Ty::IntIn(allowed), DefaultValue::Int(d)) => allowed.iter().find(|a| **a != d)?.to_string(),
        (Ty::Bool, DefaultValue::Bool(b)) => (!b).to_string(),
        (Ty::Choice(c), _) if c.len() > 1 => format!("\"{}\"", c[1]),
        (Ty::Color, _) => "\"#336699\"".into(),
        _ => return None,
    })
}

/// The edits of the file at `path` (its text `text`, its scene `base`).
fn edits(path: &Path, text: &str, base: &Scene) -> Vec<Edit> {
    let (doc, _) = DeTable::parse_recoverable(text);
    let kind = base.kind_name();
    let mut found = Vec::new();
    leaves(doc.get_ref(), kind, &[], &mut found);
    let mut out = Vec::new();
    let reads = |t: &str| simreel::scene::parse(t, path).ok().filter(|s| s != base);
    for leaf in found {
        // the first other value the reader takes
        let edit = leaf
            .others
            .iter()
            .map(|o| (o, format!("{}{o}{}", &text[..leaf.span.start], &text[leaf.span.end..])))
            .find(|(_, t)| reads(t).is_some());
        if let Some((value, text)) = edit {
            out.push(Edit { what: format!("{} = {value}", leaf.path), text });
        }
    }
    // a sample of the kind's own keys left at their defaults, every few of them
    let table = declaration(kind, &[kind.to_string()]).and_then(|k| if let Ty::Table(t) = k.ty { Some(t) } else { None });
    if let Some(t) = table {
        let given = doc.get_ref().get(kind).map(|v| v.get_ref().clone());
        let absent: Vec<&Key> = t
            .keys
            .iter()
            .filter(|k| given.as_ref().is_none_or(|g| matches!(g, DeValue::Table(g) if !g.contains_key(k.name))))
            .filter(|k| non_default(k).is_some())
            .collect();
        let step = (absent.len() / DEFAULTS).max(1);
        for key in absent.iter().step_by(step).take(DEFAULTS) {
            let line = format!("{} = {}", key.name, non_default(key).expect("filtered"));
            let header = format!("\n[{kind}]\n");
            let text = match text.find(&header) {
                Some(at) => format!("{}{line}\n{}", &text[..at + header.len()], &text[at + header.len()..]),
                None => format!("{text}\n[{kind}]\n{line}\n"),
            };
            if reads(&text).is_some() {
                out.push(Edit { what: format!("{kind}.{line} (left at its default in the file)"), text });
            }
        }
    }
    out
}

/// `file` read now, drawn at the sweep's size.
fn load(file: &Path) -> Scene {
    let mut s = simreel::scene::load(file).unwrap_or_else(|e| panic!("{e}"));
    (s.look.width, s.look.height) = SIZE;
    s
}

/// What a render left of its frames: the PNGs' bytes, and the bytes of the states saved at them
/// (a state restored from another simulation can draw the same pixels at a small size, as a
/// chart's history of another length does, and still be wrong for every later run). A state the
/// render into an empty folder saves must be saved the same into the full one; one only the full
/// folder holds (of the unedited scene, passed over) is never restored, so it is not compared.
#[derive(Clone, PartialEq)]
struct Written {
    pngs: Vec<Vec<u8>>,
    states: Vec<Option<Vec<u8>>>,
}

/// Renders `frames` of `scene` into `out` (keeping what `--resume` keeps).
fn render(scene: &Scene, out: &Path, frames: &[u32], resume: bool, pool: &mut Pool) -> Written {
    let job = Job::new(scene.clone(), out).frames(frames.to_vec()).formats(vec![simreel::scene::Format::Png]).resume(resume);
    pipeline::run_with(&job, ProgressMode::Quiet, &AtomicBool::new(false), pool)
        .unwrap_or_else(|e| panic!("{}: {e}", scene.path.display()));
    let folder = SceneFolder::of(out, scene);
    Written {
        pngs: frames.iter().map(|&f| std::fs::read(folder.frame(f)).unwrap()).collect(),
        states: frames.iter().map(|&f| std::fs::read(folder.snapshot(f)).ok()).collect(),
    }
}

/// What one thread found: edits tried, deep ones, and the mismatches.
#[derive(Default)]
struct Tally {
    edits: usize,
    deep: usize,
    mismatches: Vec<String>,
}

/// The sweep over `files` (relative to `scenes/`), in a copy of `scenes/` under `dir`.
fn sweep(files: &[PathBuf], dir: &Path) -> Tally {
    let mut tally = Tally::default();
    crate::common::copy_tree(&root().join("scenes"), &dir.join("scenes"));
    let mut pool = Pool::new(3);
    let engine = simreel::studio::engine::Engine::start(Default::default(), dir.join("studio-out"));
    for rel in files {
        let started = std::time::Instant::now();
        let before = tally.edits;
        let file = dir.join("scenes").join(rel);
        let original = std::fs::read_to_string(&file).unwrap();
        let base = load(&file);
        let total = base.frames();
        let frames: Vec<u32> = if total > 1 { vec![total / 2, total - 1] } else { vec![0] };
        // a whole run of the unedited scene: every frame, the saved states, the manifest
        let full = dir.join("full");
        let _ = std::fs::remove_dir_all(&full);
        // (the suite's sample renders every few frames of it, about two dozen, and the two it edits)
        let every = if all_edits() { 1 } else { total.div_ceil(24) as usize };
        let whole: std::collections::BTreeSet<u32> = (0..total).step_by(every).chain(frames.iter().copied()).collect();
        render(&base, &full, &whole.into_iter().collect::<Vec<_>>(), false, &mut pool);
        // a frame rendered afresh is the same for every edit of the same identity
        let mut fresh: HashMap<simreel::scene::Identity, Written> = HashMap::new();
        let mut edits = edits(&file, &original, &simreel::scene::load(&file).unwrap());
        if !all_edits() && edits.len() > SAMPLE {
            let n = edits.len();
            let picked: Vec<usize> = (0..SAMPLE).map(|i| i * n / SAMPLE).collect();
            edits = edits.into_iter().enumerate().filter(|(i, _)| picked.contains(i)).map(|(_, e)| e).collect();
        }
        if let Ok(dump) = std::env::var("SIMREEL_SWEEP_DUMP") {
            // the edits as JSON lines, for running the same sweep through another build's CLI
            let lines: String = edits
                .iter()
                .map(|e| serde_json::json!({ "file": rel, "what": e.what, "text": e.text, "frames": frames }).to_string() + "\n")
                .collect();
            let mut f = std::fs::OpenOptions::new().create(true).append(true).open(dump).unwrap();
            std::io::Write::write_all(&mut f, lines.as_bytes()).unwrap();
        }
        let deep_every = (edits.len() / DEEP).max(1);
        for (k, edit) in edits.iter().enumerate() {
            std::fs::write(&file, &edit.text).unwrap();
            let scene = load(&file);
            let frames: Vec<u32> =
                frames.iter().map(|&f| f.min(scene.frames() - 1)).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
            let expected = fresh
                .entry(scene.identity())
                .or_insert_with(|| {
                    let empty = dir.join("fresh");
                    let _ = std::fs::remove_dir_all(&empty);
                    render(&scene, &empty, &frames, false, &mut pool)
                })
                .clone();
            let kept = dir.join("kept");
            let _ = std::fs::remove_dir_all(&kept);
            crate::common::copy_tree(&full, &kept);
            let got = render(&scene, &kept, &frames, true, &mut pool);
            tally.edits += 1;
            if got.pngs != expected.pngs {
                tally.mismatches.push(format!("{}: {} (into the folder of its unedited run)", rel.display(), edit.what));
            } else if got.states.iter().zip(&expected.states).any(|(g, e)| e.is_some() && g != e) {
                tally.mismatches.push(format!(
                    "{}: {} (the same frames, another saved state, in the folder of its unedited run)",
                    rel.display(),
                    edit.what
                ));
            }
            if k % deep_every == 0 {
                tally.deep += 1;
                // two shards and a merge, into a copy of the folder
                let split = dir.join("split");
                let _ = std::fs::remove_dir_all(&split);
                crate::common::copy_tree(&full, &split);
                for i in 1..=2 {
                    let job = Job::new(scene.clone(), &split).frames(frames.clone()).formats(vec![simreel::scene::Format::Png]);
                    for job in simreel::split::shard_jobs(vec![job], i, 2).unwrap() {
                        pipeline::run_with(&job, ProgressMode::Quiet, &AtomicBool::new(false), &mut pool).unwrap_or_else(|e| panic!("{e}"));
                    }
                }
                let merged = simreel::merge::merge(&split, &scene, &[simreel::scene::Format::Png], Some(2));
                let folder = SceneFolder::of(&split, &scene);
                let got: Vec<Vec<u8>> = frames.iter().map(|&f| std::fs::read(folder.frame(f)).unwrap_or_default()).collect();
                if let Err(e) = merged {
                    tally.mismatches.push(format!("{}: {}: the merge failed: {e}", rel.display(), edit.what));
                } else if got != expected.pngs {
                    tally.mismatches.push(format!("{}: {} (through two shards and a merge)", rel.display(), edit.what));
                }
                // the studio's engine, its saved states from the folder of the unedited run
                let studio_out = dir.join("studio-out");
                let _ = std::fs::remove_dir_all(&studio_out);
                crate::common::copy_tree(&full, &studio_out);
                let scene = std::sync::Arc::new(scene.clone());
                let mut served = HashMap::new();
                served.insert(scene.path.clone(), scene.clone());
                engine.serve(served);
                let got: Vec<Vec<u8>> =
                    frames.iter().map(|&f| engine.frame(scene.clone(), f, false).map(|s| s.png.clone()).unwrap_or_default()).collect();
                if got != expected.pngs {
                    tally.mismatches.push(format!("{}: {} (through the studio's engine)", rel.display(), edit.what));
                }
            }
        }
        std::fs::write(&file, &original).unwrap();
        eprintln!("  {}: {} edits, {:.1} s", rel.display(), tally.edits - before, started.elapsed().as_secs_f64());
    }
    tally
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn every_edit_of_every_shipped_scene_draws_the_same_bytes_whatever_the_folder_holds() {
    require_gpu();
    let dir = scratch();
    let scenes = root().join("scenes");
    let files: Vec<PathBuf> =
        simreel::scene::scene_files(&scenes).unwrap().into_iter().map(|p| p.strip_prefix(&scenes).unwrap().to_path_buf()).collect();
    assert!(files.len() > 30, "{} shipped scene files", files.len());
    let started = std::time::Instant::now();
    // two threads, each with a copy of scenes/ and its own renderers
    let halves: Vec<Vec<PathBuf>> = (0..2).map(|h| files.iter().skip(h).step_by(2).cloned().collect()).collect();
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let handles: Vec<_> = halves
            .iter()
            .enumerate()
            .map(|(h, part)| {
                let dir = dir.join(format!("thread{h}"));
                s.spawn(move || sweep(part, &dir))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let edits: usize = tallies.iter().map(|t| t.edits).sum();
    let deep: usize = tallies.iter().map(|t| t.deep).sum();
    let mismatches: Vec<&String> = tallies.iter().flat_map(|t| &t.mismatches).collect();
    eprintln!(
        "identity sweep: {} files, {edits} edits ({deep} also split and through the studio), {} mismatches, {:.0} s",
        files.len(),
        mismatches.len(),
        started.elapsed().as_secs_f64()
    );
    let least = if all_edits() { 1000 } else { files.len() * SAMPLE * 9 / 10 };
    assert!(edits >= least, "only {edits} edits: the sweep lost values");
    assert!(
        mismatches.is_empty(),
        "{} edits depend on what the folder held:\n{}",
        mismatches.len(),
        mismatches.iter().map(|m| m.as_str()).collect::<Vec<_>>().join("\n")
    );
}
