//! What the render stage promises about its speed, checked for what it does rather than how fast:
//! frames lent out in their staging buffers are the frames a copy gives, in order, however many
//! readers hold and however late they give them back; and a render's manifest says where its
//! time went, stage by stage, in figures that add up.

use std::time::Duration;

use simreel::render::{AdapterRequest, Mapped, Renderer};

use crate::common::{require_gpu, root, scratch, simreel};

/// Frames 0.. of the dice (text that changes every frame, translucent jelly) at `w` × `h`,
/// rendered and copied out one at a time: the reference.
fn copied(frames: &[simreel::frame::FrameData], w: u32, h: u32) -> Vec<Vec<u8>> {
    let mut r = Renderer::new(&AdapterRequest::default(), w, h, 4).expect("renderer");
    frames
        .iter()
        .map(|f| {
            assert!(r.submit(f).unwrap().is_none());
            r.next_image().unwrap().expect("the frame").rgba
        })
        .collect()
}

fn dice_frames(n: u32) -> Vec<simreel::frame::FrameData> {
    let s = simreel::scene::load(&root().join("scenes/dice.toml")).unwrap();
    let mut sim = simreel::kinds::build(&s);
    (0..n).map(|f| sim.frame(f * 3)).collect()
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn frames_read_in_their_staging_buffers_are_the_frames_a_copy_gives_in_order() {
    require_gpu();
    let frames = dice_frames(16);
    // 150 px rows are padded to 640 bytes on the GPU side; 128 px rows are not
    for (w, h) in [(150, 90), (128, 80)] {
        let want = copied(&frames, w, h);
        let mut r = Renderer::new(&AdapterRequest::default(), w, h, 4).expect("renderer");
        r.lend(4);
        // a reader that holds up to five frames, and gives each back late, on another thread:
        // the renderer waits for a buffer rather than overwrite one still being read
        let (tx, rx) = std::sync::mpsc::channel::<Mapped>();
        let reader = std::thread::spawn(move || {
            let mut held = std::collections::VecDeque::new();
            let mut got = Vec::new();
            for m in rx {
                held.push_back(m);
                if held.len() > 5 {
                    let m: Mapped = held.pop_front().unwrap();
                    std::thread::sleep(Duration::from_millis(30));
                    got.push((m.index, m.with_rgba(<[u8]>::to_vec).unwrap()));
                }
            }
            got.extend(held.into_iter().map(|m| (m.index, m.with_rgba(<[u8]>::to_vec).unwrap())));
            got
        });
        for f in &frames {
            if let Some(m) = r.submit_mapped(f).unwrap() {
                tx.send(m).unwrap();
            }
        }
        while let Some(m) = r.next_mapped().unwrap() {
            tx.send(m).unwrap();
        }
        drop(tx);
        let got = reader.join().unwrap();
        let order: Vec<u32> = got.iter().map(|(i, _)| *i).collect();
        assert_eq!(order, frames.iter().map(|f| f.index).collect::<Vec<_>>(), "{w}×{h}: frames out of order");
        for (k, ((i, rgba), want)) in got.iter().zip(&want).enumerate() {
            assert_eq!(rgba.len(), (w * h * 4) as usize, "{w}×{h} frame {i}: rows not unpadded");
            assert!(rgba == want, "{w}×{h}: frame {i} (the {k}th) read in place differs from its copy");
        }
        assert!(r.clock().lent_wait > Duration::ZERO, "{w}×{h}: six frames held by a slow reader never made the renderer wait");
        assert!(r.clock().gpu_wait > Duration::ZERO);
    }
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_manifest_says_where_each_stage_spent_its_time() {
    require_gpu();
    let out = scratch();
    // two scenes of one size: the second draws on the first one's renderer
    let o = simreel()
        .args(["render", "tests/scenes/small_terrain.toml", "tests/scenes/flock_30.toml", "--size", "160x96", "--format", "png"])
        .args(["--progress", "json", "--profile", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // --profile: a paragraph a scene, a row a stage; the second scene drew on the first's renderer
    let paragraphs: Vec<&str> = err.split("small_terrain: first frame after ").skip(1).collect();
    assert_eq!(paragraphs.len(), 1, "{err}");
    let (terrain_said, flock_said) = paragraphs[0].split_once("flock: first frame after ").unwrap_or_else(|| panic!("{err}"));
    assert!(terrain_said.contains("finding the adapter") && flock_said.contains("on the renderer of the scene before"), "{err}");
    for said in [terrain_said, flock_said] {
        for row in ["\n  simulate ", "\n  render ", "\n  encode "] {
            assert!(said.contains(row), "{row:?} missing: {err}");
        }
        assert!(said.contains("waiting for the GPU"), "{err}");
    }
    // --progress json: the timings of each scene at its end, as the manifest has them
    let stdout = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<serde_json::Value> =
        stdout.lines().map(|l| serde_json::from_str(l).unwrap()).filter(|v: &serde_json::Value| v.get("timings").is_some()).collect();
    assert_eq!(lines.iter().map(|v| v["scene"].as_str().unwrap()).collect::<Vec<_>>(), ["small_terrain", "flock"]);
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(out.join(name).join("manifest.json")).unwrap()).unwrap()
    };
    let (terrain, flock) = (read("small_terrain"), read("flock"));
    assert_eq!(lines[0]["timings"], terrain["timings"]);
    assert_eq!(lines[1]["timings"]["stages"], flock["timings"]["stages"]);
    for (m, opened) in [(&terrain, true), (&flock, false)] {
        let t = &m["timings"];
        let n = m["frames"].as_array().unwrap().len() as f64;
        let wall = t["wall_s"].as_f64().unwrap();
        let num = |v: &serde_json::Value| v.as_f64().unwrap_or_else(|| panic!("not a number: {v} in {t}"));
        let startup = num(&t["startup_s"]);
        assert!(startup > 0.0 && startup < wall, "startup {startup} of {wall} s");
        assert_eq!(t["adapter_s"].is_number() && t["device_s"].is_number(), opened, "adapter and device times: {t}");
        let steady = num(&t["steady_fps"]);
        assert!(steady > 0.0 && (n - 1.0) / steady <= wall, "steady rate {steady} over {n} frames in {wall} s");
        let mut slowest = ("", f64::INFINITY);
        for name in ["simulate", "render", "encode"] {
            let s = &t["stages"][name];
            let threads = num(&s["threads"]);
            assert_eq!(num(&s["frames"]), n, "{name}: {s}");
            let (busy, idle, blocked) = (num(&s["busy_s"]), num(&s["idle_s"]), num(&s["blocked_s"]));
            // each thread's busy, idle and blocked time falls within the run
            assert!(busy > 0.0 && busy + idle + blocked <= threads * wall * 1.01 + 0.01, "{name}: {s} in {wall} s");
            let fps = num(&s["fps"]);
            assert!((fps - n * threads / busy).abs() <= 1e-6 * fps, "{name}: {s}");
            if fps < slowest.1 {
                slowest = (name, fps);
            }
        }
        assert_eq!(t["slowest_stage"], slowest.0, "{t}");
        // the stage figures are what the older fields say
        assert_eq!(t["render_s"], t["stages"]["render"]["busy_s"]);
        assert_eq!(t["encode_s"], t["stages"]["encode"]["busy_s"]);
        let r = &t["stages"]["render"];
        let (busy, gpu) = (num(&r["busy_s"]), num(&r["gpu_wait_s"]));
        assert!(gpu <= busy, "render: {r}");
        if cfg!(unix) {
            let cpu = num(&r["cpu_s"]);
            assert!(cpu > 0.0 && cpu <= busy * 1.01 + 0.005, "render: the thread's CPU time {cpu} of {busy} s busy");
            assert!((num(&r["cpu_ms_per_frame"]) - 1e3 * cpu / n).abs() < 1e-9, "{r}");
        }
    }
}
