//! Every fixture is decoded by our decoders and by the `image` crate (the reference).
//! Where `image` reads a fixture, the RGBA must be identical unless a comment says why not;
//! where it refuses one, the pixels are checked against another fixture or a known formula. The
//! PNG variants are built by hand with the RGBA8 a browser shows beside each (`regen.sh`).

// the command, its report and every format: the default `full` feature
#![cfg(feature = "full")]

use simreel_compare::image::{Image as Rgba, bmp, tiff};
use std::path::Path;

fn bytes(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pictures").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn ours(name: &str) -> Rgba {
    let b = bytes(name);
    let r = if name.ends_with(".bmp") { bmp::decode(&b) } else { tiff::decode(&b) };
    r.unwrap_or_else(|e| panic!("{name}: our decoder failed: {e}"))
}

fn reference(name: &str) -> Result<Rgba, String> {
    let fmt = if name.ends_with(".bmp") { image::ImageFormat::Bmp } else { image::ImageFormat::Tiff };
    let img = image::load_from_memory_with_format(&bytes(name), fmt).map_err(|e| e.to_string())?;
    let rgba = img.to_rgba8();
    Ok(Rgba { width: rgba.width(), height: rgba.height(), rgba: rgba.into_raw() })
}

fn assert_same(name: &str, a: &Rgba, b: &Rgba) {
    assert_eq!((a.width, a.height), (b.width, b.height), "{name}: size");
    if let Some(i) = a.rgba.iter().zip(&b.rgba).position(|(x, y)| x != y) {
        let (p, w) = (i / 4, a.width as usize);
        panic!(
            "{name}: first difference at x={} y={} channel {}: ours {:?}, reference {:?}",
            p % w,
            p / w,
            i % 4,
            &a.rgba[p * 4..p * 4 + 4],
            &b.rgba[p * 4..p * 4 + 4]
        );
    }
}

fn px(img: &Rgba, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * img.width + x) * 4) as usize;
    img.rgba[i..i + 4].try_into().unwrap()
}

/// Fixtures the reference must read and ours must match exactly.
const SAME_AS_IMAGE: &[&str] = &[
    "bmp_24.bmp",
    "bmp_core24.bmp",
    "bmp_core8.bmp",
    "bmp_pal1.bmp",
    "bmp_pal4.bmp",
    "bmp_pal8.bmp",
    "bmp_rle8.bmp",
    "bmp_v5_argb32.bmp",
    "bmp_v5_565.bmp",
    "bmp_v5_555.bmp",
    "hand_topdown24.bmp",
    "hand_rgb32_junk_alpha.bmp",
    "hand_v4_rgb32.bmp",
    "hand_rgb16_555.bmp",
    "hand_v3_1010102.bmp",
    "hand_pal2.bmp",
    "hand_rle4.bmp",
    "hand_rle8.bmp",
    "tif_rgb8_none.tif",
    "tif_rgb8_lzw_pred2.tif",
    "tif_rgb8_zip_msb.tif",
    "tif_gray8_packbits.tif",
    "tif_rgb8_lzw_rps5.tif",
    "tif_rgb16_lzw_pred2.tif",
    "tif_rgb16_zip_pred2_msb.tif",
    "tif_rgba8_lzw.tif",
    "tif_gray8_zip.tif",
    "tif_gray16_none_msb.tif",
    "tif_bilevel_none.tif",
    "tif_bilevel_miniswhite_packbits.tif",
    "tif_tiled16_lzw.tif",
    "tif_planar_zip.tif",
];

#[test]
fn fixtures_match_image_crate() {
    for name in SAME_AS_IMAGE {
        let reference = reference(name).unwrap_or_else(|e| panic!("{name}: reference failed: {e}"));
        assert_same(name, &ours(name), &reference);
    }
}

#[test]
fn every_fixture_is_covered() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pictures");
    let others = [
        "tif_rgba8_assoc_lzw.tif",
        "tif_rgba16_assoc_zip_msb.tif",
        "tif_bilevel_lsb_lzw.tif",
        "tif_gray2_none.tif",
        "tif_graya8_lzw.tif",
        "tif_pal8_lzw_msb.tif",
        "tif_pal4_none.tif",
        "hand_alphabitfields.bmp",
        "tif_planar_tiled16_rgba_lzw.tif",
    ];
    let mut total = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        total += entry.metadata().unwrap().len();
        let name = entry.file_name().into_string().unwrap();
        if let Some(stem) = name.strip_suffix(".png") {
            assert!(PNG_VARIANTS.contains(&stem), "{name} is not tested");
        }
        if name.ends_with(".bmp") || name.ends_with(".tif") {
            assert!(SAME_AS_IMAGE.contains(&name.as_str()) || others.contains(&name.as_str()), "{name} is not tested");
        }
    }
    assert!(total < 70_000, "fixtures take {total} bytes");
}

/// The hand-built PNGs (regen.sh): Adam7, 1- and 4-bit grey, grey + alpha, a 4-bit palette with
/// `tRNS`, 16-bit samples, and `tRNS` on RGB and grey (what a browser makes transparent).
const PNG_VARIANTS: [&str; 9] = [
    "png_rgb8_adam7",
    "png_rgba16_adam7",
    "png_rgb16",
    "png_grey1",
    "png_grey4_trns",
    "png_greya8",
    "png_pal4_trns",
    "png_rgb8_trns",
    "png_grey16_trns",
];

#[test]
fn png_variants_decode_to_what_a_browser_shows() {
    for stem in PNG_VARIANTS {
        let ours = simreel_compare::image::decode(&bytes(&format!("{stem}.png"))).unwrap_or_else(|e| panic!("{stem}: {e}"));
        let shown = Rgba { width: 13, height: 7, rgba: bytes(&format!("{stem}.rgba")) };
        assert_same(stem, &ours, &shown);
    }
}

/// Formula the hand-built BMPs use (see regen.sh).
fn hand_px(x: u32, y: u32) -> [u8; 4] {
    [(x * 19 % 256) as u8, (y * 37 % 256) as u8, (x * y * 11 % 256) as u8, ((x * 20 + y * 3) % 256) as u8]
}

#[test]
fn hand_formula_pixels() {
    // `image` reads these too; the formula check guards against both decoders agreeing on garbage.
    let top = ours("hand_topdown24.bmp");
    let junk = ours("hand_rgb32_junk_alpha.bmp");
    let v4 = ours("hand_v4_rgb32.bmp");
    // `image` refuses BI_ALPHABITFIELDS (compression 6); we read it with its alpha.
    let abf = ours("hand_alphabitfields.bmp");
    for (x, y) in [(0, 0), (12, 0), (5, 3), (12, 6)] {
        let [r, g, b, a] = hand_px(x, y);
        assert_eq!(px(&top, x, y), [r, g, b, 255]);
        assert_eq!(px(&junk, x, y), [r, g, b, 255], "BI_RGB 32-bit is opaque");
        assert_eq!(px(&v4, x, y), [r, g, b, 255], "V4 alpha mask is ignored for BI_RGB");
        assert_eq!(px(&abf, x, y), [r, g, b, a]);
    }
    let pal2 = ours("hand_pal2.bmp");
    assert_eq!(px(&pal2, 0, 0), [0, 255, 0, 255]);
    assert_eq!(px(&pal2, 3, 0), [0, 0, 0, 255], "index past a 3-color palette is black");
    let rle4 = ours("hand_rle4.bmp");
    assert_eq!(px(&rle4, 1, 6), [80, 223, 32, 255]);
    assert_eq!(px(&rle4, 0, 2), [0, 0, 0, 255], "delta-skipped pixel is opaque black");
}

/// Associated alpha: the reference returns the stored premultiplied values; we unpremultiply.
/// Premultiplying ours again must give the reference within ±1 (8-bit rounding).
#[test]
fn associated_alpha_is_unpremultiplied() {
    for name in ["tif_rgba8_assoc_lzw.tif", "tif_rgba16_assoc_zip_msb.tif"] {
        let (o, r) = (ours(name), reference(name).unwrap());
        let mut partial = 0;
        for (a, b) in o.rgba.chunks(4).zip(r.rgba.chunks(4)) {
            assert_eq!(a[3], b[3], "{name}: alpha");
            partial += usize::from(a[3] > 0 && a[3] < 255);
            for c in 0..3 {
                let re = (u32::from(a[c]) * u32::from(a[3]) + 127) / 255;
                assert!(re.abs_diff(u32::from(b[c])) <= 1, "{name}: {a:?} vs premultiplied {b:?}");
            }
        }
        assert!(partial > 100, "{name}: too few translucent pixels to test");
        // Straight alpha from the unassociated twin agrees within the rounding loss of premultiplying.
        let straight = ours("tif_rgba8_lzw.tif");
        for (a, b) in o.rgba.chunks(4).zip(straight.rgba.chunks(4)).filter(|(a, _)| a[3] >= 64) {
            for c in 0..3 {
                assert!(a[c].abs_diff(b[c]) <= 3, "{name}: {a:?} vs straight {b:?}");
            }
        }
    }
}

/// Fixtures the reference refuses or misreads, checked against equivalent fixtures.
#[test]
fn fixtures_image_cannot_read() {
    // Palette TIFFs: `image` refuses them; same source and palette as the palette BMPs.
    assert!(reference("tif_pal8_lzw_msb.tif").is_err());
    assert_same("tif_pal8", &ours("tif_pal8_lzw_msb.tif"), &reference("bmp_pal8.bmp").unwrap());
    assert_same("tif_pal4", &ours("tif_pal4_none.tif"), &reference("bmp_pal4.bmp").unwrap());
    // Gray + alpha: `image` refuses it; gray like the gray TIFF, alpha like the RGBA one.
    assert!(reference("tif_graya8_lzw.tif").is_err());
    let (ga, g, rgba) = (ours("tif_graya8_lzw.tif"), ours("tif_gray8_zip.tif"), ours("tif_rgba8_lzw.tif"));
    for ((a, b), c) in ga.rgba.chunks(4).zip(g.rgba.chunks(4)).zip(rgba.rgba.chunks(4)) {
        assert_eq!(&a[..3], &b[..3]);
        assert_eq!(a[3], c[3]);
    }
    // FillOrder 2 (LSB-first bits): `image` ignores the tag; ours must equal the MSB twin.
    assert_same("fill order", &ours("tif_bilevel_lsb_lzw.tif"), &reference("tif_bilevel_none.tif").unwrap());
    // Planar tiles with predictor 2: `image` 0.25 fails ("no lzw end code found"); libtiff's
    // tiff2rgba reads it. Same pixels as the chunky RGBA strip fixture.
    assert!(reference("tif_planar_tiled16_rgba_lzw.tif").is_err());
    assert_same("planar tiles", &ours("tif_planar_tiled16_rgba_lzw.tif"), &reference("tif_rgba8_lzw.tif").unwrap());
    // 2-bit gray: `image` refuses it. ImageMagick reduced the gray by truncation, so each 2-bit
    // value is the 8-bit gray rounded down to a multiple of 85. (ImageMagick's own reading of
    // this file matched ours exactly when the fixtures were made.)
    let (g2, g8) = (ours("tif_gray2_none.tif"), ours("tif_gray8_zip.tif"));
    let mut levels = [0; 4];
    for (a, b) in g2.rgba.chunks(4).zip(g8.rgba.chunks(4)) {
        assert_eq!(a, [b[0] / 85 * 85, b[0] / 85 * 85, b[0] / 85 * 85, 255], "{a:?} vs {b:?}");
        levels[usize::from(a[0] / 85)] += 1;
    }
    assert!(levels[..3].iter().all(|&n| n > 0), "{levels:?}");
}

#[test]
fn known_pixels_of_the_gradient() {
    // base.png: R = x/w, G = y/h, B = ((3x + 5y) mod 11) / 10.
    let img = ours("tif_rgb16_lzw_pred2.tif");
    assert_eq!((img.width, img.height), (37, 23));
    assert_eq!(px(&img, 0, 0), [0, 0, 0, 255]);
    assert_eq!(px(&img, 36, 22), [248, 244, 230, 255]);
    // ImageMagick's own 16 -> 8 bit reduction can differ by one from rounding, so the 8-bit
    // files are compared with each other: same pixels in BMP and TIFF.
    assert_same("bmp_24 vs tif_rgb8", &ours("bmp_24.bmp"), &ours("tif_rgb8_none.tif"));
}
