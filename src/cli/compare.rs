//! `simreel compare`'s arguments: the two sides, the report's folder, and the tolerance from a
//! file and flags.

use std::path::PathBuf;

use clap::Args;

/// `simreel compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The approved image, or a folder of them (PNG of any bit depth, with or without alpha;
    /// JPEG; WebP; BMP; TIFF).
    #[arg(value_name = "EXPECTED")]
    pub expected: PathBuf,
    /// The new image, or a folder whose pictures are matched to EXPECTED's by relative path.
    #[arg(value_name = "ACTUAL")]
    pub actual: PathBuf,
    /// The report goes to OUT/compare-report/ (replacing an earlier one).
    #[arg(long, value_name = "DIR", default_value = simreel::golden::DEFAULT_OUT)]
    pub out: PathBuf,
    /// Tolerances from a TOML file with the keys of a scene's [golden.tolerance] (channel,
    /// max_pixels, flip_mean, flip_p99, max_region, reason; all optional); the flags below
    /// override it. Default: channel 2, max_pixels 0.1 % (anti-aliasing along an edge not counted), FLIP off, max_region 4.
    #[arg(long, value_name = "FILE.toml")]
    pub tolerance: Option<PathBuf>,
    /// A pixel differs when a channel moves by more than this (0–255).
    #[arg(long, value_name = "LEVELS")]
    pub channel: Option<u8>,
    /// How many pixels may differ, not counting anti-aliasing along an edge that moved by a fraction
    /// of a pixel (with --channel 0 every pixel counts): a count (`40`) or a share of the image
    /// (`0.1%`, `0.001`).
    #[arg(long, value_name = "N|SHARE", value_parser = parse_pixel_budget)]
    pub max_pixels: Option<simreel::scene::golden::PixelBudget>,
    /// Perceptual layer: the largest mean FLIP error (0–1; 0 turns the layer off); give
    /// --flip-p99 with it.
    #[arg(long, value_name = "X", value_parser = parse_unit)]
    pub flip_mean: Option<f64>,
    /// Perceptual layer: the largest 99th percentile of the FLIP error (0–1).
    #[arg(long, value_name = "X", value_parser = parse_unit)]
    pub flip_p99: Option<f64>,
    /// The spatial layer: a compact region of change weighing more than this fails the image.
    #[arg(long, value_name = "WEIGHT")]
    pub max_region: Option<u32>,
    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// The largest picture read, in megapixels (default 100): a larger one, or one whose header
    /// says so, is refused before it is decoded.
    #[arg(long, value_name = "MP", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub max_megapixels: Option<u32>,
    /// Compare pictures as stored: a JPEG's, PNG's, WebP's or TIFF's EXIF orientation is applied
    /// by default, as browsers show them.
    #[arg(long)]
    pub ignore_orientation: bool,
    /// No per-file lines; only the outcome (and any error).
    #[arg(long, short)]
    pub quiet: bool,
}

pub use simreel_compare::tolerance::{parse_pixel_budget, parse_unit};
