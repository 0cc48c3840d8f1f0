//! Web formats (WebP, AVIF), the encoders' quality keys, and clips of a run of frames
//! (`--frames 3..9` → `<scene>.3-9.mp4`): each checked against the PNG frames it was made from.

use std::path::{Path, PathBuf};
use std::process::Command;

use image::AnimationDecoder;

use crate::common::{read_png, require_gpu, scratch, simreel};

/// A 10-frame flock scene in its own folder, and a runner of `simreel render` on it there.
fn project() -> (PathBuf, PathBuf) {
    let dir = scratch();
    let scene = dir.join("hero.toml");
    std::fs::write(
        &scene,
        "kind = \"flock\"\nname = \"hero\"\nseed = 3\n[render]\nwidth = 96\nheight = 64\nfps = 10\nduration = 1.0\n[flock]\nagents = 20\n",
    )
    .unwrap();
    (dir, scene)
}

fn render(dir: &Path, scene: &Path, args: &[&str]) -> String {
    let o = simreel().current_dir(dir).arg("render").arg(scene).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{args:?}: {err}");
    err
}

/// PSNR of `b` against `a` over the colour channels (RGBA8 of one size), dB.
fn psnr(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let (mut sum, mut n) = (0.0, 0.0);
    for (p, q) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for c in 0..3 {
            let d = p[c] as f64 - q[c] as f64;
            sum += d * d;
            n += 1.0;
        }
    }
    if sum == 0.0 { f64::INFINITY } else { 10.0 * (255.0f64 * 255.0 / (sum / n)).log10() }
}

/// Frames of an animated WebP, RGBA8.
fn webp_frames(path: &Path) -> Vec<Vec<u8>> {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let decoder = image::codecs::webp::WebPDecoder::new(file).unwrap();
    decoder.into_frames().map(|f| f.unwrap().into_buffer().into_raw()).collect()
}

/// Frames ffmpeg decodes from `path`, as PNG files in a folder beside it.
fn ffmpeg_frames(path: &Path) -> Vec<simreel::output::png::Decoded> {
    let dir = path.with_extension("decoded");
    std::fs::create_dir_all(&dir).unwrap();
    let o = Command::new("ffmpeg").args(["-v", "error", "-y", "-i"]).arg(path).arg(dir.join("%04d.png")).output().unwrap();
    assert!(o.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&o.stderr));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files.iter().map(|f| read_png(f)).collect()
}

#[test]
fn a_run_of_frames_makes_a_clip_of_them_in_every_animation_format() {
    require_gpu();
    let (dir, scene) = project();
    let said = render(&dir, &scene, &["--frames", "3..9", "--format", "apng,gif,mp4,webm,webp,avif"]);
    let frame = |f: u32| read_png(&dir.join(format!("out/hero/frame_{f:04}.png")));
    for ext in ["apng", "gif", "mp4", "webm", "webp", "avif"] {
        let clip = dir.join(format!("out/hero.3-9.{ext}"));
        assert!(clip.is_file() && said.contains(&format!("out/hero.3-9.{ext}")), "{ext}: {said}");
        // the whole scene's animation is neither written nor said to be missing
        assert!(!dir.join(format!("out/hero.{ext}")).exists(), "{ext}");
    }
    assert!(!said.contains("not written"), "{said}");
    // each holds the seven frames, in order, as its format keeps them
    let apng = ffmpeg_frames(&dir.join("out/hero.3-9.apng"));
    let webp = webp_frames(&dir.join("out/hero.3-9.webp"));
    assert_eq!((apng.len(), webp.len()), (7, 7));
    for (k, f) in (3..=9).enumerate() {
        let png = frame(f);
        assert_eq!(apng[k].rgba, png.rgba, "APNG frame {f}");
        // 4:2:0 colour on 96 × 64 px of small dots: about 29 dB (40 dB on a 640 × 480 frame)
        let db = psnr(&png.rgba, &webp[k]);
        assert!(db > 26.0, "WebP frame {f}: {db:.1} dB");
        // and not the frame before or after: the clip is of these frames
        for other in [f - 1, f + 1].into_iter().filter(|o| (3..=9).contains(o)) {
            assert!(psnr(&frame(other).rgba, &webp[k]) < db, "WebP frame {f} is nearer frame {other}");
        }
    }
    for ext in ["gif", "mp4", "webm", "avif"] {
        let frames = ffmpeg_frames(&dir.join(format!("out/hero.3-9.{ext}")));
        assert_eq!(frames.len(), 7, "{ext}");
        let db = psnr(&frame(3).rgba, &frames[0].rgba);
        assert!(db > 25.0, "{ext}: first frame {db:.1} dB from frame 3");
    }
    // -o takes the clip; frames that are not one run make none
    render(&dir, &scene, &["--frames", "3..9", "--resume", "-q", "-o", "clip.webm"]);
    assert_eq!(std::fs::read(dir.join("clip.webm")).unwrap(), std::fs::read(dir.join("out/hero.3-9.webm")).unwrap());
    let said = render(&dir, &scene, &["--frames", "0,2", "--format", "apng"]);
    assert!(said.contains("out/hero.apng not written: 1 of its 10 frames not rendered"), "{said}");
    assert!(std::fs::read_dir(dir.join("out")).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().contains(".0-")));
}

#[test]
fn webp_and_avif_stills_and_the_encoders_quality_keys() {
    require_gpu();
    let (dir, scene) = project();
    // a still of one frame: WebP lossy near the frame, lossless at quality 100; AVIF near it
    let at = ["--frames", "4", "-q", "--resume", "--size", "320x240"];
    render(&dir, &scene, &[&at[..], &["-o", "fig.webp"]].concat());
    render(&dir, &scene, &[&at[..], &["-o", "exact.webp", "--set", "output.webp_quality=100"]].concat());
    render(&dir, &scene, &[&at[..], &["-o", "fig.avif"]].concat());
    let png = read_png(&dir.join("out/hero/frame_0004.png"));
    let lossy = image::open(dir.join("fig.webp")).unwrap().into_rgba8().into_raw();
    let exact = image::open(dir.join("exact.webp")).unwrap().into_rgba8().into_raw();
    assert_eq!(exact, png.rgba, "quality 100 is lossless");
    // RGB PSNR: 4:2:0 chroma halves the 1-px coloured strokes of a flock frame, so lossy WebP sits
    // near 35 dB here (34.99 with Debian's ffmpeg 5.1.9 and libwebp 1.2.4, the same bytes from
    // simreel before and after it piped the frames; 46.5 dB in YUV); a broken encode is below 25
    let db = psnr(&png.rgba, &lossy);
    assert!(db > 34.0 && db.is_finite(), "WebP at quality 90: {db:.1} dB");
    let avif = ffmpeg_frames(&dir.join("fig.avif"));
    assert_eq!(avif.len(), 1);
    let db = psnr(&png.rgba, &avif[0].rgba);
    assert!(db > 35.0, "AVIF still: {db:.1} dB");
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-show_entries", "stream=pix_fmt,color_space,color_transfer", "-of", "csv=p=0"])
        .arg(dir.join("fig.avif"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&probe.stdout).trim(), "yuv444p,smpte170m,iec61966-2-1", "full colour, tagged sRGB");
    // a higher crf: a smaller MP4, made again (the setting is part of what it was made from)
    render(&dir, &scene, &["--format", "mp4", "-q"]);
    let fine = std::fs::metadata(dir.join("out/hero.mp4")).unwrap().len();
    let said = render(&dir, &scene, &["--format", "mp4", "--resume", "--set", "output.mp4_crf=40"]);
    let coarse = std::fs::metadata(dir.join("out/hero.mp4")).unwrap().len();
    assert!(said.contains("wrote out/hero.mp4") || said.contains("and out/hero.mp4"), "{said}");
    assert!(coarse < fine, "crf 40: {coarse} bytes, crf 18: {fine}");
    // values outside a key's range are refused before anything renders
    let o = simreel().current_dir(&dir).args(["validate", "hero.toml", "--set", "output.webp_quality=101"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Decodes `file` with ffmpeg to RGB24, frame 0, its YUV read with `matrix` (`auto`: as the
/// file's tags say).
fn decode_first(file: &Path, matrix: &str) -> Vec<u8> {
    let vf = if matrix == "auto" { "null".to_string() } else { format!("scale=in_color_matrix={matrix}:in_range=tv") };
    let o = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(file)
        .args(["-vf", &vf, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&o.stderr));
    o.stdout
}

/// The mean largest channel error over the saturated pixels of `png` (RGBA) in `rgb`: where a
/// wrong matrix shows (a pink turned salmon).
fn saturated_error(png: &[u8], rgb: &[u8]) -> f64 {
    let (mut n, mut sum) = (0, 0u64);
    for (p, q) in png.chunks_exact(4).zip(rgb.chunks_exact(3)) {
        let (hi, lo) = (p[..3].iter().max().unwrap(), p[..3].iter().min().unwrap());
        if hi - lo > 60 {
            n += 1;
            sum += (0..3).map(|c| p[c].abs_diff(q[c])).max().unwrap() as u64;
        }
    }
    assert!(n > 1000, "{n} saturated pixels");
    sum as f64 / n as f64
}

/// MP4 and WebM say BT.709 (primaries and the matrix they were converted with), the sRGB curve
/// and limited range, read back by ffprobe; decoded as they say, their saturated colours are
/// nearer the frame than decoded with BT.601's matrix (what an untagged file was made with).
/// WebP, animated and still, carries the sRGB profile, read back by the `image` crate and by
/// ffprobe; the AVIF keeps its tags.
#[test]
fn every_web_format_says_what_its_colours_are() {
    require_gpu();
    let dir = scratch();
    let scene = crate::common::root().join("scenes/wind_meadow.toml");
    render(&dir, &scene, &["-q", "--size", "320x180", "--frames", "0..9", "--format", "png,mp4,webm,webp,avif"]);
    render(&dir, &scene, &["-q", "--size", "320x180", "--frames", "0", "--resume", "-o", "still.webp"]);
    // lossless, still and animated (libwebp's animation encoder)
    let lossless = ["-q", "--size", "320x180", "--resume", "--set", "output.webp_quality=100"];
    render(&dir, &scene, &[&lossless[..], &["--frames", "0", "-o", "exact.webp"]].concat());
    render(&dir, &scene, &[&lossless[..], &["--frames", "0..9", "-o", "exact-clip.webp"]].concat());
    let png = read_png(&dir.join("out/wind_meadow/frame_0000.png"));
    for ext in ["mp4", "webm", "avif"] {
        let clip = dir.join(format!("out/wind_meadow.0-9.{ext}"));
        let probe = Command::new("ffprobe")
            .args(["-v", "error", "-show_entries", "stream=color_space,color_primaries,color_transfer,color_range", "-of", "csv=p=0"])
            .arg(&clip)
            .output()
            .unwrap();
        let tags = String::from_utf8_lossy(&probe.stdout).trim().to_string();
        if ext == "avif" {
            assert_eq!(tags, "pc,smpte170m,iec61966-2-1,bt709", "{ext}");
            continue;
        }
        assert_eq!(tags, "tv,bt709,iec61966-2-1,bt709", "{ext}: range, matrix, curve, primaries");
        let (tagged, bt601) =
            (saturated_error(&png.rgba, &decode_first(&clip, "auto")), saturated_error(&png.rgba, &decode_first(&clip, "bt601")));
        // 2.2 against 4.5 levels on this meadow (4:2:0 colour halves the blades' edges)
        assert!(tagged < 3.0 && tagged < bt601, "{ext}: {tagged:.2} levels off as tagged, {bt601:.2} as BT.601");
    }
    let srgb = moxcms::ColorProfile::new_srgb();
    for file in ["out/wind_meadow.0-9.webp", "still.webp", "exact.webp", "exact-clip.webp"].map(|f| dir.join(f)) {
        use image::ImageDecoder;
        let reader = std::io::BufReader::new(std::fs::File::open(&file).unwrap());
        let icc = image::codecs::webp::WebPDecoder::new(reader).unwrap().icc_profile().unwrap();
        let profile = moxcms::ColorProfile::new_from_slice(&icc.unwrap_or_else(|| panic!("{}: no ICC profile", file.display()))).unwrap();
        assert_eq!(
            (profile.red_colorant, profile.green_colorant, profile.blue_colorant),
            (srgb.red_colorant, srgb.green_colorant, srgb.blue_colorant)
        );
        // the curve's parameters as the profile stores them (16.16 fixed point)
        let params = |t: &Option<moxcms::ToneReprCurve>| match t {
            Some(moxcms::ToneReprCurve::Parametric(p)) => p.clone(),
            other => panic!("{}: the curve is {other:?}", file.display()),
        };
        let (got, want) = (params(&profile.red_trc), params(&srgb.red_trc));
        assert!(got.len() == want.len() && got.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-4), "{}: {got:?}", file.display());
    }
    let frames = Command::new("ffprobe").args(["-v", "error", "-show_frames", "-of", "json"]).arg(dir.join("still.webp")).output().unwrap();
    assert!(String::from_utf8_lossy(&frames.stdout).contains("\"ICC profile\""), "ffprobe finds no ICC profile in the still");
}

/// `-o` with `--format` writes every format named beside the file, or refuses before rendering;
/// each animation's time goes into the manifest, and the run's wall time holds them.
#[test]
fn o_with_formats_writes_each_and_times_it() {
    require_gpu();
    let (dir, scene) = project();
    let said = render(&dir, &scene, &["-o", "hero@2x.mp4", "--format", "webm,webp,mp4"]);
    for f in ["hero@2x.mp4", "hero@2x.webm", "hero@2x.webp"] {
        assert!(said.contains(&format!("wrote {f} ")), "{f}: {said}");
        let ext = f.rsplit('.').next().unwrap();
        assert_eq!(std::fs::read(dir.join(f)).unwrap(), std::fs::read(dir.join(format!("out/hero.{ext}"))).unwrap(), "{f}");
    }
    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("out/hero/manifest.json")).unwrap()).unwrap();
    let t = &manifest["timings"];
    let seconds: Vec<f64> =
        ["mp4", "webm", "webp"].iter().map(|f| t["animations_s"][f].as_f64().unwrap_or_else(|| panic!("{f}: {t}"))).collect();
    assert!(seconds.iter().all(|s| *s > 0.0) && t["wall_s"].as_f64().unwrap() > seconds.iter().sum::<f64>(), "{t}");
    // JSON progress says each animation as it is made
    let o = simreel()
        .current_dir(&dir)
        .arg("render")
        .arg(&scene)
        .args(["--format", "webm,apng", "--progress", "json", "--set", "output.webm_crf=40"])
        .output()
        .unwrap();
    let lines = String::from_utf8_lossy(&o.stdout).into_owned();
    for f in ["webm", "apng"] {
        assert!(lines.lines().any(|l| l.contains(&format!("\"animation\":\"{f}\"")) && l.contains("\"seconds\":")), "{f}: {lines}");
    }
    // a format that cannot be what -o is: refused before anything is written
    std::fs::remove_dir_all(dir.join("out")).unwrap();
    let o = simreel().current_dir(&dir).arg("render").arg(&scene).args(["-o", "clip.mp4", "--format", "png"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--format png beside -o clip.mp4") && !dir.join("out").exists(), "{err}");
}
