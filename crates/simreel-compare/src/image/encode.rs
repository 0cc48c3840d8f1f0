//! PNG written two ways: fast, for a report's pictures (made again in no time, read once), and
//! small, for the approved images a project commits.

use super::Image;

/// A PNG of `img`, written fast (see [`encode_png_rows`]). For a report's pictures.
pub fn encode_png(img: &Image) -> Vec<u8> {
    let row = img.width as usize * 4;
    let opaque = img.is_opaque();
    encode_png_rows(img.width, img.height, opaque, |y, out| out.copy_from_slice(&img.rgba[y as usize * row..][..row]))
}

/// A PNG written fast from rows made one at a time (a picture that is never whole in memory):
/// `row(y, out)` fills the whole of row `y` as RGBA8; the file is RGB when `opaque` (a quarter fewer bytes to
/// compress), each row filtered against the one above, then fdeflate's fast compressor.
pub fn encode_png_rows(width: u32, height: u32, opaque: bool, mut row: impl FnMut(u32, &mut [u8])) -> Vec<u8> {
    let channels = if opaque { 3 } else { 4 };
    let (w, line) = (width as usize, width as usize * channels);
    let (mut rgba, mut before) = (vec![0u8; w * 4], vec![0u8; w * 4]);
    let (mut above, mut current) = (vec![0u8; line], vec![0u8; line]);
    let mut filtered = Vec::with_capacity(line + 1);
    // a row that repeats the one above (the plain rows of a report's pictures) is all zeros
    // through the Up filter: made once, written as it is
    let repeat: Vec<u8> = std::iter::once(2).chain(std::iter::repeat_n(0, line)).collect();
    // the file's head, then the stream straight after it: as much room as the filtered rows take
    // (pages the output never reaches are never touched) and no copy of the stream
    let mut out = png_head(width, height, channels);
    let stream_at = out.len();
    out.reserve((line + 1) * height as usize + 64);
    let mut z = fdeflate::Compressor::new(out).expect("writes to memory");
    for y in 0..height {
        row(y, &mut rgba);
        if y > 0 && rgba == before {
            z.write_data(&repeat).expect("writes to memory");
            continue;
        }
        if opaque {
            for (o, p) in current.chunks_exact_mut(3).zip(rgba.chunks_exact(4)) {
                o.copy_from_slice(&p[..3]);
            }
        } else {
            current.copy_from_slice(&rgba);
        }
        filtered.clear();
        filtered.push(2);
        filter_into(&mut filtered, 2, &current, &above, channels);
        z.write_data(&filtered).expect("writes to memory");
        std::mem::swap(&mut above, &mut current);
        std::mem::swap(&mut rgba, &mut before);
    }
    png_tail(z.finish().expect("writes to memory"), stream_at)
}

/// A PNG of RGBA8 rows, written small: each row's filter chosen as the png crate and libpng
/// choose it (the least sum of absolute filtered bytes), then deflate at level 9. For approved
/// images, which a project commits (half the bytes of [`encode_png`] on the shipped goldens).
pub fn encode_png_small(img: &Image) -> Vec<u8> {
    let row = img.width as usize * 4;
    let zeros = vec![0u8; row];
    let mut out = Vec::with_capacity((row + 1) * img.height as usize);
    let (mut above, mut trial): (&[u8], Vec<u8>) = (&zeros, Vec::with_capacity(row));
    for line in img.rgba.chunks_exact(row.max(1)) {
        let cost = |f: u8, trial: &mut Vec<u8>| {
            trial.clear();
            filter_into(trial, f, line, above, 4);
            trial.iter().map(|&b| (b as i8).unsigned_abs() as u32).sum::<u32>()
        };
        let f = (0..5u8).min_by_key(|&f| cost(f, &mut trial)).unwrap_or(0);
        out.push(f);
        filter_into(&mut out, f, line, above, 4);
        above = line;
    }
    png_with(img.width, img.height, 4, &miniz_oxide::deflate::compress_to_vec_zlib(&out, 9))
}

/// Appends one row through PNG filter `f` (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth) to `out`,
/// `bpp` bytes a pixel; the first row's `above` is zeros, as PNG takes it.
fn filter_into(out: &mut Vec<u8>, f: u8, line: &[u8], above: &[u8], bpp: usize) {
    let bpp = bpp.min(line.len());
    match f {
        1 => {
            out.extend_from_slice(&line[..bpp]);
            out.extend(line[bpp..].iter().zip(line).map(|(&x, &a)| x.wrapping_sub(a)));
        }
        2 => out.extend(line.iter().zip(above).map(|(&x, &b)| x.wrapping_sub(b))),
        3 => {
            out.extend(line[..bpp].iter().zip(above).map(|(&x, &b)| x.wrapping_sub(b / 2)));
            out.extend(
                line[bpp..].iter().zip(line).zip(&above[bpp..]).map(|((&x, &a), &b)| x.wrapping_sub(((a as u16 + b as u16) / 2) as u8)),
            );
        }
        4 => {
            out.extend(line[..bpp].iter().zip(above).map(|(&x, &b)| x.wrapping_sub(paeth(0, b, 0))));
            let rest = line[bpp..].iter().zip(line).zip(above[bpp..].iter().zip(above));
            out.extend(rest.map(|((&x, &a), (&b, &c))| x.wrapping_sub(paeth(a, b, c))));
        }
        _ => out.extend_from_slice(line),
    }
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = a as i16 + b as i16 - c as i16;
    let (pa, pb, pc) = ((p - a as i16).abs(), (p - b as i16).abs(), (p - c as i16).abs());
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

/// The PNG file of a `width` × `height` picture (8 bits, RGB or RGBA by `channels`) around its
/// compressed, filtered rows.
fn png_with(width: u32, height: u32, channels: usize, idat: &[u8]) -> Vec<u8> {
    let mut out = png_head(width, height, channels);
    let at = out.len();
    out.extend_from_slice(idat);
    png_tail(out, at)
}

/// A PNG's signature, header chunk and the start of its data chunk (its length to be filled in),
/// after which the compressed rows follow.
fn png_head(width: u32, height: u32, channels: usize) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, if channels == 3 { 2 } else { 6 }, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(b"IDAT");
    out
}

/// The largest data chunk written: PNG allows 2³¹ − 1 bytes.
const MAX_CHUNK: usize = (1 << 31) - 1;

/// Ends a PNG that [`png_head`] began and whose compressed rows start at `stream_at`: the data
/// chunk's length and CRC (several chunks when the stream is longer than one may be), then `IEND`.
fn png_tail(out: Vec<u8>, stream_at: usize) -> Vec<u8> {
    png_tail_in(out, stream_at, MAX_CHUNK)
}

fn png_tail_in(mut out: Vec<u8>, stream_at: usize, max_chunk: usize) -> Vec<u8> {
    let len = out.len() - stream_at;
    if len > max_chunk {
        let stream = out.split_off(stream_at);
        out.truncate(stream_at - 8);
        for part in stream.chunks(max_chunk) {
            chunk(&mut out, b"IDAT", part);
        }
    } else {
        out[stream_at - 8..stream_at - 4].copy_from_slice(&(len as u32).to_be_bytes());
        let crc = crc32(&out[stream_at - 4..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// CRC-32 (ISO-HDLC, as PNG's chunks use it), eight bytes a step (slicing-by-8).
fn crc32(bytes: &[u8]) -> u32 {
    const TABLES: [[u32; 256]; 8] = {
        let mut t = [[0u32; 256]; 8];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            t[0][i] = c;
            i += 1;
        }
        let mut i = 0;
        while i < 256 {
            let mut s = 1;
            while s < 8 {
                t[s][i] = (t[s - 1][i] >> 8) ^ t[0][(t[s - 1][i] & 0xFF) as usize];
                s += 1;
            }
            i += 1;
        }
        t
    };
    let t = &TABLES;
    let mut c = !0u32;
    let mut chunks = bytes.chunks_exact(8);
    for b in &mut chunks {
        let lo = c ^ u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        c = t[7][(lo & 0xFF) as usize]
            ^ t[6][((lo >> 8) & 0xFF) as usize]
            ^ t[5][((lo >> 16) & 0xFF) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][b[4] as usize]
            ^ t[2][b[5] as usize]
            ^ t[1][b[6] as usize]
            ^ t[0][b[7] as usize];
    }
    !chunks.remainder().iter().fold(c, |c, &b| t[0][((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_png_s() {
        // the IEND chunk's CRC, as every PNG ends
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926, "the check value of CRC-32/ISO-HDLC");
    }

    #[test]
    fn both_ways_decode_to_the_same_pixels_and_small_is_smaller() {
        let img =
            Image::from_rgba(61, 23, (0..61 * 23 * 4).map(|i| ((i / 4 % 61) * 3 + (i / 4 / 61) * 5 + i % 4 * 40) as u8).collect()).unwrap();
        let (fast, small) = (encode_png(&img), encode_png_small(&img));
        assert_eq!(super::super::decode(&fast).unwrap(), img);
        assert_eq!(super::super::decode(&small).unwrap(), img);
        assert!(small.len() < fast.len(), "{} ≥ {}", small.len(), fast.len());
    }

    fn varied(w: u32, h: u32, alpha: impl Fn(u32) -> u8) -> Image {
        let rgba = (0..w * h).flat_map(|i| [(i % w * 9) as u8, (i / w * 13) as u8, (i * 7 % 251) as u8, alpha(i)]).collect();
        Image::from_rgba(w, h, rgba).unwrap()
    }

    #[test]
    fn an_opaque_picture_is_written_as_rgb_and_a_translucent_one_as_rgba() {
        let opaque = varied(33, 9, |_| 255);
        let png = encode_png(&opaque);
        assert_eq!(png[25], 2, "colour type RGB");
        assert_eq!(super::super::decode(&png).unwrap(), opaque);
        let translucent = varied(33, 9, |i| (i * 3) as u8);
        let png = encode_png(&translucent);
        assert_eq!(png[25], 6, "colour type RGBA");
        assert_eq!(super::super::decode(&png).unwrap(), translucent);
        // rows made one at a time give the same file as the whole picture
        let rows = encode_png_rows(33, 9, false, |y, out| out.copy_from_slice(&translucent.rgba[y as usize * 132..][..132]));
        assert_eq!(rows, png);
    }

    #[test]
    fn every_filter_decodes_to_the_same_pixels() {
        for bpp in [3usize, 4] {
            let img = varied(17, 6, |i| (i * 5) as u8);
            let px: Vec<u8> = img.rgba.chunks_exact(4).flat_map(|p| p[..bpp].to_vec()).collect();
            let line = 17 * bpp;
            for f in 0..5u8 {
                let mut raw = Vec::new();
                let zeros = vec![0u8; line];
                for (y, row) in px.chunks_exact(line).enumerate() {
                    raw.push(f);
                    filter_into(&mut raw, f, row, if y == 0 { &zeros } else { &px[(y - 1) * line..][..line] }, bpp);
                }
                let png = png_with(17, 6, bpp, &miniz_oxide::deflate::compress_to_vec_zlib(&raw, 1));
                let back = super::super::decode(&png).unwrap();
                let want: Vec<u8> = img.rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2], if bpp == 4 { p[3] } else { 255 }]).collect();
                assert_eq!(back.rgba, want, "filter {f}, {bpp} bytes a pixel");
            }
        }
    }

    #[test]
    fn a_stream_longer_than_a_chunk_is_split_into_several() {
        let img = varied(40, 40, |_| 200);
        let whole = encode_png(&img);
        let mut head = png_head(40, 40, 4);
        let at = head.len();
        let stream_len = whole.len() - at - 4 - 12;
        head.extend_from_slice(&whole[at..at + stream_len]);
        let split = png_tail_in(head, at, 100);
        assert_eq!(split.windows(4).filter(|w| w == b"IDAT").count(), stream_len.div_ceil(100));
        assert_eq!(super::super::decode(&split).unwrap(), img);
    }
}
