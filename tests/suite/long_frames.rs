//! Legal scenes whose frames are long on the software adapter render or are refused up front,
//! and a signal ends any render within seconds. A flock's cost grows with its agents and with
//! how large each is drawn: 100 000 agents at 640×480 render (their dashed paths are drawn as
//! quads along each line, not over its bounding box: 23 s a frame before on the project's
//! machine, 197 s on a loaded one, past the old 120 s watchdog; 3.5 s now); a frame estimated at
//! hours is refused before its folder is touched; a render estimated at many minutes is said
//! before it starts; SIGTERM while the GPU draws a long frame ends the process within
//! [`simreel::pipeline::STOP_GRACE`] (3 s), where it waited for the frame before.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{read_png, require_gpu, scratch};

/// A flock scene: `agents` at `size`² on a `canvas`² canvas (each agent drawn the larger the
/// smaller the canvas), `seconds` long at 10 fps.
fn flock(agents: u32, size: [u32; 2], canvas: Option<u32>, seconds: f64) -> String {
    let canvas = canvas.map_or(String::new(), |c| format!("canvas = [{c}.0, {c}.0]\n"));
    format!(
        "kind = \"flock\"\nname = \"heavy\"\nseed = 5\n[render]\nwidth = {}\nheight = {}\nfps = 10\nduration = {seconds}\n[flock]\nagents = {agents}\n{canvas}",
        size[0], size[1]
    )
}

/// `simreel render heavy.toml ARGS` in `dir` on lavapipe, not yet waited for.
fn start(dir: &std::path::Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_simreel"))
        .current_dir(dir)
        .args(["render", "heavy.toml", "--adapter", "llvmpipe", "--format", "png", "--out", "out"])
        .args(args)
        .env_remove("SIMREEL_BACKEND")
        .env_remove("SIMREEL_ADAPTER")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run simreel")
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
fn a_hundred_thousand_agents_at_640x480_render_on_the_software_adapter() {
    require_gpu();
    let dir = scratch();
    std::fs::write(dir.join("heavy.toml"), flock(100_000, [640, 480], None, 1.0)).unwrap();
    let o = start(&dir, &["--frames", "2", "--quiet"]).wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // the agents are there: most of the canvas is their colour, and the paths' dashes cross it
    let png = read_png(&dir.join("out/heavy/frame_0002.png"));
    let colours: std::collections::HashSet<&[u8]> = png.rgba.chunks_exact(4).collect();
    assert!(colours.len() > 50, "{} colours: a blank frame", colours.len());
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
fn a_frame_of_hours_on_the_software_adapter_is_refused_before_its_folder_is_touched() {
    require_gpu();
    let dir = scratch();
    // 200 000 agents, each disc some 800 px across
    std::fs::write(dir.join("heavy.toml"), flock(200_000, [2048, 2048], Some(16), 1.0)).unwrap();
    let o = start(&dir, &[]).wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(said.contains("heavy.toml: a frame at 2048×2048 is estimated to take "), "{said}");
    assert!(said.contains("(a software adapter): 200,000 agents drawn as"), "{said}");
    assert!(said.contains("render it smaller (--size, --draft)"), "{said}");
    assert!(!dir.join("out").exists(), "the refused scene's folder was made");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
fn a_long_render_is_said_up_front_and_sigterm_ends_it_within_seconds_while_a_frame_is_drawn() {
    require_gpu();
    let dir = scratch();
    // 15 000 agents with discs 400 px across: tens of seconds a frame on lavapipe, 40 frames
    std::fs::write(dir.join("heavy.toml"), flock(15_000, [1024, 1024], Some(16), 4.0)).unwrap();
    let mut child = start(&dir, &["--progress", "json"]);
    // the device opens and the first frame is simulated in well under a second; then it is drawn
    std::thread::sleep(Duration::from_secs(2));
    assert!(child.try_wait().unwrap().is_none(), "the render ended before the signal");
    let signalled = Instant::now();
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let o = child.wait_with_output().unwrap();
    let took = signalled.elapsed();
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(took < Duration::from_secs(5), "SIGTERM took {took:.1?} to end the render:\n{said}");
    assert_eq!(o.status.code(), Some(130), "{said}");
    assert!(said.contains("interrupted"), "{said}");
    assert!(said.contains("warning: heavy: 40 frames at 1024×1024 estimated to take about "), "not said up front:\n{said}");
    // no frame was finished: the signal came while the first was on the GPU
    let progress = String::from_utf8_lossy(&o.stdout);
    assert!(!progress.contains("\"done\""), "a frame was finished before the signal:\n{progress}");
}
