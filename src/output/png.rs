//! PNG encoding of RGBA8 frames (the `png` crate, which writes the sRGB chunk and stores opaque
//! frames as RGB, so the bytes of a frame never depend on another crate's choices): fast settings
//! for frame sequences, small ones for golden images; and reading PNGs back (resume, golden
//! comparisons) through `image`.

use std::path::Path;

use super::OutputError;

/// Encoder effort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    /// fdeflate with the Paeth/adaptive filter choice: frame sequences.
    Fast,
    /// Best compression the crate offers: small files for goldens.
    Small,
    /// The smaller of the fast encoding and an unfiltered one at balanced compression, which
    /// flat 2-D drawings (charts, a flock's graph) shrink by about 40 % (shaded 3-D scenes keep
    /// the fast one): a still written for a page (`-o fig.png`), a few milliseconds more.
    Smallest,
}

/// Encodes tightly packed sRGB RGBA8 rows. Opaque images are stored as RGB (a quarter smaller).
pub fn encode(rgba: &[u8], width: u32, height: u32, effort: Effort) -> Vec<u8> {
    let opaque = rgba.chunks_exact(4).all(|p| p[3] == 255);
    let data: std::borrow::Cow<[u8]> =
        if opaque { rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect::<Vec<u8>>().into() } else { rgba.into() };
    let with = |compression, filter| encode_with(&data, opaque, (width, height), compression, filter);
    match effort {
        Effort::Fast => with(png::Compression::Fast, png::Filter::Adaptive),
        Effort::Small => with(png::Compression::High, png::Filter::Adaptive),
        Effort::Smallest => {
            let fast = with(png::Compression::Fast, png::Filter::Adaptive);
            let flat = with(png::Compression::Balanced, png::Filter::NoFilter);
            if flat.len() < fast.len() { flat } else { fast }
        }
    }
}

/// `data` (RGB when `opaque`, else RGBA) as a PNG of `size`, with the sRGB chunk.
fn encode_with(data: &[u8], opaque: bool, (width, height): (u32, u32), compression: png::Compression, filter: png::Filter) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 3);
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        enc.set_compression(compression);
        enc.set_filter(filter);
        enc.set_color(if opaque { png::ColorType::Rgb } else { png::ColorType::Rgba });
        let mut w = enc.write_header().expect("PNG header into memory");
        w.write_image_data(data).expect("PNG data into memory");
    }
    out
}

/// A decoded image as RGBA8 (the comparator's picture type).
pub use simreel_compare::Image as Decoded;

/// Reads a PNG (any bit depth and colour type) into RGBA8.
pub fn read(path: &Path) -> Result<Decoded, OutputError> {
    super::picture::read_as(path, Some(image::ImageFormat::Png), |path, reason| OutputError::BadPng { path, reason })
}

/// Decodes PNG bytes into RGBA8, through `image` (as fast as the `png` crate's own reader on
/// simreel's frames: `cargo bench --bench decode`).
pub fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    super::picture::decode_as(bytes, Some(image::ImageFormat::Png))
}
