//! The `simreel-compare` command as a user runs it: exit codes, words, and the review that closes
//! the loop of `assert_image!`'s pending images, in a folder of its own.

// the command, its report and every format: the default `full` feature
#![cfg(feature = "full")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use simreel_compare::Image;
use simreel_compare::image::{encode_png, encode_png_small};

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("simreel-compare-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simreel-compare")).current_dir(dir).args(args).output().unwrap()
}

fn said(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn page(patch: bool) -> Image {
    let mut img = Image::from_rgba(48, 32, [240u8, 244, 248, 255].repeat(48 * 32)).unwrap();
    if patch {
        for y in 10..16 {
            for x in 20..28 {
                img.rgba[(y * 48 + x) * 4..][..3].copy_from_slice(&[30, 60, 200]);
            }
        }
    }
    img
}

/// A 24-bit bottom-up BMP of an opaque image.
fn bmp(img: &Image) -> Vec<u8> {
    let (w, h) = (img.width as usize, img.height as usize);
    let row = (w * 3).div_ceil(4) * 4;
    let mut out = b"BM".to_vec();
    for v in [(54 + row * h) as u32, 0, 54, 40, w as u32, h as u32] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&[1, 0, 24, 0]);
    out.extend_from_slice(&[0; 24]);
    for y in (0..h).rev() {
        for x in 0..w {
            let p = &img.rgba[(y * w + x) * 4..];
            out.extend_from_slice(&[p[2], p[1], p[0]]);
        }
        out.resize(out.len() + row - w * 3, 0);
    }
    out
}

#[test]
fn compare_exits_0_4_or_2_and_says_which_criterion_decided() {
    let dir = folder("compare");
    std::fs::write(dir.join("a.png"), encode_png(&page(false))).unwrap();
    std::fs::write(dir.join("b.png"), encode_png_small(&page(true))).unwrap();
    std::fs::write(dir.join("a.bmp"), bmp(&page(false))).unwrap();
    std::fs::write(dir.join("notes.png"), "not a picture").unwrap();
    let o = run(&dir, &["compare", "a.png", "a.bmp"]);
    assert_eq!(o.status.code(), Some(0), "the same pixels as BMP: {}", said(&o));
    let o = run(&dir, &["compare", "a.png", "b.png"]);
    assert_eq!(o.status.code(), Some(4), "{}", said(&o));
    assert!(said(&o).contains("compact difference: 8×6 px at (20, 10)"), "{}", said(&o));
    assert!(said(&o).contains("review: simreel-compare review"), "{}", said(&o));
    assert!(dir.join("out/compare-report/report.html").is_file());
    let o = run(&dir, &["compare", "a.png", "notes.png"]);
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    assert!(said(&o).contains("UNREADABLE notes.png") && said(&o).contains("the file is text"), "{}", said(&o));
    for (args, words) in [
        (&["compare", "a.png"][..], "two paths"),
        (&["compare", "a.png", "b.png", "--chanel", "3"], "unknown option --chanel"),
        (&["compare", "a.png", "b.png", "--channel", "300"], "--channel 300"),
        (&["compare", "a.png", "b.png", "--max-pixels", "150%"], "from 0 to 1"),
        (&["frobnicate"], "unknown command"),
    ] {
        let o = run(&dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", said(&o));
        assert!(said(&o).contains(words), "{args:?} should say {words:?}: {}", said(&o));
    }
    for args in [&["--help"][..], &["compare", "--help"], &["review", "-h"]] {
        let o = run(&dir, args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", said(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("usage:"), "{args:?}");
    }
    let o = run(&dir, &["compare", "a.png", "b.png", "--max-region", "1000", "--max-pixels", "100"]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert!(said(&o).contains("within the budget of 100 pixels; no region of change heavier than 1000"), "{}", said(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn review_without_a_terminal_prints_the_commands_and_accept_all_moves_pending_images() {
    let dir = folder("review");
    std::fs::write(dir.join("a.png"), encode_png(&page(false))).unwrap();
    std::fs::write(dir.join("b.png"), encode_png(&page(true))).unwrap();
    assert_eq!(run(&dir, &["compare", "a.png", "b.png"]).status.code(), Some(4));
    let o = run(&dir, &["review"]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert!(said(&o).contains("cp -- b.png a.png"), "{}", said(&o));
    // a test's pending image, approved from the test's own folder
    let goldens = dir.join("tests/goldens");
    std::fs::create_dir_all(&goldens).unwrap();
    std::fs::write(goldens.join("page.png"), encode_png(&page(false))).unwrap();
    std::fs::write(goldens.join("page.new.png"), encode_png(&page(true))).unwrap();
    let o = run(&dir, &["review", "--pending", "tests", "--accept-all"]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert!(!goldens.join("page.new.png").exists());
    assert_eq!(simreel_compare::read(goldens.join("page.png")).unwrap(), page(true));
    let o = run(&dir, &["review", "--pending", "tests"]);
    assert!(said(&o).contains("nothing to review"), "{}", said(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What a header says is read before anything is decoded: a 20000² PNG (1.2 MB of one colour)
/// against a page is a size mismatch at once; the same picture twice is refused by the pixel cap
/// unless `--max-megapixels` raises it; a FIFO given as a picture is refused, never waited on.
#[test]
fn headers_come_first_the_pixel_cap_is_said_and_a_fifo_is_refused() {
    let dir = folder("headers");
    std::fs::write(dir.join("page.png"), encode_png(&page(false))).unwrap();
    let row = [250u8, 250, 250, 255].repeat(20_000);
    let huge = simreel_compare::image::encode_png_rows(20_000, 20_000, true, |_, out| out.copy_from_slice(&row));
    std::fs::write(dir.join("huge.png"), &huge).unwrap();
    let t0 = std::time::Instant::now();
    let o = run(&dir, &["compare", "page.png", "huge.png", "-q"]);
    assert_eq!(o.status.code(), Some(4), "{}", said(&o));
    assert!(t0.elapsed().as_secs_f64() < 2.0, "a size mismatch took {:?}", t0.elapsed());
    let report = std::fs::read_to_string(dir.join("out/compare-report/report.html")).unwrap();
    assert!(report.contains("size mismatch") && report.contains("20000×20000"), "the report names both sizes");
    let o = run(&dir, &["compare", "huge.png", "huge.png", "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    assert!(said(&o).contains("400.0 megapixels") && said(&o).contains("--max-megapixels"), "{}", said(&o));
    let o = run(&dir, &["compare", "huge.png", "huge.png", "-q", "--max-megapixels", "400"]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    let o = run(&dir, &["compare", "page.png", "page.png", "--max-megapixels", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    // an APNG (an acTL chunk before the image data): compared on its first frame, and said
    let png = encode_png(&page(false));
    let mut apng = png[..33].to_vec();
    let actl = [0u8, 0, 0, 8, b'a', b'c', b'T', b'L', 0, 0, 0, 2, 0, 0, 0, 0];
    apng.extend_from_slice(&actl);
    apng.extend_from_slice(&crc(&actl[4..]).to_be_bytes());
    apng.extend_from_slice(&png[33..]);
    std::fs::write(dir.join("anim.png"), &apng).unwrap();
    let o = run(&dir, &["compare", "page.png", "anim.png", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    let summary = std::fs::read_to_string(dir.join("out/compare-report/summary.json")).unwrap();
    assert!(summary.contains("anim.png an animated PNG: its first frame compared"), "{summary}");
    #[cfg(unix)]
    {
        let fifo = dir.join("fifo.png");
        assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let t0 = std::time::Instant::now();
        let o = run(&dir, &["compare", "page.png", "fifo.png"]);
        assert_eq!(o.status.code(), Some(2), "{}", said(&o));
        assert!(said(&o).contains("not a plain file") && t0.elapsed().as_secs() < 5, "{}", said(&o));
    }
}

/// PNG's CRC-32 of a chunk's type and data.
fn crc(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
    }
    !c
}
