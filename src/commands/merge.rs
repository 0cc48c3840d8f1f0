//! `simreel merge`: the shards of sharded renders as one render.

use std::path::PathBuf;

use anyhow::Context;
use simreel::text::count;

use super::BadInput;
use crate::cli;

/// `simreel merge`: the scenes named, or every scene whose shards are in `out`.
pub fn run(
    out: &std::path::Path,
    scenes: &[PathBuf],
    format: Option<&cli::Formats>,
    wait: u64,
    shards: Option<u32>,
    quiet: bool,
) -> anyhow::Result<()> {
    let mut paths = scenes.to_vec();
    if paths.is_empty() {
        let passed;
        (paths, passed) = simreel::merge::scenes_with_shards(out)?;
        for note in &passed {
            eprintln!("warning: {note}");
        }
        if paths.is_empty() {
            return Err(BadInput(format!(
                "{} holds no shards (shard-I-of-N.json in a scene's folder): name the scenes, or render with --shard first",
                out.display()
            ))
            .into());
        }
    }
    for path in &paths {
        let scene = super::load(path)?;
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
        for note in merged.left.iter().chain(&merged.gif_fit) {
            eprintln!("{}: {note}", scene.name);
        }
    }
    Ok(())
}
