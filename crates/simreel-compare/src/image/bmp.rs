//! Minimal BMP decoder producing straight-alpha RGBA8.
//!
//! Supported: `BITMAPCOREHEADER` (OS/2 1.x, 12 bytes), `BITMAPINFOHEADER` (40) and its
//! V2/V3/V4/V5 extensions (52/56/108/124); bottom-up and top-down rows; 1/2/4/8-bit
//! palettes; 16-bit (BI_RGB = 5-5-5, or any masks via BI_BITFIELDS); 24-bit; 32-bit;
//! BI_BITFIELDS and BI_ALPHABITFIELDS; RLE8 and RLE4 (also top-down, which the spec forbids).
//!
//! Alpha follows Pillow and the `image` crate: 32-bit BI_RGB is opaque (the fourth byte is
//! ignored, even when a V4/V5 header carries an alpha mask); alpha is only read through
//! BI_BITFIELDS with a V3+ header alpha mask, or BI_ALPHABITFIELDS. Pixels an RLE stream
//! skips (delta, early end of line or bitmap) are opaque black, as in `image`. Palette
//! indices past the palette are opaque black. Bitfield channels wider than 8 bits keep their
//! top 8 bits; narrower ones are scaled to 0..=255 like `image` does.
//!
//! BI_ALPHABITFIELDS and 2-bit palettes are read although Pillow refuses them (and `image`
//! refuses ALPHABITFIELDS).
//!
//! Refused with a message: OS/2 2.x headers, JPEG/PNG/CMYK compressions, other bit depths,
//! truncated pixel data (only the last row may lack its 4-byte padding).
use crate::Image as Rgba;

/// Largest accepted width or height.
const MAX_SIDE: u32 = 65535 * 4;
/// Largest accepted RGBA buffer, in bytes.
const MAX_RGBA_BYTES: u64 = 1 << 30;

/// True when `bytes` start with the BMP signature `BM`.
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BM")
}

/// Decodes a complete `.bmp` file into RGBA8. Never panics; errors are user-readable.
pub fn decode(bytes: &[u8]) -> Result<Rgba, String> {
    let hdr = parse_header(bytes)?;
    let len = rgba_len(hdr.width, hdr.height)?;
    let rle = hdr.compression == 1 || hdr.compression == 2;
    if !rle {
        check_plain_size(bytes, &hdr)?;
    }
    let mut out = vec![0u8; len];
    if rle {
        decode_rle(bytes, &hdr, &mut out)?;
    } else {
        decode_plain(bytes, &hdr, &mut out)?;
    }
    Ok(Rgba { width: hdr.width, height: hdr.height, rgba: out })
}

/// What the headers say about the pixel data.
struct Header {
    width: u32,
    height: u32,
    top_down: bool,
    bpp: u16,
    compression: u32,
    /// Red, green, blue, alpha channel positions (for 16 and 32 bits).
    fields: [Field; 4],
    /// 256 RGBA entries (opaque black past the file's palette); empty above 8 bits.
    palette: Vec<[u8; 4]>,
    data_offset: usize,
}

fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    b.get(off..off.checked_add(2)?)?.try_into().ok().map(u16::from_le_bytes)
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    b.get(off..off.checked_add(4)?)?.try_into().ok().map(u32::from_le_bytes)
}

fn rgba_len(width: u32, height: u32) -> Result<usize, String> {
    if width == 0 || height == 0 {
        return Err(format!("BMP: image is empty ({width}x{height})"));
    }
    let bytes = u64::from(width) * u64::from(height) * 4;
    if width > MAX_SIDE || height > MAX_SIDE || bytes > MAX_RGBA_BYTES {
        return Err(format!("BMP: image too large ({width}x{height}); the limit is 1 GiB of RGBA"));
    }
    usize::try_from(bytes).map_err(|_| "BMP: image too large for this machine".to_string())
}

fn parse_header(b: &[u8]) -> Result<Header, String> {
    if !sniff(b) {
        return Err("BMP: missing 'BM' signature; not a BMP file".into());
    }
    let short = || "BMP: file too short for its header".to_string();
    let data_offset = u32_at(b, 10).ok_or_else(short)? as usize;
    let hsize = u32_at(b, 14).ok_or_else(short)?;
    let (width, height, top_down, bpp, compression, colors) = match hsize {
        12 => {
            let w = u16_at(b, 18).ok_or_else(short)?;
            let h = u16_at(b, 20).ok_or_else(short)?;
            let bpp = u16_at(b, 24).ok_or_else(short)?;
            (u32::from(w), u32::from(h), false, bpp, 0, 0)
        }
        40 | 52 | 56 | 108 | 124 => {
            let w = u32_at(b, 18).ok_or_else(short)? as i32;
            let h = u32_at(b, 22).ok_or_else(short)? as i32;
            if w <= 0 || h == 0 || h == i32::MIN {
                return Err(format!("BMP: invalid dimensions {w}x{h}"));
            }
            let bpp = u16_at(b, 28).ok_or_else(short)?;
            let comp = u32_at(b, 30).ok_or_else(short)?;
            let colors = u32_at(b, 46).ok_or_else(short)?;
            (w.unsigned_abs(), h.unsigned_abs(), h < 0, bpp, comp, colors)
        }
        64 => return Err("BMP: OS/2 2.x bitmaps (64-byte header) are not supported".into()),
        n => return Err(format!("BMP: unknown header size {n} bytes")),
    };
    check_format(bpp, compression)?;
    let fields = read_fields(b, hsize, bpp, compression)?;
    let palette = if bpp <= 8 { read_palette(b, hsize, bpp, colors)? } else { Vec::new() };
    Ok(Header { width, height, top_down, bpp, compression, fields, palette, data_offset })
}

fn check_format(bpp: u16, compression: u32) -> Result<(), String> {
    let hint = "save as PNG or as an uncompressed BMP";
    let ok = match compression {
        0 => matches!(bpp, 1 | 2 | 4 | 8 | 16 | 24 | 32),
        1 => bpp == 8,
        2 => bpp == 4,
        3 | 6 => bpp == 16 || bpp == 32,
        4 => return Err(format!("BMP: JPEG compression (4) is not supported; {hint}")),
        5 => return Err(format!("BMP: PNG compression (5) is not supported; {hint}")),
        11..=13 => return Err(format!("BMP: CMYK bitmaps ({compression}) are not supported; {hint}")),
        c => return Err(format!("BMP: unknown compression type {c}")),
    };
    if ok { Ok(()) } else { Err(format!("BMP: {bpp} bits per pixel is not supported with compression {compression}")) }
}

/// Position of one channel inside a 16- or 32-bit pixel, at most 8 bits wide.
#[derive(Clone, Copy)]
struct Field {
    shift: u32,
    len: u32,
}

impl Field {
    fn from_mask(mask: u32, bits: u32) -> Result<Field, String> {
        if mask == 0 {
            return Ok(Field { shift: 0, len: 0 });
        }
        let shift = mask.trailing_zeros();
        let len = (mask >> shift).trailing_ones();
        if len != mask.count_ones() {
            return Err(format!("BMP: bitfield mask {mask:#010x} is not contiguous"));
        }
        if shift + len > bits {
            return Err(format!("BMP: bitfield mask {mask:#010x} does not fit {bits}-bit pixels"));
        }
        Ok(if len > 8 { Field { shift: shift + len - 8, len: 8 } } else { Field { shift, len } })
    }

    /// The channel scaled to 0..=255; 255 when the field is absent (alpha).
    fn get(self, px: u32) -> u8 {
        if self.len == 0 {
            return 255;
        }
        let max = (1u32 << self.len) - 1;
        let v = px.checked_shr(self.shift).unwrap_or(0) & max;
        let scaled = match self.len {
            7 => (v << 1) | (v >> 6),
            _ => (v * 255 + max / 2) / max,
        };
        scaled.min(255) as u8
    }
}

fn read_fields(b: &[u8], hsize: u32, bpp: u16, compression: u32) -> Result<[Field; 4], String> {
    let masks = match compression {
        3 | 6 => {
            let get = |off| u32_at(b, off).ok_or("BMP: file too short for its bitfield masks");
            let has_alpha = (hsize == 40 && compression == 6) || hsize >= 56;
            [get(54)?, get(58)?, get(62)?, if has_alpha { get(66)? } else { 0 }]
        }
        _ if bpp == 16 => [0x7c00, 0x03e0, 0x001f, 0],
        _ => [0x00ff_0000, 0x0000_ff00, 0x0000_00ff, 0],
    };
    let bits = if bpp == 16 { 16 } else { 32 };
    let f = [
        Field::from_mask(masks[0], bits)?,
        Field::from_mask(masks[1], bits)?,
        Field::from_mask(masks[2], bits)?,
        Field::from_mask(masks[3], bits)?,
    ];
    if f[0].len == 0 || f[1].len == 0 || f[2].len == 0 {
        return Err("BMP: bitfield masks leave red, green or blue empty".into());
    }
    Ok(f)
}

fn read_palette(b: &[u8], hsize: u32, bpp: u16, colors: u32) -> Result<Vec<[u8; 4]>, String> {
    let max = 1u32 << bpp;
    let count = if colors == 0 || colors > max { max } else { colors } as usize;
    let entry = if hsize == 12 { 3 } else { 4 };
    let start = 14 + hsize as usize;
    let mut pal = vec![[0, 0, 0, 255]; 256];
    for (i, slot) in pal.iter_mut().take(count).enumerate() {
        let off = start + i * entry;
        match b.get(off..off + 3) {
            Some(&[blue, green, red]) => *slot = [red, green, blue, 255],
            _ => return Err(format!("BMP: truncated palette ({count} colors expected)")),
        }
    }
    Ok(pal)
}

/// Bytes per stored row (rows are padded to 4 bytes) and bytes used by the last row.
fn row_sizes(hdr: &Header) -> (u64, u64) {
    let bits = u64::from(hdr.bpp) * u64::from(hdr.width);
    (bits.div_ceil(32) * 4, bits.div_ceil(8))
}

fn check_plain_size(b: &[u8], hdr: &Header) -> Result<(), String> {
    let (stride, last) = row_sizes(hdr);
    let needed = stride * u64::from(hdr.height - 1) + last;
    let present = b.len().saturating_sub(hdr.data_offset) as u64;
    if b.len() < hdr.data_offset || needed > present {
        return Err(format!("BMP: truncated pixel data: {needed} bytes needed, {present} present"));
    }
    Ok(())
}

fn decode_plain(b: &[u8], hdr: &Header, out: &mut [u8]) -> Result<(), String> {
    let stride = row_sizes(hdr).0 as usize;
    let (w, h) = (hdr.width as usize, hdr.height as usize);
    for (y, dst) in out.chunks_exact_mut(w * 4).enumerate() {
        let file_row = if hdr.top_down { y } else { h - 1 - y };
        let start = file_row.checked_mul(stride).and_then(|o| o.checked_add(hdr.data_offset)).ok_or("BMP: pixel data offset overflows")?;
        let row = b.get(start..).ok_or("BMP: truncated pixel data")?;
        for (x, px) in dst.chunks_exact_mut(4).enumerate() {
            px.copy_from_slice(&pixel(row, x, hdr));
        }
    }
    Ok(())
}

/// The RGBA value of pixel `x` of a stored row; opaque black where the row is short.
fn pixel(row: &[u8], x: usize, hdr: &Header) -> [u8; 4] {
    const BLACK: [u8; 4] = [0, 0, 0, 255];
    let [r, g, bl, a] = hdr.fields;
    let bits = |px: u32| [r.get(px), g.get(px), bl.get(px), a.get(px)];
    match hdr.bpp {
        1 | 2 | 4 | 8 => {
            let bpp = usize::from(hdr.bpp);
            let bit = x * bpp;
            let Some(&byte) = row.get(bit / 8) else { return BLACK };
            let idx = (byte >> (8 - bpp - bit % 8)) & ((1u16 << bpp) - 1) as u8;
            hdr.palette.get(usize::from(idx)).copied().unwrap_or(BLACK)
        }
        16 => u16_at(row, x * 2).map_or(BLACK, |v| bits(u32::from(v))),
        24 => match row.get(x * 3..x * 3 + 3) {
            Some(&[blue, green, red]) => [red, green, blue, 255],
            _ => BLACK,
        },
        _ if hdr.compression == 0 => match row.get(x * 4..x * 4 + 3) {
            Some(&[blue, green, red]) => [red, green, blue, 255],
            _ => BLACK,
        },
        _ => u32_at(row, x * 4).map_or(BLACK, bits),
    }
}

/// Decodes RLE8 (`compression == 1`) or RLE4 (`compression == 2`) pixel data.
fn decode_rle(b: &[u8], hdr: &Header, out: &mut [u8]) -> Result<(), String> {
    let rle4 = hdr.compression == 2;
    let (w, h) = (hdr.width as usize, hdr.height as usize);
    let mut put = |x: usize, fy: usize, idx: u8| {
        if x < w && fy < h {
            let y = if hdr.top_down { fy } else { h - 1 - fy };
            let color = hdr.palette.get(usize::from(idx)).copied().unwrap_or([0, 0, 0, 255]);
            let at = (y * w + x) * 4;
            if let Some(px) = out.get_mut(at..at + 4) {
                px.copy_from_slice(&color);
            }
        }
    };
    let nibble = |v: u8, k: usize| {
        if !rle4 {
            v
        } else if k.is_multiple_of(2) {
            v >> 4
        } else {
            v & 15
        }
    };
    let (mut i, mut x, mut fy) = (hdr.data_offset, 0usize, 0usize);
    while fy < h {
        let truncated = || format!("BMP: truncated RLE data (stopped in row {} of {h})", fy + 1);
        let (Some(&n), Some(&v)) = (b.get(i), b.get(i.saturating_add(1))) else {
            return Err(truncated());
        };
        i = i.saturating_add(2);
        match (n, v) {
            (0, 0) => (x, fy) = (0, fy + 1),
            (0, 1) => break,
            (0, 2) => {
                let (Some(&dx), Some(&dy)) = (b.get(i), b.get(i.saturating_add(1))) else {
                    return Err(truncated());
                };
                i = i.saturating_add(2);
                (x, fy) = (x.saturating_add(dx.into()), fy + usize::from(dy));
            }
            (0, count) => {
                let count = usize::from(count);
                let nbytes = if rle4 { count.div_ceil(2) } else { count };
                let data = b.get(i..i.saturating_add(nbytes)).ok_or_else(truncated)?;
                for k in 0..count {
                    let byte = data.get(if rle4 { k / 2 } else { k }).copied().unwrap_or(0);
                    put(x.saturating_add(k), fy, nibble(byte, k));
                }
                x = x.saturating_add(count);
                i = i.saturating_add(nbytes + nbytes % 2);
            }
            (run, v) => {
                for k in 0..usize::from(run) {
                    put(x.saturating_add(k), fy, nibble(v, k));
                }
                x = x.saturating_add(run.into());
            }
        }
    }
    // Skipped pixels are opaque black.
    out.chunks_exact_mut(4).for_each(|px| px[3] = 255);
    Ok(())
}
