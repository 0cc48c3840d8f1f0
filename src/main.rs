//! The `simreel` command: parse arguments, run, print any error with its chain, exit with a code
//! that says what went wrong (see the table in docs/rendering.md).

#[path = "commands/golden.rs"]
mod golden_command;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use clap::{CommandFactory, Parser};

use simreel::cli::{self, CargoCommand, CargoProbeArgs, Cli, Command, DiceCommand, DiceStatsArgs, GoldenCommand, ProgressArg, RenderArgs};
use simreel::pipeline::{self, Job, PipelineError, ProgressMode};
use simreel::render::RenderError;
use simreel::scene::{self, SceneError};
use simreel::text::count;

/// Exit codes (documented in docs/rendering.md).
mod exit {
    pub const RUNTIME: u8 = 1;
    pub const BAD_INPUT: u8 = 2;
    pub const NO_ADAPTER: u8 = 3;
    pub const GOLDEN_MISMATCH: u8 = 4;
    pub const INTERRUPTED: u8 = 130;
}

fn main() -> ExitCode {
    quiet_wayland_probe();
    // the variables simreel heeds, read once here; the library asks for them, never the process
    simreel::environment::Environment::read().install();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { exit::BAD_INPUT } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            for cause in e.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(code_of(&e))
        }
    }
}

/// Mesa's Vulkan drivers look for a Wayland display while wgpu enumerates adapters and print
/// "error: XDG_RUNTIME_DIR is invalid" on headless machines where it is unset. Pointing it at the
/// temporary folder (only when unset) keeps that false alarm out of our output.
fn quiet_wayland_probe() {
    let valid = std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
    if !valid {
        // SAFETY: called first thing in main, before any other thread exists.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir()) };
    }
}

fn code_of(e: &anyhow::Error) -> u8 {
    for cause in e.chain() {
        if let Some(p) = cause.downcast_ref::<PipelineError>() {
            return match p {
                PipelineError::Render(r) => render_code(r),
                PipelineError::Interrupted { .. } => exit::INTERRUPTED,
                _ => exit::RUNTIME,
            };
        }
        if let Some(r) = cause.downcast_ref::<RenderError>() {
            return render_code(r);
        }
        if cause.downcast_ref::<SceneError>().is_some() || cause.downcast_ref::<BadInput>().is_some() {
            return exit::BAD_INPUT;
        }
        if let Some(c) = cause.downcast_ref::<simreel_compare::Error>().and_then(simreel_compare::Error::exit_code) {
            return c;
        }
        if let Some(g) = cause.downcast_ref::<simreel::golden::GoldenError>() {
            return match g {
                simreel::golden::GoldenError::Pipeline(PipelineError::Render(r)) => render_code(r),
                simreel::golden::GoldenError::Mismatch { .. } | simreel::golden::GoldenError::Differ { .. } => exit::GOLDEN_MISMATCH,
                simreel::golden::GoldenError::NoGolden { .. }
                | simreel::golden::GoldenError::NoLastRun(_)
                | simreel::golden::GoldenError::Filter(_)
                | simreel::golden::GoldenError::BadInput(_)
                | simreel::golden::GoldenError::Untrusted(_)
                | simreel::golden::GoldenError::Scene(_) => exit::BAD_INPUT,
                _ => exit::RUNTIME,
            };
        }
    }
    exit::RUNTIME
}

fn render_code(r: &RenderError) -> u8 {
    match r {
        RenderError::NoAdapter { .. }
        | RenderError::AdapterNotFound { .. }
        | RenderError::BackendUnavailable { .. }
        | RenderError::Device(_)
        | RenderError::DeviceLost(_)
        | RenderError::Hung { .. } => exit::NO_ADAPTER,
        RenderError::TooLarge { .. } | RenderError::Preference { .. } => exit::BAD_INPUT,
        RenderError::Validation(_) | RenderError::OutOfMemory(_) | RenderError::Internal(_) => exit::RUNTIME,
    }
}

/// A command-line value that makes no sense for the scene it is applied to.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct BadInput(String);

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Validate { scenes } => validate(&scenes),
        Command::Render(args) => render(args),
        Command::Adapters { backend } => adapters(backend.choice()),
        Command::Mesh { scene, output, frame, algorithm } => mesh(&scene, &output, frame, algorithm.as_deref()),
        Command::Studio(args) => studio(args),
        Command::Golden { action } => golden(action),
        Command::Dice { action: DiceCommand::Stats(args) } => dice_stats(&args),
        Command::Cargo { action: CargoCommand::Probe(args) } => cargo_probe(&args),
        Command::Merge { out, scenes, format, wait, shards, quiet } => merge(&out, &scenes, format.as_ref(), wait, shards, quiet),
        Command::Plan(args) => plan(&args),
        Command::Compare(args) => compare(&args),
        Command::Gif { frames_dir, output, fps, width, no_dither, threads } => {
            let settings = simreel::output::gif::GifSettings { fps, dither: !no_dither };
            let pool = worker_pool(threads)?;
            let n = pool.install(|| pipeline::gif_from_folder(&frames_dir, &output, settings, width))?;
            eprintln!("wrote {} ({} at {fps} fps)", output.display(), count(n as u64, "frame", "frames"));
            Ok(())
        }
        Command::Schema { kind, reference } => {
            if reference {
                print!("{}", scene::schema::reference());
            } else {
                let schema = scene::schema::json_schema(kind.as_deref()).expect("clap checked the kind");
                println!("{}", serde_json::to_string_pretty(&schema).expect("a schema serialises"));
            }
            Ok(())
        }
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "simreel", &mut std::io::stdout());
            Ok(())
        }
        Command::Man { markdown: true, .. } => {
            print!("{}", cli::reference::markdown());
            Ok(())
        }
        Command::Man { out, .. } => man_pages(out.as_deref()),
    }
}

/// The man page of `simreel` on stdout, or every page (one per command and subcommand, named
/// like `simreel-golden-check.1`) written into `out`.
fn man_pages(out: Option<&std::path::Path>) -> anyhow::Result<()> {
    let render = |cmd: clap::Command| -> std::io::Result<Vec<u8>> {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page)?;
        Ok(page)
    };
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let Some(dir) = out else {
        std::io::Write::write_all(&mut std::io::stdout(), &render(cmd)?)?;
        return Ok(());
    };
    let mut pending = vec![cmd];
    let mut written = 0;
    while let Some(cmd) = pending.pop() {
        pending.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
        let name = format!("{}.1", cmd.get_display_name().unwrap_or_else(|| cmd.get_name()));
        simreel::output::write_atomic(&dir.join(name), &render(cmd)?)?;
        written += 1;
    }
    eprintln!("wrote {written} man pages into {}", dir.display());
    Ok(())
}

/// `simreel merge`: the scenes named, or every scene whose shards are in `out`.
fn merge(
    out: &std::path::Path,
    scenes: &[PathBuf],
    format: Option<&cli::Formats>,
    wait: u64,
    shards: Option<u32>,
    quiet: bool,
) -> anyhow::Result<()> {
    let mut paths = scenes.to_vec();
    if paths.is_empty() {
        paths = simreel::merge::scenes_with_shards(out)?;
        if paths.is_empty() {
            return Err(BadInput(format!(
                "{} holds no shards (shard-I-of-N.json in a scene's folder): name the scenes, or render with --shard first",
                out.display()
            ))
            .into());
        }
    }
    for path in &paths {
        let scene = scene::load(path)?;
        let formats = format.map_or_else(|| scene.output.formats.clone(), |f| f.0.clone());
        let started = std::time::Instant::now();
        let merged = loop {
            match simreel::merge::merge(out, &scene, &formats, shards) {
                Err(e) if e.may_settle() && started.elapsed().as_secs() < wait => {
                    if !quiet && started.elapsed().as_secs() < 5 {
                        eprintln!("{}: waiting up to {wait} s for the shards ({e})", scene.name);
                    }
                    std::thread::sleep(std::time::Duration::from_secs(5));
                }
                other => break other.with_context(|| format!("merging {}", scene.name))?,
            }
        };
        if !quiet {
            let mut what =
                vec![format!("{} from {}", count(merged.frames as u64, "frame", "frames"), count(merged.shards.into(), "shard", "shards"))];
            what.extend(merged.gif.iter().chain(&merged.animations).map(|p| p.display().to_string()));
            eprintln!("{}: merged {} ({})", scene.name, what.join(", "), merged.manifest.display());
        }
        for note in &merged.left {
            eprintln!("{}: {note}", scene.name);
        }
    }
    Ok(())
}

/// `simreel plan`: the scenes and frames are checked as `render` checks them, then the plan for
/// the scheduler is printed.
fn plan(args: &cli::PlanArgs) -> anyhow::Result<()> {
    for path in &args.scenes {
        let s = scene::load(path)?;
        if let Some(spec) = &args.frames {
            cli::parse_frames(spec, s.sim.timing.frames).map_err(|e| BadInput(format!("--frames: {e} (scene {})", s.name)))?;
        }
    }
    let render = simreel::plan::RenderOptions {
        out: args.out.clone(),
        size: args.size,
        frames: args.frames.clone(),
        format: args.format.as_ref().map(|f| f.0.iter().map(|f| f.name()).collect::<Vec<_>>().join(",")),
        backend: args.backend.and_then(|b| clap::ValueEnum::to_possible_value(&b)).map(|v| v.get_name().to_string()),
        adapter: args.adapter.clone(),
    };
    let text = if args.slurm {
        let slurm = simreel::plan::Slurm {
            partition: args.partition.clone(),
            time: args.time.clone(),
            cpus: args.cpus,
            gpus: args.gpus,
            memory: args.memory.clone(),
        };
        simreel::plan::slurm(&args.binary, &args.scenes, args.shards, &render, &slurm, &std::env::current_dir()?)
    } else {
        let k8s = simreel::plan::Kubernetes {
            image: args.image.clone(),
            claim: args.claim.clone(),
            mount: args.mount.clone(),
            workdir: args.workdir.clone(),
            parallelism: args.parallelism,
            cpu: args.cpus.map(|c| c.to_string()),
            memory: args.memory.clone(),
            gpus: args.gpus,
        };
        simreel::plan::kubernetes(&args.binary, &args.scenes, args.shards, &render, &k8s)
    };
    print!("{text}");
    Ok(())
}

fn cargo_probe(args: &CargoProbeArgs) -> anyhow::Result<()> {
    let scene = match &args.scene {
        Some(path) => simreel::scene::load(path)?,
        None => simreel::scene::parse("kind = \"cargo\"\n", std::path::Path::new("defaults.toml"))?,
    };
    let simreel::scene::KindSpec::Cargo(spec) = &scene.sim.kind else {
        let path = args.scene.as_deref().unwrap_or(std::path::Path::new("?")).display();
        return Err(BadInput(format!("{path} is a {} scene; `cargo probe` takes a cargo scene", scene.kind_name())).into());
    };
    let probe = simreel::sim::cargo::probe::probe(&scene, spec, args.fill);
    if args.json {
        println!("{}", probe.to_json());
    } else {
        print!("{}", probe.table());
    }
    Ok(())
}

/// `simreel compare`: the tolerance from the file and flags, every pair compared, a line each.
fn compare(args: &simreel::cli::CompareArgs) -> anyhow::Result<()> {
    use simreel_compare::ToleranceKeys;
    let file = args.tolerance.as_deref().map(ToleranceKeys::read).transpose()?.unwrap_or_default();
    let flags = ToleranceKeys {
        channel: args.channel,
        max_pixels: args.max_pixels,
        flip_mean: args.flip_mean,
        flip_p99: args.flip_p99,
        max_region: args.max_region,
        reason: None,
    };
    let plan = simreel_compare::files::Plan {
        expected: args.expected.clone(),
        actual: args.actual.clone(),
        tolerance: file.over(&flags).tolerance(),
        out: args.out.clone(),
    };
    simreel_compare::par::set_threads(args.threads.unwrap_or(0) as usize);
    simreel_compare::files::run(&plan, args.quiet, "simreel golden review --compare")?;
    Ok(())
}

/// Worker threads: `threads`, or one per core.
fn worker_pool(threads: Option<u32>) -> anyhow::Result<rayon::ThreadPool> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        pool = pool.num_threads(t as usize);
    }
    pool.build().context("starting worker threads")
}

fn dice_stats(args: &DiceStatsArgs) -> anyhow::Result<()> {
    use simreel::sim::dice::stats::{self, StudySpec};
    let spec = StudySpec { dice: args.dice as usize, seeds: args.seeds, rolls_per_seed: args.rolls_per_seed, firmness: args.firmness };
    let pool = worker_pool(args.threads)?;
    let bar = if args.quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(spec.rolls()) };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} rolling [{bar:30}] {pos}/{len} rolls, {elapsed} (eta {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let started = std::time::Instant::now();
    let study = pool.install(|| stats::run(&spec, &|| bar.inc(1)));
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    if args.json {
        println!("{}", study.to_json());
    } else {
        print!("{}", study.table());
    }
    if !args.quiet {
        eprintln!("finished in {elapsed:.1} s on {}", count(pool.current_num_threads() as u64, "thread", "threads"));
    }
    Ok(())
}

fn validate(paths: &[std::path::PathBuf]) -> anyhow::Result<()> {
    let mut bad = 0;
    let room = scene::available_memory();
    for p in paths {
        match scene::load(p).and_then(|s| s.check_memory(&room).map(|()| s)) {
            Ok(s) => println!(
                "{}: ok ({} scene \"{}\", {} at {}×{}; a render needs about {})",
                p.display(),
                s.kind_name(),
                s.name,
                count(s.sim.timing.frames.into(), "frame", "frames"),
                s.look.width,
                s.look.height,
                scene::error::human_bytes(s.memory_estimate(8).0)
            ),
            Err(e) => {
                bad += 1;
                eprintln!("{e}");
            }
        }
    }
    if bad > 0 {
        return Err(
            BadInput(format!("{bad} of {} scene file{} invalid", paths.len(), if paths.len() == 1 { " is" } else { "s are" })).into()
        );
    }
    Ok(())
}

fn adapters(choice: simreel::render::BackendChoice) -> anyhow::Result<()> {
    let list = simreel::render::device::list(choice);
    if list.is_empty() {
        return Err(simreel::render::device::missing(choice).into());
    }
    // with the vendor and driver a golden override matches
    for a in &list {
        let s = simreel::render::AdapterSummary::of(&a.get_info());
        println!("{s}; vendor \"{}\", driver \"{}\"", s.vendor, s.driver_words());
    }
    let request = simreel::render::AdapterRequest { backend: choice, name: None };
    let pick = simreel::render::device::pick(&request)?;
    let preferred = simreel::render::AdapterRequest::preference_words();
    let because = match preferred.is_empty() || !request.is_open() {
        true => String::new(),
        false => format!(" (preferred by {})", preferred.join(", ")),
    };
    println!("auto picks: {}{because}", simreel::render::AdapterSummary::of(&pick.get_info()));
    let lavapipe = simreel::render::device::summaries(simreel::render::BackendChoice::Vulkan).into_iter().find(|a| a.is_lavapipe());
    match lavapipe {
        Some(l) => println!("golden checks pick: {l} (lavapipe, the canonical goldens' adapter)"),
        None => println!(
            "golden checks pick: an adapter an override covers, else auto's; lavapipe, the canonical goldens' adapter, is missing: {}",
            simreel::render::device::lavapipe_install(simreel::render::device::read_os_release().as_deref())
        ),
    }
    Ok(())
}

fn load_checked(path: &std::path::Path) -> anyhow::Result<scene::Scene> {
    let s = scene::load(path)?;
    s.check_memory(&scene::available_memory())?;
    Ok(s)
}

/// `--shard`: as given, or read from a scheduler's environment (said unless `quiet`).
fn resolve_shard(arg: Option<cli::ShardArg>, quiet: bool) -> anyhow::Result<Option<(u32, u32)>> {
    Ok(match arg {
        None => None,
        Some(cli::ShardArg::Given(i, n)) => Some((i, n)),
        Some(cli::ShardArg::Auto) => {
            let (i, n, from) = cli::shard_from_env(|k| std::env::var(k).ok()).map_err(BadInput)?;
            if !quiet {
                eprintln!("shard {i}/{n} (from {from})");
            }
            Some((i, n))
        }
    })
}

fn studio(args: cli::StudioArgs) -> anyhow::Result<()> {
    simreel::studio::serve(args).map_err(|e| match e {
        simreel::studio::StudioError::Missing(_) => BadInput(e.to_string()).into(),
        e => e.into(),
    })
}

fn render(args: RenderArgs) -> anyhow::Result<()> {
    let shard = resolve_shard(args.shard, args.quiet)?;
    // Every scene is validated before the first one renders.
    let mut jobs = Vec::new();
    for path in &args.scenes {
        let mut s = scene::load(path)?;
        if let Some((w, h)) = args.size {
            s.look.width = w;
            s.look.height = h;
        }
        if args.draft {
            s = s.into_draft();
        }
        s.check_memory(&scene::available_memory())?;
        let frames = match &args.frames {
            Some(spec) => {
                cli::parse_frames(spec, s.sim.timing.frames).map_err(|e| BadInput(format!("--frames: {e} (scene {})", s.name)))?
            }
            None => (0..s.sim.timing.frames).collect(),
        };
        let formats = args.format.as_ref().map_or_else(|| s.output.formats.clone(), |f| f.0.clone());
        jobs.push(Job::new(s, &args.out).frames(frames).formats(formats).adapter(args.adapter.request()).resume(args.resume));
    }
    if let Some((i, n)) = shard {
        jobs = simreel::split::shard_jobs(jobs, i, n)?;
        if !args.quiet {
            let took: Vec<String> = jobs.iter().map(|j| format!("{} ({})", j.scene.name, cli::frames_text(&j.frames))).collect();
            eprintln!(
                "shard {i}/{n} renders {}",
                if took.is_empty() { "nothing: the other shards cover the work".into() } else { took.join(", ") }
            );
        }
    }
    let cancel = Arc::new(AtomicBool::new(false));
    if let Err(why) = pipeline::stop_on_interrupt(cancel.clone(), exit::INTERRUPTED.into()) {
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
    }
    Ok(())
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

fn golden(action: GoldenCommand) -> anyhow::Result<()> {
    let shard = match &action {
        GoldenCommand::Check { common, shard } => resolve_shard(*shard, common.quiet)?,
        _ => None,
    };
    Ok(golden_command::run(&action, shard)?)
}

fn mesh(path: &std::path::Path, out: &std::path::Path, frame: u32, algorithm: Option<&str>) -> anyhow::Result<()> {
    let mut s = load_checked(path)?;
    if let (Some(name), simreel::scene::KindSpec::Terrain(t)) = (algorithm, &mut s.sim.kind) {
        t.algorithm = simreel::scene::terrain::Algorithm::from_name(name).expect("clap checked the name");
    }
    if frame >= s.frames() {
        return Err(BadInput(format!("--frame {frame} is past the scene's last frame {}", s.frames() - 1)).into());
    }
    let Some(mut terrain) = simreel::kinds::Played::<simreel::sim::terrain::TerrainSim>::of(&s) else {
        return Err(BadInput(format!("{} is a {} scene; `mesh` exports terrain meshes", path.display(), s.kind_name())).into());
    };
    terrain.sim.mesh_at(frame);
    // in the colours the scene draws it with
    let m = terrain.painter.colored(&terrain.sim);
    let ext = out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let bytes = match ext.as_deref() {
        Some("ply") => simreel::output::mesh_file::ply(&m.data),
        Some("obj") => simreel::output::mesh_file::obj(&m.data),
        _ => return Err(BadInput(format!("{}: use a .ply or .obj file name", out.display())).into()),
    };
    simreel::output::write_atomic(out, &bytes)?;
    let algorithm = match &s.sim.kind {
        simreel::scene::KindSpec::Terrain(t) => t.algorithm.name(),
        _ => "",
    };
    // what a slicer or a physics engine will find (a `closed = false` block is open at its sides)
    let topology = simreel::sim::terrain::topology::Topology::of(&m.data.positions, &m.data.indices);
    eprintln!(
        "wrote {} ({}, {}, frame {frame}, {algorithm}): {topology}",
        out.display(),
        count(m.data.positions.len() as u64, "vertex", "vertices"),
        count((m.data.indices.len() / 3) as u64, "triangle", "triangles")
    );
    Ok(())
}
