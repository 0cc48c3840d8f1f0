//! Hand-built inputs: LZW variants, Deflate tag 32946, size limits and user-facing errors.

// the command, its report and every format: the default `full` feature
#![cfg(feature = "full")]

use simreel_compare::image::{bmp, tiff};
use std::path::Path;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pictures").join(name)).unwrap()
}

/// A little-endian, single-strip, 8-bit gray TIFF; `extra` adds (tag, SHORT value) entries.
fn gray_tiff(w: u16, h: u16, compression: u16, strip: &[u8], extra: &[(u16, u16)]) -> Vec<u8> {
    let mut tags: Vec<(u16, u16, u32)> = vec![
        (256, 3, w.into()),
        (257, 3, h.into()),
        (258, 3, 8),
        (259, 3, compression.into()),
        (262, 3, 1),
        (273, 4, 8),
        (277, 3, 1),
        (279, 4, strip.len() as u32),
    ];
    tags.extend(extra.iter().map(|&(t, v)| (t, 3, u32::from(v))));
    tags.sort();
    let mut b = b"II*\0".to_vec();
    b.extend_from_slice(&(8 + strip.len() as u32).to_le_bytes());
    b.extend_from_slice(strip);
    b.extend_from_slice(&(tags.len() as u16).to_le_bytes());
    for (tag, typ, v) in tags {
        b.extend_from_slice(&tag.to_le_bytes());
        b.extend_from_slice(&typ.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        let val = if typ == 3 { (v as u16).to_le_bytes().iter().chain(&[0, 0]).copied().collect() } else { v.to_le_bytes().to_vec() };
        b.extend_from_slice(&val);
    }
    b.extend_from_slice(&0u32.to_le_bytes());
    b
}

/// Literal-only LZW encoder (a clear code, one code per byte, a clear before the table
/// forces a width past 12 bits, EOI). Tracks the decoder's table to know the code width.
fn lzw_literals(data: &[u8], old_style: bool) -> Vec<u8> {
    let (mut out, mut acc, mut nbits) = (Vec::new(), 0u64, 0u32);
    let mut put = |code: u32, width: u32| {
        if old_style {
            acc |= u64::from(code) << nbits;
            nbits += width;
            while nbits >= 8 {
                out.push(acc as u8);
                (acc, nbits) = (acc >> 8, nbits - 8);
            }
        } else {
            acc = (acc << width) | u64::from(code);
            nbits += width;
            while nbits >= 8 {
                out.push((acc >> (nbits - 8)) as u8);
                nbits -= 8;
            }
        }
    };
    let early = u32::from(!old_style);
    let (mut width, mut next, mut first) = (9, 258u32, true);
    put(256, 9);
    for &byte in data {
        if next + early + 2 >= 4096 {
            put(256, width);
            (width, next, first) = (9, 258, true);
        }
        put(u32::from(byte), width);
        if !first {
            next += 1;
            if next + early >= 1 << width && width < 12 {
                width += 1;
            }
        }
        first = false;
    }
    put(257, width);
    put(0, 7); // flush
    out
}

fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 97) as u8).collect()
}

#[test]
fn lzw_new_and_old_style_with_many_width_changes() {
    let (w, h) = (100u16, 60u16); // 6000 codes: widths 9..12 and two clear codes
    let data = pattern(6000);
    for old in [false, true] {
        let img = tiff::decode(&gray_tiff(w, h, 5, &lzw_literals(&data, old), &[])).unwrap();
        let gray: Vec<u8> = img.rgba.chunks(4).map(|p| p[0]).collect();
        assert_eq!(gray, data, "old_style={old}");
    }
}

#[test]
fn packbits_runs_literals_and_noop() {
    let strip = [0x02, 1, 2, 3, 0xfd, 9, 0x80, 0x00, 4, 0xff, 5];
    let img = tiff::decode(&gray_tiff(10, 1, 32773, &strip, &[])).unwrap();
    let gray: Vec<u8> = img.rgba.chunks(4).map(|p| p[0]).collect();
    assert_eq!(gray, [1, 2, 3, 9, 9, 9, 9, 4, 5, 5]);
}

#[test]
fn horizontal_predictor_8bit_gray() {
    let img = tiff::decode(&gray_tiff(4, 2, 1, &[10, 1, 1, 250, 0, 255, 1, 1], &[(317, 2)])).unwrap();
    let gray: Vec<u8> = img.rgba.chunks(4).map(|p| p[0]).collect();
    assert_eq!(gray, [10, 11, 12, 6, 0, 255, 0, 1]);
}

#[test]
fn white_is_zero_inverts_gray() {
    let img = tiff::decode(&gray_tiff(2, 1, 1, &[0, 200], &[(262, 0)])).unwrap();
    assert_eq!(img.rgba, [255, 255, 255, 255, 55, 55, 55, 255]);
}

/// Rewrites the first value of `tag` in the first IFD (SHORT or LONG, either byte order).
fn patch_tag(b: &mut [u8], tag: u16, value: u16) {
    let be = b[0] == b'M';
    let rd16 = |b: &[u8], o: usize| if be { u16::from_be_bytes([b[o], b[o + 1]]) } else { u16::from_le_bytes([b[o], b[o + 1]]) };
    let rd32 = |b: &[u8], o: usize| {
        let a = [b[o], b[o + 1], b[o + 2], b[o + 3]];
        if be { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) }
    };
    let ifd = rd32(b, 4) as usize;
    for i in 0..rd16(b, ifd) as usize {
        let e = ifd + 2 + 12 * i;
        if rd16(b, e) == tag {
            let v = if be { value.to_be_bytes() } else { value.to_le_bytes() };
            b[e + 8..e + 10].copy_from_slice(&v);
            return;
        }
    }
    panic!("tag {tag} not found");
}

#[test]
fn deflate_old_tag_32946_reads_like_8() {
    let mut b = fixture("tif_rgb8_zip_msb.tif");
    let want = tiff::decode(&b).unwrap();
    patch_tag(&mut b, 259, 32946);
    assert_eq!(tiff::decode(&b).unwrap(), want);
}

#[test]
fn unsupported_features_are_named() {
    let mut b = fixture("tif_rgb8_none.tif");
    patch_tag(&mut b, 259, 7);
    let e = tiff::decode(&b).unwrap_err();
    assert_eq!(e, "TIFF: JPEG compression (7) is not supported; save as PNG or uncompressed TIFF");
    let mut b = fixture("tif_rgb8_none.tif");
    patch_tag(&mut b, 262, 5);
    assert!(tiff::decode(&b).unwrap_err().contains("CMYK"));
    let mut b = fixture("tif_rgb8_none.tif");
    patch_tag(&mut b, 258, 32);
    assert!(tiff::decode(&b).unwrap_err().contains("bits per sample"));
    assert!(tiff::decode(b"II+\0\x08\0\0\0").unwrap_err().contains("BigTIFF"));
    let mut b = fixture("bmp_24.bmp");
    b[30] = 4;
    assert!(bmp::decode(&b).unwrap_err().contains("JPEG compression (4) is not supported"));
}

#[test]
fn truncation_is_reported_with_sizes() {
    let b = fixture("bmp_24.bmp");
    let e = bmp::decode(&b[..1000]).unwrap_err();
    assert!(e.starts_with("BMP: truncated pixel data: 2575 bytes needed, 946 present"), "{e}");
    let b = fixture("tif_rgb8_none.tif");
    let e = tiff::decode(&gray_tiff(40, 40, 1, &b[8..100], &[])).unwrap_err();
    assert!(e.contains("strip 0 holds 92 bytes of pixel data, 1600 needed"), "{e}");
}

#[test]
fn huge_dimensions_are_refused_before_allocating() {
    let mut b = fixture("bmp_24.bmp");
    b[18..22].copy_from_slice(&70_000u32.to_le_bytes());
    b[22..26].copy_from_slice(&70_000u32.to_le_bytes());
    assert!(bmp::decode(&b).unwrap_err().contains("too large"));
    b[18..22].copy_from_slice(&300_000u32.to_le_bytes());
    b[22..26].copy_from_slice(&1u32.to_le_bytes());
    assert!(bmp::decode(&b).unwrap_err().contains("too large"));
    let t = gray_tiff(60_000, 60_000, 1, &[0; 16], &[]);
    assert!(tiff::decode(&t).unwrap_err().contains("over 1 GiB"));
}

#[test]
fn sniffing() {
    assert!(bmp::sniff(&fixture("bmp_24.bmp")) && !bmp::sniff(&fixture("tif_rgb8_none.tif")));
    assert!(tiff::sniff(&fixture("tif_rgb8_none.tif")) && tiff::sniff(&fixture("tif_rgb8_zip_msb.tif")));
    assert!(!tiff::sniff(&fixture("bmp_24.bmp")) && !tiff::sniff(b"II") && !bmp::sniff(b""));
}

#[test]
fn top_down_rle_is_accepted() {
    // `image` refuses RLE with a negative height; we decode it (rows from the top).
    let mut b = fixture("hand_rle8.bmp");
    let bottom_up = bmp::decode(&b).unwrap();
    b[22..26].copy_from_slice(&(-7i32).to_le_bytes());
    let top_down = bmp::decode(&b).unwrap();
    let row = |img: &simreel_compare::Image, y: usize| img.rgba[y * 52..(y + 1) * 52].to_vec();
    for y in 0..7 {
        assert_eq!(row(&top_down, y), row(&bottom_up, 6 - y));
    }
}
