//! Every animation's frames are as faithful as their codec allows, on every shipped scene. MP4,
//! WebM, WebP and AVIF (decoded by ffmpeg as their colour tags say, WebP by the `image` crate):
//! no frame's open background more than [`LOSSY_BACKGROUND`] off its PNG, so no block of an
//! earlier frame stays on screen. A GIF's frames are as faithful as their palettes allow: each frame of
//! the GIF, decoded here independently of the encoder (the `gif` crate's decoder, frames laid over
//! one another as their disposal says), is held against its PNG frame. Undithered, every pixel is
//! within its frame palette's quantisation error (plus the encoder's small hold); dithered, the
//! largest local error (the mean difference over 5 × 5 pixels) is within that of the same frame
//! encoded alone, and no pixel kept from an earlier frame is more than 8 levels off its PNG. What
//! the encoder keeps from earlier frames can then never leave a trace of them (a ghost) that the
//! frame's own palette would not.

use std::path::{Path, PathBuf};

use crate::common::{read_png, require_gpu, scratch, shipped_scenes, simreel};
use simreel::output::gif::{GifSettings, KEPT_NEAR_SOURCE, NO_DITHER_HOLD, Sampling};

/// Consecutive frames rendered of each scene: ghosts build up frame after frame (in the light
/// flock's undithered GIF they were on 1.2 % of the pixels by frame 10).
const FRAMES: u32 = 24;
/// The frames' width (the height keeps the scene's aspect).
const WIDTH: u32 = 192;
/// How far (levels) a dithered frame's largest local error may exceed the frame's alone (its own
/// dither pattern differs): over the 33 shipped scenes × 24 frames at 192 px the most was 1.64
/// (wind_field), most under 1; an undithered ghost was 10–20 levels on a few pixels.
const LOCAL_MARGIN: f64 = 2.0;
/// The share of a frame's open background (pixels 3 px or more from anything else) that MP4,
/// WebM, WebP and AVIF may show more than 8 levels off its PNG. Over the shipped scenes × 24
/// frames at 192 px the most was 0.14 % (terrain, WebM; a codec's ringing); libwebp's animation
/// encoder, which keeps blocks of the frame before, left 1.8 % (dice_firmness, growing frame
/// after frame; 20 % on an 800-px dice clip).
const LOSSY_BACKGROUND: f64 = 0.005;

/// One decoded GIF frame: the colours on screen after it, and its palette (the transparent
/// index left out).
struct Shown {
    pixels: Vec<[u8; 3]>,
    palette: Vec<[u8; 3]>,
    /// The pixels this frame did not draw (transparent, or outside its rectangle): an earlier
    /// frame's.
    kept: Vec<bool>,
    /// Centiseconds on screen.
    delay: u16,
}

/// Every frame of `path` as a viewer shows it.
fn decode(path: &Path) -> (usize, usize, Vec<Shown>) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(std::fs::File::open(path).unwrap()).unwrap();
    let (w, h) = (decoder.width() as usize, decoder.height() as usize);
    let global = decoder.global_palette().map(<[u8]>::to_vec);
    let mut canvas = vec![[0u8; 3]; w * h];
    let mut frames = Vec::new();
    while let Some(f) = decoder.read_next_frame().unwrap() {
        assert!(matches!(f.dispose, gif::DisposalMethod::Keep | gif::DisposalMethod::Any), "{}: disposal {:?}", path.display(), f.dispose);
        let table = f.palette.clone().or_else(|| global.clone()).expect("a palette");
        let colour = |i: u8| [table[3 * i as usize], table[3 * i as usize + 1], table[3 * i as usize + 2]];
        let (left, top, fw) = (f.left as usize, f.top as usize, f.width as usize);
        let mut kept = vec![!frames.is_empty(); w * h];
        for (k, &i) in f.buffer.iter().enumerate() {
            if Some(i) != f.transparent {
                let at = (top + k / fw) * w + left + k % fw;
                canvas[at] = colour(i);
                kept[at] = false;
            }
        }
        let palette = (0..table.len() / 3).filter(|&i| Some(i as u8) != f.transparent).map(|i| colour(i as u8)).collect();
        frames.push(Shown { pixels: canvas.clone(), palette, kept, delay: f.delay });
    }
    (w, h, frames)
}

fn d2(a: [u8; 3], b: [u8; 3]) -> u32 {
    (0..3).map(|c| (a[c] as i32 - b[c] as i32).pow(2) as u32).sum()
}

/// The largest absolute mean difference (levels, any channel) over the 5 × 5 windows of the frame.
fn largest_local_error(shown: &[[u8; 3]], source: &[[u8; 3]], w: usize, h: usize) -> f64 {
    const R: usize = 2;
    let mut worst = 0f64;
    for y in R..h.saturating_sub(R) {
        for x in R..w.saturating_sub(R) {
            for c in 0..3 {
                let mut sum = 0i32;
                for yy in y - R..=y + R {
                    for xx in x - R..=x + R {
                        sum += shown[yy * w + xx][c] as i32 - source[yy * w + xx][c] as i32;
                    }
                }
                worst = worst.max((sum as f64 / 25.0).abs());
            }
        }
    }
    worst
}

/// The background pixels of `src` (equal within a level to their row's first: a flat or
/// vertical-gradient background) and how many of them `shown` has more than 8 levels off.
fn background_beyond(shown: &[[u8; 3]], src: &[[u8; 3]], w: usize) -> (usize, usize) {
    let off = |a: [u8; 3], b: [u8; 3]| (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0);
    let h = src.len() / w;
    let flat: Vec<bool> = src.chunks_exact(w).flat_map(|row| row.iter().map(move |&s| off(s, row[0]) <= 1)).collect();
    // deep: every pixel within DEEP of it is background too (a codec's ringing and halved
    // colour spread the picture's edges a few pixels into it; a stale block does not stop there)
    const DEEP: usize = 3;
    let (mut stray, mut background) = (0, 0);
    for y in DEEP..h.saturating_sub(DEEP) {
        for x in DEEP..w.saturating_sub(DEEP) {
            if (y - DEEP..=y + DEEP).all(|yy| (x - DEEP..=x + DEEP).all(|xx| flat[yy * w + xx])) {
                background += 1;
                stray += usize::from(off(shown[y * w + x], src[y * w + x]) > 8);
            }
        }
    }
    (stray, background)
}

/// The frames of the MP4, WebM, WebP and AVIF clips `<stem>.<format>` as a viewer shows them,
/// `w` × `h` (the 4:2:0 formats' padding cut off): WebP decoded by the `image` crate, the others
/// by ffmpeg, each as its colour tags say.
fn lossy_clips(dir: &Path, stem: &str, w: usize, h: usize) -> Vec<(&'static str, Vec<Vec<[u8; 3]>>)> {
    use image::AnimationDecoder;
    let mut out = Vec::new();
    let webp = std::io::BufReader::new(std::fs::File::open(dir.join(format!("{stem}.webp"))).unwrap());
    let decoder = image::codecs::webp::WebPDecoder::new(webp).unwrap();
    assert!(decoder.has_animation(), "{stem}.webp is not an animation");
    let frames = decoder.into_frames();
    out.push(("webp", frames.map(|f| f.unwrap().into_buffer().pixels().map(|p| [p[0], p[1], p[2]]).collect()).collect()));
    for format in ["mp4", "webm", "avif"] {
        let file = dir.join(format!("{stem}.{format}"));
        let probe = std::process::Command::new("ffprobe")
            .args(["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0"])
            .arg(&file)
            .output()
            .unwrap();
        let size = String::from_utf8_lossy(&probe.stdout).trim().to_string();
        let (cw, ch) = size.split_once(',').map(|(a, b)| (a.parse::<usize>().unwrap(), b.parse::<usize>().unwrap())).unwrap();
        let o = std::process::Command::new("ffmpeg")
            .args(["-v", "error", "-i"])
            .arg(&file)
            .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&o.stderr));
        let frames = o
            .stdout
            .chunks_exact(cw * ch * 3)
            .map(|f| (0..h).flat_map(|y| (0..w).map(move |x| (y * cw + x) * 3)).map(|i| [f[i], f[i + 1], f[i + 2]]).collect())
            .collect();
        out.push((format, frames));
    }
    out
}

fn gif_of(frames: &Path, out: &Path, dither: bool) {
    simreel::pipeline::gif_from_folder(frames, out, GifSettings { fps: 30.0, dither }, None).unwrap();
}

fn rgb(path: &Path) -> Vec<[u8; 3]> {
    read_png(path).rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect()
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn every_animation_frame_is_within_its_codec_s_error_of_its_png_on_every_shipped_scene() {
    require_gpu();
    let dir = scratch();
    let mut checked = 0;
    let mut worst_beyond = (0f64, String::new(), 0);
    let mut lossy_worst = std::collections::BTreeMap::new();
    for scene in shipped_scenes() {
        let s = simreel::scene::load(&scene).unwrap();
        let (frames, height) = (FRAMES.min(s.sim.timing.frames), (WIDTH * s.look.height / s.look.width).max(16));
        let out = dir.join("out");
        let o = simreel()
            .arg("render")
            .arg(&scene)
            .args(["--format", "png,mp4,webm,webp,avif", "--quiet", "--frames", &format!("0..{}", frames - 1)])
            .args(["--size", &format!("{WIDTH}x{height}")])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}: {}", scene.display(), String::from_utf8_lossy(&o.stderr));
        let pngs = out.join(&s.name);
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(&pngs).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "png")).collect();
        files.sort();
        assert_eq!(files.len(), frames as usize, "{}", scene.display());
        let sources: Vec<Vec<[u8; 3]>> = files.iter().map(|f| rgb(f)).collect();
        let width = WIDTH as usize;
        // the clip of the frames rendered, or the scene's own animations where they are all of it
        let stem = if frames == s.sim.timing.frames { s.name.clone() } else { format!("{}.0-{}", s.name, frames - 1) };
        for (format, shown) in lossy_clips(&out, &stem, width, height as usize) {
            assert_eq!(shown.len(), sources.len(), "{} {format}", s.name);
            for (k, (f, src)) in shown.iter().zip(&sources).enumerate() {
                let (stray, background) = background_beyond(f, src, width);
                // a frame with little open background says nothing (a crowd of agents; a few
                // pixels of ringing are a large share of a few hundred)
                if background < 1000 || background * 50 < src.len() {
                    continue;
                }
                let share = stray as f64 / background as f64;
                assert!(
                    share <= LOSSY_BACKGROUND,
                    "{} {format}, frame {k}: {stray} of {background} background pixels more than 8 levels off its PNG \
                     (a trace of an earlier frame: libwebp's animation encoder left 1.8 % on dice_firmness)",
                    s.name
                );
                let worst = lossy_worst.entry(format).or_insert((0.0, String::new(), 0));
                if share > worst.0 {
                    *worst = (share, s.name.clone(), k);
                }
            }
        }

        // undithered: each pixel within its frame palette's quantisation error (and the hold)
        let gif = dir.join(format!("{}.plain.gif", s.name));
        gif_of(&pngs, &gif, false);
        let (w, h, shown) = decode(&gif);
        assert_eq!(shown.len(), sources.len());
        for (k, (f, src)) in shown.iter().zip(&sources).enumerate() {
            let mut off = 0;
            let mut worst = (0, 0, 0);
            for (i, (&p, &want)) in f.pixels.iter().zip(src).enumerate() {
                let quantised = f.palette.iter().map(|&c| d2(c, want)).min().unwrap();
                let got = d2(p, want);
                if got > quantised + NO_DITHER_HOLD as u32 {
                    off += 1;
                    if got - quantised > worst.0 {
                        worst = (got - quantised, i % w, i / w);
                    }
                }
            }
            assert!(
                off == 0,
                "{} undithered GIF, frame {k}: {off} pixels further from the PNG than the frame's palette allows \
                 (worst at ({}, {}): {} squared levels beyond)",
                scene.display(),
                worst.1,
                worst.2,
                worst.0
            );
        }

        // dithered: the largest local error within the frame's own, encoded alone
        let gif = dir.join(format!("{}.dithered.gif", s.name));
        gif_of(&pngs, &gif, true);
        let (_, _, shown) = decode(&gif);
        let alone_dir = dir.join("alone");
        let off = |a: [u8; 3], b: [u8; 3]| (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0);
        for (k, (f, src)) in shown.iter().zip(&sources).enumerate() {
            // nothing kept of an earlier frame more than 8 levels off this one (the encoder keeps
            // a colour only within KEPT_NEAR_SOURCE of the frame's own)
            let traces = f.pixels.iter().zip(src).zip(&f.kept).filter(|((p, s), kept)| **kept && off(**p, **s) > 8).count();
            assert!(
                traces == 0,
                "{} dithered GIF, frame {k}: {traces} pixels of an earlier frame more than 8 levels off (kept within {} squared levels)",
                scene.display(),
                KEPT_NEAR_SOURCE
            );
            // the background (pixels equal to their row's first: a flat or vertical-gradient
            // background) more than 8 levels off and farther than the frame's palette must be:
            // at most 0.05 % (stale dots and dither streaks were 0.5–4 % of a hero flock's and
            // a dice clip's background at 800 px)
            let (mut background, mut stray) = (0usize, 0usize);
            for (y, row) in src.chunks_exact(w).enumerate() {
                for (x, &s) in row.iter().enumerate() {
                    if off(s, row[0]) <= 1 {
                        background += 1;
                        let p = f.pixels[y * w + x];
                        let must = f.palette.iter().map(|&c| d2(c, s)).min().unwrap_or(0);
                        stray += usize::from(off(p, s) > 8 && d2(p, s) > must);
                    }
                }
            }
            assert!(
                stray as f64 <= 0.0005 * background.max(1) as f64,
                "{} dithered GIF, frame {k}: {stray} of {background} background pixels more than 8 levels off, beyond the palette's error",
                scene.display()
            );
            let beyond = f.pixels.iter().zip(src).filter(|(p, s)| off(**p, **s) > 8).count();
            let share = beyond as f64 / f.pixels.len() as f64;
            if share > worst_beyond.0 {
                worst_beyond = (share, s.name.clone(), k);
            }
            let _ = std::fs::remove_dir_all(&alone_dir);
            std::fs::create_dir_all(&alone_dir).unwrap();
            std::fs::copy(&files[k], alone_dir.join("frame.png")).unwrap();
            let alone_gif = dir.join("alone.gif");
            gif_of(&alone_dir, &alone_gif, true);
            let (_, _, alone) = decode(&alone_gif);
            let (got, own) = (largest_local_error(&f.pixels, src, w, h), largest_local_error(&alone[0].pixels, src, w, h));
            assert!(
                got <= own + LOCAL_MARGIN,
                "{} dithered GIF, frame {k}: a local error of {got:.1} levels, against {own:.1} for the frame alone",
                scene.display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} scenes checked");
    for (format, (share, name, k)) in &lossy_worst {
        eprintln!("{format}: at most {:.3} % of a frame's background more than 8 levels off ({name} frame {k})", 100.0 * share);
    }
    eprintln!(
        "dithered: at most {:.3} % of a frame's pixels more than 8 levels off its PNG ({} frame {}; dither noise where the palette is coarse)",
        100.0 * worst_beyond.0,
        worst_beyond.1,
        worst_beyond.2
    );
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_gif_at_a_lower_rate_drops_frames_evenly_and_plays_as_long_as_the_render() {
    require_gpu();
    let dir = scratch();
    // 2 s at 25 frames a second: 50 frames
    let scene = |gif_fps: u32| {
        format!(
            "kind = \"flock\"\nname = \"f{gif_fps}\"\nseed = 4\n[render]\nwidth = 160\nheight = 90\nfps = 25\nduration = 2.0\n\
             [output]\nformats = [\"png\", \"gif\"]\ngif_fps = {gif_fps}\n[flock]\nagents = 30\n"
        )
    };
    for (gif_fps, frames) in [(15, 30), (25, 50), (50, 50), (1, 2)] {
        let file = dir.join(format!("f{gif_fps}.toml"));
        std::fs::write(&file, scene(gif_fps)).unwrap();
        let o = simreel().arg("render").arg(&file).args(["--quiet", "--out"]).arg(dir.join("out")).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (w, h, shown) = decode(&dir.join(format!("out/f{gif_fps}.gif")));
        assert_eq!(shown.len(), frames, "gif_fps = {gif_fps}");
        let length: u32 = shown.iter().map(|f| f.delay as u32).sum();
        assert_eq!(length, 200, "gif_fps = {gif_fps}: the GIF plays {length} cs of a 2 s render");
        // the GIF's frame j is the render's frame nearest its time
        let pngs: Vec<Vec<[u8; 3]>> = (0..50).map(|k| rgb(&dir.join(format!("out/f{gif_fps}/frame_{k:04}.png")))).collect();
        let rate = (gif_fps as f64).min(25.0);
        for (j, f) in shown.iter().enumerate() {
            let k = ((j as f64 * 25.0 / rate).round() as usize).min(49);
            let error = |png: &[[u8; 3]]| f.pixels.iter().zip(png).map(|(a, b)| d2(*a, *b) as u64).sum::<u64>();
            let nearest = (0..50).min_by_key(|&i| error(&pngs[i])).unwrap();
            assert_eq!(nearest, k, "gif_fps = {gif_fps}: GIF frame {j} shows render frame {nearest}, not {k} ({w}×{h})");
        }
    }
}

/// `--max-size`: a GIF over its budget is made again from the frames within it (fewer frames, a
/// smaller size or fewer colours), plays as long as the render, and the render says what it gave
/// up; the same budget again keeps it; one that cannot be met is said to be missed.
#[test]
fn a_gif_over_its_budget_is_made_again_within_it_and_says_what_it_gave_up() {
    require_gpu();
    let dir = scratch();
    let file = dir.join("hero.toml");
    // the GIF alone: the frames the budget remakes it from are written all the same
    std::fs::write(
        &file,
        "kind = \"flock\"\nname = \"hero\"\nseed = 9\n[render]\nwidth = 320\nheight = 180\nfps = 25\nduration = 4.0\n\
         [output]\nformats = [\"gif\"]\n[flock]\nagents = 80\n",
    )
    .unwrap();
    let gif = dir.join("out/hero.gif");
    let render = |extra: &[&str]| {
        let o = simreel().arg("render").arg(&file).args(["--out"]).arg(dir.join("out")).args(extra).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    render(&["--quiet"]);
    let full = std::fs::metadata(&gif).unwrap().len();
    let budget = full * 55 / 100;
    let said = render(&["--quiet", "--resume", "--max-size", &budget.to_string()]);
    let bytes = std::fs::metadata(&gif).unwrap().len();
    assert!(bytes <= budget, "{bytes} bytes over the budget of {budget}:\n{said}");
    let line = said.lines().find(|l| l.contains(" MB within ")).unwrap_or_else(|| panic!("nothing said of the budget:\n{said}"));
    assert!(line.starts_with("hero: ") && line.contains(&format!("{:.2} MB at full", full as f64 / 1e6)), "{line}");
    // what it says is what the GIF is
    let (w, h, shown) = decode(&gif);
    let fps = line
        .split(" fps of 25")
        .next()
        .filter(|_| line.contains(" fps of 25"))
        .map_or(25.0, |s| s.rsplit(' ').next().unwrap().parse::<f64>().unwrap_or_else(|_| panic!("{line}")));
    assert_eq!(shown.len(), Sampling::of(100, 25.0, fps).kept(), "{line}");
    assert_eq!(shown.iter().map(|f| f.delay as u32).sum::<u32>(), 400, "the GIF plays the render's 4 s: {line}");
    if (w, h) != (320, 180) {
        assert!(line.contains(&format!("{w}×{h} of 320×180")), "{w}×{h}: {line}");
    }
    for colors in [127, 63] {
        if line.contains(&format!(" {colors} colours of 255")) {
            assert!(shown.iter().all(|f| f.palette.len() <= colors), "{line}");
        }
    }
    // the same budget: the GIF made within it is kept; another makes it again
    let again = render(&["--resume", "--max-size", &budget.to_string()]);
    assert!(!again.contains(" MB within ") && again.contains("already of these frames"), "{again}");
    assert_eq!(std::fs::metadata(&gif).unwrap().len(), bytes);
    let missed = render(&["--quiet", "--resume", "--max-size", "2kB"]);
    assert!(missed.contains("is over 0.00 MB at the least it can keep"), "{missed}");
}
