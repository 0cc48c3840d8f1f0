//! `simreel render`'s arguments and the values they parse: formats, shards (given or read from a
//! scheduler's environment), a pixel density.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use simreel::scene::Format;
use simreel::scene::overrides::Override;

use super::AdapterArgs;

#[derive(Args, Debug)]
pub struct RenderArgs {
    /// Scene files to render, one after another (every one is checked before the first renders).
    #[arg(required = true, value_name = "SCENE.toml")]
    pub scenes: Vec<PathBuf>,
    /// Output folder: frames go to DIR/<scene>/, the GIF to DIR/<scene>.gif.
    #[arg(long, value_name = "DIR", default_value = "out")]
    pub out: PathBuf,
    /// Also write the result to FILE, by its extension: `.gif`, `.apng`, `.mp4`, `.webm`, `.webp`,
    /// `.avif` (the animation of every frame, or the clip of a run `--frames` names), or `.png`
    /// (a still: the scene's one frame, or the one `--frames` names; `.webp` and `.avif` of one
    /// frame are stills too). With `--format`, each format named is written too, beside FILE
    /// under its own extension (`-o hero.mp4 --format webm` writes hero.mp4 and hero.webm). One
    /// scene; the frames and manifest still go to DIR, where `--resume` finds them.
    #[arg(short = 'o', long = "output", value_name = "FILE", conflicts_with = "shard")]
    pub output: Option<PathBuf>,
    /// Frames to render: `0..59`, `1,3,5..10`, `-1` (the last), `-5..` (the last five); ranges
    /// include both ends. A run of frames writes a clip of them in each animation format
    /// (`DIR/<scene>.0-29.mp4`), leaving the whole scene's animations alone.
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    pub frames: Option<String>,
    /// A value over the scene file's, checked as the file is: `flock.theme=light`,
    /// `render.fps=25`, `name=flock-light`, `wind.grass[0].density=80` (repeatable; a plain word is
    /// a string, other values are TOML). The frames' identity and the manifest include it.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<Override>,
    /// The most the GIF may weigh (`2MB`, `500kB`, `1.5MiB`): a larger one is made again from the
    /// frames at a lower rate, a smaller size or fewer colours, the least loss that fits, and the
    /// render says what it chose. Overrides `[output] gif_max_size`.
    #[arg(long, value_name = "SIZE", value_parser = simreel::pipeline::budget::parse_size)]
    pub max_size: Option<u64>,
    /// Pixel density: render at N times the scene's size (1.5, 2, 3) with the same layout,
    /// named `<scene>@Nx` (`out/flock@2x/`, `out/flock@2x.gif`) beside the 1× render.
    #[arg(long, value_name = "N", value_parser = parse_scale, conflicts_with = "size")]
    pub scale: Option<f64>,
    /// Override the scene's size, e.g. 320x240.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: Option<(u32, u32)>,
    /// Override the scene's formats: png, gif, apng, mp4, webm, webp, avif, comma-separated (all
    /// but gif are made from the PNG frames, which are kept; mp4, webm, webp and avif need ffmpeg).
    #[arg(long, value_name = "LIST", value_parser = parse_formats)]
    pub format: Option<Formats>,
    #[command(flatten)]
    pub adapter: AdapterArgs,
    /// No progress bars or summaries.
    #[arg(long, short)]
    pub quiet: bool,
    /// `json`: one JSON line per finished frame on stdout, and one of each scene's timings at
    /// its end.
    #[arg(long, value_enum)]
    pub progress: Option<ProgressArg>,
    /// After each scene, where its time went: startup apart from the rate after the first frame,
    /// and each stage's rate alone with its busy, idle and blocked time (on stderr, even with
    /// --quiet; the manifest's `timings` hold the same).
    #[arg(long)]
    pub profile: bool,
    /// Keep frames a previous run of the same scene and settings finished; render the rest.
    #[arg(long)]
    pub resume: bool,
    /// Render one share of the frames: `I/N` (1-based, like Playwright's `--shard`), or `auto`
    /// (from Slurm's SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT or MIN/MAX, or Kubernetes'
    /// JOB_COMPLETION_INDEX with SIMREEL_SHARDS). Shards write frames and a shard manifest;
    /// `simreel merge` then writes the GIF, animations and manifest.
    #[arg(long, value_name = "I/N|auto", value_parser = parse_shard)]
    pub shard: Option<ShardArg>,
    /// A quick look: one sample a pixel at half the size (of the scene, or of `--size`), into
    /// DIR/<scene>-draft/ and DIR/<scene>-draft.gif beside the final frames; the simulation is the
    /// same.
    #[arg(long, conflicts_with = "shard")]
    pub draft: bool,
}

/// `2`, `1.5`, `2x`: a pixel density from 0.25 to 8.
pub fn parse_scale(s: &str) -> Result<f64, String> {
    let n: f64 = s.trim().trim_end_matches(['x', 'X']).parse().map_err(|_| format!("\"{s}\" is not a scale: write e.g. 2 or 1.5"))?;
    if !(0.25..=8.0).contains(&n) {
        return Err(format!("{n} is outside 0.25..=8"));
    }
    Ok(n)
}

/// `--shard`: a given share, or one read from the scheduler's environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardArg {
    Given(u32, u32),
    Auto,
}

/// `3/8` (1 ≤ I ≤ N) or `auto`.
pub fn parse_shard(s: &str) -> Result<ShardArg, String> {
    if s == "auto" {
        return Ok(ShardArg::Auto);
    }
    let bad = || format!("\"{s}\" is not a shard: write I/N with 1 ≤ I ≤ N (e.g. 3/8), or auto");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n) = (i.trim().parse::<u32>().map_err(|_| bad())?, n.trim().parse::<u32>().map_err(|_| bad())?);
    if n == 0 {
        return Err(format!("\"{s}\": a render splits into at least 1 shard"));
    }
    if i == 0 || i > n {
        return Err(format!("\"{s}\": shard {i} is out of range: shards are numbered 1 to {n}"));
    }
    Ok(ShardArg::Given(i, n))
}

/// The shard a scheduler's environment names (`--shard auto`), and where it read it. `var`
/// looks a variable up (the process environment, or a test's).
pub fn shard_from_env(var: impl Fn(&str) -> Option<String>) -> Result<(u32, u32, String), String> {
    let num = |name: &str| -> Result<Option<i64>, String> {
        match var(name) {
            None => Ok(None),
            Some(v) => v.trim().parse::<i64>().map(Some).map_err(|_| format!("{name}={v} is not a whole number")),
        }
    };
    let checked = |i: i64, n: i64, from: String| -> Result<(u32, u32, String), String> {
        if n < 1 || i < 1 || i > n {
            return Err(format!("{from} gives shard {i} of {n}, which is out of range"));
        }
        Ok((i as u32, n as u32, from))
    };
    if let Some(id) = num("SLURM_ARRAY_TASK_ID")? {
        // from `simreel plan`: the array is 1..N and N is given, so a rerun of some tasks
        // (`sbatch --array=3,7`) keeps their numbers
        if let Some(count) = num("SIMREEL_SHARDS")? {
            return checked(id, count, format!("SLURM_ARRAY_TASK_ID={id} of SIMREEL_SHARDS={count}"));
        }
        let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0).min(id);
        let count = match (num("SLURM_ARRAY_TASK_COUNT")?, num("SLURM_ARRAY_TASK_MAX")?) {
            (Some(c), _) => c,
            (None, Some(max)) => max - min + 1,
            (None, None) => return Err("SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX".into()),
        };
        return checked(id - min + 1, count, format!("SLURM_ARRAY_TASK_ID={id} (first task {min}) of {count} tasks"));
    }
    if let Some(index) = num("JOB_COMPLETION_INDEX")? {
        let Some(count) = num("SIMREEL_SHARDS")? else {
            return Err("JOB_COMPLETION_INDEX is set but SIMREEL_SHARDS (the Job's completions) is not".into());
        };
        return checked(index + 1, count, format!("JOB_COMPLETION_INDEX={index} of SIMREEL_SHARDS={count}"));
    }
    Err("--shard auto found no scheduler: set SLURM_ARRAY_TASK_ID (a Slurm job array) or JOB_COMPLETION_INDEX and SIMREEL_SHARDS (a Kubernetes Indexed Job), or give --shard I/N".into())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    Json,
}

/// The formats named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formats(pub Vec<Format>);

pub use simreel::scene::common::parse_size;

/// `png,gif` → the formats.
pub fn parse_formats(s: &str) -> Result<Formats, String> {
    let mut v = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let f = Format::from_name(part)
            .ok_or_else(|| format!("unknown format \"{part}\": use png, gif, apng, mp4, webm, webp or avif, comma-separated (png,gif)"))?;
        if !v.contains(&f) {
            v.push(f);
        }
    }
    if v.is_empty() {
        return Err("no format given: use png, gif, apng, mp4, webm, webp or avif, comma-separated (png,gif)".into());
    }
    Ok(Formats(v))
}
