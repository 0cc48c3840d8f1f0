//! Command-line arguments (clap) and their validation into plain values: frame specs, sizes,
//! formats, adapter choice. Parsing never touches files or the GPU.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::render::{AdapterRequest, BackendChoice};
use crate::scene::Format;

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
        #[arg(required = true, value_name = "SCENE.toml")]
        scenes: Vec<PathBuf>,
    },
    /// List the adapters wgpu sees and the one `auto` picks.
    Adapters {
        #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
        backend: BackendArg,
    },
    /// Export a terrain scene's mesh (binary PLY, or OBJ by extension).
    Mesh {
        #[arg(value_name = "SCENE.toml")]
        scene: PathBuf,
        /// Output file: .ply (binary) or .obj.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// Which frame's mesh (animated fields change over time).
        #[arg(long, default_value_t = 0)]
        frame: u32,
    },
    /// Golden-image regression: check scenes against approved images, or approve new ones.
    Golden {
        #[command(subcommand)]
        action: GoldenCommand,
    },
    /// Assemble a GIF from a folder of PNG frames with the encoder `render` uses.
    Gif {
        #[arg(value_name = "FRAMES_DIR")]
        frames_dir: PathBuf,
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        #[arg(long, default_value_t = 30.0)]
        fps: f64,
        /// Turn off error-diffusion dithering.
        #[arg(long)]
        no_dither: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum GoldenCommand {
    /// Render the frames each scene's [golden] table lists and compare them with the approved
    /// images; never writes goldens. A report goes to OUT/golden-report/.
    Check(GoldenArgs),
    /// Approve images: renders twice (refusing if the renders differ) and writes only the files
    /// that changed.
    Bless {
        #[command(flatten)]
        common: GoldenArgs,
        /// Only this scene, and optionally these of its golden frames (`terrain:0,45`).
        #[arg(long, value_name = "SCENE[:FRAMES]")]
        filter: Option<String>,
        /// Accept the images the last `golden check` rendered, without rendering again.
        #[arg(long)]
        from_last_run: bool,
    },
}

#[derive(Args, Debug)]
pub struct GoldenArgs {
    /// Scene files, or folders whose scenes with a [golden] table are taken (default: scenes/).
    #[arg(value_name = "SCENES|DIR")]
    pub paths: Vec<PathBuf>,
    /// Where approved images live.
    #[arg(long, value_name = "DIR", default_value = "tests/golden")]
    pub goldens: PathBuf,
    /// Renders go to OUT/golden-run/, the report to OUT/golden-report/.
    #[arg(long, value_name = "DIR", default_value = "out")]
    pub out: PathBuf,
    #[command(flatten)]
    pub adapter: AdapterArgs,
    #[arg(long, short)]
    pub quiet: bool,
}

/// `--backend` and `--adapter`, shared by every command that renders.
#[derive(Args, Debug)]
pub struct AdapterArgs {
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// Use the adapter whose name contains this (case-insensitive).
    #[arg(long, value_name = "SUBSTRING")]
    pub adapter: Option<String>,
}

impl AdapterArgs {
    pub fn request(&self) -> AdapterRequest {
        AdapterRequest { backend: self.backend.choice(), name: self.adapter.clone() }
    }
}

#[derive(Args, Debug)]
pub struct RenderArgs {
    #[arg(required = true, value_name = "SCENE.toml")]
    pub scenes: Vec<PathBuf>,
    /// Output folder: frames go to DIR/<scene>/, the GIF to DIR/<scene>.gif.
    #[arg(long, value_name = "DIR", default_value = "out")]
    pub out: PathBuf,
    /// Frames to render: `0..59`, `1,3,5..10`, `-5..` (the last five); ranges include both ends.
    #[arg(long, value_name = "SPEC")]
    pub frames: Option<String>,
    /// Override the scene's size, e.g. 320x240.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: Option<(u32, u32)>,
    /// Override the scene's formats: png, gif or png,gif.
    #[arg(long, value_name = "LIST", value_parser = parse_formats)]
    pub format: Option<Formats>,
    #[command(flatten)]
    pub adapter: AdapterArgs,
    /// No progress bars or summaries.
    #[arg(long, short)]
    pub quiet: bool,
    /// `json`: one JSON line per finished frame on stdout.
    #[arg(long, value_enum)]
    pub progress: Option<ProgressArg>,
    /// Keep frames a previous run of the same scene and settings finished; render the rest.
    #[arg(long)]
    pub resume: bool,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    Json,
}

/// The formats named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formats(pub Vec<Format>);

/// `640x480` → (640, 480), within 16..=8192 per side.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X', '×']).ok_or_else(|| format!("\"{s}\" is not WIDTHxHEIGHT (e.g. 320x240)"))?;
    let side = |v: &str| -> Result<u32, String> {
        let n: u32 = v.trim().parse().map_err(|_| format!("\"{v}\" is not a whole number of pixels"))?;
        if !(16..=crate::scene::common::MAX_SIDE as u32).contains(&n) {
            return Err(format!("{n} pixels is outside 16..={}", crate::scene::common::MAX_SIDE));
        }
        Ok(n)
    };
    Ok((side(w)?, side(h)?))
}

/// `png,gif` → the formats.
pub fn parse_formats(s: &str) -> Result<Formats, String> {
    let mut v = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let f = match part {
            "png" => Format::Png,
            "gif" => Format::Gif,
            other => return Err(format!("unknown format \"{other}\": use png, gif or png,gif")),
        };
        if !v.contains(&f) {
            v.push(f);
        }
    }
    if v.is_empty() {
        return Err("no format given: use png, gif or png,gif".into());
    }
    Ok(Formats(v))
}

pub use crate::scene::frames::parse_frames;

#[cfg(test)]
mod tests {
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
}
