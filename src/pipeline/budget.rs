//! A GIF within a size budget (`--max-size`, `[output] gif_max_size`): when the GIF of a render is
//! larger, it is made again from the frames with less of what makes a GIF large — frames (dropped
//! evenly, the motion keeping its speed and length), pixels (the frames scaled down, Catmull–Rom)
//! and colours (a frame's palette of 127 or 63, so LZW codes of 7 or 6 bits) — choosing the plan
//! that loses least and is predicted to fit, then the next when it does not.
//!
//! The prediction scales the first GIF's bytes by the frames kept, the pixels kept and the bits a
//! code takes, corrected after each try by how far the last was off: on the shipped scenes the
//! first try fits or the second does.

use crate::portable;
use std::path::{Path, PathBuf};

use super::PipelineError;
use crate::output::gif::{MAX_COLORS, Sampling};

/// What a budget's GIF keeps: its rate, its scale (1: the render's size) and its colours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    pub fps: f64,
    pub scale: f64,
    pub colors: u16,
}

/// The scales a plan may take, largest first.
const SCALES: [f64; 5] = [1.0, 0.75, 0.5, 0.375, 0.25];
/// The rates a plan may take, as shares of the GIF's own.
const RATES: [f64; 5] = [1.0, 2.0 / 3.0, 0.5, 1.0 / 3.0, 0.25];
/// The palettes a plan may take.
const COLORS: [u16; 3] = [MAX_COLORS, 127, 63];
/// A GIF plays at no fewer frames a second than this (or the render's, when lower).
const MIN_FPS: f64 = 8.0;
/// A scaled GIF keeps at least this width.
const MIN_WIDTH: f64 = 64.0;
/// What a prediction must leave of the budget to be tried.
const MARGIN: f64 = 0.95;
/// Encodes tried at most, the first GIF not counted.
const TRIES: usize = 6;

impl Plan {
    /// How much a reader loses: halving the rate costs 1, halving the width 1.5 (a quarter of the
    /// pixels, and text and edges soften), halving the palette 0.5 (banding, offset by dither).
    fn loss(&self, full_fps: f64) -> f64 {
        portable::log2(full_fps / self.fps)
            + 1.5 * portable::log2(1.0 / self.scale)
            + 0.5 * portable::log2((MAX_COLORS as f64 + 1.0) / (self.colors as f64 + 1.0))
    }

    /// Its size (width, height) for frames of `size`.
    pub fn size(&self, (w, h): (u32, u32)) -> (u32, u32) {
        (((w as f64 * self.scale).round() as u32).max(1), ((h as f64 * self.scale).round() as u32).max(1))
    }

    /// The bytes predicted from the full GIF's: by frames kept, pixels and bits a code (the root
    /// of their ratio: fewer colours also make fewer runs for the GIF to keep, and 127 colours
    /// saved under 7 % on the light flock, not an eighth).
    fn predicted(&self, full: &Plan, frames: (usize, usize), full_bytes: u64) -> f64 {
        let bits = |c: u16| portable::log2((c as f64) + 1.0).ceil();
        let share = frames.0 as f64 / frames.1.max(1) as f64;
        full_bytes as f64 * share * self.scale * self.scale * (bits(self.colors) / bits(full.colors)).sqrt()
    }

    /// Every plan for a GIF at `fps` of frames `width` wide, the least loss first.
    fn all(fps: f64, width: u32) -> Vec<Plan> {
        let mut plans = Vec::new();
        for r in RATES {
            let f = fps * r;
            if r < 1.0 && f < MIN_FPS.min(fps) - 1e-9 {
                continue;
            }
            for s in SCALES {
                if s < 1.0 && width as f64 * s < MIN_WIDTH {
                    continue;
                }
                for c in COLORS {
                    plans.push(Plan { fps: f, scale: s, colors: c });
                }
            }
        }
        plans.sort_by(|a, b| a.loss(fps).total_cmp(&b.loss(fps)));
        plans
    }
}

/// What fitting a GIF did.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    pub plan: Plan,
    /// The GIF's size in pixels and frames.
    pub size: (u32, u32),
    pub frames: usize,
    /// Its bytes, and the first GIF's.
    pub bytes: u64,
    pub full_bytes: u64,
    /// Whether it is within the budget (the smallest plan tried may not be).
    pub fits: bool,
    pub tries: usize,
}

impl Fitted {
    /// "within 2.0 MB: 15 fps of 30, 480×270 of 640×360, 127 colours (6.1 MB at full; 2 tries)".
    pub fn said(&self, budget: u64, full: &Plan, render: (u32, u32)) -> String {
        let mb = |b: u64| format!("{:.2} MB", b as f64 / 1e6);
        let mut kept = Vec::new();
        if self.plan.fps < full.fps {
            kept.push(format!("{} fps of {}", trim(self.plan.fps), trim(full.fps)));
        }
        if self.plan.scale < 1.0 {
            kept.push(format!("{}×{} of {}×{}", self.size.0, self.size.1, render.0, render.1));
        }
        if self.plan.colors < full.colors {
            kept.push(format!("{} colours of {}", self.plan.colors, full.colors));
        }
        let tries = if self.tries == 1 { "1 try".to_string() } else { format!("{} tries", self.tries) };
        let was = format!("{} at full; {tries}", mb(self.full_bytes));
        if self.fits {
            format!("{} within {}: {} ({was})", mb(self.bytes), mb(budget), kept.join(", "))
        } else {
            format!("{} is over {} at the least it can keep: {} ({was})", mb(self.bytes), mb(budget), kept.join(", "))
        }
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Fits the GIF at `out` (made at `full`, from `files` rendered at `render_fps`, each `size`)
/// within `budget` bytes, remaking it from `files`; `None` when it already fits.
pub fn fit(
    files: &[PathBuf],
    out: &Path,
    size: (u32, u32),
    render_fps: f64,
    (full, dither): (Plan, bool),
    budget: u64,
) -> Result<Option<Fitted>, PipelineError> {
    let read = |p: &Path| {
        std::fs::metadata(p).map(|m| m.len()).map_err(|source| crate::output::OutputError::Read { path: p.to_path_buf(), source })
    };
    let full_bytes = read(out)?;
    if full_bytes <= budget {
        return Ok(None);
    }
    let sampled = |p: &Plan| Sampling::of(files.len(), render_fps, p.fps);
    let full_frames = sampled(&full).kept();
    let plans = Plan::all(full.fps, size.0);
    let (mut correction, mut from, least) = (1.0, 0, plans.len() - 1);
    let mut tries = 0;
    loop {
        tries += 1;
        let predicted = |p: &Plan| p.predicted(&full, (sampled(p).kept(), full_frames), full_bytes) * correction;
        // the least loss predicted to fit, past every plan tried; when nothing is, or at the
        // last try, the least the GIF can keep (so a GIF over its budget is the smallest there is)
        let fitting = (from..least).find(|&k| predicted(&plans[k]) <= budget as f64 * MARGIN);
        let k = fitting.filter(|_| tries < TRIES).unwrap_or(least);
        let plan = plans[k];
        let sampling = sampled(&plan);
        let kept: Vec<PathBuf> = files.iter().enumerate().filter(|&(i, _)| sampling.keeps(i)).map(|(_, f)| f.clone()).collect();
        let scaled = plan.size(size);
        super::assemble::gif_scaled(&kept, out, size, scaled, (sampling.fps, dither, plan.colors))?;
        let bytes = read(out)?;
        if bytes <= budget || k == least {
            let fits = bytes <= budget;
            return Ok(Some(Fitted { plan, size: scaled, frames: kept.len(), bytes, full_bytes, fits, tries }));
        }
        correction *= bytes as f64 / predicted(&plan);
        from = k + 1;
    }
}

/// `2MB`, `500kB`, `1.5 MiB`, `800000` (bytes): a size in bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = (&t[..split], t[split..].trim());
    let n: f64 = number.parse().map_err(|_| format!("\"{s}\" is not a size: write e.g. 2MB, 500kB or 1.5MiB"))?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("\"{s}\": unknown unit \"{unit}\" (B, kB, MB, GB, KiB, MiB, GiB)")),
    };
    let bytes = (n * scale).round();
    if !(1024.0..=1e12).contains(&bytes) {
        return Err(format!("\"{s}\" is out of range: a GIF budget is from 1 KiB to 1 TB"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_lose_least_first_and_keep_a_watchable_rate_and_width() {
        let plans = Plan::all(30.0, 640);
        assert_eq!(plans[0], Plan { fps: 30.0, scale: 1.0, colors: MAX_COLORS });
        for w in plans.windows(2) {
            assert!(w[0].loss(30.0) <= w[1].loss(30.0));
        }
        assert!(plans.iter().all(|p| p.fps >= MIN_FPS && 640.0 * p.scale >= MIN_WIDTH));
        // the first step down is the palette, then the rate
        assert_eq!(plans[1].colors, 127);
        assert_eq!((plans[2].fps, plans[2].scale), (20.0, 1.0));
        // a GIF slower than the floor keeps its rate
        assert!(Plan::all(5.0, 640).iter().all(|p| p.fps == 5.0));
        // a small GIF is not scaled below 64 px
        assert!(Plan::all(30.0, 100).iter().all(|p| p.scale >= 0.75));
    }

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(parse_size("2MB"), Ok(2_000_000));
        assert_eq!(parse_size("1.5 MiB"), Ok(1_572_864));
        assert_eq!(parse_size("500kB"), Ok(500_000));
        assert_eq!(parse_size("800000"), Ok(800_000));
        for bad in ["", "MB", "2 parsecs", "1B", "-2MB", "2e3MB"] {
            assert!(parse_size(bad).is_err(), "{bad} was taken");
        }
    }
}
