//! The `simreel` binary's command-line arguments (clap) and their validation into plain values:
//! frame specs, sizes, formats, adapter choice. Parsing never touches files or the GPU. Declared
//! by `main.rs`: the library never sees it.

mod compare;
pub mod reference;
pub mod render;

pub use compare::CompareArgs;
pub use render::{Formats, RenderArgs, ShardArg, parse_formats, parse_shard, parse_size};

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use simreel::render::{AdapterRequest, BackendChoice};
use simreel::scene::overrides::Override;

#[derive(Parser, Debug)]
#[command(
    name = "simreel",
    version,
    about = "Deterministic simulations from TOML scenes, rendered headlessly with wgpu into PNG sequences and GIFs"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Simulate and render scenes to PNG frames and a GIF.
    Render(RenderArgs),
    /// Check scene files and report every problem; never touches the GPU.
    Validate {
        /// Scene files to check, or folders of them (every `*.toml` below).
        #[arg(required = true, value_name = "SCENE.toml|DIR")]
        scenes: Vec<PathBuf>,
        /// A value over every scene file's, as `render --set` gives it.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<Override>,
    },
    /// List the adapters wgpu sees and the one `auto` picks.
    Adapters {
        /// Which graphics API to look through (`auto`: all of them).
        #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
        backend: BackendArg,
    },
    /// Export a terrain scene's mesh (binary PLY, or OBJ by extension).
    Mesh {
        /// A terrain scene.
        #[arg(value_name = "SCENE.toml")]
        scene: PathBuf,
        /// Output file: .ply (binary) or .obj.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// Which frame's mesh (animated fields change over time).
        #[arg(long, default_value_t = 0)]
        frame: u32,
        /// Mesh with this algorithm instead of the scene's `algorithm`.
        #[arg(long, value_enum)]
        algorithm: Option<AlgorithmArg>,
    },
    /// A live preview in the browser: serves a page that shows the scenes, redraws what an edit
    /// changes on save, scrubs through time, and shows problems where they are.
    Studio(StudioArgs),
    /// Golden-image regression: check scenes against approved images, or approve new ones.
    Golden {
        #[command(subcommand)]
        action: GoldenCommand,
    },
    /// Jelly-dice tools that need no GPU.
    Dice {
        #[command(subcommand)]
        action: DiceCommand,
    },
    /// Put the shards of split renders (`render --shard I/N`) together: check that every shard is
    /// there and agrees with the others and that every frame is written once, then write the GIF,
    /// animations and manifest. Needs no GPU.
    Merge {
        /// The output folder the shards wrote into (their `--out`).
        #[arg(value_name = "OUT")]
        out: PathBuf,
        /// The scenes to merge (default: every scene with shards in OUT, from their manifests).
        #[arg(value_name = "SCENE.toml")]
        scenes: Vec<PathBuf>,
        /// Override the scene's formats, as `render --format` (the shards wrote PNG frames).
        #[arg(long, value_name = "LIST", value_parser = parse_formats)]
        format: Option<Formats>,
        /// Wait up to this many seconds for shards still missing, unfinished or stale (checked
        /// every 5 s): a merge job can start with the shards.
        #[arg(long, value_name = "SECONDS", default_value_t = 0)]
        wait: u64,
        /// The number of shards: open shard-i-of-N.json by name instead of listing the folder
        /// (a shared filesystem may list it late), and ignore other splits' manifests.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
        shards: Option<u32>,
        /// No summary.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Print what a scheduler needs to render scenes in N shards and merge them: a Slurm script
    /// (a job array and a merge job after it) or Kubernetes Jobs (an Indexed Job and a merge Job).
    Plan(PlanArgs),
    /// Cargo scenes' tools that need no GPU (a carrier's jige, an A-frame carrier, and its stacked
    /// loads): the springs' step responses.
    Cargo {
        #[command(subcommand)]
        action: CargoCommand,
    },
    /// Compare two images, or two folders of images matched by relative path, with the golden
    /// check's comparator; a report (HTML, JUnit, JSON) goes to OUT/compare-report/. Exit code
    /// 4 when any differs or is on one side only. Needs no GPU.
    Compare(CompareArgs),
    /// Assemble a GIF from a folder of frames (PNG of any depth, JPEG, WebP; in name order) with
    /// the encoder `render` uses.
    Gif {
        /// The folder of frames (PNG, JPEG or WebP, taken in name order).
        #[arg(value_name = "FRAMES_DIR")]
        frames_dir: PathBuf,
        /// The GIF to write.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// Frames per second, more than 0 and at most 100 (GIF delays are whole centiseconds).
        #[arg(long, default_value_t = 30.0, value_parser = parse_gif_fps)]
        fps: f64,
        /// Scale every frame to this width in pixels, keeping the aspect (Catmull–Rom).
        #[arg(long, value_parser = clap::value_parser!(u32).range(16..=8192))]
        width: Option<u32>,
        /// Turn off error-diffusion dithering.
        #[arg(long)]
        no_dither: bool,
        /// Worker threads that quantize frames (default: one per core). The GIF does not depend
        /// on it.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: Option<u32>,
    },
    /// Write a folder a static web page can host in which the scene plays live: the scene, the
    /// web player (WebAssembly, drawn with WebGPU or WebGL2), a poster of its first frame, a page
    /// and the snippet for a post.
    Embed {
        /// The scene (any kind but a figure).
        #[arg(value_name = "SCENE.toml")]
        scene: PathBuf,
        /// The folder to write (made where missing; the files it writes are replaced).
        #[arg(short, long, value_name = "DIR")]
        out: PathBuf,
        /// Where the web player's files are (scripts/build-web writes them to target/web; a
        /// release archive has them in web/ beside the program; `scripts/build-web --kinds dice`
        /// makes a smaller one of the dice alone in target/web-dice).
        #[arg(long, value_name = "DIR")]
        player: Option<PathBuf>,
        /// Which graphics API renders the poster (`auto`: Vulkan, Metal or DX12, GL only when none
        /// of them has an adapter).
        #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
        backend: BackendArg,
    },
    /// Print the JSON Schema of scene files (draft-07, for editors: Taplo / Even Better TOML), made
    /// from the same declarations the scene reader checks against.
    Schema {
        /// The schema of one kind's scene files only.
        #[arg(long, value_name = "KIND", value_enum)]
        kind: Option<KindArg>,
        /// Print the scene reference (Markdown) instead, as docs/scene-reference.md holds it.
        #[arg(long, conflicts_with = "kind")]
        reference: bool,
    },
    /// Print a shell completion script, e.g. `mkdir -p ~/.local/share/bash-completion/completions && simreel completions bash > ~/.local/share/bash-completion/completions/simreel`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff); with --out, write simreel.1 and a page per subcommand there.
    Man {
        /// Folder for simreel.1, simreel-render.1, … (e.g. ~/.local/share/man/man1).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Print the command-line reference in Markdown instead (docs/cli.md).
        #[arg(long, conflicts_with = "out")]
        markdown: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum DiceCommand {
    /// Roll many seeds, read every result from the physics, and report fairness (χ² over the
    /// faces), settle times, cocked results, nudges and fence contacts.
    Stats(DiceStatsArgs),
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("engine").required(true).args(["slurm", "k8s"])))]
pub struct PlanArgs {
    /// The scenes to split across the machines.
    #[arg(required = true, value_name = "SCENE.toml")]
    pub scenes: Vec<PathBuf>,
    /// How many shards (machines).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub shards: u32,
    /// A Slurm plan: bash that submits a job array and a merge job (`--dependency=afterok`).
    #[arg(long)]
    pub slurm: bool,
    /// A Kubernetes plan: an Indexed Job and a merge Job, as YAML for `kubectl apply -f`.
    #[arg(long)]
    pub k8s: bool,
    /// The simreel command on the nodes.
    #[arg(long, value_name = "PATH", default_value = "simreel")]
    pub binary: String,
    /// Render options passed on to every shard, as `render` takes them (for Kubernetes `--out` is
    /// the volume's mount, `--mount`).
    #[arg(long, value_name = "DIR", default_value = "out")]
    pub out: PathBuf,
    /// Passed on as `render --size`.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: Option<(u32, u32)>,
    /// Passed on as `render --frames`.
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    pub frames: Option<String>,
    /// Passed on as `render --format`.
    #[arg(long, value_name = "LIST", value_parser = parse_formats)]
    pub format: Option<Formats>,
    /// Passed on as `render --backend`.
    #[arg(long, value_enum)]
    pub backend: Option<BackendArg>,
    /// Passed on as `render --adapter`.
    #[arg(long, value_name = "SUBSTRING")]
    pub adapter: Option<String>,
    /// Slurm partition.
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// Slurm wall-clock limit per task (`2:00:00`).
    #[arg(long, value_name = "TIME")]
    pub time: Option<String>,
    /// CPUs per shard.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub cpus: Option<u32>,
    /// GPUs per shard.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub gpus: Option<u32>,
    /// Memory per shard (`8G` for Slurm, `8Gi` for Kubernetes).
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<String>,
    /// Kubernetes: the container image (holding simreel and the scenes); the default is the image
    /// `scripts/build-image` builds from the repository's Containerfile.
    #[arg(long, value_name = "IMAGE", default_value = simreel::plan::IMAGE)]
    pub image: String,
    /// Kubernetes: the PersistentVolumeClaim the shards write into and the merge reads.
    #[arg(long, value_name = "NAME", default_value = "simreel-out")]
    pub claim: String,
    /// Kubernetes: where the claim is mounted in the containers.
    #[arg(long, value_name = "PATH", default_value = "/out")]
    pub mount: String,
    /// Kubernetes: the folder the scene paths are relative to in the image.
    #[arg(long, value_name = "PATH")]
    pub workdir: Option<String>,
    /// Kubernetes: shards running at once (default: all).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub parallelism: Option<u32>,
}

#[derive(Subcommand, Debug)]
pub enum CargoCommand {
    /// Measure a cargo scene's springs against the theory: each load's step response with the
    /// exact integrator and the post's Euler, the post's long-frame test through every integrator, and
    /// the time a hitch drops.
    Probe(CargoProbeArgs),
}

#[derive(Args, Debug)]
pub struct CargoProbeArgs {
    /// A `kind = "cargo"` scene (default: the post's constants).
    #[arg(value_name = "SCENE")]
    pub scene: Option<PathBuf>,
    /// Fill ratio to probe at, 0..1 (default: the scene's at its start).
    #[arg(long, value_parser = parse_fill)]
    pub fill: Option<f64>,
    /// Print one JSON object instead of the tables.
    #[arg(long)]
    pub json: bool,
}

fn parse_fill(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("\"{s}\" is not a fill ratio: a number from 0 to 1")),
    }
}

#[derive(Args, Debug)]
pub struct DiceStatsArgs {
    /// Dice per roll.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=simreel::scene::dice::MAX_DICE as i64))]
    pub dice: u32,
    /// Seeds to roll, both ends included: `1..100`, or one seed: `7`.
    #[arg(long, value_name = "FIRST..LAST", default_value = "1..100", value_parser = parse_seed_range)]
    pub seeds: (u64, u64),
    /// Rolls in a row per seed (each throw continues the seed's random stream).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub rolls_per_seed: u32,
    /// Firmness of every die, 0 (soft) to 100 (firm).
    #[arg(long, default_value_t = 55.0, value_parser = parse_firmness)]
    pub firmness: f64,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `1..100` (both ends included; `1..=100` too) or a single seed.
pub fn parse_seed_range(s: &str) -> Result<(u64, u64), String> {
    let num = |v: &str| v.trim().parse::<u64>().map_err(|_| format!("\"{v}\" is not a seed (a whole number ≥ 0)"));
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?),
        None => (num(s)?, num(s)?),
    };
    if b < a {
        return Err(format!("seed range {a}..{b} is empty: the last seed comes before the first"));
    }
    if b - a >= 1_000_000 {
        return Err(format!("{} seeds is too many (at most 1,000,000)", b as u128 - a as u128 + 1));
    }
    Ok((a, b))
}

/// A GIF's frame rate: in (0, 100].
pub fn parse_gif_fps(s: &str) -> Result<f64, String> {
    let fps: f64 = s.trim().parse().map_err(|_| format!("\"{s}\" is not a number of frames per second"))?;
    if !(fps > 0.0 && fps <= 100.0) {
        return Err(format!("{fps} fps is outside (0, 100]: more than 0, at most 100 (GIF delays are whole centiseconds)"));
    }
    Ok(fps)
}

/// Firmness 0..=100.
pub fn parse_firmness(s: &str) -> Result<f64, String> {
    let f: f64 = s.trim().parse().map_err(|_| format!("\"{s}\" is not a number"))?;
    if !(0.0..=100.0).contains(&f) {
        return Err(format!("firmness {f} is outside 0..100"));
    }
    Ok(f)
}

#[derive(Subcommand, Debug)]
pub enum GoldenCommand {
    /// Render the frames each scene's [golden] table lists and compare them with the approved
    /// images; never writes goldens. A report goes to OUT/golden-report/.
    Check {
        #[command(flatten)]
        common: GoldenArgs,
        /// Check one share of the scenes: `I/N` (whole scenes dealt by estimated cost), or `auto`
        /// (from Slurm's or Kubernetes' variables, as `render --shard`). The report goes to
        /// OUT/golden-report/shard-I-of-N/; `simreel golden merge` puts the shards' reports
        /// together.
        #[arg(long, value_name = "I/N|auto", value_parser = parse_shard)]
        shard: Option<ShardArg>,
    },
    /// Approve images: renders twice (refusing if the renders differ) and writes only the files
    /// that changed.
    Bless {
        #[command(flatten)]
        common: GoldenArgs,
        /// Only this scene, and optionally these of its golden frames (`terrain:0,45`).
        #[arg(long, value_name = "SCENE[:FRAMES]")]
        filter: Option<String>,
        /// Accept the images the last `golden check` rendered, without rendering again.
        #[arg(long, conflicts_with = "from_report")]
        from_last_run: bool,
        /// Accept the failed frames of a check's report folder (a CI run's, downloaded) as that
        /// check rendered them, byte for byte; refused for frames of another version of a scene,
        /// or of an adapter the goldens take no images of.
        #[arg(long, value_name = "DIR")]
        from_report: Option<PathBuf>,
    },
    /// Walk the last check's failures: accept (a), reject (r) or skip (s) each, open its
    /// side-by-side image (o), accept or reject all that remain (A, R). Without a terminal, print
    /// the command that accepts each.
    Review {
        #[command(flatten)]
        common: GoldenArgs,
        /// Walk the last `simreel compare` into OUT instead (OUT/compare-report/): accepting
        /// copies the actual file over the expected one. Needs no scenes.
        #[arg(long, conflicts_with = "pending")]
        compare: bool,
        /// Walk the pending images of tests under DIR instead (`assert_image!`'s
        /// `<name>.new.png`): accepting moves one over its approved `<name>.png`, rejecting
        /// removes it. Needs no scenes.
        #[arg(long, value_name = "DIR")]
        pending: Option<PathBuf>,
        /// Accept every failure without asking (as `cargo insta accept`), saying what each wrote;
        /// what a report names outside this folder, the output and golden folders (or DIR) is
        /// refused.
        #[arg(long)]
        accept_all: bool,
    },
    /// Put the reports of a split check (`golden check --shard I/N`) together: the summary.json,
    /// junit.xml and report.html one machine's check would write; exit code 4 when any frame
    /// failed.
    Merge(GoldenMergeArgs),
}

/// `simreel golden merge`.
#[derive(Args, Debug)]
pub struct GoldenMergeArgs {
    /// The folder the shards' checks wrote into (their `--out`): reads
    /// OUT/golden-report/shard-I-of-N/, writes OUT/golden-report/.
    #[arg(long, value_name = "DIR", default_value = "out")]
    pub out: PathBuf,
    /// The number of shards (default: as the folder's shard reports say).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: Option<u32>,
    /// No summary.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct GoldenArgs {
    /// Scene files, or folders whose scenes with a [golden] table are taken (default: scenes/).
    #[arg(value_name = "SCENES|DIR")]
    pub paths: Vec<PathBuf>,
    /// Where approved images live.
    #[arg(long, value_name = "DIR", default_value = simreel::golden::DEFAULT_GOLDENS)]
    pub goldens: PathBuf,
    /// Renders go to OUT/golden-run/, the report to OUT/golden-report/ [default: out; review
    /// without it walks the newest report of out/ and of the folders up to two levels below].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub adapter: AdapterArgs,
    /// No progress bars or per-frame lines; only the outcome (and any error).
    #[arg(long, short)]
    pub quiet: bool,
}

impl GoldenArgs {
    /// `--out`, or `out`.
    pub fn out(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(|| PathBuf::from(simreel::golden::DEFAULT_OUT))
    }
}

/// `--backend` and `--adapter`, shared by every command that renders.
#[derive(Args, Debug)]
pub struct AdapterArgs {
    /// Which graphics API to render through (`auto`: Vulkan, Metal or DX12, GL only when none of
    /// them has an adapter; a real GPU before a software one). With neither --backend nor
    /// --adapter, the SIMREEL_BACKEND and SIMREEL_ADAPTER variables choose where they are set.
    /// Golden checks left to `auto` render on the adapter the goldens were approved on instead.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// Use the adapter whose name is this, or else contains it (case-insensitive).
    #[arg(long, value_name = "SUBSTRING")]
    pub adapter: Option<String>,
}

impl AdapterArgs {
    pub fn request(&self) -> AdapterRequest {
        AdapterRequest { backend: self.backend.choice(), name: self.adapter.clone() }
    }
}

#[derive(Args, Debug)]
pub struct StudioArgs {
    /// Scene files, and folders whose scene files (and their subfolders') to serve.
    #[arg(value_name = "SCENE.toml|DIR", default_value = "scenes")]
    pub scenes: Vec<PathBuf>,
    /// Where `render` from the page writes, and whose saved states and animations it shows.
    #[arg(long, value_name = "DIR", default_value = "out")]
    pub out: PathBuf,
    /// Listen on this port (0: any free one) [default: 7770, or the next free one].
    #[arg(long)]
    pub port: Option<u16>,
    /// Listen on this address instead of 127.0.0.1. Off loopback, anyone who can reach it and opens
    /// the page sees the scenes and the output folder; requests must name the address itself, a
    /// loopback name, or a name given with --allow-host, and writes (render, golden check, accept,
    /// reject) from other machines need --allow-writes.
    #[arg(long, value_name = "ADDRESS")]
    pub host: Option<std::net::IpAddr>,
    /// Also answer requests addressed to this name (a host name that resolves to this machine,
    /// with or without a port), as other machines reach it; repeatable.
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Take requests that write (render, golden check, accept, reject) from other machines too
    /// (only with --host; from this machine they are always taken).
    #[arg(long)]
    pub allow_writes: bool,
    /// Open the page in the system's browser.
    #[arg(long)]
    pub open: bool,
    /// Look for changes every 250 ms instead of waiting for the system's file events (for network
    /// and container mounts, which send none).
    #[arg(long)]
    pub poll: bool,
    /// Where approved images live: the Goldens view checks against them and accepts into them.
    #[arg(long, value_name = "DIR", default_value = simreel::golden::DEFAULT_GOLDENS)]
    pub goldens: PathBuf,
    #[command(flatten)]
    pub adapter: AdapterArgs,
}

/// A terrain meshing algorithm, by its scene-file name (the library's list, so a new algorithm
/// is a choice here without an edit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlgorithmArg(pub simreel::scene::terrain::Algorithm);

impl ValueEnum for AlgorithmArg {
    fn value_variants<'a>() -> &'a [Self] {
        use simreel::scene::terrain::Algorithm;
        const ALL: [AlgorithmArg; Algorithm::ALL.len()] = {
            let mut all = [AlgorithmArg(Algorithm::ALL[0]); Algorithm::ALL.len()];
            let mut i = 0;
            while i < all.len() {
                all[i] = AlgorithmArg(Algorithm::ALL[i]);
                i += 1;
            }
            all
        };
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.name()))
    }
}

/// A scene kind, by its `kind = "…"` name (the registry's list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindArg(pub &'static str);

impl ValueEnum for KindArg {
    fn value_variants<'a>() -> &'a [Self] {
        use simreel::scene::KINDS;
        const ALL: [KindArg; KINDS.len()] = {
            let mut all = [KindArg(""); KINDS.len()];
            let mut i = 0;
            while i < all.len() {
                all[i] = KindArg(KINDS[i]);
                i += 1;
            }
            all
        };
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    Auto,
    Vulkan,
    Gl,
    Metal,
    Dx12,
}

impl BackendArg {
    pub fn choice(self) -> BackendChoice {
        match self {
            BackendArg::Auto => BackendChoice::Auto,
            BackendArg::Vulkan => BackendChoice::Vulkan,
            BackendArg::Gl => BackendChoice::Gl,
            BackendArg::Metal => BackendChoice::Metal,
            BackendArg::Dx12 => BackendChoice::Dx12,
        }
    }
}

#[cfg(test)]
mod tests {
    use simreel::scene::Format;

    use super::*;

    #[test]
    fn sizes_and_formats() {
        assert_eq!(parse_size("320x240").unwrap(), (320, 240));
        assert!(parse_size("320").is_err());
        assert!(parse_size("8x8").is_err());
        assert!(parse_size("99999x10").is_err());
        assert_eq!(parse_formats("gif").unwrap(), Formats(vec![Format::Gif]));
        assert_eq!(parse_formats("png, gif,png").unwrap(), Formats(vec![Format::Png, Format::Gif]));
        assert!(parse_formats("jpg").is_err());
    }

    #[test]
    fn seed_ranges_and_firmness() {
        assert_eq!(parse_seed_range("1..100").unwrap(), (1, 100));
        assert_eq!(parse_seed_range("1..=100").unwrap(), (1, 100));
        assert_eq!(parse_seed_range("7").unwrap(), (7, 7));
        assert!(parse_seed_range("5..2").unwrap_err().contains("empty"));
        assert!(parse_seed_range("a..b").is_err());
        assert!(parse_seed_range("0..5000000").is_err());
        assert_eq!(parse_firmness("55").unwrap(), 55.0);
        assert!(parse_firmness("101").is_err());
        assert!(parse_firmness("soft").is_err());
    }

    #[test]
    fn gif_frame_rates_are_in_zero_exclusive_to_a_hundred() {
        assert_eq!(parse_gif_fps("100").unwrap(), 100.0);
        assert_eq!(parse_gif_fps("0.5").unwrap(), 0.5);
        assert!(parse_gif_fps("0").unwrap_err().contains("outside (0, 100]"));
        assert!(parse_gif_fps("100.5").unwrap_err().contains("outside (0, 100]"));
        assert!(parse_gif_fps("NaN").is_err());
        assert!(parse_gif_fps("fast").is_err());
    }

    #[test]
    fn frame_specs_may_start_with_a_minus() {
        for args in [["simreel", "render", "s.toml", "--frames", "-1"], ["simreel", "render", "s.toml", "--frames", "-5.."]] {
            let cli = Cli::try_parse_from(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
            let Command::Render(r) = cli.command else { panic!("render") };
            assert_eq!(r.frames.as_deref(), Some(args[4]));
        }
        let cli = Cli::try_parse_from(["simreel", "plan", "s.toml", "--shards", "2", "--slurm", "--frames", "-3.."]).unwrap();
        let Command::Plan(p) = cli.command else { panic!("plan") };
        assert_eq!(p.frames.as_deref(), Some("-3.."));
    }
}
