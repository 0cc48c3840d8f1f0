//! `simreel render`: scenes to frames, animations and GIFs, with progress, resumable.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use simreel::pipeline::{self, Job, ProgressMode};
use simreel::scene;
use simreel::scene::Format;
use simreel::text::count;

use super::BadInput;
use crate::cli::RenderArgs;
use crate::cli::render::ProgressArg;

/// What `-o FILE` asks for, by its extension.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    /// One frame as a PNG.
    Still,
    /// The animation of every frame.
    Animation(Format),
}

impl Target {
    fn of(file: &Path) -> Result<Target, BadInput> {
        let ext = file.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
        match Format::from_name(&ext) {
            Some(Format::Png) => Ok(Target::Still),
            Some(f) => Ok(Target::Animation(f)),
            None => Err(BadInput(format!(
                "-o {}: the extension says what to write: .png (a still), .gif, .apng, .mp4 or .webm",
                file.display()
            ))),
        }
    }
}

pub fn run(mut args: RenderArgs) -> anyhow::Result<()> {
    let target = match &args.output {
        Some(file) => {
            if args.scenes.len() != 1 {
                return Err(BadInput(format!("-o {}: names one file, for one scene ({} given)", file.display(), args.scenes.len())).into());
            }
            let t = Target::of(file)?;
            // the format the file is: the render makes it (and the frames it is made from)
            args.format = Some(crate::cli::Formats(vec![match t {
                Target::Still => Format::Png,
                Target::Animation(f) => f,
            }]));
            Some((file.clone(), t))
        }
        None => None,
    };
    let shard = super::resolve_shard(args.shard, args.quiet)?;
    // Every scene is validated before the first one renders.
    let mut jobs = Vec::new();
    for path in &args.scenes {
        let mut s = super::load_with(path, &args.sets)?;
        if let Some((w, h)) = args.size {
            s.look.width = w;
            s.look.height = h;
        }
        if let Some(n) = args.scale {
            scale(&mut s, n)?;
        }
        if let Some(b) = args.max_size {
            s.output.gif_max_size = Some(b);
        }
        if args.draft {
            s = s.into_draft();
        }
        s.check_memory(&scene::available_memory())?;
        let frames = match &args.frames {
            Some(spec) => simreel::scene::frames::parse_frames(spec, s.sim.timing.frames)
                .map_err(|e| BadInput(format!("--frames: {e} (scene {})", s.name)))?,
            None => (0..s.sim.timing.frames).collect(),
        };
        if let Some((file, t)) = &target {
            check_target(file, *t, &frames, s.sim.timing.frames)?;
        }
        let formats = args.format.as_ref().map_or_else(|| s.output.formats.clone(), |f| f.0.clone());
        jobs.push(Job::new(s, &args.out).frames(frames).formats(formats).adapter(args.adapter.request()).resume(args.resume));
    }
    if let Some((i, n)) = shard {
        jobs = simreel::split::shard_jobs(jobs, i, n)?;
        if !args.quiet {
            let took: Vec<String> =
                jobs.iter().map(|j| format!("{} ({})", j.scene.name, simreel::scene::frames::frames_text(&j.frames))).collect();
            eprintln!(
                "shard {i}/{n} renders {}",
                if took.is_empty() { "nothing: the other shards cover the work".into() } else { took.join(", ") }
            );
        }
    }
    let cancel = Arc::new(AtomicBool::new(false));
    if let Err(why) = pipeline::stop_on_interrupt(cancel.clone(), simreel::exit::ExitClass::Interrupted.code().into()) {
        eprintln!("warning: {why}");
    }
    let mode = if args.quiet {
        ProgressMode::Quiet
    } else if args.progress == Some(ProgressArg::Json) {
        ProgressMode::Json
    } else {
        ProgressMode::Bars
    };
    let mut renderers = simreel::render::Pool::default();
    for job in &jobs {
        let outcome =
            pipeline::run_with(job, mode, &cancel, &mut renderers).with_context(|| format!("rendering {}", job.scene.path.display()))?;
        if mode == ProgressMode::Bars {
            eprintln!("{}", render_summary(&job.scene.name, &outcome));
        }
        // what a render of some frames left as it was is said even when quiet: the files there
        // are not all of this scene as it is now
        for note in &outcome.left {
            eprintln!("{}: {note}", job.scene.name);
        }
        // what the GIF gave up to fit its budget is said even when quiet: it is not the GIF asked for
        if let Some(fit) = &outcome.gif_fit {
            eprintln!("{}: {fit}", job.scene.name);
        }
        if let Some((file, t)) = &target {
            write_target(file, *t, job, &outcome, args.quiet)?;
        }
    }
    Ok(())
}

/// `--scale n`: `s` at n times its size, the layout the same (the simulation is read from the
/// file's size; a 2-D canvas scales to fit), named `<name>@nx`.
fn scale(s: &mut scene::Scene, n: f64) -> Result<(), BadInput> {
    let max = scene::common::MAX_SIDE as f64;
    let (w, h) = ((s.look.width as f64 * n).round(), (s.look.height as f64 * n).round());
    if w > max || h > max || w < 16.0 || h < 16.0 {
        return Err(BadInput(format!(
            "--scale {n}: {}×{} at {n}× is {w}×{h}, outside the 16..={max} pixels a side a render takes",
            s.look.width, s.look.height
        )));
    }
    (s.look.width, s.look.height) = (w as u32, h as u32);
    s.name = format!("{}@{n}x", s.name);
    Ok(())
}

/// Writes `-o FILE` from what the render of `job` made.
fn write_target(file: &Path, t: Target, job: &pipeline::Job, outcome: &pipeline::Outcome, quiet: bool) -> anyhow::Result<()> {
    let from = match t {
        Target::Still => outcome.frames_dir.join(simreel::output::frame_file_name(job.frames[0], job.scene.sim.timing.frames)),
        Target::Animation(f) => outcome
            .gif
            .iter()
            .chain(&outcome.animations)
            .chain(&outcome.current)
            .find(|p| p.extension().and_then(|e| e.to_str()) == Some(f.name()))
            .cloned()
            .with_context(|| format!("-o {}: the render made no {}", file.display(), f.name()))?,
    };
    let bytes = std::fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
    simreel::output::write_atomic(file, &bytes)?;
    if !quiet {
        eprintln!("{}: wrote {} (from {})", job.scene.name, file.display(), from.display());
    }
    Ok(())
}

/// `-o FILE` of `frames` (of a scene of `total`): a still is one frame, an animation all of them.
fn check_target(file: &Path, t: Target, frames: &[u32], total: u32) -> Result<(), BadInput> {
    match t {
        Target::Still if frames.len() != 1 => Err(BadInput(format!(
            "-o {}: a still is one frame, and this render has {} (name one: --frames -1 for the last, --frames 0 for the first)",
            file.display(),
            frames.len()
        ))),
        Target::Animation(f) if frames.len() != total as usize => Err(BadInput(format!(
            "-o {}: the {} holds every frame of the scene, and --frames names {} of its {total} (render them all, or -o a .png of one)",
            file.display(),
            f.name(),
            frames.len()
        ))),
        _ => Ok(()),
    }
}

/// What a finished render says: what it wrote, how fast it rendered (frames kept by `--resume`
/// are not counted), and what it kept or could not keep from the last run.
fn render_summary(name: &str, outcome: &pipeline::Outcome) -> String {
    let t = &outcome.manifest.timings;
    let dir = outcome.frames_dir.display();
    let mut files: Vec<String> = outcome.gif.iter().chain(&outcome.animations).map(|p| p.display().to_string()).collect();
    let mut notes = Vec::new();
    if let Some(why) = &outcome.stale {
        notes.push(format!("{why}: rendered again"));
    }
    if outcome.reused > 0 && outcome.rendered > 0 {
        notes.push(format!("{} kept from the last run", count(outcome.reused as u64, "frame", "frames")));
    }
    if outcome.stale_states > 0 {
        let from = outcome.manifest.simulated_from.map_or("the start".to_string(), |f| format!("frame {f}"));
        notes.push(format!(
            "{} of another version of the scene passed over: simulated from {from}",
            count(outcome.stale_states as u64, "saved state", "saved states")
        ));
    }
    if outcome.removed > 0 {
        notes.push(format!("{} past the scene's end removed", count(outcome.removed as u64, "frame", "frames")));
    }
    if !outcome.current.is_empty() {
        let kept: Vec<String> = outcome.current.iter().map(|p| p.display().to_string()).collect();
        notes.push(format!("{} already of these frames", kept.join(" and ")));
    }
    let notes = if notes.is_empty() { String::new() } else { format!("; {}", notes.join("; ")) };
    if outcome.rendered == 0 {
        let wrote = if files.is_empty() { String::new() } else { format!("; wrote {}", files.join(" and ")) };
        let kept = count(outcome.reused as u64, "frame", "frames");
        return format!("{name}: nothing to render: {kept} in {dir} kept from the last run{wrote}{notes}");
    }
    if !outcome.manifest.frames.is_empty() {
        files.insert(0, format!("{} in {dir}", count(outcome.rendered as u64, "frame", "frames")));
    } else {
        files.insert(0, count(outcome.rendered as u64, "frame", "frames"));
    }
    format!(
        "{name}: wrote {} ({:.1} frames/s on {}; slowest stage: {}{notes})",
        files.join(" and "),
        t.frames_per_second,
        outcome.manifest.adapter,
        t.slowest_stage
    )
}
