//! Pictures in and out: PNG (any bit depth and colour type, with or without its end chunk),
//! JPEG, WebP, BMP and TIFF decoded to RGBA8; PNG written fast for the report; thumbnails.

use std::path::Path;

pub mod bmp;
mod encode;
pub mod tiff;

pub use encode::{encode_png, encode_png_small};

/// A picture as RGBA8 rows, straight alpha.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Image {
    /// An image of `width` × `height` from RGBA8 rows; `None` when the bytes are not that many.
    pub fn from_rgba(width: u32, height: u32, rgba: Vec<u8>) -> Option<Image> {
        (rgba.len() as u64 == width as u64 * height as u64 * 4).then_some(Image { width, height, rgba })
    }

    /// Reads a picture file (the format from its bytes, not its name).
    pub fn read(path: &Path) -> Result<Image, crate::Error> {
        let bytes = std::fs::read(path).map_err(|e| crate::Error::BadInput(format!("cannot read {}: {e}", path.display())))?;
        decode(&bytes).map_err(|why| crate::Error::BadInput(format!("{}: {why}", path.display())))
    }
}

/// The picture formats the comparator reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Png,
    Jpeg,
    WebP,
    Bmp,
    Tiff,
}

/// File extensions (lower case) of the pictures a folder comparison takes.
pub const EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "webp", "bmp", "tif", "tiff"];

impl Format {
    /// The format `bytes` are in, from their first bytes.
    pub fn sniff(bytes: &[u8]) -> Option<Format> {
        Some(match bytes {
            [0x89, b'P', b'N', b'G', ..] => Format::Png,
            [0xFF, 0xD8, 0xFF, ..] => Format::Jpeg,
            [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => Format::WebP,
            [b'B', b'M', ..] => Format::Bmp,
            [b'I', b'I', 42, 0, ..] | [b'M', b'M', 0, 42, ..] => Format::Tiff,
            _ => return None,
        })
    }

    /// The format a file's name says (its extension).
    pub fn of_name(path: &Path) -> Option<Format> {
        Some(match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "png" => Format::Png,
            "jpg" | "jpeg" => Format::Jpeg,
            "webp" => Format::WebP,
            "bmp" => Format::Bmp,
            "tif" | "tiff" => Format::Tiff,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Png => "PNG",
            Format::Jpeg => "JPEG",
            Format::WebP => "WebP",
            Format::Bmp => "BMP",
            Format::Tiff => "TIFF",
        }
    }
}

/// Whether `path` names a picture the comparator reads, by its extension.
pub fn is_picture(path: &Path) -> bool {
    Format::of_name(path).is_some()
}

/// Decodes a picture, whatever its format: 16-bit channels rounded to 8, grey expanded, alpha 255
/// where there is none. An error says what the bytes are when they are no picture it reads.
pub fn decode(bytes: &[u8]) -> Result<Image, String> {
    let Some(format) = Format::sniff(bytes) else {
        return Err(format!("not a picture the comparator reads (PNG, JPEG, WebP, BMP, TIFF): {}", what_it_is(bytes)));
    };
    let image = match format {
        Format::Png => png(bytes),
        Format::Jpeg => jpeg(bytes),
        Format::WebP => webp(bytes),
        Format::Bmp => bmp::decode(bytes),
        Format::Tiff => tiff::decode(bytes),
    };
    image.map_err(|why| format!("a {} that cannot be read: {why}", format.name()))
}

/// What bytes that are no picture look like, for an error.
fn what_it_is(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(512)];
    if bytes.is_empty() {
        "the file is empty".into()
    } else if bytes.starts_with(b"version https://git-lfs") {
        "a Git LFS pointer (run `git lfs pull`)".into()
    } else if std::str::from_utf8(head).is_ok_and(|t| !t.contains('\0')) {
        "the file is text".into()
    } else {
        format!("it starts with bytes {}", head.iter().take(8).map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" "))
    }
}

/// The largest picture decoded, in pixels: a 32 768-pixel square (4 GiB as RGBA8).
const MAX_PIXELS: usize = 1 << 30;

/// A PNG's last chunk, `IEND`, with its CRC.
const IEND: &[u8] = b"\0\0\0\0IEND\xAE\x42\x60\x82";

/// A PNG, also one that lacks its `IEND` chunk (browsers, odiff and Pillow read those).
fn png(bytes: &[u8]) -> Result<Image, String> {
    if bytes.ends_with(IEND) {
        return png_whole(bytes);
    }
    png_whole(&[bytes, IEND].concat())
}

fn png_whole(bytes: &[u8]) -> Result<Image, String> {
    use zune_png::zune_core::bytestream::ZCursor;
    use zune_png::zune_core::options::DecoderOptions;
    let options = DecoderOptions::new_fast().set_max_width(1 << 20).set_max_height(1 << 20).png_set_add_alpha_channel(true);
    let mut d = zune_png::PngDecoder::new_with_options(ZCursor::new(bytes), options);
    let words = |e: zune_png::error::PngDecodeErrors| format!("{e:?}").trim().to_string();
    d.decode_headers().map_err(words)?;
    let (w, h) = d.dimensions().ok_or("no image header")?;
    if w.saturating_mul(h) > MAX_PIXELS {
        return Err(format!("{w}×{h} is larger than the comparator reads"));
    }
    let channels = d.colorspace().map_or(4, |c| c.num_components());
    let samples = match d.decode().map_err(words)? {
        zune_png::zune_core::result::DecodingResult::U8(v) => v,
        zune_png::zune_core::result::DecodingResult::U16(v) => v.iter().map(|&s| ((s as u32 + 128) / 257) as u8).collect(),
        _ => return Err("an unsupported sample type".into()),
    };
    rgba_of(w, h, channels, samples)
}

/// RGBA8 from grey, grey + alpha, RGB or RGBA samples.
fn rgba_of(w: usize, h: usize, channels: usize, samples: Vec<u8>) -> Result<Image, String> {
    if samples.len() != w * h * channels {
        return Err(format!("{} samples for {w}×{h} with {channels} channels", samples.len()));
    }
    let rgba = match channels {
        4 => samples,
        3 => samples.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        2 => samples.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        1 => samples.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        n => return Err(format!("{n} channels")),
    };
    Ok(Image { width: w as u32, height: h as u32, rgba })
}

fn jpeg(bytes: &[u8]) -> Result<Image, String> {
    use zune_jpeg::zune_core::bytestream::ZCursor;
    use zune_jpeg::zune_core::colorspace::ColorSpace;
    use zune_jpeg::zune_core::options::DecoderOptions;
    let options = DecoderOptions::new_fast().set_max_width(1 << 16).set_max_height(1 << 16).jpeg_set_out_colorspace(ColorSpace::RGBA);
    let mut d = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), options);
    let rgba = d.decode().map_err(|e| e.to_string())?;
    let info = d.info().ok_or("no frame header")?;
    rgba_of(info.width as usize, info.height as usize, 4, rgba)
}

fn webp(bytes: &[u8]) -> Result<Image, String> {
    let mut d = image_webp::WebPDecoder::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let (w, h) = d.dimensions();
    let channels = if d.has_alpha() { 4 } else { 3 };
    let size = d.output_buffer_size().ok_or("too large")?;
    let mut out = vec![0u8; size];
    d.read_image(&mut out).map_err(|e| e.to_string())?;
    rgba_of(w as usize, h as usize, channels, out)
}

/// `img` made small by averaging the pixels each output pixel covers (partly covered ones by the
/// share they are covered): for thumbnails and the report's scaled views.
pub fn thumbnail(img: &Image, width: u32, height: u32) -> Image {
    let (width, height) = (width.max(1), height.max(1));
    if (width, height) == (img.width, img.height) || img.width == 0 || img.height == 0 {
        return img.clone();
    }
    let spans = |from: u32, to: u32| -> Vec<Vec<(usize, f32)>> {
        let scale = from as f64 / to as f64;
        (0..to)
            .map(|o| {
                let (a, b) = (o as f64 * scale, (o as f64 + 1.0) * scale);
                let (first, last) = (a.floor() as u32, (b.ceil() as u32).min(from).max(a.floor() as u32 + 1));
                (first..last).map(|i| (i as usize, ((b.min(i as f64 + 1.0) - a.max(i as f64)) / scale) as f32)).collect()
            })
            .collect()
    };
    let (xs, ys) = (spans(img.width, width), spans(img.height, height));
    let src_row = img.width as usize * 4;
    let mut rgba = vec![0u8; width as usize * height as usize * 4];
    crate::par::rows(&mut rgba, width as usize * 4, |first, band| {
        let mut acc = vec![0f32; img.width as usize * 4];
        for (r, out) in band.chunks_exact_mut(width as usize * 4).enumerate() {
            acc.iter_mut().for_each(|v| *v = 0.0);
            for &(y, wy) in &ys[first + r] {
                for (a, &s) in acc.iter_mut().zip(&img.rgba[y * src_row..(y + 1) * src_row]) {
                    *a += wy * s as f32;
                }
            }
            for (x, px) in out.chunks_exact_mut(4).enumerate() {
                let mut sum = [0f32; 4];
                for &(i, wx) in &xs[x] {
                    for c in 0..4 {
                        sum[c] += wx * acc[i * 4 + c];
                    }
                }
                for c in 0..4 {
                    px[c] = sum[c].round().clamp(0.0, 255.0) as u8;
                }
            }
        }
    });
    Image { width, height, rgba }
}

/// The size that fits inside `max_width` × `max_height` keeping `width` : `height` (never larger
/// than the picture, never 0).
pub fn fit(width: u32, height: u32, max_width: u32, max_height: u32) -> (u32, u32) {
    let scale = (max_width as f64 / width as f64).min(max_height as f64 / height as f64).min(1.0);
    (((width as f64 * scale).round() as u32).max(1), ((height as f64 * scale).round() as u32).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_encoded_decodes_to_the_same_pixels_and_odd_inputs_say_what_they_are() {
        let img = Image::from_rgba(37, 11, (0..37 * 11 * 4).map(|i| (i * 7 % 251) as u8).collect()).unwrap();
        assert_eq!(decode(&encode_png(&img)).unwrap(), img);
        let png = encode_png(&img);
        let cut = &png[..png.len() - IEND.len()];
        assert_eq!(decode(cut).unwrap(), img, "a PNG without its IEND chunk");
        assert!(decode(&png[..png.len() / 2]).is_err(), "a PNG cut short in its pixels");
        assert!(decode(b"hello").unwrap_err().contains("the file is text"));
        assert!(decode(b"").unwrap_err().contains("empty"));
        assert!(decode(b"version https://git-lfs.github.com/spec/v1").unwrap_err().contains("Git LFS"));
    }
}
