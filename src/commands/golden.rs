//! `simreel golden check|bless|review|merge` as the command line runs them: which scenes, which
//! adapter each renders on (said before anything renders), and what to print afterwards. Part of
//! the binary: the library's `golden` module knows nothing of the command line.

use std::path::PathBuf;

use crate::cli::{GoldenArgs, GoldenCommand, GoldenMergeArgs};
use simreel::golden::adapter::{self, AdapterPlan};
use simreel::golden::{self as golden, GoldenError, Paths};
use simreel::pipeline::ProgressMode;
use simreel::scene::{self, Scene};
use simreel::text::count;

/// `simreel golden …`: a check's `--shard` read (from the scheduler's variables where asked), then
/// [`run`].
pub fn command(action: GoldenCommand) -> anyhow::Result<()> {
    let shard = match &action {
        GoldenCommand::Check { common, shard } => super::resolve_shard(*shard, common.quiet)?,
        _ => None,
    };
    Ok(run(&action, shard)?)
}

/// Runs `action`; `shard` is a check's `--shard`, already read from the scheduler's variables.
pub fn run(action: &GoldenCommand, shard: Option<(u32, u32)>) -> Result<(), GoldenError> {
    let args = match action {
        GoldenCommand::Check { common, .. } | GoldenCommand::Bless { common, .. } => common,
        GoldenCommand::Review { common, compare, pending, accept_all } => return review(common, *compare, pending.as_deref(), *accept_all),
        GoldenCommand::Merge(m) => return merge(m),
    };
    let scenes = golden_scenes(args)?;
    let paths = Paths { goldens: args.goldens.clone(), out: args.out(), shard };
    let (scenes, dealt) = match shard {
        Some((i, n)) => {
            let (mine, dealt) = golden::shard_scenes(scenes, i, n);
            if !args.quiet {
                let names: Vec<&str> = mine.iter().map(|s| s.name.as_str()).collect();
                let took = if names.is_empty() { "nothing: the other shards cover the scenes".into() } else { names.join(", ") };
                eprintln!("shard {i}/{n} checks {took}");
            }
            (mine, Some(dealt))
        }
        None => (scenes, None),
    };
    let mode = if args.quiet { ProgressMode::Quiet } else { ProgressMode::Bars };
    match action {
        GoldenCommand::Bless { filter, from_last_run, from_report, .. } => {
            let source = match (from_report, from_last_run) {
                (Some(dir), _) => golden::Source::Report(dir),
                (None, true) => golden::Source::LastRun,
                (None, false) => golden::Source::Render,
            };
            bless(&scenes, &paths, args, mode, filter.as_deref(), source)
        }
        _ => check(&scenes, &paths, args, mode, dealt),
    }
}

/// `simreel golden review`: the scenes are read only when a frame is accepted (a comparison of
/// files needs none).
fn review(args: &GoldenArgs, compare: bool, pending: Option<&std::path::Path>, accept_all: bool) -> Result<(), GoldenError> {
    let paths = Paths { goldens: args.goldens.clone(), out: args.out(), shard: None };
    if let Some(dir) = pending {
        return golden::review::run_pending(dir, &paths, accept_all);
    }
    let which = if compare { golden::review::Last::Compare } else { golden::review::Last::Check };
    // without --out, the last report wherever the check wrote it (below this folder)
    let (out, note) = simreel::golden::review::last_out(&args.out(), which, args.out.is_some());
    if let Some(note) = note {
        eprintln!("note: {note}");
    }
    let paths = Paths { out, ..paths };
    let mut loaded: Option<Vec<Scene>> = None;
    let mut scenes = || -> Result<Vec<Scene>, GoldenError> {
        if loaded.is_none() {
            loaded = Some(golden_scenes(args)?);
        }
        Ok(loaded.clone().unwrap_or_default())
    };
    golden::review::run(&mut scenes, &paths, which, accept_all)
}

/// The scenes a golden command takes (default: those in `scenes/` with a `[golden]` table), each
/// within this machine's memory, no two of one name.
fn golden_scenes(args: &GoldenArgs) -> Result<Vec<Scene>, GoldenError> {
    let paths = if args.paths.is_empty() { vec![PathBuf::from("scenes")] } else { args.paths.clone() };
    let scenes = golden::collect_scenes(&paths)?;
    scenes.iter().for_each(super::warn_deprecations);
    if scenes.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(GoldenError::BadInput(format!("no scene with a [golden] table in {}", names.join(", "))));
    }
    for s in &scenes {
        s.check_memory(&scene::available_memory())?;
    }
    // goldens live under tests/golden/<name>: two scenes of one name would share (and overwrite) them
    if let Some((a, b)) = golden::same_name(&scenes) {
        return Err(GoldenError::BadInput(format!(
            "{} and {} are both named \"{}\": their goldens would share tests/golden/{}; give one of them `name = \"…\"`",
            a.path.display(),
            b.path.display(),
            a.name,
            a.name
        )));
    }
    Ok(scenes)
}

/// The adapters the scenes render on, said before anything renders: a missing approving adapter
/// always (it changes what a failure means), which adapter and why unless `--quiet`.
fn adapters(scenes: &[Scene], paths: &Paths, args: &GoldenArgs) -> Result<AdapterPlan, GoldenError> {
    let plan = adapter::plan(scenes, &paths.goldens, &args.adapter.request())?;
    for w in &plan.warnings {
        eprintln!("warning: {w}");
    }
    if !args.quiet {
        for line in plan.lines() {
            eprintln!("{line}");
        }
    }
    Ok(plan)
}

/// "all 62 golden frames match", "the 1 golden frame matches".
fn all_match(n: usize) -> String {
    if n == 1 { "the 1 golden frame matches".into() } else { format!("all {n} golden frames match") }
}

/// `simreel golden check`: every frame's verdict, the sequences' notes, exit code 4 on a failure.
fn check(
    scenes: &[Scene],
    paths: &Paths,
    args: &GoldenArgs,
    mode: ProgressMode,
    dealt: Option<golden::report::ReportShard>,
) -> Result<(), GoldenError> {
    let plan = adapters(scenes, paths, args)?;
    let summary = golden::check(scenes, paths, &plan, mode, dealt)?;
    if !args.quiet {
        for e in &summary.entries {
            let how = if e.passed { "pass" } else { "FAIL" };
            let what = match &e.subject {
                golden::report::Subject::Frame { scene, frame } => format!("{scene} frame {frame}"),
                other => other.label(),
            };
            eprintln!("{how} {what}: {} — {}", e.verdict, e.state_message);
        }
        for s in &summary.sequences {
            if let Some(f) = s.first_diverging {
                eprintln!("{}: first diverging frame {f}", s.scene);
            }
            if let Some(r) = s.flicker {
                eprintln!("{}: flicker {r:.2}× the golden sequence{}", s.scene, if s.flicker_failed { " (too much)" } else { "" });
            }
        }
    }
    let failed = summary.failures();
    if failed > 0 {
        let report = paths.report_dir().join("report.html").display().to_string();
        return Err(GoldenError::Mismatch {
            frames_failed: summary.entries.iter().filter(|e| !e.passed).count(),
            frames: summary.entries.len(),
            flicker_failed: summary.sequences.iter().filter(|s| s.flicker_failed).count(),
            report,
            other_adapter: summary.other_adapter.clone(),
        });
    }
    if !args.quiet && !summary.entries.is_empty() {
        let other = summary.other_adapter.as_ref().map(|o| format!(" ({o})")).unwrap_or_default();
        let report = paths.report_dir().join("report.html");
        eprintln!("{} on {}{other}; report: {}", all_match(summary.entries.len()), summary.adapter, report.display());
    }
    Ok(())
}

/// `simreel golden bless`: the filter checked before anything renders, then what was written.
fn bless(
    scenes: &[Scene],
    paths: &Paths,
    args: &GoldenArgs,
    mode: ProgressMode,
    filter: Option<&str>,
    source: golden::Source,
) -> Result<(), GoldenError> {
    let filter = filter.map(golden::Filter::parse);
    if let Some(f) = &filter {
        let Some(scene) = scenes.iter().find(|s| s.name == f.scene) else {
            let names: Vec<&str> = scenes.iter().map(|s| s.name.as_str()).collect();
            return Err(GoldenError::BadInput(format!("--filter: no scene named \"{}\" among {}", f.scene, names.join(", "))));
        };
        f.golden_frames(scene)?;
    }
    let chosen: Vec<Scene> = scenes.iter().filter(|s| filter.as_ref().is_none_or(|f| f.scene == s.name)).cloned().collect();
    // --from-last-run and --from-report render nothing: the images come with the adapter they
    // were rendered on
    let plan = match source {
        golden::Source::Render => adapters(&chosen, paths, args)?,
        _ => AdapterPlan::default(),
    };
    let done = golden::bless(&chosen, filter.as_ref(), source, paths, &plan, mode)?;
    for b in &done {
        let (written, unchanged) = (count(b.written.len() as u64, "file", "files"), count(b.unchanged as u64, "image", "images"));
        eprintln!("{}: {written} written, {unchanged} unchanged in {} (approved on {})", b.scene, b.dir.display(), b.adapter);
        for w in &b.written {
            eprintln!("  {}", w.display());
        }
    }
    Ok(())
}

/// `simreel golden merge`: the shards' reports as one; exit code 4 when a frame failed.
fn merge(args: &GoldenMergeArgs) -> Result<(), GoldenError> {
    let paths = Paths { goldens: PathBuf::new(), out: args.out.clone(), shard: None };
    let (n, report) = golden::merge_reports(&paths, args.shards)?;
    let failed = report.failures();
    let html = paths.merged_report_dir().join("report.html");
    if report.adapter.contains("; ") && !args.quiet {
        eprintln!("warning: the shards checked on different adapters ({}): their tolerances may differ", report.adapter);
    }
    if failed > 0 {
        let report_file = html.display().to_string();
        return Err(GoldenError::Mismatch {
            frames_failed: report.records.iter().filter(|r| !r.passed).count(),
            frames: report.records.len(),
            flicker_failed: report.sequences.iter().filter(|s| s.flicker_failed).count(),
            report: report_file,
            other_adapter: report.other_adapter.clone(),
        });
    }
    if !args.quiet {
        eprintln!(
            "{}: {} on {}; report: {}",
            count(n.into(), "shard", "shards"),
            all_match(report.records.len()),
            report.adapter,
            html.display()
        );
    }
    Ok(())
}
