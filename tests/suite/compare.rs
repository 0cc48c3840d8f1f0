//! `simreel compare` as a user runs it in their own folder: two folders of pictures matched by
//! relative path (PNG of 8 and 16 bits with alpha, JPEG, WebP), the report, tolerances from flags
//! and a file, bad input, and accepting through `golden review --compare`. Needs no GPU.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use crate::common::{scratch, scratch_part, simreel};

/// A picture with gradients and noise, `w` × `h`, alpha `alpha` everywhere.
fn picture(w: u32, h: u32, alpha: u8) -> Vec<u8> {
    let mut s = 99u32;
    (0..w * h)
        .flat_map(|i| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let n = (s >> 28) as u8;
            [(i % w * 255 / w) as u8 / 2 + n, (i / w * 255 / h) as u8 / 2 + n, 90 + n, alpha]
        })
        .collect()
}

fn write_png(path: &Path, w: u32, h: u32, rgba: &[u8], sixteen: bool) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut enc = png::Encoder::new(file, w, h);
    enc.set_color(png::ColorType::Rgba);
    if sixteen {
        enc.set_depth(png::BitDepth::Sixteen);
        let wide: Vec<u8> = rgba.iter().flat_map(|&v| (v as u16 * 257).to_be_bytes()).collect();
        enc.write_header().unwrap().write_image_data(&wide).unwrap();
    } else {
        enc.write_header().unwrap().write_image_data(rgba).unwrap();
    }
}

fn save(path: &Path, w: u32, h: u32, rgba: &[u8], format: image::ImageFormat) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let img = image::RgbaImage::from_raw(w, h, rgba.to_vec()).unwrap();
    match format {
        image::ImageFormat::Jpeg => image::DynamicImage::ImageRgba8(img).to_rgb8().save_with_format(path, format).unwrap(),
        _ => img.save_with_format(path, format).unwrap(),
    }
}

/// `rgba` with the `n`×`n` block at (x, y) of a `w`-wide picture inverted (alpha too when `alpha`).
fn patched(rgba: &[u8], w: u32, (x, y, n): (u32, u32, u32), alpha: bool) -> Vec<u8> {
    let mut out = rgba.to_vec();
    for yy in y..y + n {
        for xx in x..x + n {
            let i = ((yy * w + xx) * 4) as usize;
            for c in 0..if alpha { 4 } else { 3 } {
                out[i + c] = 255 - out[i + c];
            }
        }
    }
    out
}

fn run(dir: &Path, args: &[&str]) -> Output {
    simreel().current_dir(dir).arg("compare").args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A user's folder: expected/ and actual/ with every kind of pair.
fn project(name: &str) -> PathBuf {
    let dir = scratch_part(name);
    let (e, a) = (dir.join("expected"), dir.join("actual"));
    let (w, h) = (96, 64);
    let opaque = picture(w, h, 255);
    let translucent = picture(w, h, 170);
    // identical, 8-bit RGBA
    write_png(&e.join("same.png"), w, h, &opaque, false);
    write_png(&a.join("same.png"), w, h, &opaque, false);
    // 16 bits a channel against the same pixels in 8: equal
    write_png(&e.join("deep/nested/sixteen.png"), w, h, &translucent, true);
    write_png(&a.join("deep/nested/sixteen.png"), w, h, &translucent, false);
    // alpha changed in a 6×6 block: a compact region of change
    write_png(&e.join("alpha.png"), w, h, &translucent, false);
    write_png(&a.join("alpha.png"), w, h, &patched(&translucent, w, (40, 20, 6), true), false);
    // JPEG, patched; WebP (lossless), identical
    save(&e.join("photo.jpg"), w, h, &opaque, image::ImageFormat::Jpeg);
    save(&a.join("photo.jpg"), w, h, &patched(&opaque, w, (10, 10, 12), false), image::ImageFormat::Jpeg);
    save(&e.join("sub/lossless.webp"), w, h, &opaque, image::ImageFormat::WebP);
    save(&a.join("sub/lossless.webp"), w, h, &opaque, image::ImageFormat::WebP);
    // one side only, and a size mismatch
    write_png(&e.join("gone.png"), w, h, &opaque, false);
    save(&a.join("new/added.webp"), w, h, &opaque, image::ImageFormat::WebP);
    write_png(&e.join("size.png"), w, h, &opaque, false);
    write_png(&a.join("size.png"), w / 2, h, &opaque[..(w / 2 * h * 4) as usize], false);
    // not a picture: ignored
    std::fs::write(e.join("notes.txt"), "not an image").unwrap();
    dir
}

#[test]
fn compare_matches_folders_by_path_fails_what_differs_and_reports_it() {
    let dir = project("compare-folders");
    let o = run(&dir, &["expected", "actual"]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(4), "{said}");
    for line in [
        "pass same.png: identical",
        "pass deep/nested/sixteen.png: identical",
        "pass sub/lossless.webp: identical",
        "FAIL alpha.png: different: 36 pixels beyond 2 levels (up to 177), over the budget of 6 pixels; compact difference: 6×6 px at (40, 20)",
        "FAIL photo.jpg: different",
        "FAIL gone.png: only in EXPECTED",
        "FAIL new/added.webp: only in ACTUAL",
        "FAIL size.png: size mismatch: expected/size.png is 96×64, actual/size.png is 48×64",
        "5 of 8 compared images differ; report: out/compare-report/report.html; review: simreel golden review --compare",
    ] {
        assert!(said.contains(line), "missing {line:?} in:\n{said}");
    }
    assert!(!said.contains("notes.txt"), "{said}");
    // the report: summary.json (one type with golden check's), JUnit, a page naming each failure
    let report = dir.join("out/compare-report");
    let summary = simreel::golden::summary::Summary::read(&report.join("summary.json")).unwrap();
    assert_eq!((summary.checked, summary.failed), (8, 5));
    let compared = summary.compared.as_ref().unwrap();
    assert_eq!((compared.expected.as_str(), compared.actual.as_str()), ("expected", "actual"));
    let alpha = summary.frames.iter().find(|f| f.subject == simreel::golden::report::Subject::File { path: "alpha.png".into() }).unwrap();
    assert_eq!(alpha.bless.as_deref(), Some("cp -- actual/alpha.png expected/alpha.png"));
    assert_eq!((alpha.regions[0].x, alpha.regions[0].y, alpha.regions[0].width), (40, 20, 6));
    let stem = alpha.images.as_ref().unwrap();
    for which in ["expected", "actual", "diff", "signed", "panel"] {
        assert!(report.join(format!("{stem}__{which}.png")).is_file(), "{which}");
    }
    let junit = std::fs::read_to_string(report.join("junit.xml")).unwrap();
    assert!(junit.contains("<testsuite name=\"compare\" tests=\"8\" failures=\"5\">"), "{junit}");
    assert!(junit.contains("name=\"deep/nested/sixteen.png\"/>") && junit.contains("name=\"gone.png\">"), "{junit}");
    let page = std::fs::read_to_string(report.join("report.html")).unwrap();
    assert!(page.contains("<h1>Compare: 5 of 8 files failed</h1>"), "{}", &page[..page.len().min(600)]);
    for f in ["alpha.png", "photo.jpg", "gone.png", "new/added.webp", "size.png"] {
        assert!(page.contains(&format!("<h2>{f}</h2>")), "{f}");
    }
    // -q: only the outcome
    let o = run(&dir, &["expected", "actual", "-q"]);
    assert!(!text(&o).contains("pass same.png"), "{}", text(&o));

    // accepting every failure through `golden review --compare` makes the folders agree
    let printed = simreel().current_dir(&dir).args(["golden", "review", "--compare"]).stdin(Stdio::null()).output().unwrap();
    let printed = text(&printed);
    assert!(
        printed.contains("rm -- expected/gone.png")
            && printed.contains("mkdir -p -- expected/new && cp -- actual/new/added.webp expected/new/added.webp"),
        "{printed}"
    );
    // (compared again by absolute paths, which the report keeps: this test does not change folder)
    let (e, a) = (dir.join("expected"), dir.join("actual"));
    assert_eq!(run(&dir, &[e.to_str().unwrap(), a.to_str().unwrap(), "-q"]).status.code(), Some(4));
    let paths = simreel::golden::Paths { goldens: "unused".into(), out: dir.join("out"), shard: None };
    let which = simreel::golden::review::Last::Compare;
    let (list, _) = simreel::golden::review::failures_of(&simreel::golden::review::report_dir(&paths, which)).unwrap();
    assert_eq!(list.len(), 5);
    let mut no_scenes = || -> Result<Vec<simreel::scene::Scene>, simreel::golden::GoldenError> { panic!("a comparison needs no scenes") };
    // `o` says the picture it opens: where no viewer opens one, the path is what the reader has
    let mut said = Vec::new();
    let report = simreel::golden::review::report_dir(&paths, which);
    simreel::golden::review::interactive(&mut no_scenes, &list, &paths, &report, &mut "o\ns\n".repeat(5).as_bytes(), &mut said).unwrap();
    let said = String::from_utf8(said).unwrap();
    // (an image only in ACTUAL has no side-by-side line: its picture is said by `o` alone)
    let opened = said.split_whitespace().find(|w| w.ends_with("__actual.png")).unwrap_or_else(|| panic!("{said}"));
    assert!(std::path::Path::new(opened).is_file(), "{said}");
    let tally = simreel::golden::review::interactive(
        &mut no_scenes,
        &list,
        &paths,
        &simreel::golden::review::report_dir(&paths, which),
        &mut "A\n".as_bytes(),
        &mut Vec::new(),
    );
    assert_eq!(tally.unwrap().accepted.len(), 5);
    assert!(!dir.join("expected/gone.png").exists() && dir.join("expected/new/added.webp").is_file());
    assert_eq!(std::fs::read(dir.join("expected/alpha.png")).unwrap(), std::fs::read(dir.join("actual/alpha.png")).unwrap());
    let o = run(&dir, &["expected", "actual"]);
    assert!(o.status.success(), "after accepting, the folders agree: {}", text(&o));
    assert!(text(&o).contains("all 7 compared images match"), "{}", text(&o));
}

#[test]
fn compare_takes_tolerances_from_flags_and_a_file_and_refuses_bad_input_by_name() {
    let dir = scratch();
    let (w, h) = (64, 48);
    let base = picture(w, h, 255);
    // every pixel 3 levels brighter: beyond the default 2 levels on every pixel
    let brighter: Vec<u8> = base.iter().enumerate().map(|(i, &v)| if i % 4 == 3 { v } else { v + 3 }).collect();
    write_png(&dir.join("a.png"), w, h, &base, false);
    write_png(&dir.join("b.png"), w, h, &brighter, false);
    assert_eq!(run(&dir, &["a.png", "b.png"]).status.code(), Some(4));
    assert_eq!(run(&dir, &["a.png", "b.png", "--channel", "3"]).status.code(), Some(0));
    // every pixel may differ, yet the whole picture is one region of change weighing a sixth of
    // a pixel per pixel (3 levels, one past the faint ones): it fails unless regions are let be
    assert_eq!(run(&dir, &["a.png", "b.png", "--max-pixels", "100%"]).status.code(), Some(4));
    assert_eq!(run(&dir, &["a.png", "b.png", "--max-pixels", "100%", "--max-region", "1000000"]).status.code(), Some(0));
    std::fs::write(dir.join("tol.toml"), "channel = 3\nreason = \"one GPU's rounding\"\n").unwrap();
    assert_eq!(run(&dir, &["a.png", "b.png", "--tolerance", "tol.toml"]).status.code(), Some(0));
    // a flag overrides the file
    assert_eq!(run(&dir, &["a.png", "b.png", "--tolerance", "tol.toml", "--channel", "2"]).status.code(), Some(4));
    // bad input: exit 2, naming what is wrong
    std::fs::write(dir.join("typo.toml"), "chanel = 3\n").unwrap();
    std::fs::write(dir.join("range.toml"), "max_pixels = 1.5\n").unwrap();
    std::fs::write(dir.join("broken.png"), b"\x89PNG\r\n\x1a\nnot really").unwrap();
    std::fs::create_dir_all(dir.join("folder")).unwrap();
    for (args, says) in [
        (&["a.png", "b.png", "--tolerance", "typo.toml"][..], &["typo.toml", "unknown key `chanel`"][..]),
        (&["a.png", "b.png", "--tolerance", "range.toml"], &["range.toml", "max_pixels = 1.5"]),
        (&["a.png", "b.png", "--max-pixels", "150%"], &["150%", "from 0 to 1"]),
        (&["a.png", "missing.png"], &["missing.png"]),
        (&["folder", "b.png"], &["folder is a folder and b.png a file"]),
    ] {
        let o = run(&dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        for s in says {
            assert!(text(&o).contains(s), "{args:?} should say {s:?}: {}", text(&o));
        }
    }
    // a file that is not a picture it reads (a Git LFS pointer not pulled, a truncated file) is
    // bad input, exit 2, named apart from the differing pairs; the report is still written
    let o = run(&dir, &["a.png", "broken.png"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("UNREADABLE broken.png: cannot be read: broken.png: a PNG that cannot be read"), "{}", text(&o));
    assert!(text(&o).contains("1 of 1 compared file cannot be read"), "{}", text(&o));
    assert!(dir.join("out/compare-report/report.html").is_file());
    // the report's folder is never compared, and never holds what is compared (it is replaced)
    std::fs::create_dir_all(dir.join("shots")).unwrap();
    std::fs::copy(dir.join("a.png"), dir.join("shots/a.png")).unwrap();
    std::fs::create_dir_all(dir.join("approved")).unwrap();
    std::fs::copy(dir.join("b.png"), dir.join("approved/a.png")).unwrap();
    for _ in 0..2 {
        let o = run(&dir, &["approved", "shots", "--out", "shots"]);
        assert_eq!(o.status.code(), Some(4), "{}", text(&o));
        assert!(text(&o).contains("1 of 1 compared image differs;"), "the report inside ACTUAL is not compared: {}", text(&o));
    }
    let o = run(&dir, &["shots/compare-report", "approved", "--out", "shots"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("inside the report's folder"), "{}", text(&o));
    assert!(dir.join("shots/compare-report/report.html").is_file(), "nothing was removed");
}

/// A project that only compares images depends on `simreel-compare` alone: it builds without
/// wgpu, the command line's crates, a C or C++ compiler (FLIP is written in Rust) or the `image`
/// crate, in at most 25 crates with the project's own; and simreel without its renderer builds too.
#[test]
fn the_comparator_builds_without_the_renderer() {
    let target = crate::common::root().join("target/no-default-features");
    let cargo = |args: &[&str]| {
        std::process::Command::new(env!("CARGO"))
            .current_dir(crate::common::root())
            .args(args)
            .args(["--locked", "--offline"])
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .unwrap()
    };
    let o = cargo(&["check", "--lib", "--release", "--no-default-features", "--message-format=short"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = cargo(&["tree", "-p", "simreel-compare", "-e", "normal", "--prefix", "none"]);
    let tree = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && tree.starts_with("simreel-compare v"), "{tree}");
    let mut crates: Vec<&str> = tree.lines().map(|l| l.trim_end_matches(" (*)").trim_end_matches(" (proc-macro)")).collect();
    crates.sort();
    crates.dedup();
    // 25 before rustix and its two (bitflags, linux-raw-sys), which open folders relative to their
    // handles so that no write follows a link another user planted; 30 since the png crate (and
    // its flate2, crc32fast, cfg-if and a second miniz_oxide) replaced zune-png, decoding a PNG
    // row by row into its picture (half the memory, 1.6 times as fast on an 8000² page)
    assert!(crates.len() < 31, "{} crates with simreel-compare (a user's crate makes one more):\n{}", crates.len(), crates.join("\n"));
    for heavy in ["wgpu v", "naga v", "clap v", "notify v", "tungstenite v", "quantette v", "nv-flip", "cc v", "image v", "rayon v"] {
        assert!(!crates.iter().any(|l| l.starts_with(heavy)), "{heavy} is built for the comparator:\n{tree}");
    }
    // without `full`, what a test suite with assert_image! builds: the PNG codec and rustix, no
    // serde (its derive is the longest build of all) and no other format's decoder
    let o = cargo(&["tree", "-p", "simreel-compare", "--no-default-features", "-e", "normal", "--prefix", "none"]);
    let tree = String::from_utf8_lossy(&o.stdout);
    let mut crates: Vec<&str> = tree.lines().map(|l| l.trim_end_matches(" (*)")).collect();
    crates.sort();
    crates.dedup();
    assert!(o.status.success() && crates.len() <= 13, "{} crates with simreel-compare without `full`:\n{tree}", crates.len());
    for heavy in ["serde", "syn v", "zune", "image-webp"] {
        assert!(!crates.iter().any(|l| l.starts_with(heavy)), "{heavy} is built for the comparator without `full`:\n{tree}");
    }
}
