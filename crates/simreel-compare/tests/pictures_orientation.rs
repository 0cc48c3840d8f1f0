//! EXIF orientation: a picture is compared as a browser shows it, turned by the orientation its
//! JPEG APP1, PNG `eXIf` or WebP `EXIF` chunk records (the `image` crate's `apply_orientation` is
//! the reference), its header's size is the size shown, and `--ignore-orientation` compares the
//! pixels as stored.

// the command, its report and every format: the default `full` feature
#![cfg(feature = "full")]

use simreel_compare::Image;
use simreel_compare::image::{decode, encode_png, header};
use std::path::Path;
use std::process::Command;

/// A 5×3 picture with no symmetry: every pixel its own colour.
fn lopsided() -> Image {
    let rgba = (0..15u8).flat_map(|i| [i * 17, 255 - i * 13, (i * 29) % 251, 255]).collect();
    Image::from_rgba(5, 3, rgba).unwrap()
}

/// EXIF's TIFF structure (big-endian) with one entry: Orientation `o`.
fn exif(o: u16) -> Vec<u8> {
    let mut t = b"MM\0\x2a\0\0\0\x08".to_vec();
    t.extend([0, 1]); // one entry
    t.extend([0x01, 0x12, 0, 3, 0, 0, 0, 1]);
    t.extend(o.to_be_bytes());
    t.extend([0, 0, 0, 0, 0, 0]); // padding, then no next directory
    t
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
    }
    !c
}

/// `png` with an `eXIf` chunk recording orientation `o`, after its IHDR.
fn png_with_orientation(png: &[u8], o: u16) -> Vec<u8> {
    let data = exif(o);
    let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
    let typed: Vec<u8> = [&b"eXIf"[..], &data].concat();
    chunk.extend(&typed);
    chunk.extend(crc32(&typed).to_be_bytes());
    [&png[..33], &chunk, &png[33..]].concat()
}

/// What the `image` crate shows for `img` with orientation `o`.
fn reference(img: &Image, o: u8) -> Image {
    let buffer = image::RgbaImage::from_raw(img.width, img.height, img.rgba.clone()).unwrap();
    let mut d = image::DynamicImage::from(buffer);
    d.apply_orientation(image::metadata::Orientation::from_exif(o).unwrap());
    let d = d.to_rgba8();
    Image::from_rgba(d.width(), d.height(), d.into_raw()).unwrap()
}

#[test]
fn every_orientation_of_a_png_is_shown_as_the_image_crate_shows_it_and_its_header_says_the_shown_size() {
    let raw = lopsided();
    let png = encode_png(&raw);
    for o in 1..=8u8 {
        let turned = png_with_orientation(&png, o.into());
        let want = reference(&raw, o);
        let got = decode(&turned).unwrap();
        assert_eq!((got.width, got.height, &got.rgba), (want.width, want.height, &want.rgba), "orientation {o}");
        let h = header::read(&turned).unwrap();
        assert_eq!((h.width, h.height, h.orientation), (want.width, want.height, o), "orientation {o}");
    }
}

#[test]
fn a_jpeg_and_a_webp_are_turned_by_their_exif() {
    let jpeg = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pages/base-q95.jpg")).unwrap();
    // the same scan with an APP1 Exif segment after the SOI marker: orientation 6
    let body: Vec<u8> = [&b"Exif\0\0"[..], &exif(6)].concat();
    let app1: Vec<u8> = [&[0xFF, 0xE1][..], &((body.len() + 2) as u16).to_be_bytes(), &body].concat();
    let turned = [&jpeg[..2], &app1, &jpeg[2..]].concat();
    let (plain, shown) = (decode(&jpeg).unwrap(), decode(&turned).unwrap());
    let want = reference(&plain, 6);
    assert_eq!((shown.width, shown.height), (plain.height, plain.width));
    assert!(shown.rgba == want.rgba, "a quarter clockwise");
    let h = header::read(&turned).unwrap();
    assert_eq!((h.width, h.height, h.orientation), (plain.height, plain.width, 6));

    let raw = lopsided();
    let mut webp = Vec::new();
    let mut e = image_webp::WebPEncoder::new(&mut webp);
    e.set_exif_metadata(exif(8));
    e.encode(&raw.rgba, raw.width, raw.height, image_webp::ColorType::Rgba8).unwrap();
    let got = decode(&webp).unwrap();
    assert_eq!((got.width, got.height, got.rgba), (3, 5, reference(&raw, 8).rgba), "a lossless WebP, a quarter anticlockwise");
}

#[test]
fn the_command_compares_as_shown_unless_told_to_ignore_the_orientation() {
    let dir = std::env::temp_dir().join(format!("simreel-compare-orientation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let raw = lopsided();
    std::fs::write(dir.join("stored.png"), png_with_orientation(&encode_png(&raw), 6)).unwrap();
    std::fs::write(dir.join("turned.png"), encode_png(&reference(&raw, 6))).unwrap();
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_simreel-compare"))
            .arg("compare")
            .args([dir.join("turned.png"), dir.join("stored.png")])
            .args(["--out".as_ref(), dir.join("out").as_os_str()])
            .args(extra)
            .output()
            .unwrap()
    };
    let shown = run(&[]);
    assert_eq!(shown.status.code(), Some(0), "{}", String::from_utf8_lossy(&shown.stderr));
    let stored = run(&["--ignore-orientation"]);
    assert_eq!(stored.status.code(), Some(4), "{}", String::from_utf8_lossy(&stored.stderr));
    assert!(String::from_utf8_lossy(&stored.stderr).contains("size mismatch"), "{}", String::from_utf8_lossy(&stored.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
