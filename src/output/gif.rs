//! Animated GIFs: each frame gets its own 255-colour palette (Wu's quantizer in Oklab, from the
//! `quantette` crate) with Floyd–Steinberg error diffusion against banding; quantization runs on
//! all cores. The writer then stores only the rectangle that changed since the previous frame, with
//! unchanged pixels transparent, and spreads frame delays so the average rate is exact (30 fps is
//! 3, 3, 4 centiseconds, not 3 or 4 throughout).

use std::io::Write;

use quantette::deps::palette::Srgb;
use quantette::dither::FloydSteinberg;
use quantette::{ImageRef, PaletteSize, Pipeline, QuantizeMethod};

/// How a GIF is made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GifSettings {
    pub fps: f64,
    pub dither: bool,
}

/// One frame reduced to a palette of at most 255 colours (one index stays free for "unchanged").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantized {
    pub width: u32,
    pub height: u32,
    pub palette: Vec<[u8; 3]>,
    pub indices: Vec<u8>,
}

/// Quantizes one RGBA8 frame (alpha ignored: frames are opaque). Single-threaded, so that many
/// frames can be quantized side by side.
pub fn quantize(rgba: &[u8], width: u32, height: u32, dither: bool) -> Quantized {
    let pixels: Vec<Srgb<u8>> = rgba.chunks_exact(4).map(|p| Srgb::new(p[0], p[1], p[2])).collect();
    let Ok(image) = ImageRef::new(width, height, pixels.as_slice()) else {
        return Quantized { width, height, palette: vec![[0; 3]], indices: vec![0; (width * height) as usize] };
    };
    let pipeline = Pipeline::new()
        .palette_size(PaletteSize::from_u16_clamped(255))
        .quantize_method(QuantizeMethod::Wu)
        .ditherer(if dither { Some(FloydSteinberg::new()) } else { None })
        .parallel(false);
    let (palette, indices) = pipeline.input_image(image).output_srgb8_indexed_image().into_parts();
    let palette: Vec<[u8; 3]> = palette.iter().map(|c| [c.red, c.green, c.blue]).collect();
    if palette.is_empty() {
        return Quantized { width, height, palette: vec![[0; 3]], indices: vec![0; (width * height) as usize] };
    }
    Quantized { width, height, palette, indices }
}

/// Writes quantized frames, in order, into a GIF stream.
pub struct GifWriter<W: Write> {
    encoder: gif::Encoder<W>,
    width: u32,
    height: u32,
    fps: f64,
    frames: u64,
    /// Colours on screen after the last frame.
    shown: Vec<[u8; 3]>,
}

impl<W: Write> GifWriter<W> {
    pub fn new(out: W, width: u32, height: u32, fps: f64) -> Result<Self, gif::EncodingError> {
        if width > u16::MAX as u32 || height > u16::MAX as u32 {
            return Err(std::io::Error::other(format!("{width}×{height} is larger than a GIF can be (65535 per side)")).into());
        }
        let mut encoder = gif::Encoder::new(out, width as u16, height as u16, &[])?;
        encoder.set_repeat(gif::Repeat::Infinite)?;
        Ok(GifWriter { encoder, width, height, fps, frames: 0, shown: Vec::new() })
    }

    /// Centiseconds frame `k` stays on screen: cumulative rounding keeps the average exact.
    fn delay(&self, k: u64) -> u16 {
        let at = |k: u64| (k as f64 * 100.0 / self.fps).round() as u64;
        (at(k + 1) - at(k)).clamp(1, u16::MAX as u64) as u16
    }

    pub fn push(&mut self, q: &Quantized) -> Result<(), gif::EncodingError> {
        let (w, h) = (self.width as usize, self.height as usize);
        debug_assert_eq!((q.width as usize, q.height as usize), (w, h));
        let colors: Vec<[u8; 3]> = q.indices.iter().map(|&i| q.palette[i as usize]).collect();
        // The rectangle that changed since the last frame (everything, for the first).
        let (mut x0, mut y0, mut x1, mut y1) = (0, 0, w, h);
        if self.shown.len() == colors.len() {
            (x0, y0, x1, y1) = (w, h, 0, 0);
            for y in 0..h {
                let row = &colors[y * w..(y + 1) * w];
                let prev = &self.shown[y * w..(y + 1) * w];
                if let Some(first) = row.iter().zip(prev).position(|(a, b)| a != b) {
                    let last = w - 1 - row.iter().rev().zip(prev.iter().rev()).position(|(a, b)| a != b).unwrap_or(0);
                    x0 = x0.min(first);
                    x1 = x1.max(last + 1);
                    y0 = y0.min(y);
                    y1 = y1.max(y + 1);
                }
            }
            if x1 <= x0 {
                (x0, y0, x1, y1) = (0, 0, 1, 1); // nothing changed: a 1-pixel frame keeps the timing
            }
        }
        let transparent = q.palette.len().min(255) as u8;
        let mut palette: Vec<u8> = q.palette.iter().flatten().copied().collect();
        palette.extend_from_slice(&[0, 0, 0]);
        let first = self.shown.len() != colors.len();
        let mut buffer = Vec::with_capacity((x1 - x0) * (y1 - y0));
        for y in y0..y1 {
            for x in x0..x1 {
                let i = y * w + x;
                buffer.push(if !first && colors[i] == self.shown[i] { transparent } else { q.indices[i] });
            }
        }
        let frame = gif::Frame {
            left: x0 as u16,
            top: y0 as u16,
            width: (x1 - x0) as u16,
            height: (y1 - y0) as u16,
            delay: self.delay(self.frames),
            dispose: gif::DisposalMethod::Keep,
            transparent: (!first).then_some(transparent),
            palette: Some(palette),
            buffer: buffer.into(),
            ..Default::default()
        };
        self.encoder.write_frame(&frame)?;
        self.shown = colors;
        self.frames += 1;
        Ok(())
    }

    /// Finishes the stream and returns the writer.
    pub fn finish(self) -> Result<W, gif::EncodingError> {
        self.encoder.into_inner()
    }
}
