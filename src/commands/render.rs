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

/// What `-o FILE` asks for: its format by its extension, a still or an animation by the frames.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    /// One frame as a picture (PNG, WebP or AVIF).
    Still(Format),
    /// The animation of every frame, or the clip of the run of frames `--frames` names.
    Animation(Format),
}

impl Target {
    /// The format `file`'s extension names.
    fn format_of(file: &Path) -> Result<Format, BadInput> {
        let ext = file.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
        Format::from_name(&ext).ok_or_else(|| {
            BadInput(format!(
                "-o {}: the extension says what to write: .png, .webp or .avif (a still of one frame), .gif, .apng, .mp4, .webm, \
                 .webp or .avif (an animation)",
                file.display()
            ))
        })
    }

    /// `-o file` of `frames` (of a scene of `total`): a still is one frame; an animation is every
    /// frame or a run of them (a clip).
    fn of(file: &Path, format: Format, frames: &[u32], total: u32) -> Result<Target, BadInput> {
        // one frame in WebP or AVIF is a still, of a one-frame scene too
        if format.is_still() && (format == Format::Png || frames.len() == 1) {
            if frames.len() != 1 {
                return Err(BadInput(format!(
                    "-o {}: a still is one frame, and this render has {} (name one: --frames -1 for the last, --frames 0 for the first)",
                    file.display(),
                    frames.len()
                )));
            }
            return Ok(Target::Still(format));
        }
        if frames.len() != total as usize && pipeline::whole::clip_of(frames, total).is_none() {
            return Err(BadInput(format!(
                "-o {}: the {} holds every frame of the scene or a run of them (--frames 0..29), and --frames names {} of its {total} that are not one run",
                file.display(),
                format.name(),
                frames.len()
            )));
        }
        Ok(Target::Animation(format))
    }

    /// What the render makes for it: the PNG frame a still is made from, or the animation.
    fn renders(self) -> Format {
        match self {
            Target::Still(_) => Format::Png,
            Target::Animation(f) => f,
        }
    }
}

pub fn run(args: RenderArgs) -> anyhow::Result<()> {
    let target_formats = match &args.output {
        Some(file) => {
            if args.scenes.len() != 1 {
                return Err(BadInput(format!("-o {}: names one file, for one scene ({} given)", file.display(), args.scenes.len())).into());
            }
            targets_of(file, args.format.as_ref().map_or(&[][..], |f| &f.0))?
        }
        None => Vec::new(),
    };
    let mut targets = Vec::new();
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
        if let (scene::KindLook::Figure(f), scene::KindSpec::Figure(spec), false) = (&s.look.kind, &s.sim.kind, args.quiet) {
            for w in f.layout(spec).warnings {
                eprintln!("warning: {}: {w}", s.name);
            }
        }
        let frames = match &args.frames {
            Some(spec) => simreel::scene::frames::parse_frames(spec, s.sim.timing.frames)
                .map_err(|e| BadInput(format!("--frames: {e} (scene {})", s.name)))?,
            None => (0..s.sim.timing.frames).collect(),
        };
        let mut formats = args.format.as_ref().map_or_else(|| s.output.formats.clone(), |f| f.0.clone());
        if !target_formats.is_empty() {
            // the formats the files are: the render makes them (and the frames they are made from)
            formats.clear();
            for (i, (file, format)) in target_formats.iter().enumerate() {
                let t = Target::of(file, *format, &frames, s.sim.timing.frames).map_err(|e| match i {
                    0 => e,
                    _ => BadInput(format!("{} (--format {} beside -o {})", e.0, format.name(), target_formats[0].0.display())),
                })?;
                if t.renders().needs_ffmpeg() || format.needs_ffmpeg() {
                    simreel::output::animation::ffmpeg()?;
                }
                if !formats.contains(&t.renders()) {
                    formats.push(t.renders());
                }
                targets.push((file.clone(), t));
            }
        }
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
    // what a software adapter would take too long over: refused, or said, before any job starts
    for warning in pipeline::patience::check_all(&jobs)? {
        if !args.quiet {
            eprintln!("warning: {warning}");
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
        if args.profile && outcome.rendered > 0 {
            eprint!("{}", profile(&job.scene.name, &outcome.manifest.timings));
        }
        if mode == ProgressMode::Json {
            println!("{}", serde_json::json!({"scene": job.scene.name, "timings": outcome.manifest.timings}));
        }
        // what a render of some frames left as it was is said even when quiet: the files there
        // are not all of this scene as it is now
        for note in &outcome.left {
            eprintln!("{}: {note}", job.scene.name);
        }
        // a saved state refused is said even when quiet: someone may have edited it
        for at in &outcome.refused_states {
            let from = outcome.manifest.simulated_from.map_or("the start".to_string(), |f| format!("frame {f}"));
            eprintln!(
                "warning: {}: the saved state at frame {at} in {} does not fit this scene's simulation (damaged, or edited): passed over, simulated from {from}",
                job.scene.name,
                outcome.frames_dir.join("snapshots").display()
            );
        }
        // what the GIF gave up to fit its budget is said even when quiet: it is not the GIF asked for
        if let Some(fit) = &outcome.gif_fit {
            eprintln!("{}: {fit}", job.scene.name);
        }
        for (file, t) in &targets {
            write_target(file, *t, job, &outcome, args.quiet)?;
        }
    }
    Ok(())
}

/// The files `-o file` with `--format` names: `file` in the format its extension says, then each
/// other format named, beside it under that format's extension.
fn targets_of(file: &Path, named: &[Format]) -> Result<Vec<(std::path::PathBuf, Format)>, BadInput> {
    let own = Target::format_of(file)?;
    let mut out = vec![(file.to_path_buf(), own)];
    for &f in named {
        if out.iter().all(|(_, g)| *g != f) {
            out.push((file.with_extension(f.name()), f));
        }
    }
    Ok(out)
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
    let of_format = |f: Format, p: &&std::path::PathBuf| p.extension().and_then(|e| e.to_str()) == Some(f.name());
    let from = match t {
        Target::Still(_) => Some(outcome.frames_dir.join(simreel::output::frame_file_name(job.frames[0], job.scene.sim.timing.frames))),
        // a clip when the render was of a run of frames, else the whole's animation
        Target::Animation(f) if !job.is_whole() => outcome.clips.iter().find(|p| of_format(f, p)).cloned(),
        Target::Animation(f) => outcome.gif.iter().chain(&outcome.animations).chain(&outcome.current).find(|p| of_format(f, p)).cloned(),
    }
    .with_context(|| format!("-o {}: the render made no {}", file.display(), t.renders().name()))?;
    match t {
        // the frame again, as small as a page wants it (the same pixels)
        Target::Still(Format::Png) => {
            let frame = simreel::output::png::read(&from)?;
            let bytes = simreel::output::png::encode(&frame.rgba, frame.width, frame.height, simreel::output::png::Effort::Smallest);
            simreel::output::write_atomic(file, &bytes)?;
        }
        Target::Still(f) => {
            let how = simreel::output::animation::Encoding { format: f, quality: job.scene.output.quality, still: true };
            let ffmpeg = simreel::output::animation::ffmpeg()?;
            simreel::output::animation::write_video(
                &ffmpeg,
                std::slice::from_ref(&from),
                file,
                job.scene.sim.timing.fps as f64,
                how,
                &|| (),
            )?;
        }
        _ => {
            let bytes = simreel::output::read_plain(&from)?;
            simreel::output::write_atomic(file, &bytes)?;
        }
    }
    if !quiet {
        eprintln!("{}: wrote {} (from {})", job.scene.name, file.display(), from.display());
    }
    Ok(())
}

/// Where a render's time went, as `--profile` prints it: startup, the rates, a row a stage.
pub fn profile(name: &str, t: &simreel::output::manifest::Timings) -> String {
    let opened = match (t.adapter_s, t.device_s) {
        (Some(a), Some(d)) => format!(" (finding the adapter {:.0} ms, opening its device {:.0} ms)", a * 1e3, d * 1e3),
        _ => " (on the renderer of the scene before)".to_string(),
    };
    let mut out = format!(
        "{name}: first frame after {:.0} ms{opened}; {:.1} frames/s after it, {:.1} end to end; slowest stage: {}\n",
        t.startup_s * 1e3,
        t.steady_fps,
        t.frames_per_second,
        t.slowest_stage
    );
    let Some(stages) = &t.stages else { return out };
    out += &format!("  {:<9} {:>7} {:>10} {:>9} {:>9} {:>10}\n", "stage", "threads", "frames/s", "busy s", "idle s", "blocked s");
    for (stage, s) in [("simulate", &stages.simulate), ("render", &stages.render), ("encode", &stages.encode)] {
        let gpu = match (s.gpu_wait_s, s.cpu_ms_per_frame) {
            (Some(g), Some(c)) => format!("  of busy: {g:.2} s waiting for the GPU; the thread's CPU {c:.3} ms a frame"),
            (Some(g), None) => format!("  of busy: {g:.2} s waiting for the GPU"),
            _ => String::new(),
        };
        out += &format!("  {stage:<9} {:>7} {:>10.1} {:>9.2} {:>9.2} {:>10.2}{gpu}\n", s.threads, s.fps, s.busy_s, s.idle_s, s.blocked_s);
    }
    out
}

/// What a finished render says: what it wrote, how fast it rendered (frames kept by `--resume`
/// are not counted), and what it kept or could not keep from the last run.
fn render_summary(name: &str, outcome: &pipeline::Outcome) -> String {
    let t = &outcome.manifest.timings;
    let dir = outcome.frames_dir.display();
    // each animation with the time it took to make after the frames
    let timed = |p: &std::path::PathBuf| {
        let seconds = p.extension().and_then(|e| e.to_str()).and_then(|e| t.animations_s.get(e));
        seconds.map_or_else(|| p.display().to_string(), |s| format!("{} ({s:.1} s)", p.display()))
    };
    let mut files: Vec<String> = outcome.gif.iter().chain(&outcome.animations).chain(&outcome.clips).map(timed).collect();
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
