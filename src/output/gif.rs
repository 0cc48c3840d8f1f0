//! Animated GIFs: each frame gets its own 255-colour palette (k-means in Oklab seeded by Wu's
//! quantizer, from the `quantette` crate), computed on all cores. A [`FrameMaker`] then dithers
//! each frame in order (Floyd–Steinberg in sRGB) with one more candidate at every pixel: keeping
//! what the pixel already shows, which costs a transparent index. A pixel keeps its colour when
//! that is as near the target (the source plus the error diffused so far) as the nearest palette
//! colour, with a bonus when its left neighbour kept too; the error it leaves is diffused like
//! any other, so the neighbours make up for it, but never when the colour kept is more than 8
//! levels from the frame's own ([`KEPT_NEAR_SOURCE`]: no dot of an earlier frame stays on a flat
//! background). A redrawn pixel takes its left neighbour's
//! colour when that is nearly as good. Both make long runs, which LZW stores in few codes. Without
//! dithering nothing makes up for a pixel shown off its colour, so both are held to
//! [`NO_DITHER_HOLD`]: every pixel is within its frame palette's quantisation error and 4 levels,
//! and no trace of an earlier frame stays beyond that (a hold of 20 levels left ghosts). Each
//! frame stores only the rectangle that changed, and delays are spread so the average rate is
//! exact (30 fps is 3, 3, 4 centiseconds, not 3 or 4 throughout). The nearest colour comes from
//! a short list per cell of the colour space ([`Nearest`]), and a [`GifStream`] LZW-encodes
//! and appends the frames, on a thread of its own when the writer is split.

use crate::portable;
use std::io::Write;

use quantette::deps::palette::Srgb;
use quantette::kmeans::KmeansOptions;
use quantette::{ImageRef, PaletteSize, Pipeline, QuantizeMethod};

/// How a GIF is made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GifSettings {
    pub fps: f64,
    pub dither: bool,
}

/// Which frames of an animation a GIF shows, and the rate it plays them at: at `gif_fps` below
/// the render's rate, frames are dropped evenly (the GIF's frame `j` is the render's frame nearest
/// the same time, `j · fps / gif_fps`), so the motion keeps its speed and length; at or above it,
/// every frame at the render's rate (a GIF never plays an animation slower or faster than it was
/// rendered).
#[derive(Clone, Debug, PartialEq)]
pub struct Sampling {
    /// The rate the GIF plays its frames at.
    pub fps: f64,
    /// Whether each frame of the animation is in the GIF.
    keep: Vec<bool>,
}

impl Sampling {
    /// Every one of `frames` frames, played at `fps` (a folder of pictures with no rate of its own).
    pub fn every(frames: usize, fps: f64) -> Sampling {
        Sampling { fps, keep: vec![true; frames] }
    }

    /// `frames` frames rendered at `fps`, in a GIF at `gif_fps`.
    pub fn of(frames: usize, fps: f64, gif_fps: f64) -> Sampling {
        if gif_fps >= fps {
            return Sampling::every(frames, fps);
        }
        let mut keep = vec![false; frames];
        for j in 0.. {
            let k = (j as f64 * fps / gif_fps).round() as usize;
            if k >= frames {
                break;
            }
            keep[k] = true;
        }
        Sampling { fps: gif_fps, keep }
    }

    /// Whether frame `k` is in the GIF.
    pub fn keeps(&self, k: usize) -> bool {
        self.keep.get(k).copied().unwrap_or(false)
    }

    /// How many frames the GIF holds.
    pub fn kept(&self) -> usize {
        self.keep.iter().filter(|&&k| k).count()
    }
}

/// Share of a frame's pixels that trains the k-means palette (initialised by Wu's quantizer):
/// measured on the GIF benchmark's frames, 10 % gives 40.0 dB undithered against 40.3 dB with
/// every pixel, in a quarter of the time.
const KMEANS_SAMPLING: f32 = 0.1;

/// Floyd–Steinberg strength: 0.9 of the error is diffused. The benchmark's frames at 0.75,
/// 0.85, 0.9 and 0.95 (with the hold and run bonuses below): 0.9 is the best blur1 PSNR for the
/// bytes.
const ERROR_DIFFUSION: f32 = 0.9;

/// How much farther (squared distance in 8-bit sRGB units) than the nearest palette colour a
/// pixel's own colour may be and still be kept, after a kept left neighbour: 400 (20 levels)
/// makes runs of kept pixels without a visible loss, the diffused error making up for it.
const HOLD_AFTER_HOLD: f32 = 400.0;

/// The same after a redrawn left neighbour: 0 (the kept colour must be as good).
const HOLD: f32 = 0.0;

/// Dithered, a pixel keeps what it shows only when that is at most this far (squared distance,
/// 8 levels) from the frame's own colour there, whatever the diffused error: on a flat background
/// a kept pixel 20 levels off stays a dot of an earlier frame (the diffusion spreads its error
/// thinly over the neighbours, who cannot hide it), and a moving shape left dotted trails on 0.86 %
/// of a light flock's pixels. So no pixel of an earlier frame stays more than 8 levels off any
/// frame, dithered or not.
pub const KEPT_NEAR_SOURCE: f32 = 64.0;

/// The most error (levels, each channel) diffused into a pixel.
const DIFFUSED_AT_MOST: f32 = 8.0;

/// Undithered, nothing makes up for a pixel shown off its colour, so a pixel keeps what it shows,
/// or takes its left neighbour's colour, only when that is at most this much farther (squared
/// distance, 4 levels) than the nearest palette colour: every pixel is within its frame palette's
/// quantisation error and 4 levels, and nothing an earlier frame left stays on screen beyond it.
pub const NO_DITHER_HOLD: f32 = 16.0;

/// How much farther than the nearest colour a redrawn pixel may take its left neighbour's colour
/// (squared distance, 10 levels): runs again, for LZW.
const RUN: f32 = 100.0;

/// One frame and the palette it is drawn with (at most 255 colours; the 256th index is the
/// transparent "keep").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantized {
    pub width: u32,
    pub height: u32,
    pub palette: Vec<[u8; 3]>,
    pub source: Vec<[u8; 3]>,
    /// Whether the writer dithers this frame.
    pub dither: bool,
}

/// Why a frame has no palette: the quantizer's own message.
#[derive(Debug, thiserror::Error)]
#[error("cannot make a palette for a {width}×{height} frame: {reason}")]
pub struct QuantizeError {
    pub width: u32,
    pub height: u32,
    pub reason: String,
}

/// The most colours a frame's palette has (the 256th index is the transparent "keep").
pub const MAX_COLORS: u16 = 255;

/// The palette of one RGBA8 frame (alpha ignored: frames are opaque), of [`MAX_COLORS`].
/// Single-threaded, so that many frames can be quantized side by side.
pub fn quantize(rgba: &[u8], width: u32, height: u32, dither: bool) -> Result<Quantized, QuantizeError> {
    quantize_to(rgba, width, height, dither, MAX_COLORS)
}

/// [`quantize`] to at most `colors` colours (2 to [`MAX_COLORS`]): with the "keep" index, 127
/// take 7-bit LZW codes, 63 take 6.
pub fn quantize_to(rgba: &[u8], width: u32, height: u32, dither: bool, colors: u16) -> Result<Quantized, QuantizeError> {
    let source: Vec<[u8; 3]> = rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect();
    let pixels: Vec<Srgb<u8>> = source.iter().map(|p| Srgb::new(p[0], p[1], p[2])).collect();
    let fail = |reason: String| QuantizeError { width, height, reason };
    let image = ImageRef::new(width, height, pixels.as_slice()).map_err(|e| fail(e.to_string()))?;
    let palette: Vec<[u8; 3]> = Pipeline::new()
        .palette_size(PaletteSize::from_u16_clamped(colors.clamp(2, MAX_COLORS)))
        .quantize_method(QuantizeMethod::Kmeans(KmeansOptions::new().sampling_factor(KMEANS_SAMPLING).seed(0)))
        .parallel(false)
        .input_image(image)
        .output_srgb8_palette()
        .ok_or_else(|| fail("the frame is empty or has more pixels than the quantizer takes".into()))?
        .iter()
        .map(|c| [c.red, c.green, c.blue])
        .collect();
    if palette.is_empty() {
        return Err(fail("the quantizer returned an empty palette".into()));
    }
    Ok(Quantized { width, height, palette, source, dither })
}

/// Squared distance of a palette colour to a target, in 8-bit sRGB units.
fn d2(c: [u8; 3], v: [f32; 3]) -> f32 {
    dist2(c.map(f32::from), v)
}

/// Squared distance between two colours.
fn dist2(a: [f32; 3], b: [f32; 3]) -> f32 {
    portable::powi(a[0] - b[0], 2) + portable::powi(a[1] - b[1], 2) + portable::powi(a[2] - b[2], 2)
}

/// Side of the cubes the colour space is cut into for the nearest-colour search (8-bit units).
const CELL: usize = 16;
const CELLS: usize = 256 / CELL;

/// The nearest colour of a palette, found exactly among the few colours that can be nearest
/// anywhere in the target's cell of the colour space: those whose distance to the cell is at
/// most the smallest distance any colour has to the cell's farthest corner. A cell's list is
/// made when a target first falls in it. Ties go to the lower index.
struct Nearest {
    colours: Vec<[f32; 3]>,
    /// Per cell, where its list starts in `lists` and how long it is (`u32::MAX`: not made yet).
    cells: Vec<(u32, u32)>,
    lists: Vec<u8>,
}

impl Nearest {
    fn new(palette: &[[u8; 3]]) -> Nearest {
        let colours = palette.iter().map(|c| c.map(f32::from)).collect();
        Nearest { colours, cells: vec![(u32::MAX, 0); CELLS * CELLS * CELLS], lists: Vec::new() }
    }

    /// The colours that can be nearest somewhere in the cell whose low corner is `lo`.
    fn candidates(&mut self, lo: [f32; 3]) -> (u32, u32) {
        let hi = lo.map(|x| x + CELL as f32);
        let to_cell = |c: &[f32; 3]| (0..3).map(|j| portable::powi((lo[j] - c[j]).max(c[j] - hi[j]).max(0.0), 2)).sum::<f32>();
        let to_far = |c: &[f32; 3]| (0..3).map(|j| portable::powi((c[j] - lo[j]).abs().max((c[j] - hi[j]).abs()), 2)).sum::<f32>();
        let bound = self.colours.iter().map(to_far).fold(f32::INFINITY, f32::min);
        let start = self.lists.len();
        self.lists.extend(self.colours.iter().enumerate().filter(|(_, c)| to_cell(c) <= bound).map(|(i, _)| i as u8));
        (start as u32, (self.lists.len() - start) as u32)
    }

    /// The index of the palette colour nearest `v` (squared distance in 8-bit sRGB units; `v`
    /// within 0..=255).
    fn find(&mut self, v: [f32; 3]) -> u8 {
        let cell = v.map(|x| (x as usize / CELL).min(CELLS - 1));
        let at = (cell[0] * CELLS + cell[1]) * CELLS + cell[2];
        if self.cells[at].0 == u32::MAX {
            self.cells[at] = self.candidates(cell.map(|c| (c * CELL) as f32));
        }
        let (start, len) = self.cells[at];
        let (mut best, mut best_index) = (f32::INFINITY, 0);
        for &i in &self.lists[start as usize..(start + len) as usize] {
            let d = dist2(self.colours[i as usize], v);
            if d < best {
                (best, best_index) = (d, i);
            }
        }
        best_index
    }
}

/// One frame's dithering: what it reads.
struct Dither<'a> {
    q: &'a Quantized,
    nearest: &'a mut Nearest,
    keep: u8,
    first: bool,
    width: usize,
    strength: f32,
}

impl Dither<'_> {
    /// Dithers the frame into `out`, updating `shown` (what each pixel shows).
    fn run(&mut self, out: &mut [u8], shown: &mut [[u8; 3]]) {
        let (w, q, keep) = (self.width, self.q, self.keep);
        // dithered, the diffused error makes up for a pixel kept or run off its colour; undithered
        // nothing does, and a kept pixel would stay off frame after frame
        let (hold, hold_after_hold, run) =
            if self.strength > 0.0 { (HOLD, HOLD_AFTER_HOLD, RUN) } else { (NO_DITHER_HOLD, NO_DITHER_HOLD, NO_DITHER_HOLD) };
        // the error diffused into this row and the next, one pixel of margin each side
        let (mut row, mut below) = (vec![[0f32; 3]; w + 2], vec![[0f32; 3]; w + 2]);
        for y in 0..out.len() / w {
            for x in 0..w {
                let i = y * w + x;
                // the error diffused here, at most DIFFUSED_AT_MOST levels a channel: more makes a
                // pixel of a smooth background stand out of it (the dice's gradient was streaked)
                let v = [0, 1, 2].map(|c| {
                    let s = q.source[i][c] as f32;
                    (s + row[x + 1][c].clamp(-DIFFUSED_AT_MOST, DIFFUSED_AT_MOST)).clamp(0.0, 255.0)
                });
                let old = shown[i];
                let left = (x > 0).then(|| out[i - 1]);
                let bonus = if left == Some(keep) { hold_after_hold } else { hold };
                // the nearest colour is at least 0 away: a pixel this near its own keeps it unsought
                let d_old = d2(old, v);
                // whatever the diffused error, an earlier frame's colour stays only near this one's
                let src = q.source[i].map(f32::from);
                let keepable = !self.first && d2(old, src) <= KEPT_NEAR_SOURCE;
                let (colour, index) = if keepable && d_old <= bonus {
                    (old, keep)
                } else {
                    let mut k = self.nearest.find(v);
                    if self.strength > 0.0 && d2(q.palette[k as usize], src) > KEPT_NEAR_SOURCE {
                        // the dither's colour only among those near the pixel's own: farther, the
                        // colour nearest the pixel's own (a smooth background is never dotted
                        // beyond what its palette must)
                        k = self.nearest.find(src);
                    }
                    let best = d2(q.palette[k as usize], v);
                    match left {
                        _ if keepable && d_old <= best + bonus => (old, keep),
                        Some(l)
                            if l != keep
                                && l != k
                                && d2(q.palette[l as usize], v) <= best + run
                                && d2(q.palette[l as usize], src) <= KEPT_NEAR_SOURCE =>
                        {
                            (q.palette[l as usize], l)
                        }
                        _ => (q.palette[k as usize], k),
                    }
                };
                out[i] = index;
                shown[i] = colour;
                for c in 0..3 {
                    let e = (v[c] - colour[c] as f32) * self.strength;
                    row[x + 2][c] += e * (7.0 / 16.0);
                    below[x][c] += e * (3.0 / 16.0);
                    below[x + 1][c] += e * (5.0 / 16.0);
                    below[x + 2][c] += e * (1.0 / 16.0);
                }
            }
            std::mem::swap(&mut row, &mut below);
            below.fill([0.0; 3]);
        }
    }
}

/// Turns quantized frames, in order, into GIF frames: dithered against what the earlier frames
/// left on screen, cropped to what changed, not yet LZW-encoded.
pub struct FrameMaker {
    width: u32,
    height: u32,
    fps: f64,
    frames: u64,
    /// The colour each pixel shows (empty before the first frame).
    shown: Vec<[u8; 3]>,
}

impl FrameMaker {
    /// Centiseconds frame `k` stays on screen: cumulative rounding keeps the average exact.
    fn delay(&self, k: u64) -> u16 {
        let at = |k: u64| (k as f64 * 100.0 / self.fps).round() as u64;
        (at(k + 1) - at(k)).clamp(1, u16::MAX as u64) as u16
    }

    /// Frame `q`'s indices: dithered against its palette, `keep` where the pixel keeps what it
    /// shows (see the module's notes).
    fn dither(&mut self, q: &Quantized, keep: u8) -> Vec<u8> {
        let (w, h) = (self.width as usize, self.height as usize);
        let first = self.shown.is_empty();
        if first {
            self.shown = vec![[0; 3]; w * h];
        }
        let mut nearest = Nearest::new(&q.palette);
        let mut dither = Dither { q, nearest: &mut nearest, keep, first, width: w, strength: if q.dither { ERROR_DIFFUSION } else { 0.0 } };
        let mut out = vec![0u8; w * h];
        dither.run(&mut out, &mut self.shown);
        out
    }

    /// The next frame, its buffer holding palette indices.
    pub fn frame(&mut self, q: &Quantized) -> gif::Frame<'static> {
        let (w, h) = (self.width as usize, self.height as usize);
        debug_assert_eq!((q.width as usize, q.height as usize), (w, h));
        debug_assert!(h > 0);
        let keep = q.palette.len() as u8; // the extra palette entry, shown transparent
        let first = self.shown.is_empty();
        let indices = self.dither(q, keep);
        // The rectangle holding every redrawn pixel (one pixel when none is, to keep the timing).
        let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
        for (y, row) in indices.chunks_exact(w).enumerate() {
            if let Some(fx) = row.iter().position(|&i| i != keep) {
                let lx = w - 1 - row.iter().rev().position(|&i| i != keep).unwrap_or(0);
                (x0, x1, y0, y1) = (x0.min(fx), x1.max(lx + 1), y0.min(y), y1.max(y + 1));
            }
        }
        if x1 <= x0 {
            (x0, y0, x1, y1) = (0, 0, 1, 1);
        }
        let mut buffer = Vec::with_capacity((x1 - x0) * (y1 - y0));
        for y in y0..y1 {
            buffer.extend_from_slice(&indices[y * w + x0..y * w + x1]);
        }
        let mut palette: Vec<u8> = q.palette.iter().flatten().copied().collect();
        palette.extend_from_slice(&[0, 0, 0]);
        let frame = gif::Frame {
            left: x0 as u16,
            top: y0 as u16,
            width: (x1 - x0) as u16,
            height: (y1 - y0) as u16,
            delay: self.delay(self.frames),
            dispose: gif::DisposalMethod::Keep,
            transparent: (!first).then_some(keep),
            palette: Some(palette),
            buffer: buffer.into(),
            ..Default::default()
        };
        self.frames += 1;
        frame
    }
}

/// Writes frames into a GIF stream: LZW-encodes them and appends them, in the order given.
pub struct GifStream<W: Write> {
    encoder: gif::Encoder<W>,
}

impl<W: Write> GifStream<W> {
    /// Encodes and appends a frame made by a [`FrameMaker`].
    pub fn write(&mut self, mut frame: gif::Frame<'static>) -> Result<(), gif::EncodingError> {
        frame.make_lzw_pre_encoded();
        self.encoder.write_lzw_pre_encoded_frame(&frame)
    }

    /// Finishes the stream and returns the writer.
    pub fn finish(self) -> Result<W, gif::EncodingError> {
        self.encoder.into_inner()
    }
}

/// Writes quantized frames, in order, into a GIF stream: a [`FrameMaker`] and a [`GifStream`],
/// which [`GifWriter::split`] hands to two threads.
pub struct GifWriter<W: Write> {
    maker: FrameMaker,
    stream: GifStream<W>,
}

impl<W: Write> GifWriter<W> {
    pub fn new(out: W, width: u32, height: u32, fps: f64) -> Result<Self, gif::EncodingError> {
        if width > u16::MAX as u32 || height > u16::MAX as u32 {
            return Err(std::io::Error::other(format!("{width}×{height} is larger than a GIF can be (65535 per side)")).into());
        }
        let mut encoder = gif::Encoder::new(out, width as u16, height as u16, &[])?;
        encoder.set_repeat(gif::Repeat::Infinite)?;
        Ok(GifWriter { maker: FrameMaker { width, height, fps, frames: 0, shown: Vec::new() }, stream: GifStream { encoder } })
    }

    pub fn push(&mut self, q: &Quantized) -> Result<(), gif::EncodingError> {
        let frame = self.maker.frame(q);
        self.stream.write(frame)
    }

    /// The maker and the stream, to run side by side (the stream takes the maker's frames in
    /// the order it made them).
    pub fn split(self) -> (FrameMaker, GifStream<W>) {
        (self.maker, self.stream)
    }

    /// Finishes the stream and returns the writer.
    pub fn finish(self) -> Result<W, gif::EncodingError> {
        self.stream.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lower_gif_rate_drops_frames_evenly_and_keeps_the_length() {
        // 4 s at 25 fps in a 15 fps GIF: 60 frames of 1/15 s, each the render's nearest in time
        let s = Sampling::of(100, 25.0, 15.0);
        assert_eq!((s.fps, s.kept()), (15.0, 60));
        let kept: Vec<usize> = (0..100).filter(|&k| s.keeps(k)).collect();
        for (j, &k) in kept.iter().enumerate() {
            assert!((k as f64 / 25.0 - j as f64 / 15.0).abs() <= 0.5 / 25.0 + 1e-9, "GIF frame {j} shows frame {k}");
        }
        assert_eq!(s.kept() as f64 / s.fps, 100.0 / 25.0, "the same length");
        // a rate at or above the render's: every frame at the render's rate
        assert_eq!(Sampling::of(100, 25.0, 30.0), Sampling::every(100, 25.0));
        assert_eq!(Sampling::of(100, 25.0, 25.0).kept(), 100);
        // one frame: shown
        assert_eq!(Sampling::of(1, 30.0, 10.0).kept(), 1);
        assert!(!s.keeps(100));
    }

    #[test]
    fn a_frame_the_quantizer_cannot_take_is_an_error_not_a_black_palette() {
        // four pixels said to be 3×3: the quantizer refuses; before, the frame became one black colour
        let rgba = [200u8, 30, 40, 255].repeat(4);
        let e = quantize(&rgba, 3, 3, true).unwrap_err();
        assert_eq!((e.width, e.height), (3, 3));
        assert!(e.to_string().starts_with("cannot make a palette for a 3×3 frame: "), "{e}");
        let q = quantize(&rgba, 2, 2, true).unwrap();
        assert_eq!(q.palette, vec![[200, 30, 40]]);
    }

    /// A small deterministic stream for test data (64-bit LCG, high bits).
    fn stream(seed: u64) -> impl FnMut() -> u8 {
        let mut s = seed;
        move || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 56) as u8
        }
    }

    #[test]
    fn nearest_is_the_brute_force_nearest_with_ties_to_the_lower_index() {
        let mut next = stream(7);
        let mut palettes: Vec<Vec<[u8; 3]>> = vec![vec![[9, 9, 9]], vec![[0; 3], [255; 3]], vec![[40, 40, 40]; 5]];
        for n in [2, 17, 64, 255] {
            palettes.push((0..n).map(|_| [next(), next(), next()]).collect());
        }
        // clustered colours, with duplicates, as a k-means palette of a smooth image has
        palettes.push((0..255).map(|i| [100 + (i % 7) as u8, 120 + (i % 11) as u8, (i / 2) as u8]).collect());
        for palette in &palettes {
            let mut nearest = Nearest::new(palette);
            for t in 0..4000 {
                let v = match t {
                    0 => [0.0; 3],
                    1 => [255.0; 3],
                    _ => [0, 1, 2].map(|_| next() as f32 + (next() as f32 / 256.0)).map(|x| x.min(255.0)),
                };
                let (mut best, mut at) = (f32::INFINITY, 0);
                for (i, &c) in palette.iter().enumerate() {
                    let c = c.map(f32::from);
                    let d = portable::powi(c[0] - v[0], 2) + portable::powi(c[1] - v[1], 2) + portable::powi(c[2] - v[2], 2);
                    if d < best {
                        (best, at) = (d, i as u8);
                    }
                }
                assert_eq!(nearest.find(v), at, "palette of {} colours, target {v:?}", palette.len());
            }
        }
    }
}
