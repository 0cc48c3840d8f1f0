//! Pictures that come from outside simreel: frames handed to `simreel gif` (PNG at any bit depth
//! and colour type, JPEG, WebP) decoded to RGBA8, and resizing (report thumbnails, `gif --width`).
//! Decoding is `image`'s; it reads simreel's own 8-bit PNG frames as fast as the `png` crate's
//! reader did (`cargo bench --bench decode`), so there is one decoder for every picture.

use std::path::Path;

use image::imageops::FilterType;

use super::OutputError;
use simreel_compare::Image as Decoded;

/// File extensions (lower case) [`read`] understands.
pub const EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "webp"];

/// Whether `path` names a picture [`read`] understands, by its extension.
pub fn is_picture(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Reads a picture into RGBA8 (16-bit channels rounded to 8, grey expanded, alpha 255 where
/// there is none). The format comes from the bytes, not the name.
pub fn read(path: &Path) -> Result<Decoded, OutputError> {
    read_as(path, None, |path, reason| OutputError::BadPicture { path, reason })
}

/// Reads `path` as `format` (or whatever it turns out to be); `bad` words a decoding failure.
/// Pictures are read where simreel wrote them, or where a report or a folder named them: plain
/// files, through no link of another user's (an approved image may be a link of the user's own,
/// as git-annex keeps files), never a FIFO or a device.
pub(super) fn read_as(
    path: &Path,
    format: Option<image::ImageFormat>,
    bad: impl FnOnce(std::path::PathBuf, String) -> OutputError,
) -> Result<Decoded, OutputError> {
    let bytes = simreel_compare::fs::read_trusted(path).map_err(|source| OutputError::Read { path: path.to_path_buf(), source })?;
    decode_as(&bytes, format).map_err(|reason| bad(path.to_path_buf(), reason))
}

/// Decodes `bytes` as `format`, or as whatever format (PNG, JPEG, WebP) they turn out to be.
pub fn decode_as(bytes: &[u8], format: Option<image::ImageFormat>) -> Result<Decoded, String> {
    let img = match format {
        Some(f) => image::load_from_memory_with_format(bytes, f),
        None => image::load_from_memory(bytes),
    };
    let img = img.map_err(|e| e.to_string())?.into_rgba8();
    let (width, height) = img.dimensions();
    Ok(Decoded { width, height, rgba: img.into_raw() })
}

/// `img` scaled to `width` × `height` (Catmull–Rom: sharp, no ringing to speak of). Colours are
/// filtered as stored (sRGB), as browsers and image viewers scale them.
pub fn resize(img: &Decoded, width: u32, height: u32) -> Decoded {
    if (width, height) == (img.width, img.height) {
        return img.clone();
    }
    let view = image::ImageBuffer::<image::Rgba<u8>, &[u8]>::from_raw(img.width, img.height, &img.rgba[..])
        .expect("RGBA8 rows of the stated size");
    let out = image::imageops::resize(&view, width.max(1), height.max(1), FilterType::CatmullRom);
    Decoded { width: out.width(), height: out.height(), rgba: out.into_raw() }
}

pub use simreel_compare::image::{fit, thumbnail};

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture with gradients and an opaque/translucent split, `w` × `h`.
    fn test_card(w: u32, h: u32) -> Decoded {
        let rgba = (0..w * h)
            .flat_map(|i| {
                let (x, y) = (i % w, i / w);
                [(x * 255 / w) as u8, (y * 255 / h) as u8, ((x + y) % 256) as u8, if x < w / 2 { 255 } else { 128 }]
            })
            .collect();
        Decoded { width: w, height: h, rgba }
    }

    fn encode_with_image(img: &Decoded, format: image::ImageFormat, sixteen: bool) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let rgba = image::RgbaImage::from_raw(img.width, img.height, img.rgba.clone()).unwrap();
        let dynamic = match (format, sixteen) {
            (image::ImageFormat::Jpeg, _) => image::DynamicImage::ImageRgb8(image::DynamicImage::ImageRgba8(rgba).into_rgb8()),
            (_, true) => image::DynamicImage::ImageRgba16(image::DynamicImage::ImageRgba8(rgba).into_rgba16()),
            _ => image::DynamicImage::ImageRgba8(rgba),
        };
        dynamic.write_to(&mut out, format).unwrap();
        out.into_inner()
    }

    fn scratch(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("simreel-picture-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn every_format_decodes_to_the_same_rgba() {
        let card = test_card(48, 32);
        // our own 8-bit PNG (the fast path), a 16-bit PNG and a lossless WebP: exact
        let png8 = scratch("a.png", &super::super::png::encode(&card.rgba, 48, 32, super::super::png::Effort::Fast));
        let png16 = scratch("b.png", &encode_with_image(&card, image::ImageFormat::Png, true));
        let webp = scratch("c.webp", &encode_with_image(&card, image::ImageFormat::WebP, false));
        for p in [&png8, &png16, &webp] {
            assert_eq!(read(p).unwrap(), card, "{}", p.display());
        }
        // JPEG: lossy and opaque, but close
        let jpeg = scratch("d.jpg", &encode_with_image(&card, image::ImageFormat::Jpeg, false));
        let got = read(&jpeg).unwrap();
        assert_eq!((got.width, got.height), (48, 32));
        let worst = got.rgba.chunks_exact(4).zip(card.rgba.chunks_exact(4)).map(|(a, b)| a[0].abs_diff(b[0])).max().unwrap();
        assert!(worst < 40 && got.rgba.chunks_exact(4).all(|p| p[3] == 255), "worst red difference {worst}");
        // not a picture at all
        let text = scratch("e.png", b"not a picture");
        assert!(matches!(read(&text), Err(OutputError::BadPicture { .. })));
        for p in [png8, png16, webp, jpeg, text] {
            let _ = std::fs::remove_file(p);
        }
        assert!(is_picture(Path::new("x/F.JPG")) && !is_picture(Path::new("x/f.gif")));
    }

    #[test]
    fn resizing_keeps_flat_colours_and_fits_inside_the_box() {
        let flat = Decoded { width: 40, height: 20, rgba: [10u8, 200, 30, 255].repeat(800) };
        let small = resize(&flat, 10, 5);
        assert_eq!((small.width, small.height), (10, 5));
        assert!(small.rgba.chunks_exact(4).all(|p| p == [10, 200, 30, 255]));
        assert_eq!(fit(1920, 1080, 160, 160), (160, 90));
        assert_eq!(fit(100, 400, 160, 160), (40, 160));
        assert_eq!(fit(64, 48, 160, 160), (64, 48), "never enlarged");
        assert_eq!(resize(&flat, 40, 20), flat);
    }
}
