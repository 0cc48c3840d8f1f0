//! `simreel validate`: scene files checked as `render` checks them, nothing rendered.

use simreel::scene;
use simreel::scene::overrides::Override;
use simreel::text::count;

use super::BadInput;

/// Checks the scene files, and every `*.toml` in the folders given (with their subfolders), as
/// `golden check` takes them.
pub fn run(given: &[std::path::PathBuf], sets: &[Override]) -> anyhow::Result<()> {
    let mut paths = Vec::new();
    for p in given {
        if p.is_dir() {
            let found = scene::scene_files(p)?;
            if found.is_empty() {
                return Err(BadInput(format!("{}: no scene files (*.toml) in this folder or below it", p.display())).into());
            }
            paths.extend(found);
        } else {
            paths.push(p.clone());
        }
    }
    let mut bad = 0;
    let room = scene::available_memory();
    for p in &paths {
        match super::load_with(p, sets).and_then(|s| s.check_memory(&room).map(|()| s)) {
            Ok(s) => {
                println!(
                    "{}: ok ({} scene \"{}\", {} at {}×{}; a render needs about {})",
                    p.display(),
                    s.kind_name(),
                    s.name,
                    count(s.sim.timing.frames.into(), "frame", "frames"),
                    s.look.width,
                    s.look.height,
                    scene::error::human_bytes(s.memory_estimate(8).0)
                );
                // a figure: where each panel is and how its scene fits, in the units its keys use
                if let (scene::KindLook::Figure(f), scene::KindSpec::Figure(spec)) = (&s.look.kind, &s.sim.kind) {
                    let layout = f.layout(spec);
                    for line in &layout.lines {
                        println!("  {line}");
                    }
                    for w in &layout.warnings {
                        eprintln!("warning: {}: {w}", p.display());
                    }
                }
            }
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
