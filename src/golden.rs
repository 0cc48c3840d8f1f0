//! `simreel golden check` and `simreel golden bless`: render the frames a scene's `[golden]` table
//! lists, compare them with the approved images under `tests/golden/<scene>/` (canonical ones
//! from lavapipe, override folders for other adapters), and explain failures: which frame first
//! diverged, whether the simulation state changed or only the rendering, and a report with
//! pictures. Checking never writes goldens; blessing renders twice and refuses non-determinism.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::output::compare::{self, Comparison};
use crate::output::png::{self, Decoded, Effort};
use crate::output::report::{self, Entry, SequenceNote};
use crate::output::{OutputError, frame_file_name, write_atomic};
use crate::pipeline::{self, Job, PipelineError, ProgressMode};
use crate::render::{AdapterRequest, AdapterSummary};
use crate::scene::golden::{GoldenSpec, Tolerance};
use crate::scene::{Format, Scene};

/// Where goldens, renders and reports live.
#[derive(Clone, Debug)]
pub struct Paths {
    /// `tests/golden`
    pub goldens: PathBuf,
    /// `out`: renders go to `out/golden-run/<scene>/`, the report to `out/golden-report/`.
    pub out: PathBuf,
    /// Shard I of N of a split check: its report goes to `out/golden-report/shard-I-of-N/`.
    pub shard: Option<(u32, u32)>,
}

impl Paths {
    pub fn run_dir(&self) -> PathBuf {
        self.out.join("golden-run")
    }

    /// Where this check's report goes.
    pub fn report_dir(&self) -> PathBuf {
        match self.shard {
            Some((i, n)) => self.merged_report_dir().join(shard_report_name(i, n)),
            None => self.merged_report_dir(),
        }
    }

    /// Where a whole check's report, or the merge of a split check's, goes.
    pub fn merged_report_dir(&self) -> PathBuf {
        self.out.join("golden-report")
    }
}

fn shard_report_name(i: u32, n: u32) -> String {
    crate::output::manifest::ShardInfo::stem(i, n)
}

/// The scenes shard `i` of `n` checks: whole scenes dealt by estimated cost (the golden frames
/// drawn at the golden size, and the simulation up to the last of them), most expensive first;
/// and what the shard's report records of the deal.
pub fn shard_scenes(scenes: Vec<Scene>, i: u32, n: u32) -> (Vec<Scene>, report::ReportShard) {
    let costs: Vec<f64> = scenes
        .iter()
        .map(|s| {
            let Some(spec) = &s.golden else { return 0.0 };
            let (draw, simulate) = crate::split::costs(s, spec.size.0, spec.size.1);
            let last = spec.frames.iter().max().map_or(0, |&f| f + 1);
            spec.frames.len() as f64 * draw + last as f64 * simulate
        })
        .collect();
    let mine = crate::split::whole(&costs, n).swap_remove(i as usize - 1);
    let all = scenes.iter().map(|s| (s.name.clone(), format!("{:016x}", s.source_hash))).collect();
    let mine: Vec<Scene> = scenes.into_iter().enumerate().filter(|(k, _)| mine.contains(k)).map(|(_, s)| s).collect();
    let info = report::ReportShard {
        index: i,
        count: n,
        simreel: crate::BUILD.to_string(),
        scenes: all,
        checked: mine.iter().map(|s| s.name.clone()).collect(),
    };
    (mine, info)
}

/// Checks that the shards' reports are of one split check: each where its folder says, one
/// version and list of scenes, every scene checked by exactly one shard.
fn one_check(parts: &[(PathBuf, report::Report)], n: u32) -> Result<(), GoldenError> {
    let bad = |what: String| Err(GoldenError::Shards(what));
    let mut by: std::collections::BTreeMap<&str, u32> = std::collections::BTreeMap::new();
    let mut first: Option<&report::ReportShard> = None;
    for (k, (dir, part)) in parts.iter().enumerate() {
        let i = k as u32 + 1;
        let Some(s) = &part.shard else { return bad(format!("{}: not a shard's report", dir.display())) };
        if (s.index, s.count) != (i, n) {
            return bad(format!("{}: the report says it is shard {}/{}", dir.display(), s.index, s.count));
        }
        let f = *first.get_or_insert(s);
        if (&s.simreel, &s.scenes) != (&f.simreel, &f.scenes) {
            return bad(format!(
                "shard {i}/{n} checked {} with simreel {}, shard 1/{n} {} with simreel {}: the reports are of different checks; rerun the stale shard",
                names(&s.scenes),
                s.simreel,
                names(&f.scenes),
                f.simreel
            ));
        }
        for scene in &s.checked {
            if let Some(other) = by.insert(scene, i) {
                return bad(format!("{scene} was checked by shards {other}/{n} and {i}/{n}"));
            }
        }
    }
    if let Some((scene, _)) = first.and_then(|f| f.scenes.iter().find(|(name, _)| !by.contains_key(name.as_str()))) {
        return bad(format!("no shard checked {scene}"));
    }
    Ok(())
}

fn names(scenes: &[(String, String)]) -> String {
    scenes.iter().map(|(name, hash)| format!("{name} ({hash})")).collect::<Vec<_>>().join(", ")
}

/// Puts the reports of a split check's shards (`golden check --shard I/N`, in
/// `out/golden-report/shard-I-of-N/`) together into `out/golden-report/`: the `summary.json`,
/// `junit.xml` and `report.html` one machine's check of every scene would have written, and the
/// failing frames' images. `count` opens the shards by name; otherwise the folder is listed.
pub fn merge_reports(paths: &Paths, count: Option<u32>) -> Result<(u32, report::Report), GoldenError> {
    let base = paths.merged_report_dir();
    let n = match count {
        Some(n) => n,
        None => {
            let mut counts: Vec<u32> = std::fs::read_dir(&base)
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| match crate::output::manifest::ShardInfo::parse_stem(&e.file_name().to_string_lossy()) {
                    Some((_, n, "")) => Some(n),
                    _ => None,
                })
                .collect();
            counts.sort_unstable();
            counts.dedup();
            match counts.as_slice() {
                [n] => *n,
                [] => {
                    return Err(GoldenError::Shards(format!(
                        "{} holds no shard reports (shard-I-of-N): run `simreel golden check --shard I/N --out {}` first",
                        base.display(),
                        paths.out.display()
                    )));
                }
                _ => {
                    return Err(GoldenError::Shards(format!(
                        "{} holds reports of different splits ({}): remove the stale ones, or give --shards N",
                        base.display(),
                        counts.iter().map(|n| format!("of {n}")).collect::<Vec<_>>().join(", ")
                    )));
                }
            }
        }
    };
    let mut parts = Vec::new();
    for i in 1..=n {
        let dir = base.join(shard_report_name(i, n));
        let file = dir.join("report.json");
        let text = std::fs::read(&file).map_err(|_| {
            GoldenError::Shards(format!(
                "the report of shard {i}/{n} is missing ({}): run `simreel golden check … --shard {i}/{n}`",
                file.display()
            ))
        })?;
        let part: report::Report = serde_json::from_slice(&text)
            .map_err(|e| GoldenError::Shards(format!("{}: not a report simreel can read ({e})", file.display())))?;
        parts.push((dir, part));
    }
    one_check(&parts, n)?;
    // the merged folder's own files are replaced; the shards' folders stay
    for entry in std::fs::read_dir(&base).map_err(|source| OutputError::Read { path: base.clone(), source })?.flatten() {
        if entry.path().is_file() {
            crate::output::remove_stale(&entry.path())?;
        }
    }
    for (dir, part) in &parts {
        for r in part.records.iter().filter(|r| !r.passed) {
            let stem = format!("{}__frame_{:04}__", r.scene, r.frame);
            for entry in std::fs::read_dir(dir).map_err(|source| OutputError::Read { path: dir.clone(), source })?.flatten() {
                if entry.file_name().to_string_lossy().starts_with(&stem) {
                    let to = base.join(entry.file_name());
                    std::fs::copy(entry.path(), &to).map_err(|source| OutputError::Write { path: to, source })?;
                }
            }
        }
    }
    let merged = report::Report::merged(parts.into_iter().map(|(_, p)| p).collect());
    merged.write_files(&base)?;
    Ok((n, merged))
}

#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("{scene} has no [golden] table")]
    NoGolden { scene: String },
    #[error("refusing to bless {scene}: two renders differ at frame{} {}: {what}. Non-determinism is a bug to report, not to bless", if frames.len() == 1 { "" } else { "s" }, frames.iter().map(u32::to_string).collect::<Vec<_>>().join(", "))]
    NonDeterministic { scene: String, frames: Vec<u32>, what: String },
    #[error(
        "refusing to bless {scene} on {adapter}: goldens for adapters other than lavapipe go to an override folder; add a [[golden.overrides]] entry for it (backend, vendor, driver, reason)"
    )]
    NoOverride { scene: String, adapter: String },
    #[error("--from-last-run: {0}")]
    NoLastRun(String),
    #[error("--filter {0}")]
    Filter(String),
    #[error("{0}")]
    Shards(String),
}

/// The tolerance and approved-image folders that apply to `adapter` (most specific first).
pub struct Applied<'a> {
    pub tolerance: &'a Tolerance,
    pub dirs: Vec<PathBuf>,
    /// Folder new goldens for this adapter are written to (`None`: no override covers it).
    pub bless_dir: Option<PathBuf>,
    pub key: String,
}

pub fn applied<'a>(spec: &'a GoldenSpec, scene_dir: &Path, adapter: &AdapterSummary) -> Applied<'a> {
    if adapter.is_lavapipe() {
        return Applied {
            tolerance: &spec.tolerance,
            dirs: vec![scene_dir.to_path_buf()],
            bless_dir: Some(scene_dir.to_path_buf()),
            key: "lavapipe (canonical)".into(),
        };
    }
    let best = spec
        .overrides
        .iter()
        .map(|o| (o.specificity(&adapter.backend, &adapter.vendor, &adapter.driver), o))
        .filter(|(s, _)| *s > 0)
        .max_by_key(|(s, _)| *s)
        .map(|(_, o)| o);
    match best {
        Some(o) => Applied {
            tolerance: &o.tolerance,
            dirs: vec![scene_dir.join(&o.images), scene_dir.to_path_buf()],
            bless_dir: Some(scene_dir.join(&o.images)),
            key: format!("override \"{}\"", o.images),
        },
        None => Applied {
            tolerance: &spec.tolerance,
            dirs: vec![scene_dir.to_path_buf()],
            bless_dir: None,
            key: "no override for this adapter: canonical tolerance".into(),
        },
    }
}

/// Approved images for `frame` in the first folder that has any: `frame_NNNN.png` and any
/// `frame_NNNN.<label>.png` alternatives, sorted.
fn approved(dirs: &[PathBuf], frame: u32, total: u32) -> Vec<PathBuf> {
    let name = frame_file_name(frame, total);
    let stem = name.trim_end_matches(".png");
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else { continue };
        let mut found: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                n == name || (n.starts_with(&format!("{stem}.")) && n.ends_with(".png"))
            })
            .collect();
        if !found.is_empty() {
            found.sort();
            return found;
        }
    }
    Vec::new()
}

fn state_path(dir: &Path, frame: u32, total: u32) -> PathBuf {
    dir.join(frame_file_name(frame, total).replace(".png", ".state.txt"))
}

fn read_state(dirs: &[PathBuf], frame: u32, total: u32) -> Option<String> {
    dirs.iter().find_map(|d| std::fs::read_to_string(state_path(d, frame, total)).ok()).map(|s| s.trim().to_string())
}

/// Renders the golden frames of `scene` into `into/<scene>/` and returns the outcome.
fn render_golden(
    scene: &Scene,
    spec: &GoldenSpec,
    frames: &[u32],
    into: &Path,
    adapter: &AdapterRequest,
    mode: ProgressMode,
) -> Result<pipeline::Outcome, PipelineError> {
    let mut s = scene.clone();
    (s.render.width, s.render.height) = spec.size;
    let job = Job {
        scene: s,
        frames: frames.to_vec(),
        out_dir: into.to_path_buf(),
        formats: vec![Format::Png],
        adapter: adapter.clone(),
        resume: false,
        shard: None,
        snapshots: false,
    };
    pipeline::run(&job, mode, &AtomicBool::new(false))
}

/// The outcome of checking scenes.
pub struct CheckSummary {
    pub entries: Vec<Entry>,
    pub sequences: Vec<SequenceNote>,
    pub adapter: String,
}

impl CheckSummary {
    pub fn failures(&self) -> usize {
        self.entries.iter().filter(|e| !e.passed).count() + self.sequences.iter().filter(|s| s.flicker_failed).count()
    }
}

fn bless_command(scene: &Scene, frame: Option<u32>) -> String {
    let filter = match frame {
        Some(f) => format!("{}:{f}", scene.name),
        None => scene.name.clone(),
    };
    format!("simreel golden bless {} --filter {filter} --from-last-run", scene.path.display())
}

/// Checks every scene (each must have `[golden]`), writes the report, returns what happened.
/// A shard of a split check passes `shard`: what it was given and took, for its report.
pub fn check(
    scenes: &[Scene],
    paths: &Paths,
    adapter: &AdapterRequest,
    mode: ProgressMode,
    shard: Option<report::ReportShard>,
) -> Result<CheckSummary, GoldenError> {
    let mut entries = Vec::new();
    let mut sequences = Vec::new();
    let mut adapter_name = String::new();
    for scene in scenes {
        let spec = scene.golden.as_ref().ok_or_else(|| GoldenError::NoGolden { scene: scene.name.clone() })?;
        let outcome = render_golden(scene, spec, &spec.frames, &paths.run_dir(), adapter, mode)?;
        adapter_name = outcome.adapter.to_string();
        let scene_dir = paths.goldens.join(&scene.name);
        let rule = applied(spec, &scene_dir, &outcome.adapter);
        let total = scene.render.frames;
        let mut pairs: Vec<(u32, Decoded, Option<Decoded>)> = Vec::new();
        for &f in &spec.frames {
            let actual = png::read(&outcome.frames_dir.join(frame_file_name(f, total)))?;
            let state_actual = outcome.manifest.frames.iter().find(|e| e.index == f).map(|e| e.state.clone()).unwrap_or_default();
            let state_expected = read_state(&rule.dirs, f, total);
            let candidates = approved(&rule.dirs, f, total);
            let mut best: Option<(Comparison, PathBuf, Decoded)> = None;
            for c in &candidates {
                let expected = png::read(c)?;
                let cmp = compare::compare(&expected, &actual, rule.tolerance);
                let better = match &best {
                    None => true,
                    Some((b, _, _)) => {
                        (cmp.verdict.passed() && !b.verdict.passed())
                            || (cmp.verdict.passed() == b.verdict.passed() && cmp.severity() < b.severity())
                    }
                };
                if better {
                    best = Some((cmp, c.clone(), expected));
                }
            }
            let state_message = match &state_expected {
                None => "no golden state digest".to_string(),
                Some(s) if *s == state_actual => "simulation state identical (only the rendering can differ)".to_string(),
                Some(s) => format!("simulation state CHANGED: golden [{s}] now [{state_actual}]"),
            };
            let (passed, verdict, comparison, expected, expected_file) = match best {
                None => (false, format!("no golden image in {}", rule.dirs[0].display()), None, None, None),
                Some((c, file, exp)) => {
                    let alt = if candidates.len() > 1 { format!(" (best of {} approved images)", candidates.len()) } else { String::new() };
                    (c.verdict.passed(), format!("{}{alt}", c.describe()), Some(c), Some(exp), Some(file.display().to_string()))
                }
            };
            pairs.push((f, actual.clone(), expected.clone()));
            entries.push(Entry {
                scene: scene.name.clone(),
                frame: f,
                passed,
                verdict,
                comparison,
                expected,
                expected_file,
                actual,
                state_message,
                tolerance_reason: format!("{}: {}", rule.key, rule.tolerance.reason),
                bless_command: bless_command(scene, Some(f)),
            });
        }
        let scene_entries = &entries[entries.len() - spec.frames.len()..];
        let first_diverging = scene_entries.iter().filter(|e| !e.passed).map(|e| e.frame).min();
        // Flicker: frame-to-frame change of the actual sequence against the golden one.
        let mut ratios = Vec::new();
        for w in pairs.windows(2) {
            if let (Some(e0), Some(e1)) = (&w[0].2, &w[1].2) {
                let golden = compare::mean_abs_diff(e0, e1);
                let actual = compare::mean_abs_diff(&w[0].1, &w[1].1);
                if golden.is_finite() && actual.is_finite() {
                    ratios.push(if golden > 0.0 {
                        actual / golden
                    } else if actual > 0.0 {
                        f64::INFINITY
                    } else {
                        1.0
                    });
                }
            }
        }
        let flicker = ratios.iter().copied().fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))));
        let flicker_failed = matches!((flicker, spec.max_flicker), (Some(r), Some(max)) if r > max);
        sequences.push(SequenceNote { scene: scene.name.clone(), first_diverging, flicker, flicker_failed });
    }
    report::write(&paths.report_dir(), &entries, &sequences, &adapter_name, shard)?;
    Ok(CheckSummary { entries, sequences, adapter: adapter_name })
}

/// `--filter SCENE[:FRAMES]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    pub scene: String,
    pub frames: Option<String>,
}

impl Filter {
    pub fn parse(s: &str) -> Filter {
        match s.split_once(':') {
            Some((a, b)) => Filter { scene: a.to_string(), frames: Some(b.to_string()) },
            None => Filter { scene: s.to_string(), frames: None },
        }
    }

    /// The golden frames of `scene` (which the filter names) that the filter keeps: all of them
    /// without a frame spec; an error for a bad spec or a frame that is not a golden frame.
    pub fn golden_frames(&self, scene: &Scene) -> Result<Vec<u32>, GoldenError> {
        let spec = scene.golden.as_ref().ok_or_else(|| GoldenError::NoGolden { scene: scene.name.clone() })?;
        let Some(text) = &self.frames else { return Ok(spec.frames.clone()) };
        let wanted = crate::scene::frames::parse_frames(text, scene.render.frames)
            .map_err(|e| GoldenError::Filter(format!("{}:{text}: {e}", self.scene)))?;
        let others: Vec<String> = wanted.iter().filter(|f| !spec.frames.contains(f)).map(u32::to_string).collect();
        if !others.is_empty() {
            let golden: Vec<String> = spec.frames.iter().map(u32::to_string).collect();
            let (frames, are, them) = if others.len() == 1 { ("frame", "is", "it") } else { ("frames", "are", "them") };
            return Err(GoldenError::Filter(format!(
                "{}:{text}: {frames} {} {are} not among {}'s golden frames ({}); add {them} to its [golden] frames first",
                self.scene,
                others.join(", "),
                self.scene,
                golden.join(", ")
            )));
        }
        Ok(wanted)
    }
}

/// What blessing did to one scene.
#[derive(Debug)]
pub struct Blessed {
    pub scene: String,
    pub dir: PathBuf,
    pub written: Vec<PathBuf>,
    pub unchanged: usize,
}

/// Writes new goldens for the scenes (narrowed by `filter`): renders twice and refuses when the
/// renders differ, or takes the last check's images with `from_last_run`. Only files whose pixels
/// (or state digest) changed are written; PNGs are compressed hard to stay small.
pub fn bless(
    scenes: &[Scene],
    filter: Option<&Filter>,
    from_last_run: bool,
    paths: &Paths,
    adapter: &AdapterRequest,
    mode: ProgressMode,
) -> Result<Vec<Blessed>, GoldenError> {
    let mut done = Vec::new();
    for scene in scenes {
        if filter.is_some_and(|f| f.scene != scene.name) {
            continue;
        }
        let spec = scene.golden.as_ref().ok_or_else(|| GoldenError::NoGolden { scene: scene.name.clone() })?;
        let total = scene.render.frames;
        let frames = match filter {
            Some(f) => f.golden_frames(scene)?,
            None => spec.frames.clone(),
        };
        let run_dir = paths.run_dir().join(&scene.name);
        let (images, states, adapter_used) = if from_last_run {
            let m = crate::output::manifest::Manifest::read(&run_dir.join("manifest.json"))
                .ok_or_else(|| GoldenError::NoLastRun(format!("no earlier check of {} in {}", scene.name, run_dir.display())))?;
            if m.scene_hash != format!("{:016x}", scene.source_hash) || (m.width, m.height) != spec.size {
                return Err(GoldenError::NoLastRun(format!(
                    "the last run of {} used another version of the scene; run `simreel golden check` again",
                    scene.name
                )));
            }
            let mut imgs = Vec::new();
            let mut sts = Vec::new();
            for &f in &frames {
                let e = m
                    .frames
                    .iter()
                    .find(|e| e.index == f)
                    .ok_or_else(|| GoldenError::NoLastRun(format!("frame {f} of {} is not in the last run", scene.name)))?;
                imgs.push(png::read(&run_dir.join(&e.file))?);
                sts.push(e.state.clone());
            }
            (imgs, sts, m.adapter_info)
        } else {
            let a = render_golden(scene, spec, &frames, &paths.run_dir(), adapter, mode)?;
            let second = paths.out.join("golden-run-second");
            let b = render_golden(scene, spec, &frames, &second, adapter, mode)?;
            let mut imgs = Vec::new();
            let mut sts = Vec::new();
            let mut differ = Vec::new();
            let mut what = String::new();
            for &f in &frames {
                let ia = png::read(&a.frames_dir.join(frame_file_name(f, total)))?;
                let ib = png::read(&b.frames_dir.join(frame_file_name(f, total)))?;
                let sa = a.manifest.frames.iter().find(|e| e.index == f).map(|e| e.state.clone()).unwrap_or_default();
                let sb = b.manifest.frames.iter().find(|e| e.index == f).map(|e| e.state.clone()).unwrap_or_default();
                if ia.rgba != ib.rgba || sa != sb {
                    differ.push(f);
                    what = if sa != sb {
                        format!("simulation state [{sa}] then [{sb}]")
                    } else {
                        "same simulation state, different pixels".into()
                    };
                }
                imgs.push(ia);
                sts.push(sa);
            }
            crate::output::remove_stale(&second)?;
            if !differ.is_empty() {
                return Err(GoldenError::NonDeterministic { scene: scene.name.clone(), frames: differ, what });
            }
            (imgs, sts, a.adapter)
        };
        let scene_dir = paths.goldens.join(&scene.name);
        let dest = applied(spec, &scene_dir, &adapter_used)
            .bless_dir
            .ok_or_else(|| GoldenError::NoOverride { scene: scene.name.clone(), adapter: adapter_used.to_string() })?;
        let mut written = Vec::new();
        let mut unchanged = 0;
        for ((&f, img), state) in frames.iter().zip(&images).zip(&states) {
            let path = dest.join(frame_file_name(f, total));
            let same = png::read(&path).is_ok_and(|old| old.width == img.width && old.height == img.height && old.rgba == img.rgba);
            if same {
                unchanged += 1;
            } else {
                write_atomic(&path, &png::encode(&img.rgba, img.width, img.height, Effort::Small))?;
                written.push(path);
            }
            let sp = state_path(&dest, f, total);
            if std::fs::read_to_string(&sp).map(|s| s.trim().to_string()).ok().as_deref() != Some(state.as_str()) {
                write_atomic(&sp, format!("{state}\n").as_bytes())?;
                written.push(sp);
            }
        }
        done.push(Blessed { scene: scene.name.clone(), dir: dest, written, unchanged });
    }
    Ok(done)
}

/// Scene files named on the command line: files as given, folders searched (with their
/// subfolders, such as `scenes/figures/`) for `*.toml`; only scenes with a `[golden]` table are
/// returned from folders.
pub fn collect_scenes(paths: &[PathBuf]) -> Result<Vec<Scene>, crate::scene::SceneError> {
    let mut scenes = Vec::new();
    for p in paths {
        if p.is_dir() {
            for f in scene_files(p)? {
                let s = crate::scene::load(&f)?;
                if s.golden.is_some() {
                    scenes.push(s);
                }
            }
        } else {
            scenes.push(crate::scene::load(p)?);
        }
    }
    Ok(scenes)
}

/// The first two scenes that share a name (and so an output and a golden folder), if any.
pub fn same_name(scenes: &[Scene]) -> Option<(&Scene, &Scene)> {
    scenes.iter().enumerate().find_map(|(i, a)| scenes[i + 1..].iter().find(|b| b.name == a.name).map(|b| (a, b)))
}

/// Every `*.toml` under `dir` and its subfolders, sorted (a folder's own files before its
/// subfolders').
pub fn scene_files(dir: &Path) -> Result<Vec<PathBuf>, crate::scene::SceneError> {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|source| crate::scene::SceneError::Read { path: dir.to_path_buf(), source })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    let mut files: Vec<PathBuf> = entries.iter().filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "toml")).cloned().collect();
    files.sort();
    let mut dirs: Vec<&PathBuf> = entries.iter().filter(|d| d.is_dir()).collect();
    dirs.sort();
    for d in dirs {
        files.extend(scene_files(d)?);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn scenes_sharing_a_name_are_found() {
        let scene =
            |name: &str, file: &str| crate::scene::parse(&format!("kind = \"terrain\"\nname = \"{name}\"\n"), Path::new(file)).unwrap();
        let scenes = [scene("a", "x/a.toml"), scene("b", "x/b.toml"), scene("a", "y/a.toml")];
        let (first, second) = same_name(&scenes).expect("two named a");
        assert_eq!((first.path.as_path(), second.path.as_path()), (Path::new("x/a.toml"), Path::new("y/a.toml")));
        assert!(same_name(&scenes[..2]).is_none());
    }
}
