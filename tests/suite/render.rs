//! End-to-end renders on whatever adapter the machine has (lavapipe in CI): the picture is a lit,
//! shadowed terrain over a gradient; frame ranges reproduce a full render byte for byte; the GIF,
//! manifest and mesh export come out readable.

use std::path::Path;

use crate::common::{read_png, require_gpu, root, scratch, scratch_part, simreel};

fn luma(p: &[u8]) -> f64 {
    0.2126 * p[0] as f64 + 0.7152 * p[1] as f64 + 0.0722 * p[2] as f64
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn frame_range_matches_the_full_render_byte_for_byte() {
    require_gpu();
    let full = scratch_part("range-full");
    let part = scratch_part("range-part");
    let st = simreel()
        .args(["render", "tests/scenes/small_terrain.toml", "--quiet", "--format", "png,gif", "--out"])
        .arg(&full)
        .status()
        .unwrap();
    assert!(st.success());
    let st = simreel()
        .args(["render", "tests/scenes/small_terrain.toml", "--quiet", "--format", "png", "--frames", "40..45", "--out"])
        .arg(&part)
        .status()
        .unwrap();
    assert!(st.success());
    let names: Vec<String> = std::fs::read_dir(part.join("small_terrain"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".png"))
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
    for n in &names {
        let a = std::fs::read(full.join("small_terrain").join(n)).unwrap();
        let b = std::fs::read(part.join("small_terrain").join(n)).unwrap();
        assert!(a == b, "{n} differs between the full render and --frames 40..45");
    }
    // the animation really moves: first and last frames differ
    let f0 = read_png(&full.join("small_terrain/frame_0000.png"));
    let f47 = read_png(&full.join("small_terrain/frame_0047.png"));
    assert_ne!(f0.rgba, f47.rgba);

    // The GIF holds all 48 frames at 24 fps (delays 4,4,5,… centiseconds: 2 s in total).
    let gif = std::fs::File::open(full.join("small_terrain.gif")).unwrap();
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut dec = opts.read_info(gif).unwrap();
    let (mut frames, mut cs) = (0, 0u32);
    while let Some(f) = dec.read_next_frame().unwrap() {
        frames += 1;
        cs += f.delay as u32;
    }
    assert_eq!(frames, 48);
    assert_eq!(cs, 200);

    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(full.join("small_terrain/manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["frames"].as_array().unwrap().len(), 48);
    assert_eq!(manifest["frames_in_scene"], 48);
    assert!(manifest["timings"]["frames_per_second"].as_f64().unwrap() > 0.0);
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_draft_is_half_size_one_sample_a_pixel_beside_the_final_frames_with_the_same_simulation() {
    require_gpu();
    let out = scratch();
    let render = |extra: &[&str]| {
        let o = simreel()
            .args(["render", "tests/scenes/small_terrain.toml", "--quiet", "--format", "png", "--frames", "30..31", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    render(&[]);
    let final_bytes = std::fs::read(out.join("small_terrain/frame_0030.png")).unwrap();
    render(&["--draft"]);
    // the final frames stay as they were; the draft has its own folder
    assert_eq!(std::fs::read(out.join("small_terrain/frame_0030.png")).unwrap(), final_bytes);
    let (full, draft) = (read_png(&out.join("small_terrain/frame_0030.png")), read_png(&out.join("small_terrain-draft/frame_0030.png")));
    assert_eq!((draft.width * 2, draft.height * 2), (full.width, full.height));
    let manifest =
        |dir: &str| -> serde_json::Value { serde_json::from_slice(&std::fs::read(out.join(dir).join("manifest.json")).unwrap()).unwrap() };
    let (m_full, m_draft) = (manifest("small_terrain"), manifest("small_terrain-draft"));
    assert_eq!(m_full["frames"][0]["state"], m_draft["frames"][0]["state"], "a draft simulates what the final render does");
    assert_ne!(m_full["settings_hash"], m_draft["settings_hash"]);
    // one sample a pixel: a draft has no edge pixels between two colours that 4× MSAA would blend,
    // so it holds fewer distinct colours per pixel than the final frame at the same size
    render(&["--draft", "--size", "640x360"]);
    let hard = read_png(&out.join("small_terrain-draft/frame_0030.png"));
    assert_eq!((hard.width, hard.height), (320, 180));
    let soft = final_frame_at(&out, 320, 180);
    let colours = |img: &simreel::output::png::Decoded| {
        img.rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect::<std::collections::BTreeSet<_>>().len()
    };
    assert!(colours(&hard) < colours(&soft), "draft {} colours, final {}", colours(&hard), colours(&soft));
}

/// Frame 30 of the small scene rendered finally at `w`×`h` into `out/final-at-size`.
fn final_frame_at(out: &std::path::Path, w: u32, h: u32) -> simreel::output::png::Decoded {
    let dir = out.join("final-at-size");
    let o = simreel()
        .args([
            "render",
            "tests/scenes/small_terrain.toml",
            "--quiet",
            "--format",
            "png",
            "--frames",
            "30",
            "--size",
            &format!("{w}x{h}"),
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    read_png(&dir.join("small_terrain/frame_0030.png"))
}

/// Renders frame 20 of the small scene with the given extra scene text appended.
fn render_variant(name: &str, light: &str) -> simreel::output::png::Decoded {
    let dir = scratch_part(name);
    let base = std::fs::read_to_string(crate::common::root().join("tests/scenes/small_terrain.toml")).unwrap();
    let text = base.replace("[light]\n", &format!("[light]\n{light}\n"));
    let path = dir.join("scene.toml");
    std::fs::write(&path, text).unwrap();
    let st = simreel()
        .args(["render", "--quiet", "--format", "png", "--frames", "20", "--size", "256x192", "--out"])
        .arg(&dir)
        .arg(&path)
        .status()
        .unwrap();
    assert!(st.success());
    read_png(&dir.join("small_terrain/frame_0020.png"))
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_frame_shows_a_lit_shadowed_surface_over_the_gradient() {
    require_gpu();
    let lit = render_variant("stats-shadowed", "shadows = true");
    let flat = render_variant("stats-unshadowed", "shadows = false");
    let (w, h) = (lit.width as usize, lit.height as usize);
    assert_eq!((w, h), (256, 192));
    let px = |img: &simreel::output::png::Decoded, x: usize, y: usize| img.rgba[(y * w + x) * 4..][..4].to_vec();

    // Background: the top row is the sky colour, bluer and darker than the bottom of the gradient.
    let top = px(&lit, 2, 0);
    assert!(top[2] > top[0] + 40, "top-left pixel {top:?} should be sky blue");
    let row_luma = |y: usize| (0..8).map(|x| luma(&px(&lit, x, y))).sum::<f64>() / 8.0;
    assert!(row_luma(0) < row_luma(40), "the gradient brightens downwards");

    // Terrain: pixels unlike the background cover a good part of the frame and vary a lot.
    let bg_at = |y: usize| px(&flat, 0, y);
    let mut terrain = Vec::new();
    for y in 0..h {
        let bg = bg_at(y);
        for x in 0..w {
            let p = px(&lit, x, y);
            let d: i32 = (0..3).map(|c| (p[c] as i32 - bg[c] as i32).abs()).sum();
            if d > 40 {
                terrain.push((x, y));
            }
        }
    }
    let cover = terrain.len() as f64 / (w * h) as f64;
    assert!(cover > 0.25 && cover < 0.95, "terrain covers {:.0}% of the frame", cover * 100.0);
    let lumas: Vec<f64> = terrain.iter().map(|&(x, y)| luma(&px(&lit, x, y))).collect();
    let mean = lumas.iter().sum::<f64>() / lumas.len() as f64;
    let sd = (lumas.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / lumas.len() as f64).sqrt();
    assert!(sd > 15.0, "terrain shading is too flat: luminance sd {sd:.1}");
    let mut colours: Vec<[u8; 3]> = terrain
        .iter()
        .map(|&(x, y)| {
            let p = px(&lit, x, y);
            [p[0], p[1], p[2]]
        })
        .collect();
    colours.sort();
    colours.dedup();
    assert!(colours.len() > 1000, "only {} distinct terrain colours", colours.len());

    // Shadows: with the shadow map on, a real share of the terrain gets darker, nothing brighter.
    let mut darker = 0;
    let mut brighter = 0;
    for &(x, y) in &terrain {
        let (a, b) = (luma(&px(&lit, x, y)), luma(&px(&flat, x, y)));
        if a < b - 8.0 {
            darker += 1;
        }
        if a > b + 8.0 {
            brighter += 1;
        }
    }
    let share = darker as f64 / terrain.len() as f64;
    assert!(share > 0.03, "only {:.1}% of the terrain is in shadow", share * 100.0);
    assert!(brighter * 50 < terrain.len(), "{brighter} pixels got brighter with shadows on");
}

#[test]
fn mesh_export_writes_ply_and_obj() {
    let dir = scratch();
    for ext in ["ply", "obj"] {
        let out = dir.join(format!("t.{ext}"));
        let st = simreel().args(["mesh", "tests/scenes/small_terrain.toml", "--frame", "5", "-o"]).arg(&out).status().unwrap();
        assert!(st.success());
        let bytes = std::fs::read(&out).unwrap();
        if ext == "ply" {
            let text = String::from_utf8_lossy(&bytes[..400.min(bytes.len())]).into_owned();
            assert!(text.starts_with("ply\nformat binary_little_endian 1.0"));
            let n: usize = text.lines().find_map(|l| l.strip_prefix("element vertex ")).unwrap().parse().unwrap();
            let f: usize = text.lines().find_map(|l| l.strip_prefix("element face ")).unwrap().parse().unwrap();
            let header = text.find("end_header\n").unwrap() + "end_header\n".len();
            assert_eq!(bytes.len(), header + n * 27 + f * 13, "PLY body size");
            assert!(n > 1000 && f > 2000);
        } else {
            let text = String::from_utf8(bytes).unwrap();
            assert!(text.lines().filter(|l| l.starts_with("f ")).count() > 2000);
        }
    }
    let st = simreel().args(["mesh", "tests/scenes/small_terrain.toml", "-o"]).arg(dir.join("t.stl")).output().unwrap();
    assert_eq!(st.status.code(), Some(2));
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn gif_subcommand_reassembles_frames() {
    require_gpu();
    let dir = scratch();
    let st = simreel()
        .args(["render", "tests/scenes/small_terrain.toml", "--quiet", "--format", "png", "--frames", "0..9", "--out"])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(st.success());
    let out = dir.join("again.gif");
    let st = simreel().args(["gif", "--fps", "10", "-o"]).arg(&out).arg(dir.join("small_terrain")).status().unwrap();
    assert!(st.success());
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut dec = opts.read_info(std::fs::File::open(&out).unwrap()).unwrap();
    let mut n = 0;
    let mut canvas = vec![0u8; 128 * 96 * 4];
    let first = read_png(&dir.join("small_terrain/frame_0000.png"));
    while let Some(f) = dec.read_next_frame().unwrap() {
        assert_eq!(f.delay, 10);
        // compose the first frame and compare it with its source: quantization error stays small
        if n == 0 {
            for y in 0..f.height as usize {
                for x in 0..f.width as usize {
                    let s = (y * f.width as usize + x) * 4;
                    let d = ((y + f.top as usize) * 128 + x + f.left as usize) * 4;
                    canvas[d..d + 4].copy_from_slice(&f.buffer[s..s + 4]);
                }
            }
            let err: f64 = canvas.iter().zip(&first.rgba).map(|(a, b)| (*a as f64 - *b as f64).powi(2)).sum::<f64>() / canvas.len() as f64;
            let psnr = 10.0 * (255.0f64 * 255.0 / err.max(1e-9)).log10();
            assert!(psnr > 30.0, "first GIF frame PSNR {psnr:.1} dB");
        }
        n += 1;
    }
    assert_eq!(n, 10);
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn interrupted_render_resumes_to_the_same_files() {
    require_gpu();
    use std::io::BufRead;
    let dir = scratch_part("interrupt");
    let clean = scratch_part("interrupt-clean");
    let args = ["render", "tests/scenes/small_terrain.toml", "--format", "png,gif", "--progress", "json", "--out"];
    let mut child =
        simreel().args(args).arg(&dir).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    for line in stdout.lines() {
        let line = line.unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line}: {e}"));
        assert_eq!(v["scene"], "small_terrain");
        assert_eq!(v["total"], 48);
        lines.push(v);
        if lines.len() == 3 {
            let st = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
            assert!(st.success());
        }
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("rerun with --resume"), "{err}");
    assert!(lines.len() < 48, "the render was not interrupted ({} frames)", lines.len());
    let files: Vec<String> =
        std::fs::read_dir(dir.join("small_terrain")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(files.iter().all(|f| !f.ends_with(".tmp")), "temporary files left behind: {files:?}");
    assert!(!dir.join("small_terrain.gif").exists(), "an incomplete GIF was put in place");
    let beside: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(beside.iter().all(|f| !f.ends_with(".tmp")), "the GIF's temporary file was left behind: {beside:?}");
    let kept = files.iter().filter(|f| f.ends_with(".png")).count();
    assert!(kept >= 3, "{kept} frames survived the interruption");

    let out = simreel()
        .args(["render", "tests/scenes/small_terrain.toml", "--format", "png,gif", "--resume", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let st = simreel()
        .args(["render", "tests/scenes/small_terrain.toml", "--quiet", "--format", "png,gif", "--out"])
        .arg(&clean)
        .status()
        .unwrap();
    assert!(st.success());
    for f in 0..48 {
        let name = format!("small_terrain/frame_{f:04}.png");
        assert!(std::fs::read(dir.join(&name)).unwrap() == std::fs::read(clean.join(&name)).unwrap(), "{name} differs after resuming");
    }
    assert!(std::fs::read(dir.join("small_terrain.gif")).unwrap() == std::fs::read(clean.join("small_terrain.gif")).unwrap());
    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("small_terrain/manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["frames"].as_array().unwrap().len(), 48);

    // other settings: nothing is reused
    let out = simreel()
        .args(["render", "tests/scenes/small_terrain.toml", "--format", "png", "--resume", "--size", "64x48", "--frames", "0..3", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("kept from the last run"));
    assert_eq!(read_png(&dir.join("small_terrain/frame_0000.png")).width, 64);
}

/// Renders one frame of a scene text into `dir` at `size`.
fn render_text(dir: &std::path::Path, text: &str, name: &str, frame: u32, size: &str) -> simreel::output::png::Decoded {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    let out = dir.join(name);
    let st = simreel()
        .args(["render", "--quiet", "--format", "png", "--frames", &frame.to_string(), "--size", size, "--out"])
        .arg(&out)
        .arg(&path)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let scene_name = text.lines().find_map(|l| l.strip_prefix("name = \"")).map(|n| n.trim_end_matches('"')).unwrap();
    read_png(&out.join(scene_name).join(format!("frame_{frame:04}.png")))
}

fn near(p: &[u8], c: [u8; 3], tol: i32) -> bool {
    (0..3).all(|k| (p[k] as i32 - c[k] as i32).abs() <= tol)
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn flock_frame_shows_agents_rings_and_trails() {
    require_gpu();
    let dir = scratch();
    let text = std::fs::read_to_string(crate::common::root().join("scenes/flock.toml")).unwrap();
    // frame 120 (4 s): the cursor has lured a swarm; others work and seek
    let img = render_text(&dir, &text, "with", 120, "640x360");
    let bare = render_text(&dir, &text.replace("agents = 30\n", "agents = 30\ntrails = false\npaths = false\n"), "bare", 120, "640x360");
    let px: Vec<&[u8]> = img.rgba.chunks_exact(4).collect();
    let count = |c: [u8; 3], tol: i32| px.iter().filter(|p| near(p, c, tol)).count();
    let background = count([0xf6, 0xf7, 0xf9], 3);
    assert!(background * 2 > px.len(), "the background should dominate: {background} of {}", px.len());
    let (seek, work, curious) = (count([0x2f, 0x6f, 0xe4], 24), count([0xe4, 0x8a, 0x06], 24), count([0xd4, 0x35, 0x7f], 24));
    // an agent disc of radius 3.2 covers about 30 pixels fully
    assert!(seek > 60 && work > 60 && curious > 120, "agents by state colour: seek {seek}, work {work}, curious {curious}");
    let rings = count([0x7b, 0x86, 0x9a], 20);
    assert!(rings > 8 * 40, "node rings: {rings} pixels");
    // Trails and dashed paths: every pixel they change moves toward one of the agent colours.
    let (mut added, mut leaning) = (0, 0);
    for (p, q) in img.rgba.chunks_exact(4).zip(bare.rgba.chunks_exact(4)) {
        let change: i32 = (0..3).map(|k| (p[k] as i32 - q[k] as i32).abs()).sum();
        if change > 12 {
            // (faint trail ends change a pixel by a unit or two and are not judged)
            added += 1;
            let d: Vec<f64> = (0..3).map(|k| p[k] as f64 - q[k] as f64).collect();
            let toward = [[0x2f, 0x6f, 0xe4], [0xe4, 0x8a, 0x06], [0xd4, 0x35, 0x7f]]
                .iter()
                .map(|c: &[u8; 3]| {
                    let e: Vec<f64> = (0..3).map(|k| c[k] as f64 - q[k] as f64).collect();
                    let dot: f64 = (0..3).map(|k| d[k] * e[k]).sum();
                    dot / ((d.iter().map(|x| x * x).sum::<f64>() * e.iter().map(|x| x * x).sum::<f64>()).sqrt() + 1e-9)
                })
                .fold(-1.0, f64::max);
            leaning += (toward > 0.9) as usize;
        }
    }
    // (under the anti-aliased rim of an agent disc drawn on top, a trail shows mixed with it)
    assert!(leaning * 100 >= added * 95, "only {leaning} of {added} changed pixels lean toward an agent colour");
    assert!(added > 1500, "trails and paths add only {added} pixels");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn flock_is_crisp_at_1x_and_when_rendered_at_2x_and_downscaled() {
    require_gpu();
    let dir = scratch();
    let text = std::fs::read_to_string(crate::common::root().join("scenes/flock_still.toml")).unwrap();
    let one = render_text(&dir, &text, "x1", 0, "640x360");
    let two = render_text(&dir, &text, "x2", 0, "1280x720");
    assert_eq!((two.width, two.height), (1280, 720));
    let down: Vec<u8> = (0..360)
        .flat_map(|y| (0..640).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            let at = |dx: usize, dy: usize, c: usize| two.rgba[((2 * y + dy) * 1280 + 2 * x + dx) * 4 + c] as u32;
            [0, 1, 2, 3].map(|c| ((at(0, 0, c) + at(1, 0, c) + at(0, 1, c) + at(1, 1, c) + 2) / 4) as u8)
        })
        .collect();
    let mad = one.rgba.iter().zip(&down).map(|(a, b)| (*a as f64 - *b as f64).abs()).sum::<f64>() / down.len() as f64;
    assert!(mad < 2.0, "1× and downscaled 2× differ by {mad:.2} per channel on average");
    // Edges stay one pixel wide: the share of pixels between background and full ink is alike.
    let bg = [0xf6u8, 0xf7, 0xf9];
    let partial = |img: &[u8]| {
        img.chunks_exact(4).filter(|p| !near(p, bg, 2) && p[0].max(p[1]).max(p[2]) > 200 && p[0].min(p[1]).min(p[2]) > 150).count()
    };
    let (a, b) = (partial(&one.rgba), partial(&down));
    assert!(a > 200, "analytic edges produce anti-aliased pixels ({a})");
    assert!((a as f64 / b as f64) < 1.6 && (b as f64 / a as f64) < 1.6, "edge softness differs: {a} at 1×, {b} downscaled");
}

/// Renders frame `frame` of a scene through the library at `w`×`h`, bending on the GPU or the CPU.
fn render_frame(data: &simreel::frame::FrameData, w: u32, h: u32, cpu_bend: bool) -> simreel::render::Image {
    use simreel::render::{AdapterRequest, Renderer};
    let mut r = Renderer::new(&AdapterRequest::default(), w, h, 4).expect("renderer");
    if cpu_bend {
        r.deform_on_cpu();
    } else {
        assert!(r.deforms_on_gpu(), "{} has compute shaders: the Bézier volumes must bend there", r.adapter());
    }
    assert!(r.submit(data).unwrap().is_none());
    r.next_image().unwrap().expect("one image")
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_canvas_over_nothing_in_3d_skips_multisampling_and_looks_the_same() {
    require_gpu();
    use simreel::frame::{IDENTITY, Material, MeshData, MeshInstance, MeshRef};
    let s = simreel::scene::load(&crate::common::root().join("scenes/flock.toml")).unwrap();
    let plain = simreel::kinds::build(&s).frame(120);
    assert!(plain.meshes.is_empty() && plain.batches.is_empty() && plain.canvas.is_some(), "the flock is drawn on its canvas alone");
    // one triangle behind the camera: nothing of it shows, but the frame now has a 3-D draw and
    // goes through the multisampled pass
    let c = plain.camera;
    let behind: [f32; 3] = std::array::from_fn(|k| c.eye[k] - (c.target[k] - c.eye[k]));
    let mesh = MeshData {
        positions: vec![behind, [behind[0] + 0.1, behind[1], behind[2]], [behind[0], behind[1] + 0.1, behind[2]]],
        normals: vec![[0.0, 0.0, 1.0]; 3],
        colors: vec![[255, 0, 0, 255]; 3],
        indices: vec![0, 1, 2],
    };
    let mut multisampled = plain.clone();
    multisampled.meshes.push(MeshInstance { mesh: MeshRef::new(mesh), transform: IDENTITY, material: Material::default(), deform: None });
    let (w, h) = (480, 270);
    for samples in [4, 1] {
        let mut r = simreel::render::Renderer::new(&simreel::render::AdapterRequest::default(), w, h, samples).expect("renderer");
        let mut draw = |data: &simreel::frame::FrameData| {
            assert!(r.submit(data).unwrap().is_none());
            (r.next_image().unwrap().expect("one image"), r.last_draws().scene_pass)
        };
        let ((a, a_3d), (b, b_3d)) = (draw(&plain), draw(&multisampled));
        assert!(!a_3d && b_3d, "{samples} samples: only the frame with a mesh goes through the 3-D pass");
        let max = a.rgba.iter().zip(&b.rgba).map(|(x, y)| x.abs_diff(*y)).max().unwrap();
        assert!(max <= 1, "{samples} samples: the background drawn alone differs from the 3-D pass's by {max} levels");
        let lit = a.rgba.chunks_exact(4).filter(|p| p[2] > 200).count();
        assert!(lit > 500, "{samples} samples: the agents are drawn over the background ({lit} bright blue pixels)");
    }
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_walled_terrain_is_drawn_without_its_back_faces_and_looks_the_same() {
    require_gpu();
    let text = std::fs::read_to_string(crate::common::root().join("scenes/terrain.toml")).unwrap();
    let dir = scratch();
    let (w, h) = (480, 270);
    for algorithm in ["marching_cubes", "surface_nets", "dual_contouring"] {
        let path = dir.join(format!("{algorithm}.toml"));
        std::fs::write(&path, text.replace("[terrain]\n", &format!("[terrain]\nalgorithm = \"{algorithm}\"\n"))).unwrap();
        let s = simreel::scene::load(&path).unwrap();
        let culled = simreel::kinds::build(&s).frame(45);
        assert!(culled.meshes[0].material.closed, "{algorithm}: a walled terrain seen from outside is closed");
        let mut both = culled.clone();
        both.meshes[0].material.closed = false;
        let (a, b) = (render_frame(&culled, w, h, true), render_frame(&both, w, h, true));
        // only multisampled silhouette pixels may differ (a back face behind an edge covering a
        // sample); a surface wound the wrong way would lose its visible side
        let off =
            a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)).filter(|(p, q)| p.iter().zip(*q).any(|(x, y)| x.abs_diff(*y) > 2)).count();
        eprintln!("{algorithm}: closed terrain drawn culled, {off} pixels off by more than 2");
        assert!(off * 2000 < (w * h) as usize, "{algorithm}: culling the back faces changed {off} pixels");
    }
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn jelly_dice_bend_on_the_gpu_as_on_the_cpu_and_show_colour_pips_and_results() {
    require_gpu();
    let s = simreel::scene::load(&crate::common::root().join("scenes/dice.toml")).unwrap();
    let mut sim = simreel::kinds::build(&s);
    let last = s.sim.timing.frames - 1;
    let data = sim.frame(last);
    let (w, h) = (480, 300);
    let gpu = render_frame(&data, w, h, false);
    let cpu = render_frame(&data, w, h, true);
    // the compute shader and its CPU twin agree (bit for bit on lavapipe; other GPUs may fuse
    // multiply-adds differently, a few shading levels at most)
    let diffs: Vec<i32> = gpu.rgba.iter().zip(&cpu.rgba).map(|(a, b)| (*a as i32 - *b as i32).abs()).collect();
    let max = diffs.iter().copied().max().unwrap();
    let differing = diffs.iter().filter(|&&d| d > 1).count();
    eprintln!("GPU vs CPU bending: max channel difference {max}, {differing} channels differ by more than 1");
    assert!(max <= 8 && differing < (w * h) as usize / 2000, "GPU and CPU bending differ: max {max}, {differing} channels above 1");

    // every die shows its own colour at its projected centre
    let cam = data.camera;
    let view = glam::Mat4::look_at_rh(cam.eye.into(), cam.target.into(), cam.up.into());
    let proj = glam::Mat4::perspective_rh(cam.fov_y_deg.to_radians(), w as f32 / h as f32, cam.near, cam.far);
    let simreel::scene::KindLook::Dice(spec) = &s.look.kind else { panic!("a dice scene") };
    let bodies: Vec<&simreel::frame::MeshInstance> = data.meshes.iter().filter(|m| m.material.translucent).collect();
    assert_eq!(bodies.len(), 5);
    for (die, body) in bodies.iter().enumerate() {
        let (lo, hi) = body.deform.as_ref().unwrap().bounds();
        let c = (glam::Vec3::from(lo) + glam::Vec3::from(hi)) * 0.5;
        let ndc = (proj * view).project_point3(c);
        let (px, py) = (((ndc.x * 0.5 + 0.5) * w as f32) as i64, ((0.5 - ndc.y * 0.5) * h as f32) as i64);
        let mut sum = [0.0f64; 3];
        for y in py - 4..=py + 4 {
            for x in px - 4..=px + 4 {
                let i = ((y * w as i64 + x) * 4) as usize;
                for (k, v) in sum.iter_mut().enumerate() {
                    *v += gpu.rgba[i + k] as f64;
                }
            }
        }
        let want = spec.colors[die].0;
        let strongest = |v: [f64; 3]| (0..3).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap();
        assert_eq!(strongest(sum), strongest(want.map(|x| x as f64)), "die {die} at ({px}, {py}) has the wrong colour: {sum:?}");
    }
    // the results strip: white digits on coloured chips in the bottom band
    let band = (h * 85 / 100)..h;
    let white = band
        .clone()
        .flat_map(|y| (0..w).map(move |x| ((y * w + x) * 4) as usize))
        .filter(|&i| gpu.rgba[i] > 235 && gpu.rgba[i + 1] > 235 && gpu.rgba[i + 2] > 235)
        .count();
    assert!(white > 150, "digits in the results strip: {white} white pixels");
}

#[test]
#[cfg(target_os = "linux")]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_backend_this_machine_lacks_is_named_with_what_is_there() {
    require_gpu();
    let out = scratch();
    let o = simreel().args(["render", "scenes/terrain.toml", "--backend", "dx12", "--frames", "0", "--out"]).arg(&out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("the dx12 backend has no adapter on this machine; available: "), "{err}");
    assert!(!err.contains("apt-get"), "an adapter is here: no install hint\n{err}");
    let o = simreel().args(["adapters", "--backend", "dx12"]).output().unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("use --backend auto or one of these"));
}

#[test]
#[cfg(target_os = "linux")]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn killed_runs_leave_no_litter_and_one_render_holds_a_scene_at_a_time() {
    use std::io::BufRead;
    require_gpu();
    let dir = scratch();
    let frames = dir.join("small_terrain");
    let args = ["render", "tests/scenes/small_terrain.toml", "--format", "png,gif", "--progress", "json", "--out"];
    // a render in flight holds the scene: a second one into the same folder is refused and told who
    let mut first =
        simreel().args(args).arg(&dir).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null()).spawn().unwrap();
    let mut progress = std::io::BufReader::new(first.stdout.take().unwrap()).lines();
    progress.next().expect("a first frame").unwrap();
    let second = simreel().args(args).arg(&dir).output().unwrap();
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("is being written by process {} (another render of this scene)", first.id())), "{err}");
    // killed without warning: its lock stays behind, with the temporaries such a run can leave
    std::process::Command::new("kill").args(["-KILL", &first.id().to_string()]).status().unwrap();
    first.wait().unwrap();
    assert!(frames.join(".simreel.lock").exists());
    let dead = 4_194_999; // beyond Linux's largest process id
    let own = std::process::id();
    for f in [
        format!("small_terrain/frame_0040.png.{dead}.tmp"),
        format!("small_terrain.gif.{dead}.tmp"),
        format!("small_terrain.apng.{dead}.tmp"),
    ] {
        std::fs::write(dir.join(f), b"partial").unwrap();
    }
    // not the dead run's: a live process's temporary, another scene's
    for f in [format!("small_terrain/frame_0041.png.{own}.tmp"), format!("other.gif.{dead}.tmp")] {
        std::fs::write(dir.join(f), b"keep").unwrap();
    }
    let out = simreel()
        .args(["render", "tests/scenes/small_terrain.toml", "--format", "png,gif,apng", "--resume", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "the dead run's lock is taken over: {}", String::from_utf8_lossy(&out.stderr));
    let names = |d: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
    };
    let (inside, beside) = (names(&frames), names(&dir));
    assert!(!inside.iter().any(|f| f.contains(&format!(".{dead}.tmp")) || f == ".simreel.lock"), "{inside:?}");
    assert!(inside.contains(&format!("frame_0041.png.{own}.tmp")), "a live process's temporary is not ours to remove: {inside:?}");
    assert!(!beside.contains(&format!("small_terrain.gif.{dead}.tmp")) && beside.contains(&format!("other.gif.{dead}.tmp")), "{beside:?}");
    assert!(
        !beside.contains(&format!("small_terrain.apng.{dead}.tmp")) && beside.contains(&"small_terrain.apng".to_string()),
        "{beside:?}"
    );
    assert_eq!(inside.iter().filter(|f| f.ends_with(".png")).count(), 48);
}

#[test]
#[cfg(target_os = "linux")]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn the_memory_estimate_bounds_every_shipped_scene_within_twice_its_peak() {
    require_gpu();
    let out = scratch();
    let mut table = Vec::new();
    for path in crate::common::shipped_scenes() {
        let scene = simreel::scene::load(&path).unwrap();
        let (estimate, _) = scene.memory_estimate(8);
        let frames = format!("0..{}", scene.sim.timing.frames.min(20) - 1);
        let o = simreel().args(["render", "--format", "png", "--frames", &frames, "--out"]).arg(&out).arg(&path).output().unwrap();
        assert!(o.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&o.stderr));
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(&scene.name).join("manifest.json")).unwrap()).unwrap();
        let peak = manifest["timings"]["peak_memory_bytes"].as_u64().expect("the manifest records the peak on Linux");
        table.push((scene.name.clone(), estimate as f64 / peak as f64));
    }
    eprintln!("estimate / measured peak: {table:?}");
    assert!(table.len() >= 12);
    for (name, ratio) in &table {
        assert!((1.0..2.0).contains(ratio), "{name}: the estimate is {ratio:.2}× the measured peak");
    }
}

#[test]
#[cfg(target_os = "linux")]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn an_unwritable_output_fails_clearly() {
    require_gpu();
    let dir = scratch();
    // an output folder that cannot exist: a file stands where its parent should be
    std::fs::write(dir.join("file"), b"not a folder").unwrap();
    let o = simreel().args(["render", "tests/scenes/small_terrain.toml", "--out"]).arg(dir.join("file/out")).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write") && err.contains("file/out/small_terrain"), "{err}");
}

/// Unmounts when dropped, so a failing assertion does not leave the mount behind.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
#[cfg(target_os = "linux")]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
#[cfg_attr(skip_privileged_tests, ignore = "needs root to mount a tmpfs (SIMREEL_SKIP_PRIVILEGED_TESTS is set)")]
fn a_full_disk_fails_clearly_and_leaves_no_partial_file() {
    require_gpu();
    // a full disk: a 200 KiB tmpfs
    let tiny = scratch();
    let mounted = std::process::Command::new("mount").args(["-t", "tmpfs", "-o", "size=200k", "tmpfs"]).arg(&tiny).status();
    assert!(
        mounted.is_ok_and(|s| s.success()),
        "no tmpfs could be mounted: run as root, or set SIMREEL_SKIP_PRIVILEGED_TESTS=1 to count this test as ignored"
    );
    let mount = Mounted(tiny.clone());
    let o = simreel()
        .args(["render", "tests/scenes/small_terrain.toml", "--format", "png,gif", "--out"])
        .arg(tiny.join("out"))
        .output()
        .unwrap();
    let files: Vec<std::path::PathBuf> =
        std::fs::read_dir(tiny.join("out/small_terrain")).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    let beside: Vec<String> =
        std::fs::read_dir(tiny.join("out")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    // every frame that is there is whole (read before the folder goes with the mount)
    let widths: Vec<u32> = files.iter().filter(|f| f.extension().is_some_and(|x| x == "png")).map(|f| read_png(f).width).collect();
    drop(mount);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(beside.iter().all(|f| !f.ends_with(".tmp") && !f.ends_with(".gif")), "a partial GIF or temporary: {beside:?}");
    assert!(files.iter().all(|f| !f.to_string_lossy().ends_with(".tmp") && !f.ends_with(".simreel.lock")), "{files:?}");
    assert!(!widths.is_empty() && widths.iter().all(|&w| w == 128), "{widths:?}");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn apng_mp4_and_webm_hold_every_frame_of_the_png_sequence() {
    require_gpu();
    let ffmpeg_there = std::process::Command::new("ffmpeg").arg("-version").output().is_ok_and(|o| o.status.success());
    assert!(ffmpeg_there, "ffmpeg is missing: scripts/test installs it (apt-get install ffmpeg)");
    let out = scratch_part("animations");
    // some frames of a scene make no animation of it, and say so
    let o = simreel()
        .args(["render", "scenes/flock.toml", "--format", "apng", "--size", "96x64", "--frames", "3,5..9", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("flock.apng not written: 384 of its 390 frames not rendered"), "{err}");
    assert!(!out.join("flock.apng").exists());
    // every frame (the flock's first 30) does
    let o = simreel()
        .args(["render", "tests/scenes/flock_30.toml", "--format", "apng,mp4,webm", "--size", "96x64", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // the APNG: thirty frames, each the PNG frame it was made from, 1/30 s apiece, looping
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(out.join("flock.apng")).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let actl = reader.info().animation_control.expect("an animated PNG");
    assert_eq!((actl.num_frames, actl.num_plays), (30, 0));
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    for f in 0..30 {
        let info = reader.next_frame(&mut buf).unwrap();
        let fctl = reader.info().frame_control.expect("frame control");
        assert_eq!((fctl.delay_num, fctl.delay_den), (1, 30));
        let png = read_png(&out.join(format!("flock/frame_{f:04}.png")));
        assert_eq!(&buf[..info.buffer_size()], &png.rgba[..], "frame {f}");
    }
    // the videos: thirty frames at 30 fps
    for ext in ["mp4", "webm"] {
        let probe = std::process::Command::new("ffprobe")
            .args([
                "-v",
                "error",
                "-count_frames",
                "-select_streams",
                "v:0",
                "-show_entries",
                "stream=nb_read_frames,r_frame_rate",
                "-of",
                "csv=p=0",
            ])
            .arg(out.join(format!("flock.{ext}")))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&probe.stdout).trim(), "30/1,30", "{ext}");
    }
    // without ffmpeg: said before anything is rendered, naming the package
    let none = scratch_part("animations-no-ffmpeg");
    let o = simreel()
        .env("SIMREEL_FFMPEG", "/nonexistent/ffmpeg")
        .args(["render", "scenes/flock.toml", "--format", "mp4", "--frames", "0", "--quiet", "--out"])
        .arg(&none)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("apt-get install ffmpeg"), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!none.join("flock").exists(), "nothing rendered");
}

/// What an earlier build of this version wrote as `manifest.json`: no `build`, no identities, and
/// the settings hashed with the version alone.
pub fn as_an_earlier_build_wrote_it(manifest: &Path, msaa: u32) {
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(manifest).unwrap()).unwrap();
    m.as_object_mut().unwrap().remove("build");
    m.as_object_mut().unwrap().remove("identity");
    for f in m["frames"].as_array_mut().unwrap() {
        f.as_object_mut().unwrap().remove("identity");
    }
    let settings =
        format!("{}x{} msaa{msaa} {} {}", m["width"], m["height"], m["adapter"].as_str().unwrap(), m["simreel"].as_str().unwrap());
    m["settings_hash"] = format!("{:016x}", simreel::frame::Fnv::hash(settings.as_bytes())).into();
    std::fs::write(manifest, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn resume_keeps_no_frame_of_another_build_and_counts_only_what_it_rendered() {
    require_gpu();
    let dir = scratch();
    let render = || {
        let o = simreel()
            .args(["render", "tests/scenes/small_terrain.toml", "--format", "png", "--frames", "0..2", "--resume", "--out"])
            .arg(&dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{err}");
        err
    };
    let first = render();
    assert!(first.contains("small_terrain: wrote 3 frames in ") && first.contains(" frames/s on "), "{first}");
    // everything is there: nothing to render, and no frame rate made of kept frames
    let again = render();
    assert!(again.contains("small_terrain: nothing to render: 3 frames in ") && again.contains(" kept from the last run"), "{again}");
    assert!(!again.contains("frames/s"), "{again}");
    // frames an earlier build rendered are rendered again, whatever their settings hash says
    let frame = |f: u32| dir.join(format!("small_terrain/frame_{f:04}.png"));
    let (frame0, frame1) = (std::fs::read(frame(0)).unwrap(), std::fs::read(frame(1)).unwrap());
    assert_ne!(frame0, frame1);
    std::fs::write(frame(1), &frame0).unwrap();
    let msaa = simreel::scene::load(&root().join("tests/scenes/small_terrain.toml")).unwrap().look.msaa;
    as_an_earlier_build_wrote_it(&dir.join("small_terrain/manifest.json"), msaa);
    let rebuilt = render();
    assert!(
        rebuilt.contains("3 frames there were rendered by another build of simreel (") && rebuilt.contains("an earlier build"),
        "{rebuilt}"
    );
    assert!(rebuilt.contains("wrote 3 frames in "), "{rebuilt}");
    assert_eq!(std::fs::read(frame(1)).unwrap(), frame1, "the stale frame was rendered again");
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("small_terrain/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["build"], simreel::BUILD);
}

/// `cursor_look = "visible"` draws the live cursor and its lure radius to be seen on either
/// theme: where the two looks differ, the visible one stands at least twice as far from the
/// background as the subtle one.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_visible_cursor_stands_out_from_the_background_on_either_theme() {
    require_gpu();
    let out = scratch_part("cursor");
    for theme in ["light", "dark"] {
        let frame = |look: &str| {
            let name = format!("{theme}-{look}");
            let o = simreel()
                .args(["render", "scenes/flock.toml", "--frames", "150", "--format", "png", "--size", "240x180", "-q", "--out"])
                .arg(&out)
                .args(["--set", &format!("name=\"{name}\""), "--set", &format!("flock.theme=\"{theme}\"")])
                .args(["--set", &format!("flock.cursor_look=\"{look}\"")])
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            read_png(&out.join(format!("{name}/frame_0150.png"))).rgba
        };
        let (subtle, visible) = (frame("subtle"), frame("visible"));
        // the background: the commonest colour of the subtle frame
        let mut counts = std::collections::HashMap::new();
        for p in subtle.chunks_exact(4) {
            *counts.entry([p[0], p[1], p[2]]).or_insert(0usize) += 1;
        }
        let bg = counts.into_iter().max_by_key(|&(_, n)| n).unwrap().0;
        let off = |p: &[u8]| (0..3).map(|c| (p[c] as f64 - bg[c] as f64).abs()).sum::<f64>();
        let (mut a, mut b, mut n) = (0.0, 0.0, 0usize);
        for (s, v) in subtle.chunks_exact(4).zip(visible.chunks_exact(4)) {
            if s != v {
                (a, b, n) = (a + off(s), b + off(v), n + 1);
            }
        }
        assert!(n > 200, "{theme}: {n} pixels differ");
        assert!(
            b > 2.0 * a,
            "{theme}: the visible cursor is {:.1} levels off the background, the subtle one {:.1}",
            b / n as f64,
            a / n as f64
        );
    }
}
