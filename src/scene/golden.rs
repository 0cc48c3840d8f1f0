//! `[golden]`: which frames a golden-image check renders, at what size, and how close they must
//! come to the approved images. Every tolerance names its reason (which adapter bounded it and
//! why); adapters other than the canonical one (lavapipe, what CI has) get overrides keyed by
//! backend, vendor and driver, each with its own folder of approved images.

use super::keys::{Key, Table, Ty};
use super::reader::TableReader;

/// An override's tolerance starts from the scene's own.
const INHERITED: &str = "as in [golden.tolerance]";
const CHANNEL: Key = Key::int("channel", 0, 0, 255).doc("a pixel differs when a channel moves by more than this");
const MAX_PIXELS: Key = Key::of("max_pixels", Ty::Either(&[Ty::Int { min: 0, max: i64::MAX }, Ty::Float { min: 0.0, max: 1.0 }]))
    .said("0")
    .doc("differing pixels allowed, anti-aliasing along an edge not counted (every pixel with channel = 0): a count (an integer) or a share of the frame (0..1)");
const FLIP_MEAN: Key = Key::float("flip_mean", 0.0, 0.0, 1.0).doc("perceptual layer: the largest mean FLIP error (0: the layer is off)");
const FLIP_P99: Key = Key::float("flip_p99", 0.0, 0.0, 1.0).doc("perceptual layer: the largest 99th percentile of the FLIP error");
const MAX_REGION: Key = Key::int("max_region", DEFAULT_MAX_REGION as i64, 0, u32::MAX as i64)
    .doc("spatial layer: a region of change (pixels at most one apart) weighing more than this fails the frame");
const REASON: Key = Key::text("reason").required().doc("which adapter bounded this tolerance and why");

/// `[golden.tolerance]`.
const TOLERANCE: Table = Table::new(
    "how close frames must come to the approved images on lavapipe",
    &[CHANNEL, MAX_PIXELS, FLIP_MEAN, FLIP_P99, MAX_REGION, REASON],
);

const BACKEND: Key = Key::choice("backend", &["vulkan", "gl", "metal", "dx12"]).required().doc("the adapter's graphics API");
const VENDOR: Key = Key::text("vendor").doc("a substring of the adapter's vendor (`simreel adapters` shows it)");
const DRIVER: Key = Key::text("driver").doc("a substring of the adapter's driver name and version (`simreel adapters` shows it)");
const IMAGES: Key =
    Key::text("images").said("backend-vendor-driver").doc("the folder under tests/golden/<scene>/ holding this adapter's images");

/// `[[golden.overrides]]`: an adapter and its tolerance (the canonical one's keys unless given).
const OVERRIDE: Table = Table::new(
    "another adapter's tolerance and approved images",
    &[
        BACKEND,
        VENDOR,
        DRIVER,
        IMAGES,
        CHANNEL.said(INHERITED),
        MAX_PIXELS.said(INHERITED),
        FLIP_MEAN.said(INHERITED),
        FLIP_P99.said(INHERITED),
        MAX_REGION.said(INHERITED),
        REASON,
    ],
);

const FRAMES: Key = Key::of("frames", Ty::Either(&[Ty::NonEmpty(&Ty::Int { min: i64::MIN, max: i64::MAX }), Ty::Str]))
    .required()
    .doc("the frames to check: an array of frame numbers (negative ones count from the end: -1 is the last) or a frame spec such as \"0,40..42,-1\"");
const SIZE: Key = Key::vector("size", &[320.0, 240.0], 16.0, 8192.0)
    .said("the scene's size scaled to fit 320×240")
    .unit("px")
    .doc("the size the check renders at");
const MAX_FLICKER: Key = Key::float("max_flicker", 2.0, 1.0, 1e6)
    .said("none: the flicker is reported, not judged")
    .doc("fail when the frames change from one checked frame to the next by more than this times the goldens do");
const TOLERANCE_KEY: Key = Key::table("tolerance", &TOLERANCE).required().doc(TOLERANCE.doc);
const OVERRIDES: Key = Key::tables("overrides", &OVERRIDE).doc(OVERRIDE.doc);

/// `[golden]`.
pub const GOLDEN: Table = Table::new(
    "the frames a golden-image check renders, at what size, and how close they must come to the approved images",
    &[FRAMES, SIZE, MAX_FLICKER, TOLERANCE_KEY, OVERRIDES],
);

/// Largest golden side unless the scene asks for more: goldens stay small in the repository.
pub const DEFAULT_MAX_SIZE: (u32, u32) = (320, 240);

#[derive(Clone, Debug, PartialEq)]
pub struct GoldenSpec {
    /// Frames to check, sorted and unique.
    pub frames: Vec<u32>,
    /// Render size of the check.
    pub size: (u32, u32),
    /// Tolerance on the canonical adapter.
    pub tolerance: Tolerance,
    pub overrides: Vec<Override>,
    /// Largest allowed ratio of the actual sequence's frame-to-frame change to the golden
    /// sequence's (a flicker guard); `None` reports the ratio without judging it.
    pub max_flicker: Option<f64>,
}

pub use simreel_compare::{DEFAULT_MAX_REGION, PixelBudget, Tolerance};

/// Tolerance and approved images for adapters matching `backend` and, when given, substrings of
/// the vendor and driver.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    pub backend: String,
    pub vendor: Option<String>,
    pub driver: Option<String>,
    /// Folder under `tests/golden/<scene>/` holding this adapter's approved images (when it has any;
    /// otherwise the canonical images are compared with this tolerance).
    pub images: String,
    pub tolerance: Tolerance,
}

impl Override {
    /// What it matches, in words: `backend vulkan, vendor "nvidia", driver "580"`.
    pub fn describe(&self) -> String {
        let mut words = format!("backend {}", self.backend);
        for (what, v) in [("vendor", &self.vendor), ("driver", &self.driver)] {
            if let Some(v) = v {
                words.push_str(&format!(", {what} \"{v}\""));
            }
        }
        words
    }

    /// How specific a match is (0 = no match): backend, then vendor, then driver.
    pub fn specificity(&self, backend: &str, vendor: &str, driver: &str) -> u8 {
        let has = |want: &Option<String>, got: &str| want.as_ref().is_none_or(|w| got.to_lowercase().contains(&w.to_lowercase()));
        if !self.backend.eq_ignore_ascii_case(backend) || !has(&self.vendor, vendor) || !has(&self.driver, driver) {
            return 0;
        }
        1 + self.vendor.is_some() as u8 + self.driver.is_some() as u8
    }
}

/// The ends of `max_pixels` as an integer and as a share of the frame.
const PIXEL_COUNT: Key = Key::int("max_pixels", 0, 0, i64::MAX);
const PIXEL_SHARE: Key = Key::float("max_pixels", 0.0, 0.0, 1.0);

fn read_tolerance(t: &TableReader, defaults: Tolerance) -> Tolerance {
    let channel = t.int_or(&CHANNEL, defaults.channel as i64) as u8;
    let max_pixels = match t.raw(&MAX_PIXELS).map(|v| v.get_ref().is_integer()) {
        Some(true) => PixelBudget::Count(t.int(&PIXEL_COUNT) as u64),
        Some(false) => PixelBudget::Ratio(t.float(&PIXEL_SHARE)),
        None => defaults.max_pixels,
    };
    let flip_mean = t.float_or(&FLIP_MEAN, defaults.flip_mean);
    let flip_p99 = t.float_or(&FLIP_P99, defaults.flip_p99);
    let max_region = t.int_or(&MAX_REGION, defaults.max_region as i64) as u32;
    let reason = t.string(&REASON).unwrap_or_default();
    if reason.trim().is_empty() && !t.failed(&REASON) {
        t.error_here("every tolerance needs `reason`: which adapter bounded it and why");
    }
    Tolerance { channel, max_pixels, flip_mean, flip_p99, max_region, reason }
}

/// Reads `[golden]` for a scene of `frames` frames rendered at `width` × `height`.
pub fn read_golden(t: &TableReader, frames: u32, width: u32, height: u32) -> GoldenSpec {
    let frame_list = match t.raw(&FRAMES).map(|v| v.get_ref().clone()) {
        Some(toml::de::DeValue::String(spec)) => super::frames::parse_frames(&spec, frames).unwrap_or_else(|e| {
            t.error_at(&FRAMES, e);
            Vec::new()
        }),
        Some(toml::de::DeValue::Array(items)) if items.is_empty() => {
            t.error_at(&FRAMES, "no frames: name at least one (a check of none would pass whatever the scene draws)");
            Vec::new()
        }
        Some(toml::de::DeValue::Array(items)) => {
            let mut v = Vec::new();
            let last = frames.saturating_sub(1);
            for item in items.iter() {
                let report = |m: String| t.diagnostics().error(item.span(), &t.key_path(FRAMES.name), m, None);
                // a negative number counts from the end, as in a frame spec ("-1": the last frame)
                match item.get_ref().as_integer().and_then(|i| i.as_str().replace('_', "").parse::<i64>().ok()) {
                    Some(f) if (0..frames as i64).contains(&f) => v.push(f as u32),
                    Some(f) if f < 0 && f >= -(frames as i64) => v.push((frames as i64 + f) as u32),
                    Some(f) if f < 0 => report(format!(
                        "frame {f} is before the scene's start: counted from the end, -1 is its last frame and -{frames} its first ({frames} frames)"
                    )),
                    Some(f) => report(format!("frame {f} is past the scene's end: its last frame is {last} ({frames} frames)")),
                    None => report(format!(
                        "expected a frame number from 0 to {last} (or from the end, -1 to -{frames}), found {}",
                        super::reader::kind_of(item.get_ref())
                    )),
                }
            }
            v.sort_unstable();
            v.dedup();
            v
        }
        Some(_) => {
            t.error_at(&FRAMES, "expected an array of frame numbers or a frame spec such as \"0,40..42,-1\"");
            Vec::new()
        }
        None => {
            t.error_here("`[golden]` needs `frames`: the frames to check");
            Vec::new()
        }
    };
    let fit = {
        let (mw, mh) = DEFAULT_MAX_SIZE;
        let s = (mw as f64 / width as f64).min(mh as f64 / height as f64).min(1.0);
        (((width as f64 * s).round() as u32).max(16), ((height as f64 * s).round() as u32).max(16))
    };
    let size = if t.has(&SIZE) {
        let s = t.numbers_or::<2>(&SIZE, [fit.0 as f64, fit.1 as f64]);
        if s.iter().any(|&v| v.fract() != 0.0 || !(16.0..=8192.0).contains(&v)) {
            t.error_at(&SIZE, "golden sizes are whole pixels from 16 to 8192");
            fit
        } else {
            (s[0] as u32, s[1] as u32)
        }
    } else {
        fit
    };
    let max_flicker = t.has(&MAX_FLICKER).then(|| t.float(&MAX_FLICKER));
    let strict = Tolerance {
        channel: 0,
        max_pixels: PixelBudget::Count(0),
        flip_mean: 0.0,
        flip_p99: 0.0,
        max_region: DEFAULT_MAX_REGION,
        reason: String::new(),
    };
    let tt = t.table(&TOLERANCE_KEY);
    let tolerance = if t.has(&TOLERANCE_KEY) {
        read_tolerance(&tt, strict.clone())
    } else {
        t.error_here("`[golden]` needs `[golden.tolerance]` with a `reason`, even for exact matching (channel = 0)");
        strict.clone()
    };
    tt.finish();
    let mut overrides = Vec::new();
    for o in t.tables(&OVERRIDES) {
        let backend = o.choice(&BACKEND).to_string();
        if !o.has(&BACKEND) {
            o.error_here("an override needs `backend`");
        }
        let vendor = o.string(&VENDOR);
        let driver = o.string(&DRIVER);
        let images = o.string(&IMAGES).unwrap_or_else(|| {
            [Some(backend.clone()), vendor.clone(), driver.clone()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("-")
                .to_lowercase()
                .replace(' ', "_")
        });
        if images.is_empty() || images.contains(['/', '\\', '.']) {
            o.error_at(&IMAGES, "the images folder is a plain folder name");
        }
        let tolerance = read_tolerance(&o, tolerance.clone());
        o.finish();
        overrides.push(Override { backend, vendor, driver, images, tolerance });
    }
    GoldenSpec { frames: frame_list, size, tolerance, overrides, max_flicker }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol() -> Tolerance {
        Tolerance {
            channel: 0,
            max_pixels: PixelBudget::Count(0),
            flip_mean: 0.0,
            flip_p99: 0.0,
            max_region: DEFAULT_MAX_REGION,
            reason: "t".into(),
        }
    }

    #[test]
    fn overrides_match_backend_then_vendor_then_driver() {
        let o = |vendor: Option<&str>, driver: Option<&str>| Override {
            backend: "vulkan".into(),
            vendor: vendor.map(String::from),
            driver: driver.map(String::from),
            images: "x".into(),
            tolerance: tol(),
        };
        let any = o(None, None);
        let nvidia = o(Some("nvidia"), None);
        let nvidia_580 = o(Some("NVIDIA"), Some("580"));
        assert_eq!(any.specificity("vulkan", "nvidia", "NVIDIA 580.65"), 1);
        assert_eq!(nvidia.specificity("vulkan", "nvidia", "NVIDIA 580.65"), 2);
        assert_eq!(nvidia_580.specificity("vulkan", "nvidia", "NVIDIA 580.65"), 3);
        assert_eq!(nvidia_580.specificity("vulkan", "nvidia", "NVIDIA 570.1"), 0);
        assert_eq!(nvidia.specificity("gl", "nvidia", ""), 0);
        assert_eq!(nvidia.specificity("vulkan", "amd", ""), 0);
    }
}
