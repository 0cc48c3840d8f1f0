//! The `simreel` command: parse arguments, dispatch to the command (`commands/`, one file each),
//! print any error with its chain, exit with the class the error says it is (see the table in
//! docs/rendering.md). The command line (`cli/`) is the binary's own: the library takes plain
//! values.

mod cli;
mod commands;

use std::process::ExitCode;

use clap::Parser;

use cli::{CargoCommand, Cli, Command, DiceCommand};
use simreel::exit::{BadInput, ExitClass};

fn main() -> ExitCode {
    // the variables simreel heeds, read once here (before the probe below sets one); the library
    // asks for them, never the process
    let environment = simreel::environment::Environment::read();
    quiet_wayland_probe();
    environment.install();
    simreel::output::warn_of_shared_folders();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { ExitClass::BadInput.code() } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // an error may name what a file said (a path, a value): nothing reaches the terminal raw
            let safe = |t: String| simreel_compare::text::for_terminal(&t).into_owned();
            eprintln!("error: {}", safe(e.to_string()));
            for cause in e.chain().skip(1) {
                eprintln!("  caused by: {}", safe(cause.to_string()));
            }
            ExitCode::from(class_of(&e).code())
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

/// The class of the first error along the chain that says its own (anything else: runtime).
fn class_of(e: &anyhow::Error) -> ExitClass {
    e.chain()
        .find_map(|cause| {
            let compare = || cause.downcast_ref::<simreel_compare::Error>().and_then(simreel_compare::Error::exit_code).map(compare_class);
            None.or_else(|| cause.downcast_ref::<simreel::pipeline::PipelineError>().map(|p| p.exit_class()))
                .or_else(|| cause.downcast_ref::<simreel::render::RenderError>().map(|r| r.exit_class()))
                .or_else(|| cause.downcast_ref::<simreel::scene::SceneError>().map(|s| s.exit_class()))
                .or_else(|| cause.downcast_ref::<BadInput>().map(BadInput::exit_class))
                .or_else(compare)
                .or_else(|| cause.downcast_ref::<simreel::golden::GoldenError>().map(|g| g.exit_class()))
        })
        .unwrap_or(ExitClass::Runtime)
}

/// The comparator crate's exit codes as classes (it has no dependency on this crate).
fn compare_class(code: u8) -> ExitClass {
    match code {
        2 => ExitClass::BadInput,
        4 => ExitClass::Mismatch,
        _ => ExitClass::Runtime,
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    use commands::*;
    match cli.command {
        Command::Validate { scenes, sets } => validate::run(&scenes, &sets),
        Command::Render(args) => render::run(args),
        Command::Adapters { backend } => adapters::run(backend.choice()),
        Command::Mesh { scene, output, frame, algorithm } => mesh::run(&scene, &output, frame, algorithm.map(|a| a.0)),
        Command::Studio(args) => studio::run(args),
        Command::Golden { action } => golden::command(action),
        Command::Dice { action: DiceCommand::Stats(args) } => dice::stats(&args),
        Command::Cargo { action: CargoCommand::Probe(args) } => cargo::probe(&args),
        Command::Merge { out, scenes, format, wait, shards, quiet } => merge::run(&out, &scenes, format.as_ref(), wait, shards, quiet),
        Command::Plan(args) => plan::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Gif { frames_dir, output, fps, width, no_dither, threads } => {
            gif::run(&frames_dir, &output, fps, width, !no_dither, threads)
        }
        Command::Embed { scene, out, player, backend } => embed::run(&scene, &out, player.as_deref(), backend.choice()),
        Command::Schema { kind, reference } => schema::run(kind.map(|k| k.0), reference),
        Command::Completions { shell } => man::completions(shell),
        Command::Man { markdown, out } => man::run(markdown, out.as_deref()),
    }
}
