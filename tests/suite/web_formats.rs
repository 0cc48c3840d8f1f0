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
