//! Image comparison for golden checks, cheapest layer first: identical pixels pass; otherwise no
//! compact region of change may be found (the spatial layer, `super::regions`, which every check
//! applies), and then a per-channel threshold with a budget of differing pixels must hold, or else
//! the perceptual FLIP metric (LDR-FLIP, [`crate::flip`]: mean and 99th percentile of
//! the per-pixel error). Alpha is
//! compared as a fourth channel when either image is not opaque, and FLIP sees the colours
//! composited over mid-grey. Images of different sizes are padded (magenta) so the difference
//! can still be shown. Also the pictures a failure report needs: heatmap, signed difference,
//! three-panel strip.

use super::regions::{self, Region};
use crate::Image;
use crate::image::{Padded, Rows};
use crate::tolerance::Tolerance;

/// How a comparison ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Identical,
    /// Differences within the per-channel threshold and pixel budget.
    WithinChannel,
    /// Beyond the per-channel budget, within the FLIP limits.
    Perceptual,
    /// A compact region of change, whatever the pixel counts say.
    Region,
    Different,
    SizeMismatch,
}

impl Verdict {
    pub fn passed(self) -> bool {
        matches!(self, Verdict::Identical | Verdict::WithinChannel | Verdict::Perceptual)
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Identical => "identical",
            Verdict::WithinChannel => "within per-channel tolerance",
            Verdict::Perceptual => "within FLIP tolerance",
            Verdict::Region => "compact difference",
            Verdict::Different => "different",
            Verdict::SizeMismatch => "size mismatch",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Comparison {
    pub verdict: Verdict,
    /// Size compared (the larger of the two when they differ).
    pub width: u32,
    pub height: u32,
    pub max_channel_diff: u8,
    /// Pixels with a channel beyond the tolerance's threshold.
    pub differing_pixels: u64,
    /// What the pixel budget counts: the differing pixels that a move of half a pixel does not
    /// explain (anti-aliasing along an edge that moved by a fraction of a pixel is not counted),
    /// or every differing pixel when the threshold is 0 (exact pixels asked for).
    pub counted_pixels: u64,
    pub mean_abs_diff: f64,
    /// FLIP statistics, computed whenever the per-channel layer did not pass.
    pub flip_mean: Option<f64>,
    pub flip_p99: Option<f64>,
    /// The per-pixel error (0..1) the heatmap shows: FLIP's where the verdict needed it
    /// ([`Comparison::map_is_flip`]), otherwise √(each pixel's largest channel difference / 255)
    /// (FLIP over a large changed window costs more than everything else together).
    pub error_map: Option<ErrorMap>,
    /// Regions heavier than the tolerance's `max_region`, heaviest first: each fails the frame.
    pub regions: Vec<Region>,
    /// The weight of the heaviest region of change (0 when none).
    pub heaviest_region: u32,
    /// The tolerance's `max_region` it was judged by.
    pub region_limit: u32,
    /// What the pixel-count and FLIP layers alone say: a frame failed by its regions only passes
    /// here.
    pub without_regions: Verdict,
    /// The tolerance's channel threshold, its pixel budget as a count for this size, and its
    /// FLIP limits (mean, p99; none when that layer is off): what the verdict is worded by.
    pub channel_limit: u8,
    pub pixel_limit: u64,
    pub flip_limits: Option<(f64, f64)>,
}

impl Comparison {
    /// Whether the images match under the tolerance they were compared with.
    pub fn passed(&self) -> bool {
        self.verdict.passed()
    }

    /// Whether [`Comparison::error_map`] is FLIP's (its statistics were computed with it).
    pub fn map_is_flip(&self) -> bool {
        self.flip_mean.is_some()
    }

    /// The verdict in words, naming the criterion that decided it and its limit, with where the
    /// heaviest failing region is (also when the pixel counts failed the image first: where it
    /// changed is what a reader wants to know).
    pub fn describe(&self) -> String {
        let explained = match self.counted_pixels {
            n if n == self.differing_pixels => String::new(),
            0 => ", all of them anti-aliasing".to_string(),
            n => format!(", {n} of them more than anti-aliasing"),
        };
        let pixels = format!(
            "{} beyond {} levels (up to {}){explained}",
            crate::text::count(self.differing_pixels, "pixel", "pixels"),
            self.channel_limit,
            self.max_channel_diff
        );
        let budget = format!("the budget of {}", crate::text::count(self.pixel_limit, "pixel", "pixels"));
        let flip = match (self.flip_mean, self.flip_p99, self.flip_limits) {
            (Some(m), Some(p), Some((lm, lp))) => format!("FLIP mean {m:.4} (limit {lm}), p99 {p:.4} (limit {lp})"),
            _ => "FLIP off".to_string(),
        };
        let region = |r: &Region| format!("{}: {}", Verdict::Region.name(), region_text(r, self.region_limit));
        let calm = format!("no region of change heavier than {}", self.region_limit);
        match (self.verdict, self.regions.first()) {
            (Verdict::Identical, _) => "identical".into(),
            (Verdict::WithinChannel, _) if self.differing_pixels == 0 => {
                format!("within {} levels per channel; {calm}", self.channel_limit)
            }
            (Verdict::WithinChannel, _) => format!("passed: {pixels}, within {budget}; {calm}"),
            (Verdict::Perceptual, _) => format!("passed: {pixels}, over {budget}, but within FLIP's limits ({flip}); {calm}"),
            (Verdict::Region, Some(r)) => format!("{} (the pixel counts pass: {pixels}, within {budget})", region(r)),
            (Verdict::Different, r) => {
                let flip = if self.flip_limits.is_some() { format!("; beyond FLIP's limits: {flip}") } else { String::new() };
                let r = r.map(|r| format!("; {}", region(r))).unwrap_or_default();
                format!("different: {pixels}, over {budget}{flip}{r}")
            }
            (v, _) => v.name().to_string(),
        }
    }

    /// A single number for sorting failures worst first.
    pub fn severity(&self) -> f64 {
        let size = if self.verdict == Verdict::SizeMismatch { 10.0 } else { 0.0 };
        let region = if self.regions.is_empty() { 0.0 } else { 1.0 };
        size + region + self.flip_mean.unwrap_or(0.0) + self.differing_pixels as f64 / (self.width as f64 * self.height as f64).max(1.0)
    }
}

/// One region in words: `12×12 px at (217, 61), weight 144 > 7`.
pub fn region_text(r: &Region, limit: u32) -> String {
    format!("{}×{} px at ({}, {}), weight {} > {limit}", r.width, r.height, r.x, r.y, r.weight)
}

/// Pads `img` to `w` × `h`; new pixels are opaque magenta (an image of that size is borrowed),
/// as [`Padded`] pads rows.
pub fn pad(img: &Image, w: u32, h: u32) -> std::borrow::Cow<'_, Image> {
    if (img.width, img.height) == (w, h) {
        return std::borrow::Cow::Borrowed(img);
    }
    let (padded, mut buf) = (Padded { image: img, width: w }, vec![0u8; w as usize * 4]);
    std::borrow::Cow::Owned(whole(w, h, |y, out| out.copy_from_slice(padded.row(y, &mut buf))))
}

/// RGB over mid-grey (alpha composited), for FLIP.
fn rgb_over_grey(img: &Image) -> Vec<u8> {
    img.rgba
        .chunks_exact(4)
        .flat_map(|p| {
            let a = p[3] as u32;
            [0, 1, 2].map(|c| ((p[c] as u32 * a + 128 * (255 - a) + 127) / 255) as u8)
        })
        .collect()
}

/// Per-pixel FLIP error (0..1) between two images of the same size.
pub fn flip_map(expected: &Image, actual: &Image) -> Vec<f32> {
    let (w, h) = (expected.width, expected.height);
    let (reference, test) = (rgb_over_grey(expected), rgb_over_grey(actual));
    crate::flip::flip_map(&reference, &test, w as usize, h as usize, crate::flip::DEFAULT_PIXELS_PER_DEGREE, crate::par::threads())
}

/// How far around a changed pixel its FLIP error and region weight can reach, with room to spare:
/// FLIP's widest filter at its default 67 pixels per degree has a radius of 10 pixels (3 standard
/// deviations of its largest colour CSF; 9 for the feature filters), and a pixel's error needs the
/// whole footprint of the pixels in its own footprint, 20; the region layer needs 1.
const REACH: u32 = 32;

/// The smallest box holding every pixel whose bytes differ (none: the images are equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// What one pass over two pictures of one size finds where their bytes differ.
struct Scan {
    /// The box of the pixels that differ in any byte (none: the pictures are equal).
    changed: Option<Window>,
    /// The largest difference of a channel.
    max: u8,
    /// The colour channels' absolute differences, summed over the picture.
    sum: u64,
    /// The pixels with a channel more than the threshold off, row by row.
    beyond: Vec<regions::At>,
}

/// Rows a worker of [`scan`] takes at a time.
const BAND: usize = 64;

/// One pass over both pictures, bands of rows shared out to the threads (the same answer on any
/// number): equal rows, the common case, cost one comparison each, and a row that differs is
/// looked at between its first and last differing byte.
fn scan(e: &Image, a: &Image, threshold: u8) -> Scan {
    let (w, h) = (e.width as usize, e.height as usize);
    let row = w * 4;
    let bands: Vec<usize> = (0..h).step_by(BAND).collect();
    let parts = crate::par::map(&bands, |&y0| {
        let mut part = Scan { changed: None, max: 0, sum: 0, beyond: Vec::new() };
        let (mut x0, mut x1, mut rows) = (usize::MAX, 0, None::<(usize, usize)>);
        for y in y0..(y0 + BAND).min(h) {
            let (re, ra) = (&e.rgba[y * row..][..row], &a.rgba[y * row..][..row]);
            let Some(first) = first_difference(re, ra) else { continue };
            let last = row - 1 - first_difference_from_end(re, ra);
            (x0, x1) = (x0.min(first / 4), x1.max(last / 4));
            rows = Some((rows.map_or(y, |r| r.0), y));
            for x in first / 4..=last / 4 {
                let (p, q) = (&re[x * 4..][..4], &ra[x * 4..][..4]);
                let d = [0, 1, 2, 3].map(|k| p[k].abs_diff(q[k]));
                part.sum += u64::from(d[0]) + u64::from(d[1]) + u64::from(d[2]);
                let most = d[0].max(d[1]).max(d[2]).max(d[3]);
                part.max = part.max.max(most);
                if most > threshold {
                    part.beyond.push((y as u32, x as u32));
                }
            }
        }
        part.changed = rows.map(|(first, last)| Window {
            x: x0 as u32,
            y: first as u32,
            width: (x1 - x0 + 1) as u32,
            height: (last - first + 1) as u32,
        });
        part
    });
    let mut all = Scan { changed: None, max: 0, sum: 0, beyond: Vec::with_capacity(parts.iter().map(|p| p.beyond.len()).sum()) };
    for part in parts {
        all.max = all.max.max(part.max);
        all.sum += part.sum;
        all.beyond.extend_from_slice(&part.beyond);
        all.changed = match (all.changed, part.changed) {
            (Some(a), Some(b)) => Some(a.union(b)),
            (a, b) => a.or(b),
        };
    }
    all
}

/// Where two byte strings of one length first differ: compared 64 bytes at a time (a comparison of
/// slices the compiler makes wide), then byte by byte.
fn first_difference(p: &[u8], q: &[u8]) -> Option<usize> {
    let chunk = p.chunks(64).zip(q.chunks(64)).position(|(a, b)| a != b)?;
    let at = chunk * 64;
    Some(at + p[at..].iter().zip(&q[at..]).position(|(a, b)| a != b).unwrap_or(0))
}

/// How many bytes from the end two byte strings of one length, known to differ, last differ.
fn first_difference_from_end(p: &[u8], q: &[u8]) -> usize {
    let chunk = p.rchunks(64).zip(q.rchunks(64)).position(|(a, b)| a != b).unwrap_or(0);
    let at = chunk * 64;
    let (p, q) = (&p[..p.len() - at], &q[..q.len() - at]);
    at + p.iter().rev().zip(q.iter().rev()).position(|(a, b)| a != b).unwrap_or(0)
}

impl Window {
    /// The smallest box holding both.
    fn union(self, o: Window) -> Window {
        let (x, y) = (self.x.min(o.x), self.y.min(o.y));
        Window { x, y, width: (self.x + self.width).max(o.x + o.width) - x, height: (self.y + self.height).max(o.y + o.height) - y }
    }

    /// This box grown by `by` on every side, within a `w` × `h` image.
    fn grown(self, by: u32, w: u32, h: u32) -> Window {
        let (x, y) = (self.x.saturating_sub(by), self.y.saturating_sub(by));
        Window { x, y, width: (self.x + self.width + by).min(w) - x, height: (self.y + self.height + by).min(h) - y }
    }

    fn is_whole(&self, w: u32, h: u32) -> bool {
        (self.x, self.y, self.width, self.height) == (0, 0, w, h)
    }

    /// The part of `img` inside this box.
    pub fn crop(&self, img: &Image) -> Image {
        let (row, x0, w) = (img.width as usize * 4, self.x as usize * 4, self.width as usize * 4);
        // row by row as slices (a flattened iterator of bytes copies one byte at a time)
        let mut rgba = Vec::with_capacity(w * self.height as usize);
        for y in self.y as usize..(self.y + self.height) as usize {
            rgba.extend_from_slice(&img.rgba[y * row + x0..][..w]);
        }
        Image { width: self.width, height: self.height, rgba }
    }
}

/// FLIP's error map of two images of one size that are equal outside `window`: computed over the
/// window grown by [`REACH`] (the same values a whole-image run gives; 0 beyond).
fn flip_map_within(e: &Image, a: &Image, window: Window) -> ErrorMap {
    let (w, h) = (e.width, e.height);
    let around = window.grown(REACH, w, h);
    let values = if around.is_whole(w, h) { flip_map(e, a) } else { flip_map(&around.crop(e), &around.crop(a)) };
    ErrorMap { window: around, values }
}

/// Each pixel's largest channel difference inside `window` (0 beyond), as the heatmap shows it
/// where FLIP did not decide: the square root of its share of 255, so that a change a person
/// sees plainly (a button 21 levels darker: 0.29) is not drawn near black (0.08 linearly), and the
/// largest stay yellow.
fn channel_map_within(e: &Image, a: &Image, window: Window) -> ErrorMap {
    let sqrt: [f32; 256] = std::array::from_fn(|d| (d as f32 / 255.0).sqrt());
    let (row, x0, width) = (e.width as usize * 4, window.x as usize * 4, window.width as usize);
    let mut values = vec![0f32; width * window.height as usize];
    crate::par::rows(&mut values, width, |first, band| {
        for (y, out) in (window.y as usize + first..).zip(band.chunks_exact_mut(width)) {
            let (re, ra) = (&e.rgba[y * row + x0..][..width * 4], &a.rgba[y * row + x0..][..width * 4]);
            if re == ra {
                continue;
            }
            for ((v, p), q) in out.iter_mut().zip(re.chunks_exact(4)).zip(ra.chunks_exact(4)) {
                *v = sqrt[usize::from(p[0].abs_diff(q[0]).max(p[1].abs_diff(q[1])).max(p[2].abs_diff(q[2])).max(p[3].abs_diff(q[3])))];
            }
        }
    });
    ErrorMap { window, values }
}

/// A per-pixel error (0..1) over a window of the compared picture (where the images differ,
/// with what reaches around it), 0 outside: a changed paragraph of a 37-megapixel page costs
/// the paragraph's pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorMap {
    pub window: Window,
    /// The window's values, row by row.
    pub values: Vec<f32>,
}

impl ErrorMap {
    /// The error of pixel (`x`, `y`) of the picture.
    pub fn get(&self, x: u32, y: u32) -> f32 {
        let Window { x: wx, y: wy, width, height } = self.window;
        if (wx..wx + width).contains(&x) && (wy..wy + height).contains(&y) {
            self.values[((y - wy) * width + x - wx) as usize]
        } else {
            0.0
        }
    }

    /// Row `y` of the window (`None` outside it), from the window's `x`.
    pub fn window_row(&self, y: u32) -> Option<&[f32]> {
        let Window { y: wy, width, height, .. } = self.window;
        (wy..wy + height).contains(&y).then(|| &self.values[((y - wy) * width) as usize..][..width as usize])
    }

    /// Mean and 99th percentile over the whole picture of `pixels` pixels (the window's values and
    /// zeros for the rest).
    pub fn mean_and_p99(&self, pixels: usize) -> (f64, f64) {
        mean_and_p99(&self.values, pixels)
    }
}

/// Mean and 99th percentile of an error map of `pixels` values: `values` and zeros for the rest
/// (the same figures as the whole map's: adding zeros changes no sum).
pub fn mean_and_p99(values: &[f32], pixels: usize) -> (f64, f64) {
    let pixels = pixels.max(values.len());
    if pixels == 0 {
        return (0.0, 0.0);
    }
    let mean = values.iter().map(|&v| v as f64).sum::<f64>() / pixels as f64;
    // errors are never negative: the zeros (most of a map, as a rule) sort first
    let mut nonzero: Vec<f32> = values.iter().copied().filter(|&v| v != 0.0).collect();
    let idx = ((pixels as f64 * 0.99).ceil() as usize).clamp(1, pixels) - 1;
    let zeros = pixels - nonzero.len();
    if idx < zeros {
        return (mean, 0.0);
    }
    let (_, p99, _) = nonzero.select_nth_unstable_by(idx - zeros, f32::total_cmp);
    (mean, *p99 as f64)
}

/// Mean absolute difference over the colour channels (0..255), for frame-to-frame change.
pub fn mean_abs_diff(a: &Image, b: &Image) -> f64 {
    if (a.width, a.height) != (b.width, b.height) {
        return f64::INFINITY;
    }
    let sum: u64 =
        a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)).map(|(p, q)| (0..3).map(|c| p[c].abs_diff(q[c]) as u64).sum::<u64>()).sum();
    sum as f64 / (a.rgba.len() / 4 * 3).max(1) as f64
}

/// Compares `actual` with `expected` under `tol`. Images of one size are read once, in bands of
/// rows on every thread (equal rows cost one comparison each); then only the pixels that differ
/// are looked at (their regions), and FLIP, where its layer decides, over the window of changed
/// bytes grown by what it can reach: a page changed in three places costs the three places.
pub fn compare(expected: &Image, actual: &Image, tol: &Tolerance) -> Comparison {
    let same_size = (expected.width, expected.height) == (actual.width, actual.height);
    let (w, h) = (expected.width.max(actual.width), expected.height.max(actual.height));
    let mut c = Comparison {
        verdict: Verdict::Identical,
        width: w,
        height: h,
        max_channel_diff: 0,
        differing_pixels: 0,
        counted_pixels: 0,
        mean_abs_diff: 0.0,
        flip_mean: None,
        flip_p99: None,
        error_map: None,
        regions: Vec::new(),
        heaviest_region: 0,
        region_limit: tol.max_region,
        without_regions: Verdict::Identical,
        channel_limit: tol.channel,
        pixel_limit: tol.max_pixels.limit(w as u64 * h as u64),
        flip_limits: (tol.flip_mean > 0.0).then_some((tol.flip_mean, tol.flip_p99)),
    };
    let padded;
    let (e, a) = if same_size {
        (expected, actual)
    } else {
        padded = (pad(expected, w, h), pad(actual, w, h));
        (&*padded.0, &*padded.1)
    };
    let scan = scan(e, a, tol.channel);
    let Some(window) = scan.changed else {
        return c;
    };
    c.max_channel_diff = scan.max;
    c.differing_pixels = scan.beyond.len() as u64;
    c.mean_abs_diff = scan.sum as f64 / (3.0 * w as f64 * h as f64);
    // alpha as a fourth channel: where both pictures are opaque it is equal everywhere and adds
    // nothing, so that no pass over the pictures has to find out whether they are
    let found = regions::regions_at(e, a, &scan.beyond, 4, tol.channel);
    drop(scan);
    c.counted_pixels = if tol.channel == 0 { c.differing_pixels } else { found.iter().map(|r| u64::from(r.unexplained)).sum() };
    c.heaviest_region = found.first().map_or(0, |r| r.weight);
    c.regions = found.into_iter().filter(|r| r.weight > tol.max_region).collect();
    if same_size && tol.max_pixels.allows(c.counted_pixels, w as u64 * h as u64) {
        c.without_regions = Verdict::WithinChannel;
        c.verdict = Verdict::WithinChannel;
        if c.regions.is_empty() {
            return c;
        }
    }
    // FLIP decides only where its layer is on and the pixel counts failed
    let flip_decides = same_size && tol.flip_mean > 0.0 && c.without_regions != Verdict::WithinChannel;
    let (mut mean, mut p99) = (f64::INFINITY, f64::INFINITY);
    if flip_decides {
        let map = flip_map_within(e, a, window);
        (mean, p99) = map.mean_and_p99(w as usize * h as usize);
        (c.flip_mean, c.flip_p99, c.error_map) = (Some(mean), Some(p99), Some(map));
    } else {
        c.error_map = Some(channel_map_within(e, a, window));
    }
    if c.without_regions != Verdict::WithinChannel {
        c.without_regions = if !same_size {
            Verdict::SizeMismatch
        } else if flip_decides && mean <= tol.flip_mean && p99 <= tol.flip_p99 {
            Verdict::Perceptual
        } else {
            Verdict::Different
        };
    }
    c.verdict = if c.without_regions.passed() && !c.regions.is_empty() { Verdict::Region } else { c.without_regions };
    c
}

#[cfg(feature = "full")]
/// FLIP's magma colour scale, 256 RGB entries (black = equal, yellow = worst).
fn magma() -> &'static [[u8; 3]; 256] {
    static LUT: std::sync::OnceLock<[[u8; 3]; 256]> = std::sync::OnceLock::new();
    LUT.get_or_init(crate::flip::magma_lut)
}

#[cfg(feature = "full")]
/// Error heatmap: the error map through the magma colour scale (black = equal, yellow = worst),
/// indexed as FLIP's own `colorMap` does.
pub fn heatmap(c: &Comparison) -> Image {
    whole(c.width, c.height, |y, out| heatmap_row(c, y, out))
}

#[cfg(feature = "full")]
/// Row `y` of [`heatmap`], RGBA8 into `out` (the comparison's width).
pub fn heatmap_row(c: &Comparison, y: u32, out: &mut [u8]) {
    heat_row(c, y, out, false);
}

#[cfg(feature = "full")]
/// Row `y` of the heatmap with no error left clear (transparent black): for a picture laid over
/// the page it compares.
pub fn heatmap_row_clear(c: &Comparison, y: u32, out: &mut [u8]) {
    heat_row(c, y, out, true);
}

#[cfg(feature = "full")]
fn heat_row(c: &Comparison, y: u32, out: &mut [u8], clear: bool) {
    let lut = magma();
    let colour = |v: f32| {
        let [r, g, b] = lut[((v * 255.0 + 0.5) as i32).rem_euclid(256) as usize];
        [r, g, b, 255]
    };
    let zero = if clear { [0; 4] } else { colour(0.0) };
    for px in out.chunks_exact_mut(4) {
        px.copy_from_slice(&zero);
    }
    if let Some((map, values)) = c.error_map.as_ref().and_then(|m| Some((m, m.window_row(y)?))) {
        let at = map.window.x as usize * 4;
        for (px, &v) in out[at..at + values.len() * 4].chunks_exact_mut(4).zip(values) {
            if v != 0.0 || !clear {
                px.copy_from_slice(&colour(v));
            }
        }
    }
}

#[cfg(feature = "full")]
/// Signed difference of luminance: red where the actual image is brighter, blue where darker,
/// grey where equal; differences are amplified 4× so small ones show.
pub fn signed_diff(expected: &Image, actual: &Image) -> Image {
    let (w, h) = (expected.width.max(actual.width), expected.height.max(actual.height));
    whole(w, h, |y, out| signed_row(expected, actual, y, out))
}

#[cfg(feature = "full")]
/// Row `y` of [`signed_diff`], RGBA8 into `out` (the larger width of the two).
pub fn signed_row(expected: &Image, actual: &Image, y: u32, out: &mut [u8]) {
    let w = out.len() / 4;
    // room for a padded row only where one is (pictures of one size borrow their own rows)
    let room = |img: &Image| if img.width as usize == w && y < img.height { Vec::new() } else { vec![0u8; w * 4] };
    let (mut be, mut ba) = (room(expected), room(actual));
    let width = w as u32;
    let (pe, pa) = (Padded { image: expected, width }, Padded { image: actual, width });
    let (re, ra) = (pe.row(y, &mut be), pa.row(y, &mut ba));
    if re == ra {
        // equal rows stay grey
        for px in out.chunks_exact_mut(4) {
            px.copy_from_slice(&[128, 128, 128, 255]);
        }
        return;
    }
    let luma = |p: &[u8]| 0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32;
    // (an equal pixel comes out grey: no difference, no alpha)
    for ((o, p), q) in out.chunks_exact_mut(4).zip(re.chunks_exact(4)).zip(ra.chunks_exact(4)) {
        let d = ((luma(q) - luma(p)) * 4.0).clamp(-127.0, 127.0);
        let alpha = p[3].abs_diff(q[3]) as f32;
        let d = if d.abs() < alpha { alpha.copysign(d) } else { d };
        let (r, b) = if d >= 0.0 { (128.0 + d, 128.0 - d * 0.6) } else { (128.0 + d * 0.6, 128.0 - d) };
        let g = 128.0 - d.abs() * 0.6;
        o.copy_from_slice(&[r as u8, g as u8, b as u8, 255]);
    }
}

/// A `w` × `h` picture made row by row.
fn whole(w: u32, h: u32, mut row: impl FnMut(u32, &mut [u8])) -> Image {
    let mut rgba = vec![0u8; w as usize * h as usize * 4];
    for (y, out) in rgba.chunks_exact_mut((w as usize * 4).max(1)).enumerate() {
        row(y as u32, out);
    }
    Image { width: w, height: h, rgba }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tolerance::PixelBudget;

    fn solid(w: u32, h: u32, c: [u8; 4]) -> Image {
        Image { width: w, height: h, rgba: c.iter().copied().cycle().take((w * h * 4) as usize).collect() }
    }

    fn tol(channel: u8, max_pixels: PixelBudget, flip_mean: f64, flip_p99: f64) -> Tolerance {
        Tolerance { channel, max_pixels, flip_mean, flip_p99, max_region: crate::tolerance::DEFAULT_MAX_REGION, reason: "test".into() }
    }

    #[test]
    fn identical_images_are_identical() {
        let a = solid(8, 8, [10, 20, 30, 255]);
        let c = compare(&a, &a.clone(), &tol(0, PixelBudget::Count(0), 0.0, 0.0));
        assert_eq!(c.verdict, Verdict::Identical);
        assert_eq!(c.differing_pixels, 0);
    }

    #[test]
    fn per_channel_threshold_and_budget() {
        let a = solid(10, 10, [100, 100, 100, 255]);
        let mut b = a.clone();
        b.rgba[4 * 7] = 105; // pixel 7, red channel, +5
        b.rgba[4 * 9 + 1] = 102; // pixel 9, green, +2
        let strict = compare(&a, &b, &tol(2, PixelBudget::Count(0), 0.0, 0.0));
        assert_eq!((strict.verdict, strict.differing_pixels, strict.max_channel_diff), (Verdict::Different, 1, 5));
        assert!((strict.mean_abs_diff - 7.0 / 300.0).abs() < 1e-12);
        assert_eq!(compare(&a, &b, &tol(2, PixelBudget::Count(1), 0.0, 0.0)).verdict, Verdict::WithinChannel);
        assert_eq!(compare(&a, &b, &tol(5, PixelBudget::Count(0), 0.0, 0.0)).verdict, Verdict::WithinChannel);
        assert_eq!(compare(&a, &b, &tol(1, PixelBudget::Ratio(0.02), 0.0, 0.0)).verdict, Verdict::WithinChannel);
        assert_eq!(compare(&a, &b, &tol(1, PixelBudget::Ratio(0.01), 0.0, 0.0)).verdict, Verdict::Different);
    }

    fn stats(map: &[f32]) -> (f64, f64) {
        mean_and_p99(map, map.len())
    }

    /// The whole picture's map of a windowed one.
    fn expanded(map: &ErrorMap, w: u32, h: u32) -> Vec<f32> {
        (0..h).flat_map(|y| (0..w).map(move |x| map.get(x, y))).collect()
    }

    #[test]
    fn flip_known_answers() {
        // Uniform black against uniform white is close to FLIP's maximum; a 2/255 grey step is small.
        let (mean, p99) = stats(&flip_map(&solid(32, 32, [0, 0, 0, 255]), &solid(32, 32, [255, 255, 255, 255])));
        assert!(mean > 0.9 && p99 > 0.9, "{mean} {p99}");
        let (mean, _) = stats(&flip_map(&solid(32, 32, [128, 128, 128, 255]), &solid(32, 32, [130, 130, 130, 255])));
        assert!(mean > 0.01 && mean < 0.1, "{mean}");
        let (mean, p99) = stats(&flip_map(&solid(32, 32, [40, 90, 200, 255]), &solid(32, 32, [40, 90, 200, 255])));
        assert_eq!((mean, p99), (0.0, 0.0));
        // The perceptual layer passes a small uniform step only when its limits allow it (and the
        // spatial layer is opened wide: beyond the channel threshold, a uniform step is one solid
        // region of change)...
        let (a, b) = (solid(32, 32, [128, 128, 128, 255]), solid(32, 32, [130, 130, 130, 255]));
        let open = |flip_mean, flip_p99| Tolerance { max_region: u32::MAX, ..tol(0, PixelBudget::Count(0), flip_mean, flip_p99) };
        assert_eq!(compare(&a, &b, &open(0.1, 0.1)).verdict, Verdict::Perceptual);
        assert_eq!(compare(&a, &b, &open(0.01, 0.1)).verdict, Verdict::Different);
        assert_eq!(compare(&a, &b, &open(0.0, 0.0)).verdict, Verdict::Different);
        // ... and by default too, the step being too faint to weigh anything as a region;
        assert_eq!(compare(&a, &b, &tol(0, PixelBudget::Count(0), 0.1, 0.1)).verdict, Verdict::Perceptual);
        // but the FLIP limits cannot absorb a change a person sees: 8 levels weigh every pixel
        let clear = solid(32, 32, [136, 136, 136, 255]);
        let c = compare(&a, &clear, &tol(0, PixelBudget::Count(0), 0.9, 0.9));
        assert_eq!((c.verdict, c.without_regions), (Verdict::Region, Verdict::Perceptual));
        assert_eq!(c.regions, vec![Region { x: 0, y: 0, width: 32, height: 32, pixels: 1024, unexplained: 1024, weight: 1024 }]);
    }

    #[test]
    fn a_compact_patch_fails_within_the_pixel_budget_and_the_flip_limits() {
        // the case in small: 144 inverted pixels in a 12×12 block are within a budget of
        // 144 pixels and a FLIP mean of 0.2, yet fail; scattered, the same pixels pass
        let a = Image {
            width: 120,
            height: 120,
            rgba: (0..120 * 120).flat_map(|i| [(i % 120 * 2) as u8, 90, (i / 120 * 2) as u8, 255]).collect(),
        };
        let invert = |img: &mut Image, x: usize, y: usize| {
            for c in 0..3 {
                img.rgba[(y * 120 + x) * 4 + c] = 255 - img.rgba[(y * 120 + x) * 4 + c];
            }
        };
        let t = tol(2, PixelBudget::Count(144), 0.2, 1.0);
        let mut block = a.clone();
        for k in 0..144 {
            invert(&mut block, 50 + k % 12, 40 + k / 12);
        }
        let c = compare(&a, &block, &t);
        assert_eq!((c.verdict, c.without_regions, c.differing_pixels), (Verdict::Region, Verdict::WithinChannel, 144));
        assert_eq!((c.regions[0].x, c.regions[0].y, c.regions[0].width, c.regions[0].height), (50, 40, 12, 12));
        assert!(c.verdict.name().contains("compact") && c.describe().contains("12×12 px at (50, 40)"), "{}", c.describe());
        let mut scattered = a.clone();
        for k in 0..144 {
            invert(&mut scattered, 3 + k % 12 * 9, 5 + k / 12 * 9);
        }
        let c = compare(&a, &scattered, &t);
        assert_eq!((c.verdict, c.heaviest_region), (Verdict::WithinChannel, 1));
    }

    #[test]
    fn looking_only_where_images_differ_gives_the_whole_images_answer() {
        // a textured picture (noise over gradients), changed in small places: in the middle, at a
        // corner, two apart (one window holds both), and faintly everywhere in one row
        let (w, h) = (220u32, 160u32);
        let mut seed = 7u32;
        let mut noise = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed % 23) as u8
        };
        let base = Image {
            width: w,
            height: h,
            rgba: (0..w * h).flat_map(|i| [(i % w) as u8 + noise(), (i / w) as u8 + noise(), 120 + noise(), 255]).collect(),
        };
        // (x, y, width, height, added to red)
        type Change = (u32, u32, u32, u32, u8);
        let changes: [&[Change]; 4] =
            [&[(100, 70, 6, 5, 90)], &[(0, 0, 4, 4, 200)], &[(30, 20, 3, 3, 60), (170, 130, 5, 2, 40)], &[(0, 80, 220, 1, 3)]];
        for list in changes {
            let mut changed = base.clone();
            for &(x0, y0, cw, ch, by) in list {
                for y in y0..y0 + ch {
                    for x in x0..x0 + cw {
                        let i = ((y * w + x) * 4) as usize;
                        changed.rgba[i] = changed.rgba[i].wrapping_add(by);
                    }
                }
            }
            let window = scan(&base, &changed, 0).changed.unwrap();
            assert_eq!(expanded(&flip_map_within(&base, &changed, window), w, h), flip_map(&base, &changed), "{list:?}");
            // FLIP's layer on (and failing): the map is FLIP's
            let t = tol(0, PixelBudget::Count(0), 1e-9, 1e-9);
            let c = compare(&base, &changed, &t);
            assert!(c.map_is_flip());
            let mut whole: Vec<Region> =
                regions::regions(&base, &changed, 3, t.channel).into_iter().filter(|r| r.weight > t.max_region).collect();
            whole.sort_by_key(|r| std::cmp::Reverse(r.weight));
            assert_eq!(c.regions, whole, "{list:?}");
            assert_eq!(c.error_map.as_ref().unwrap().mean_and_p99((w * h) as usize), {
                let full = flip_map(&base, &changed);
                let mut sorted = full.clone();
                sorted.sort_by(f32::total_cmp);
                let mean = full.iter().map(|&v| v as f64).sum::<f64>() / full.len() as f64;
                (mean, sorted[(full.len() as f64 * 0.99).ceil() as usize - 1] as f64)
            });
            assert!((c.mean_abs_diff - mean_abs_diff(&base, &changed)).abs() < 1e-9);
        }
        assert_eq!(scan(&base, &base.clone(), 0).changed, None);
        // with FLIP's layer off its map is not computed: the heatmap shows channel differences
        let mut changed = base.clone();
        changed.rgba[(10 * w as usize + 10) * 4] ^= 0x80;
        let c = compare(&base, &changed, &tol(2, PixelBudget::Count(0), 0.0, 0.0));
        assert!(!c.map_is_flip() && c.flip_mean.is_none());
        let map = c.error_map.unwrap();
        let d = changed.rgba[(10 * w as usize + 10) * 4].abs_diff(base.rgba[(10 * w as usize + 10) * 4]);
        assert_eq!(map.get(10, 10), (d as f32 / 255.0).sqrt(), "the square root of the share of 255");
        assert_eq!(expanded(&map, w, h).iter().filter(|&&v| v > 0.0).count(), 1);
    }

    #[cfg(feature = "full")]
    #[test]
    fn the_heatmap_colours_the_error_as_flips_own_colour_map_does() {
        let map: Vec<f32> = (0..40 * 30).map(|i| ((i * 37) % 1000) as f32 / 999.0).collect();
        let c = Comparison {
            error_map: Some(ErrorMap { window: Window { x: 0, y: 0, width: 40, height: 30 }, values: map.clone() }),
            ..compare(&solid(40, 30, [0, 0, 0, 255]), &solid(40, 30, [0, 0, 0, 255]), &tol(0, PixelBudget::Count(0), 0.0, 0.0))
        };
        let theirs = nv_flip::FlipImageFloat::with_data(40, 30, &map).apply_color_lut(&nv_flip::magma_lut()).to_vec();
        let ours: Vec<u8> = heatmap(&c).rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        // indexed as FLIP's colorMap does; the scale itself is a fit of magma, one level off at most
        let worst = ours.iter().zip(&theirs).map(|(a, b)| a.abs_diff(*b)).max().unwrap();
        assert!(worst <= 1, "{worst} levels off FLIP's own heatmap");
    }

    #[test]
    fn percentile_is_exact() {
        let map: Vec<f32> = (0..100).map(|i| i as f32 / 100.0).collect();
        let (mean, p99) = stats(&map);
        assert!((mean - 0.495).abs() < 1e-9);
        assert_eq!(p99, 0.98f32 as f64);
        // a window's values and zeros for the rest: the whole map's figures
        for zeros in [0, 1, 50, 5000] {
            let mut whole = vec![0.0f32; zeros];
            whole.extend(&map);
            assert_eq!(mean_and_p99(&map, whole.len()), stats(&whole), "{zeros} zeros");
        }
    }

    #[test]
    fn alpha_counts_when_not_opaque() {
        let a = solid(4, 4, [50, 50, 50, 255]);
        let b = solid(4, 4, [50, 50, 50, 200]);
        let c = compare(&a, &b, &tol(10, PixelBudget::Count(0), 0.0, 0.0));
        assert_eq!((c.verdict, c.max_channel_diff, c.differing_pixels), (Verdict::Different, 55, 16));
        // identical colours with identical alpha are identical
        assert_eq!(compare(&b, &b.clone(), &tol(0, PixelBudget::Count(0), 0.0, 0.0)).verdict, Verdict::Identical);
    }

    #[cfg(feature = "full")]
    #[test]
    fn size_mismatch_pads_instead_of_crashing() {
        let a = solid(8, 6, [0, 0, 0, 255]);
        let b = solid(6, 8, [0, 0, 0, 255]);
        let c = compare(&a, &b, &tol(255, PixelBudget::Ratio(1.0), 1.0, 1.0));
        assert_eq!(c.verdict, Verdict::SizeMismatch);
        assert_eq!((c.width, c.height), (8, 8));
        assert_eq!(heatmap(&c).rgba.len(), 8 * 8 * 4);
        let s = signed_diff(&a, &b);
        assert_eq!((s.width, s.height), (8, 8));
        // a's missing rows are magenta against b's black: the padding shows as a difference
        assert_ne!(&s.rgba[7 * 8 * 4..][..3], &[128, 128, 128]);
        assert_eq!(&s.rgba[..3], &[128, 128, 128], "equal where both have pixels");
    }

    #[cfg(feature = "full")]
    #[test]
    fn signed_difference_colours() {
        let a = solid(1, 1, [100, 100, 100, 255]);
        let brighter = signed_diff(&a, &solid(1, 1, [120, 120, 120, 255]));
        assert!(brighter.rgba[0] > brighter.rgba[2], "brighter shows red: {:?}", brighter.rgba);
        let darker = signed_diff(&a, &solid(1, 1, [80, 80, 80, 255]));
        assert!(darker.rgba[2] > darker.rgba[0], "darker shows blue: {:?}", darker.rgba);
        let same = signed_diff(&a, &a);
        assert_eq!(&same.rgba[..3], &[128, 128, 128]);
    }
}
