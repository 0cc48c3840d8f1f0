//! PNG written two ways: fast, for a report's pictures (made again in no time, read once), and
//! small, for the approved images a project commits.

use super::Image;

/// A PNG of RGBA8 rows, written fast: each row filtered against the one above, then fdeflate's
/// fast compressor. For a report's pictures.
pub fn encode_png(img: &Image) -> Vec<u8> {
    let filtered = filter_rows(img, |_, _| 2);
    png_with(img, &fdeflate::compress_to_vec(&filtered))
}

/// A PNG of RGBA8 rows, written small: each row's filter chosen as the png crate and libpng
/// choose it (the least sum of absolute filtered bytes), then deflate at level 9. For approved
/// images, which a project commits (half the bytes of [`encode_png`] on the shipped goldens).
pub fn encode_png_small(img: &Image) -> Vec<u8> {
    let filtered = filter_rows(img, |line, above| {
        (0..5u8).min_by_key(|&f| filtered_row(f, line, above).iter().map(|&b| (b as i8).unsigned_abs() as u32).sum::<u32>()).unwrap_or(0)
    });
    png_with(img, &miniz_oxide::deflate::compress_to_vec_zlib(&filtered, 9))
}

/// The image's rows, each behind its filter byte, as `choose(row, row above)` picks it (the
/// first row's "above" is zeros, as PNG takes it).
fn filter_rows(img: &Image, choose: impl Fn(&[u8], &[u8]) -> u8) -> Vec<u8> {
    let row = img.width as usize * 4;
    let zeros = vec![0u8; row];
    let mut out = Vec::with_capacity((row + 1) * img.height as usize);
    let mut above: &[u8] = &zeros;
    for line in img.rgba.chunks_exact(row.max(1)) {
        let f = choose(line, above);
        out.push(f);
        out.extend(filtered_row(f, line, above));
        above = line;
    }
    out
}

/// One row through PNG filter `f` (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth), RGBA8.
fn filtered_row(f: u8, line: &[u8], above: &[u8]) -> Vec<u8> {
    let left = |i: usize| if i >= 4 { line[i - 4] } else { 0 };
    let upper_left = |i: usize| if i >= 4 { above[i - 4] } else { 0 };
    (0..line.len())
        .map(|i| {
            let (a, b, c) = (left(i), above[i], upper_left(i));
            let predicted = match f {
                1 => a,
                2 => b,
                3 => ((a as u16 + b as u16) / 2) as u8,
                4 => paeth(a, b, c),
                _ => 0,
            };
            line[i].wrapping_sub(predicted)
        })
        .collect()
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

/// The PNG file of `img` (RGBA8, 8 bits) around its compressed, filtered rows.
fn png_with(img: &Image, idat: &[u8]) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&img.width.to_be_bytes());
    ihdr.extend_from_slice(&img.height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", idat);
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
}
