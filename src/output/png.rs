//! PNG encoding of RGBA8 frames (the `png` crate): fast settings for frame sequences, small ones for
//! golden images; and decoding for `simreel gif` and golden comparisons.

use std::path::Path;

use super::OutputError;

/// Encoder effort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    /// fdeflate with the Paeth/adaptive filter choice: frame sequences.
    Fast,
    /// Best compression the crate offers: small files for goldens.
    Small,
}

/// Encodes tightly packed sRGB RGBA8 rows. Opaque images are stored as RGB (a quarter smaller).
pub fn encode(rgba: &[u8], width: u32, height: u32, effort: Effort) -> Vec<u8> {
    let opaque = rgba.chunks_exact(4).all(|p| p[3] == 255);
    let mut out = Vec::with_capacity(rgba.len() / 3);
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        match effort {
            Effort::Fast => {
                enc.set_compression(png::Compression::Fast);
                enc.set_filter(png::Filter::Adaptive);
            }
            Effort::Small => {
                enc.set_compression(png::Compression::High);
                enc.set_filter(png::Filter::Adaptive);
            }
        }
        let data: std::borrow::Cow<[u8]> = if opaque {
            enc.set_color(png::ColorType::Rgb);
            rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect::<Vec<u8>>().into()
        } else {
            enc.set_color(png::ColorType::Rgba);
            rgba.into()
        };
        let mut w = enc.write_header().expect("PNG header into memory");
        w.write_image_data(&data).expect("PNG data into memory");
    }
    out
}

/// A decoded image as RGBA8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Reads a PNG (8-bit grey, grey+alpha, RGB, RGBA or palette) into RGBA8.
pub fn read(path: &Path) -> Result<Decoded, OutputError> {
    let bytes = std::fs::read(path).map_err(|source| OutputError::Read { path: path.to_path_buf(), source })?;
    decode(&bytes).map_err(|reason| OutputError::BadPng { path: path.to_path_buf(), reason })
}

pub fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().map_err(|e| e.to_string())?;
    let size = reader.output_buffer_size().ok_or("image too large")?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let (w, h) = (info.width, info.height);
    let px = (w * h) as usize;
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf[..px * 4].to_vec(),
        png::ColorType::Rgb => buf[..px * 3].chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        png::ColorType::GrayscaleAlpha => buf[..px * 2].chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        png::ColorType::Grayscale => buf[..px].iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err("palette PNG was not expanded".into()),
    };
    Ok(Decoded { width: w, height: h, rgba })
}
