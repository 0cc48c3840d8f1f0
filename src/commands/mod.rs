//! The `simreel` command's commands, one file each: each turns its parsed arguments (`crate::cli`)
//! into the plain values the library takes, runs it, and says what it did.

pub mod adapters;
pub mod cargo;
pub mod compare;
pub mod dice;
pub mod embed;
pub mod gif;
pub mod golden;
pub mod man;
pub mod merge;
pub mod mesh;
pub mod plan;
pub mod render;
pub mod schema;
pub mod studio;
pub mod validate;

use anyhow::Context;
pub use simreel::exit::BadInput;
use simreel::scene;

use crate::cli;

/// Worker threads: `threads`, or one per core.
pub fn worker_pool(threads: Option<u32>) -> anyhow::Result<rayon::ThreadPool> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        pool = pool.num_threads(t as usize);
    }
    pool.build().context("starting worker threads")
}

/// A scene file, read and checked; its values given under former names are said on stderr.
pub fn load(path: &std::path::Path) -> Result<scene::Scene, scene::SceneError> {
    load_with(path, &[])
}

/// [`load`], with `--set` values over the file's.
pub fn load_with(path: &std::path::Path, sets: &[scene::overrides::Override]) -> Result<scene::Scene, scene::SceneError> {
    let s = scene::load_with(path, sets)?;
    warn_deprecations(&s);
    Ok(s)
}

/// Says each value `s` gives under a former name, one `warning:` line each.
pub fn warn_deprecations(s: &scene::Scene) {
    for line in s.deprecation_lines() {
        eprintln!("{line}");
    }
}

/// [`load`], and refused when it would not fit this machine's memory.
pub fn load_checked(path: &std::path::Path) -> anyhow::Result<scene::Scene> {
    let s = load(path)?;
    s.check_memory(&scene::available_memory())?;
    Ok(s)
}

/// `--shard`: as given, or read from a scheduler's environment (said unless `quiet`).
pub fn resolve_shard(arg: Option<cli::ShardArg>, quiet: bool) -> anyhow::Result<Option<(u32, u32)>> {
    Ok(match arg {
        None => None,
        Some(cli::ShardArg::Given(i, n)) => Some((i, n)),
        Some(cli::ShardArg::Auto) => {
            let (i, n, from) = cli::render::shard_from_env(|k| std::env::var(k).ok()).map_err(BadInput)?;
            if !quiet {
                eprintln!("shard {i}/{n} (from {from})");
            }
            Some((i, n))
        }
    })
}
