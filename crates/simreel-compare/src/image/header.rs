//! What a picture's header says, read before anything is decoded: its size as shown (two pictures
//! of different sizes are told apart in microseconds, and one larger than the pixel cap is
//! refused before a byte of it is allocated), and what the decoder must know first (a JPEG in
//! CMYK, an animated PNG, the EXIF orientation a browser applies). A header can lie: the decoders
//! still check the data against it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::Format;

/// What a header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub format: Format,
    /// The size as shown: after the EXIF orientation, where it turns the picture a quarter (5 to
    /// 8) and orientations are applied.
    pub width: u32,
    pub height: u32,
    /// A PNG with an animation control chunk (APNG): only its first frame (the default image)
    /// is compared, as every comparator does.
    pub animated: bool,
    /// A JPEG of four components (CMYK or YCCK).
    pub cmyk: bool,
    /// The EXIF Orientation (1 to 8; 1, as stored) of a JPEG's APP1, a PNG's `eXIf`, a WebP's
    /// `EXIF` chunk or a TIFF's first directory; browsers show the picture turned by it.
    pub orientation: u8,
}

static IGNORE_ORIENTATION: AtomicBool = AtomicBool::new(false);

/// Whether pictures are compared as stored, their EXIF orientation not applied (`--ignore-orientation`).
pub fn ignore_orientation() -> bool {
    IGNORE_ORIENTATION.load(Ordering::Relaxed)
}

/// Compares pictures as stored, for this process.
pub fn set_ignore_orientation(ignore: bool) {
    IGNORE_ORIENTATION.store(ignore, Ordering::Relaxed);
}

/// The Orientation (tag 274) in EXIF's TIFF structure `t` (from its byte-order mark): 1 where
/// there is none or it is not 1 to 8.
pub fn exif_orientation(t: &[u8]) -> u8 {
    let little = match t.get(..2) {
        Some(b"II") => true,
        Some(b"MM") => false,
        _ => return 1,
    };
    let u16_at =
        |at: usize| t.get(at..at + 2).map(|b| if little { u16::from_le_bytes([b[0], b[1]]) } else { u16::from_be_bytes([b[0], b[1]]) });
    let u32_at = |at: usize| {
        t.get(at..at + 4)
            .map(|b| if little { u32::from_le_bytes([b[0], b[1], b[2], b[3]]) } else { u32::from_be_bytes([b[0], b[1], b[2], b[3]]) })
    };
    let Some(ifd) = u32_at(4).map(|v| v as usize) else { return 1 };
    for i in 0..u16_at(ifd).unwrap_or(0).min(1024) as usize {
        let e = ifd + 2 + 12 * i;
        if u16_at(e) == Some(274) && u16_at(e + 2) == Some(3) {
            return u16_at(e + 8).filter(|v| (1..=8).contains(v)).map_or(1, |v| v as u8);
        }
    }
    1
}

/// Whether `orientation` turns the picture a quarter (its width and height trade places).
pub fn turns(orientation: u8) -> bool {
    (5..=8).contains(&orientation)
}

impl Header {
    pub fn pixels(&self) -> u64 {
        self.width as u64 * self.height as u64
    }
}

/// The default pixel cap: 100 megapixels (an 8000 × 12 500 page; 400 MB as RGBA, twice that for a
/// pair). `--max-megapixels` raises it.
pub const DEFAULT_PIXEL_CAP: u64 = 100_000_000;

static PIXEL_CAP: AtomicU64 = AtomicU64::new(DEFAULT_PIXEL_CAP);

/// The largest picture decoded, in pixels, for this process.
pub fn pixel_cap() -> u64 {
    PIXEL_CAP.load(Ordering::Relaxed)
}

/// Sets [`pixel_cap`] (the command line's `--max-megapixels`).
pub fn set_pixel_cap(pixels: u64) {
    PIXEL_CAP.store(pixels.max(1), Ordering::Relaxed);
}

/// Refuses a picture its header says is larger than the cap.
pub fn check_cap(h: &Header) -> Result<(), String> {
    let cap = pixel_cap();
    if h.pixels() > cap {
        return Err(format!(
            "its header says {}×{} ({:.1} megapixels), more than the {} megapixels the comparator reads (--max-megapixels raises it)",
            h.width,
            h.height,
            h.pixels() as f64 / 1e6,
            cap as f64 / 1e6
        ));
    }
    Ok(())
}

/// Refuses a header that claims more pixels than its file's data can hold: a JPEG codes at least
/// one bit for each 8×8 block of each component in some scan (at most 512 pixels a byte; 1024
/// allowed), a PNG's deflate stream at most 1032 bytes out of each byte in, at least a bit a pixel
/// (8256 pixels a byte; 8300 allowed). A WebP has no such bound: a lossless one whose codes each
/// have one symbol spends no bit on a pixel, so only the cap holds it. Under a megapixel nothing
/// is refused this way.
pub fn check_plausible(h: &Header, file_bytes: usize) -> Result<(), String> {
    let per_byte: u64 = match h.format {
        Format::Jpeg => 1024,
        Format::Png => 8300,
        _ => return Ok(()),
    };
    if h.pixels() > (file_bytes as u64).saturating_mul(per_byte).max(1_000_000) {
        return Err(format!("its header says {}×{}, more pixels than its {file_bytes} bytes can hold", h.width, h.height));
    }
    Ok(())
}

fn be16(b: &[u8], at: usize) -> Option<u32> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?) as u32)
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn le16(b: &[u8], at: usize) -> Option<u32> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?) as u32)
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The header of `bytes`, where their format has one this reads and it is whole; `None` leaves
/// the decision to the decoder.
pub fn read(bytes: &[u8]) -> Option<Header> {
    let mut h = stored(bytes)?;
    if ignore_orientation() {
        h.orientation = 1;
    }
    if turns(h.orientation) {
        (h.width, h.height) = (h.height, h.width);
    }
    Some(h)
}

/// The EXIF orientation `bytes` are stored with (1 where none), whether or not it is applied.
pub fn stored_orientation(bytes: &[u8]) -> u8 {
    stored(bytes).map_or(1, |h| h.orientation)
}

/// The header as stored (the size before the orientation).
fn stored(bytes: &[u8]) -> Option<Header> {
    let format = Format::sniff(bytes)?;
    let plain = |width, height| Some(Header { format, width, height, animated: false, cmyk: false, orientation: 1 });
    match format {
        Format::Png => png(bytes),
        Format::Jpeg => jpeg(bytes),
        Format::WebP => webp(bytes),
        Format::Bmp => {
            let w = le32(bytes, 18)? as i32;
            let h = le32(bytes, 22)? as i32;
            match le32(bytes, 14)? {
                12 => plain(le16(bytes, 18)?, le16(bytes, 20)?),
                _ => plain(w.unsigned_abs(), h.unsigned_abs()),
            }
        }
        Format::Tiff => tiff(bytes),
    }
}

/// IHDR's size (none where the first chunk is not IHDR: the decoder says what is wrong), and
/// whether an `acTL` chunk comes before the image data.
fn png(b: &[u8]) -> Option<Header> {
    if b.get(12..16)? != b"IHDR" {
        return None;
    }
    let (width, height) = (be32(b, 16)?, be32(b, 20)?);
    let mut at = 8;
    let (mut animated, mut orientation) = (false, 1);
    while let (Some(len), Some(kind)) = (be32(b, at), b.get(at + 4..at + 8)) {
        match kind {
            b"acTL" => animated = true,
            b"eXIf" => orientation = exif_orientation(b.get(at + 8..).unwrap_or_default().get(..len as usize).unwrap_or_default()),
            b"IDAT" | b"IEND" => break,
            _ => {}
        }
        at += 12 + len as usize;
    }
    Some(Header { format: Format::Png, width, height, animated, cmyk: false, orientation })
}

/// The first frame header (SOF0–SOF15 but DHT, JPG and DAC): its size and components.
fn jpeg(b: &[u8]) -> Option<Header> {
    let (mut at, mut orientation) = (2, 1);
    loop {
        while b.get(at) == Some(&0xFF) && b.get(at + 1) == Some(&0xFF) {
            at += 1;
        }
        if *b.get(at)? != 0xFF {
            return None;
        }
        let marker = *b.get(at + 1)?;
        let len = be16(b, at + 2)? as usize;
        if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
            let (height, width, components) = (be16(b, at + 5)?, be16(b, at + 7)?, *b.get(at + 9)?);
            return Some(Header { format: Format::Jpeg, width, height, animated: false, cmyk: components == 4, orientation });
        }
        if marker == 0xE1 && b.get(at + 4..at + 10) == Some(b"Exif\0\0") {
            orientation = exif_orientation(b.get(at + 10..(at + 2 + len).min(b.len())).unwrap_or_default());
        }
        if marker == 0xDA || marker == 0xD9 {
            return None;
        }
        at += 2 + len;
    }
}

/// The canvas of a `VP8X` file, or the frame of a simple lossy (`VP8 `) or lossless (`VP8L`) one.
fn webp(b: &[u8]) -> Option<Header> {
    // an extended file's EXIF chunk, among the chunks after the first
    let mut orientation = 1;
    let mut at = 12;
    while let (Some(kind), Some(len)) = (b.get(at..at + 4), le32(b, at + 4)) {
        if kind == b"EXIF" {
            let data = b.get(at + 8..).unwrap_or_default();
            // some writers put the JPEG APP1 identifier before the TIFF structure
            let data = data.get(..(len as usize).min(data.len())).unwrap_or_default();
            orientation = exif_orientation(data.strip_prefix(b"Exif\0\0").unwrap_or(data));
            break;
        }
        at += 8 + len as usize + (len as usize & 1);
    }
    let plain = |width, height| Some(Header { format: Format::WebP, width, height, animated: false, cmyk: false, orientation });
    let u24 = |at: usize| Some(le16(b, at)? | (*b.get(at + 2)? as u32) << 16);
    match b.get(12..16)? {
        b"VP8X" => plain(u24(24)? + 1, u24(27)? + 1),
        b"VP8 " => plain(le16(b, 26)? & 0x3FFF, le16(b, 28)? & 0x3FFF),
        b"VP8L" => {
            let bits = le32(b, 21)?;
            plain((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        _ => None,
    }
}

/// ImageWidth (256) and ImageLength (257) of the first image file directory.
fn tiff(b: &[u8]) -> Option<Header> {
    let little = b.starts_with(b"II");
    let u16_at = |at| if little { le16(b, at) } else { be16(b, at) };
    let u32_at = |at| if little { le32(b, at) } else { be32(b, at) };
    let ifd = u32_at(4)? as usize;
    let (mut width, mut height, mut orientation) = (None, None, 1);
    for i in 0..u16_at(ifd)? as usize {
        let e = ifd + 2 + 12 * i;
        let value = match u16_at(e + 2)? {
            3 => u16_at(e + 8)?,
            4 => u32_at(e + 8)?,
            _ => continue,
        };
        match u16_at(e)? {
            256 => width = Some(value),
            257 => height = Some(value),
            274 if (1..=8).contains(&value) => orientation = value as u8,
            _ => {}
        }
    }
    Some(Header { format: Format::Tiff, width: width?, height: height?, animated: false, cmyk: false, orientation })
}
