//! Minimal baseline-TIFF decoder producing straight-alpha RGBA8.
//!
//! Reads the first IFD only (later pages and sub-IFDs are ignored; the Orientation tag is
//! ignored too, like the `image` crate does). Supported: little and big endian; strips and
//! tiles; PlanarConfiguration 1 (chunky) and 2 (planar); compression none (1), LZW (5, new
//! style with early change, and old-style LSB-first), Deflate (8 and 32946), PackBits (32773);
//! predictor 1 and 2 (horizontal, 8 and 16 bit); FillOrder 1 and 2; photometric WhiteIsZero,
//! BlackIsZero, RGB and Palette; 1, 2, 4, 8 and 16 bits per sample (16 → 8 by rounding
//! `v * 255 / 65535`); gray, gray+alpha, RGB, RGBA and palette samples; further extra samples
//! are skipped. The first extra sample is alpha: associated alpha (ExtraSamples = 1) is
//! unpremultiplied at 16-bit precision (the `image` crate returns it still premultiplied);
//! anything else (2, unspecified or missing) is taken as straight alpha. Samples are kept as
//! 16-bit values until the final conversion (2 bytes per kept channel per pixel).
//! ColorMap values are rounded to 8 bits like samples (libtiff and Pillow shift right by 8,
//! so they can be one lower); a ColorMap whose values all fit in 8 bits is used as 8-bit.
//!
//! Refused with a message: BigTIFF, JPEG/CCITT/LZMA/ZSTD/WebP compressions, CMYK, YCbCr,
//! Lab, floating-point or signed samples, other bit depths, predictor 3.
use crate::Image as Rgba;
use std::borrow::Cow;

/// Largest accepted width or height.
const MAX_SIDE: u64 = 65535 * 4;
/// Largest accepted RGBA buffer in bytes (a strip or tile may hold four times this).
const MAX_BYTES: u64 = 1 << 30;

/// True when `bytes` start with a classic TIFF header (`II*\0` or `MM\0*`).
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*")
}

/// Decodes the first image of a TIFF file into RGBA8. Never panics; errors are user-readable.
pub fn decode(bytes: &[u8]) -> Result<Rgba, String> {
    let file = File::open(bytes)?;
    let img = Layout::from_ifd(&file)?;
    let mut samples = vec![0u16; img.width * img.height * img.keep];
    for chunk in 0..img.grid.per_plane * img.planes {
        img.read_chunk(&file, chunk, &mut samples)?;
    }
    Ok(img.to_rgba(&samples))
}

/// The file bytes, their byte order, and the first IFD's entries.
struct File<'a> {
    b: &'a [u8],
    be: bool,
    /// (tag, type, count, position of the values in `b`).
    entries: Vec<(u16, u16, u32, usize)>,
}

impl<'a> File<'a> {
    fn open(b: &'a [u8]) -> Result<File<'a>, String> {
        let be = match b.get(..4) {
            Some(b"II*\0") => false,
            Some(b"MM\0*") => true,
            Some(b"II+\0") | Some(b"MM\0+") => return Err("TIFF: BigTIFF files are not supported".into()),
            _ => return Err("TIFF: bad signature; not a TIFF file".into()),
        };
        let mut f = File { b, be, entries: Vec::new() };
        let ifd = f.uint(4, 4).ok_or("TIFF: file too short for its header")? as usize;
        let n = f.uint(ifd, 2).ok_or_else(|| format!("TIFF: IFD offset {ifd} lies outside the file"))?;
        for i in 0..n as usize {
            let e = ifd + 2 + 12 * i;
            let (Some(tag), Some(typ), Some(count)) = (f.uint(e, 2), f.uint(e + 2, 2), f.uint(e + 4, 4)) else {
                return Err("TIFF: truncated IFD".into());
            };
            let inline = count * type_size(typ as u16) <= 4;
            let pos = if inline { e + 8 } else { f.uint(e + 8, 4).unwrap_or(u64::MAX) as usize };
            f.entries.push((tag as u16, typ as u16, count as u32, pos));
        }
        Ok(f)
    }

    /// Unsigned integer of `n` bytes (1, 2, 4 or 8) at `off`, in the file's byte order.
    fn uint(&self, off: usize, n: usize) -> Option<u64> {
        Some(uint(self.b.get(off..off.checked_add(n)?)?, self.be))
    }

    /// All values of an integer tag, or `None` when the tag is absent.
    fn values(&self, tag: u16) -> Result<Option<Vec<u64>>, String> {
        let Some(&(_, typ, count, pos)) = self.entries.iter().find(|e| e.0 == tag) else {
            return Ok(None);
        };
        if !matches!(typ, 1 | 3 | 4 | 6..=9 | 13 | 16) {
            return Err(format!("TIFF: tag {tag} has non-integer type {typ}"));
        }
        let size = type_size(typ) as usize;
        let end = (count as usize).checked_mul(size).and_then(|n| n.checked_add(pos));
        let data = end.and_then(|end| self.b.get(pos..end)).ok_or_else(|| format!("TIFF: values of tag {tag} lie outside the file"))?;
        Ok(Some(data.chunks_exact(size).map(|c| uint(c, self.be)).collect()))
    }

    /// First value of a tag, `default` when absent or empty.
    fn one(&self, tag: u16, default: u64) -> Result<u64, String> {
        Ok(self.values(tag)?.and_then(|v| v.first().copied()).unwrap_or(default))
    }
}

/// Unsigned integer from up to 8 bytes in the given byte order.
fn uint(s: &[u8], be: bool) -> u64 {
    let fold = |acc: u64, &x: &u8| (acc << 8) | u64::from(x);
    if be { s.iter().fold(0, fold) } else { s.iter().rev().fold(0, fold) }
}

/// Bytes per value of a TIFF field type (0 when unknown).
fn type_size(typ: u16) -> u64 {
    [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8].get(usize::from(typ)).copied().unwrap_or(0)
}

#[derive(PartialEq)]
enum Kind {
    Gray { white_is_zero: bool },
    Rgb,
    Palette(Vec<[u8; 3]>),
}

/// Where the strips or tiles are and how big they are.
struct Grid {
    tiled: bool,
    /// Strip or tile width and height in pixels (strips: image width, RowsPerStrip).
    cw: usize,
    ch: usize,
    /// Chunks per row of chunks, and per plane.
    across: usize,
    per_plane: usize,
    offsets: Vec<u64>,
    counts: Option<Vec<u64>>,
}

impl Grid {
    fn read(f: &File, w: u64, h: u64, planes: usize) -> Result<Grid, String> {
        let tiled = f.values(322)?.is_some();
        let (cw, ch, off_tag, count_tag) = if tiled {
            (f.one(322, 0)?, f.one(323, 0)?, 324, 325)
        } else {
            let rps = f.one(278, h)?;
            (w, if rps == 0 { h } else { rps.min(h) }, 273, 279)
        };
        if cw == 0 || ch == 0 || cw > MAX_SIDE || ch > MAX_SIDE {
            return Err(format!("TIFF: invalid tile size {cw}x{ch}"));
        }
        let (across, down) = (w.div_ceil(cw), h.div_ceil(ch));
        let offsets = f.values(off_tag)?.ok_or("TIFF: no strip or tile offsets")?;
        let need = across * down * planes as u64;
        if (offsets.len() as u64) < need {
            return Err(format!("TIFF: {} strips or tiles listed, {need} needed", offsets.len()));
        }
        let (cw, ch, across, per_plane) = (cw as usize, ch as usize, across as usize, (across * down) as usize);
        Ok(Grid { tiled, cw, ch, across, per_plane, offsets, counts: f.values(count_tag)? })
    }
}

/// Everything needed to turn strips or tiles into pixels.
struct Layout {
    width: usize,
    height: usize,
    bps: u32,
    spp: usize,
    kind: Kind,
    /// `Some(true)` for associated (premultiplied) alpha.
    alpha: Option<bool>,
    /// Channels kept per pixel: color channels plus alpha.
    keep: usize,
    compression: u64,
    predictor: bool,
    fill_lsb: bool,
    planes: usize,
    grid: Grid,
}

/// Names of unsupported Compression and PhotometricInterpretation values, for messages.
const COMPRESSIONS: &str = "2 CCITT modified Huffman|3 CCITT Group 3 fax|4 CCITT Group 4 fax|6 old-style JPEG|7 JPEG|34712 JPEG 2000|\
                            34925 LZMA|50000 Zstandard|50001 WebP";
const PHOTOMETRICS: &str = "4 transparency mask|5 CMYK (separated)|6 YCbCr|8 CIE L*a*b*|9 ICC L*a*b*|10 ITU L*a*b*|32845 LogLuv";

fn name_of(table: &'static str, v: u64) -> &'static str {
    table.split('|').find_map(|e| e.trim().strip_prefix(&format!("{v} "))).unwrap_or("unknown")
}

fn photometric_kind(f: &File, p: u64, bps: u32) -> Result<(Kind, usize), String> {
    Ok(match p {
        0 | 1 => (Kind::Gray { white_is_zero: p == 0 }, 1),
        2 => (Kind::Rgb, 3),
        3 if bps <= 8 => {
            let map = f.values(320)?.ok_or("TIFF: palette image without a ColorMap")?;
            let n = 1usize << bps;
            if map.len() < 3 * n {
                return Err(format!("TIFF: ColorMap has {} values, {} needed", map.len(), 3 * n));
            }
            let wide = map.iter().any(|&v| v > 255);
            let c = |v: u64| if wide { to8(v.min(65535) as u16) } else { v as u8 };
            let pal = (0..n).filter_map(|i| Some([c(*map.get(i)?), c(*map.get(n + i)?), c(*map.get(2 * n + i)?)]));
            (Kind::Palette(pal.collect()), 1)
        }
        3 => return Err(format!("TIFF: {bps}-bit palette images are not supported")),
        _ => {
            let name = name_of(PHOTOMETRICS, p);
            return Err(format!("TIFF: {name} photometric interpretation ({p}) is not supported; save as RGB"));
        }
    })
}

impl Layout {
    fn from_ifd(f: &File) -> Result<Layout, String> {
        let need = |tag, name: &str| f.values(tag)?.and_then(|v| v.first().copied()).ok_or(format!("TIFF: missing {name}"));
        let (w, h) = (need(256, "ImageWidth")?, need(257, "ImageLength")?);
        if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE || w * h * 4 > MAX_BYTES {
            return Err(format!("TIFF: unsupported size {w}x{h} (empty, or over 1 GiB of RGBA)"));
        }
        let spp = f.one(277, 1)?;
        let bps_all = f.values(258)?.unwrap_or_else(|| vec![1]);
        let bps = bps_all.first().copied().unwrap_or(1);
        if spp == 0 || spp > 64 || bps_all.iter().any(|&b| b != bps) || ![1, 2, 4, 8, 16].contains(&bps) {
            return Err(format!("TIFF: {bps_all:?} bits per sample with {spp} samples is not supported"));
        }
        if let Some(fmt) = f.values(339)?.and_then(|v| v.into_iter().find(|&s| s != 1)) {
            let what = if fmt == 3 { "floating-point" } else { "signed or unknown-format" };
            return Err(format!("TIFF: {what} samples (SampleFormat {fmt}) are not supported"));
        }
        let compression = f.one(259, 1)?;
        if ![1, 5, 8, 32773, 32946].contains(&compression) {
            let name = name_of(COMPRESSIONS, compression);
            return Err(format!("TIFF: {name} compression ({compression}) is not supported; save as PNG or uncompressed TIFF"));
        }
        let photometric = f.one(262, if spp >= 3 { 2 } else { 1 })?;
        let (kind, color) = photometric_kind(f, photometric, bps as u32)?;
        let spp = spp as usize;
        if spp < color {
            return Err(format!("TIFF: {spp} samples per pixel is too few for photometric {photometric}"));
        }
        let alpha = (spp > color).then(|| f.one(338, 0).map(|e| e == 1)).transpose()?;
        let predictor = match f.one(317, 1)? {
            1 => false,
            2 if bps >= 8 => true,
            p => return Err(format!("TIFF: predictor {p} with {bps}-bit samples is not supported")),
        };
        let (planes, fill_lsb, keep) =
            (if f.one(284, 1)? == 2 { spp } else { 1 }, f.one(266, 1)? == 2, color + usize::from(alpha.is_some()));
        let (grid, width, height, bps) = (Grid::read(f, w, h, planes)?, w as usize, h as usize, bps as u32);
        Ok(Layout { width, height, bps, spp, kind, alpha, keep, compression, predictor, fill_lsb, planes, grid })
    }

    /// The raw (still compressed) bytes of chunk `i`; `expected` is its decoded size.
    fn raw_chunk<'a>(&self, f: &File<'a>, i: usize, expected: u64) -> Result<&'a [u8], String> {
        let off = self.grid.offsets.get(i).copied().unwrap_or(u64::MAX);
        let count = match (&self.grid.counts, self.compression) {
            (Some(c), _) => c.get(i).copied().unwrap_or(0),
            (None, 1) => expected,
            (None, _) => return Err("TIFF: missing StripByteCounts / TileByteCounts".into()),
        };
        let start = usize::try_from(off).ok().filter(|&o| o <= f.b.len());
        let start = start.ok_or_else(|| format!("TIFF: strip or tile {i} starts past the end of the file"))?;
        let raw = f.b.get(start..).unwrap_or_default();
        Ok(raw.get(..usize::try_from(count).unwrap_or(usize::MAX)).unwrap_or(raw))
    }

    /// Decodes strip or tile `i` and stores its samples, scaled to 16 bits.
    fn read_chunk(&self, f: &File, i: usize, samples: &mut [u16]) -> Result<(), String> {
        let g = &self.grid;
        let (plane, cy, cx) = (i / g.per_plane, i % g.per_plane / g.across, i % g.per_plane % g.across);
        let cs = if self.planes > 1 { 1 } else { self.spp };
        let row_bytes = (g.cw as u64 * cs as u64 * u64::from(self.bps)).div_ceil(8);
        let rows = if g.tiled { g.ch } else { g.ch.min(self.height - cy * g.ch) };
        let expected = row_bytes * rows as u64;
        if expected > 4 * MAX_BYTES {
            return Err(format!("TIFF: strip or tile of {expected} bytes is too large"));
        }
        let raw = self.raw_chunk(f, i, expected)?;
        let mut data = decompress(raw, self.compression, expected as usize, self.fill_lsb)?;
        if (data.len() as u64) < expected {
            let what = if g.tiled { "tile" } else { "strip" };
            return Err(format!("TIFF: {what} {i} holds {} bytes of pixel data, {expected} needed", data.len()));
        }
        if self.predictor {
            undo_predictor(&mut data, row_bytes as usize, cs, self.bps, f.be);
        }
        let (rows, cols) = (rows.min(self.height - cy * g.ch), g.cw.min(self.width - cx * g.cw));
        for (r, row) in data.chunks(row_bytes as usize).take(rows).enumerate() {
            for c in 0..cols {
                let first = ((cy * g.ch + r) * self.width + cx * g.cw + c) * self.keep;
                for s in (0..cs).filter(|s| plane + s < self.keep) {
                    if let Some(dst) = samples.get_mut(first + plane + s) {
                        *dst = self.to16(sample(row, c * cs + s, self.bps, f.be), plane + s);
                    }
                }
            }
        }
        Ok(())
    }

    /// Scales a raw sample to 16 bits (palette indices stay as they are).
    fn to16(&self, v: u32, channel: usize) -> u16 {
        let scaled = if self.bps == 16 { v } else { v * 65535 / ((1 << self.bps) - 1) }.min(65535) as u16;
        match self.kind {
            Kind::Palette(_) if channel == 0 => v as u16,
            Kind::Gray { white_is_zero: true } if channel == 0 => 65535 - scaled,
            _ => scaled,
        }
    }

    fn to_rgba(&self, samples: &[u16]) -> Rgba {
        let mut out = vec![0u8; self.width * self.height * 4];
        for (px, s) in out.chunks_exact_mut(4).zip(samples.chunks_exact(self.keep)) {
            let at = |i: usize| u32::from(s.get(i).copied().unwrap_or(0));
            let a = if self.alpha.is_some() { at(self.keep - 1) } else { 65535 };
            // Associated alpha is unpremultiplied at 16-bit precision.
            let un = |c: u32| match self.alpha {
                Some(true) if a == 0 => 0,
                Some(true) => to8(((c * 65535 + a / 2) / a).min(65535) as u16),
                _ => to8(c as u16),
            };
            let [r, g, b] = match &self.kind {
                Kind::Gray { .. } => [un(at(0)); 3],
                Kind::Rgb => [un(at(0)), un(at(1)), un(at(2))],
                Kind::Palette(p) => p.get(at(0) as usize).copied().unwrap_or([0; 3]),
            };
            px.copy_from_slice(&[r, g, b, to8(a as u16)]);
        }
        Rgba { width: self.width as u32, height: self.height as u32, rgba: out }
    }
}

/// 16-bit to 8-bit by rounding `v * 255 / 65535`.
fn to8(v: u16) -> u8 {
    ((u32::from(v) * 255 + 32767) / 65535) as u8
}

/// Sample number `idx` of a row of `bps`-bit samples (MSB-first bit packing).
fn sample(row: &[u8], idx: usize, bps: u32, be: bool) -> u32 {
    match bps {
        16 => match row.get(idx * 2..idx * 2 + 2) {
            Some(&[a, b]) => u32::from(if be { u16::from_be_bytes([a, b]) } else { u16::from_le_bytes([a, b]) }),
            _ => 0,
        },
        8 => row.get(idx).copied().map_or(0, u32::from),
        _ => {
            let bit = idx * bps as usize;
            let byte = row.get(bit / 8).copied().map_or(0, u32::from);
            (byte >> (8 - bps - (bit % 8) as u32)) & ((1 << bps) - 1)
        }
    }
}

/// Undoes horizontal differencing (predictor 2) on 8- or 16-bit samples, row by row.
fn undo_predictor(data: &mut [u8], row_bytes: usize, cs: usize, bps: u32, be: bool) {
    for row in data.chunks_mut(row_bytes) {
        if bps == 8 {
            for i in cs..row.len() {
                row[i] = row[i].wrapping_add(row[i - cs]);
            }
            continue;
        }
        for i in cs..row.len() / 2 {
            let v = (sample(row, i, 16, be) as u16).wrapping_add(sample(row, i - cs, 16, be) as u16);
            let bytes = if be { v.to_be_bytes() } else { v.to_le_bytes() };
            row[i * 2..i * 2 + 2].copy_from_slice(&bytes);
        }
    }
}

/// Decompresses one strip or tile into at most `cap` bytes.
fn decompress(raw: &[u8], compression: u64, cap: usize, fill_lsb: bool) -> Result<Vec<u8>, String> {
    let raw: Cow<[u8]> = if fill_lsb { raw.iter().map(|b| b.reverse_bits()).collect() } else { raw.into() };
    let raw = &raw[..];
    match compression {
        5 => lzw(raw, cap),
        8 | 32946 => {
            let options = zune_inflate::DeflateOptions::default().set_limit(cap.max(1)).set_confirm_checksum(false);
            match zune_inflate::DeflateDecoder::new_with_options(raw, options).decode_zlib() {
                Ok(mut out) => {
                    out.truncate(cap);
                    Ok(out)
                }
                Err(mut e) if e.data.len() >= cap => {
                    e.data.truncate(cap);
                    Ok(e.data)
                }
                Err(e) => Err(format!("TIFF: corrupt Deflate data ({:?})", e.error)),
            }
        }
        32773 => Ok(packbits(raw, cap)),
        _ => Ok(raw.get(..cap).unwrap_or(raw).to_vec()),
    }
}

fn packbits(raw: &[u8], cap: usize) -> Vec<u8> {
    let (mut out, mut i) = (Vec::new(), 0usize);
    while let (Some(&n), true) = (raw.get(i), out.len() < cap) {
        let n = usize::from(n);
        match n {
            0..=127 => out.extend_from_slice(raw.get(i + 1..(i + 2 + n).min(raw.len())).unwrap_or_default()),
            128 => {}
            _ => out.extend(std::iter::repeat_n(raw.get(i + 1).copied().unwrap_or(0), 257 - n)),
        }
        i += [n + 2, 1, 2][usize::from(n >= 128) + usize::from(n > 128)];
    }
    out.truncate(cap);
    out
}

/// TIFF LZW: MSB-first 9–12-bit codes with early change; old-style (LSB-first, no early
/// change) streams are recognised by their first byte pair, as libtiff does.
fn lzw(raw: &[u8], cap: usize) -> Result<Vec<u8>, String> {
    let lsb = matches!(raw, [0, b, ..] if b & 1 == 1);
    let early = usize::from(!lsb);
    let (mut prefix, mut suffix, mut len) = ([0u16; 4096], [0u8; 4096], [1u16; 4096]);
    for (i, s) in suffix.iter_mut().enumerate().take(256) {
        *s = i as u8;
    }
    let mut first = suffix;
    let (mut buf, mut nbits, mut pos) = (0u32, 0u32, 0usize);
    let (mut width, mut next, mut prev) = (9u32, 258usize, None::<usize>);
    let mut out = Vec::new();
    while out.len() < cap {
        while nbits < width {
            let Some(&byte) = raw.get(pos) else { return Ok(out) };
            pos += 1;
            buf = if lsb { buf | u32::from(byte) << nbits } else { (buf << 8) | u32::from(byte) };
            nbits += 8;
        }
        let mask = (1u32 << width) - 1;
        let code = if lsb { buf & mask } else { (buf >> (nbits - width)) & mask } as usize;
        nbits -= width;
        buf = if lsb { buf >> width } else { buf & ((1u32 << nbits) - 1) };
        match (code, prev) {
            (256, _) => (width, next, prev) = (9, 258, None),
            (257, _) => break,
            (c, None) if c < 256 => {
                out.push(c as u8);
                prev = Some(c);
            }
            (c, None) => return Err(format!("TIFF: corrupt LZW data (code {c} after a clear code)")),
            (c, Some(p)) => {
                if c > next || (c == next && next >= 4096) {
                    return Err(format!("TIFF: corrupt LZW data (undefined code {c})"));
                }
                if next < 4096 {
                    prefix[next] = p as u16;
                    suffix[next] = if c < next { first[c] } else { first[p] };
                    first[next] = first[p];
                    len[next] = len[p].saturating_add(1).min(4096);
                    next += 1;
                }
                let (start, n) = (out.len(), usize::from(len[c]));
                out.resize(start + n, 0);
                let mut k = c;
                for slot in out[start..].iter_mut().rev() {
                    *slot = suffix[k & 4095];
                    k = usize::from(prefix[k & 4095]);
                }
                prev = Some(c);
                if next + early >= (1 << width) && width < 12 {
                    width += 1;
                }
            }
        }
    }
    out.truncate(cap);
    Ok(out)
}
