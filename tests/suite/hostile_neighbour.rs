//! An output folder someone else can write. Links planted under every name a render writes or
//! could write as a temporary (the names of earlier versions: `<file>.<pid>.tmp`) lead nowhere;
//! a folder others can write is said. Saved simulation states (`OUT/<scene>/snapshots/`) are
//! untrusted input: whoever can write the output folder writes them, and their checksum is
//! recomputed as easily as a number is edited. Every kind's reader is fuzzed with hostile
//! numbers in place of each word (in a child process under a memory cap, where a state that asks
//! for memory it should not aborts), and a render that finds an edited state passes over it with
//! a warning and renders what a clean run does. (The attack by a second account, with folders
//! swapped while commands run, is the environment test `two_users`.)

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::{require_gpu, root, scratch, simreel};

/// The child's address space: far above what these scenes need (a few hundred MB), far below
/// what a hostile count or time would ask for.
const MEMORY_CAP_KB: u64 = 4_000_000;

#[test]
fn hostile_saved_states_of_every_kind_are_refused_or_played_on_and_never_abort() {
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_CAP_KB} && exec \"$0\" \"$@\""))
        .arg(&exe)
        .args(["--exact", "hostile_neighbour::fuzz_rounds_under_a_memory_cap", "--ignored", "--nocapture", "--test-threads", "1"])
        .current_dir(root())
        .output()
        .expect("run the fuzz rounds");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the rounds failed or aborted ({}):\n{said}", out.status);
    assert!(said.contains("1 passed"), "the child ran no round:\n{said}");
    for kind in ["cargo", "dice", "flock", "wind", "figure"] {
        assert!(said.contains(&format!("round {kind}:")), "no round of {kind}:\n{said}");
    }
}

/// The rounds themselves: one scene of each kind that saves states, words at both ends of the
/// state (its header, counts, clock) and drawn from its middle, each with every hostile value.
#[test]
#[ignore = "run by hostile_saved_states_… in a child process under a memory cap"]
fn fuzz_rounds_under_a_memory_cap() {
    let scenes = [
        ("cargo", "scenes/cargo_walk.toml", 300),
        ("dice", "scenes/dice_pull.toml", 150),
        ("flock", "scenes/flock.toml", 400),
        ("wind", "scenes/wind_meadow.toml", 240),
        ("figure", "scenes/figures/cargo_trace.toml", 200),
    ];
    for (kind, file, budget) in scenes {
        let scene = simreel::scene::load(&root().join(file)).unwrap_or_else(|e| panic!("{e}"));
        // a third of the way in: clocks, contacts, pressed blades and chart history all under way
        let at = scene.frames() / 3;
        let r = simreel::fuzz::snapshot::round(&scene, at, budget, 2, Duration::from_secs(20), 7);
        println!(
            "round {kind}: {} ({} bytes at frame {at}): {} cases, {} refused, {} taken, slowest {:.1} ms",
            scene.name,
            r.bytes,
            r.cases,
            r.refused,
            r.accepted,
            r.slowest.as_secs_f64() * 1e3
        );
        assert!(r.bytes > 0, "{file} saves no state to fuzz");
        assert!(r.refused > r.cases / 4, "{file}: only {} of {} hostile states refused", r.refused, r.cases);
        assert!(r.failures.is_empty(), "{file}:\n{}", r.failures.join("\n"));
    }
}

/// Every 8-byte float `f` of the state placed at `offset` (little-endian).
fn put_f64(state: &mut [u8], offset: usize, f: f64) {
    state[offset..offset + 8].copy_from_slice(&f.to_le_bytes());
}

#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
#[test]
fn a_render_passes_over_an_edited_saved_state_with_a_warning_and_renders_what_a_clean_run_does() {
    require_gpu();
    let dir = scratch();
    let scene_file = root().join("scenes/cargo_walk.toml");
    let render = |out: &Path, frames: &str| {
        let o = simreel()
            .args(["render"])
            .arg(&scene_file)
            .args(["--size", "64x48", "--format", "png", "--frames", frames, "--out"])
            .arg(out)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{said}");
        said
    };
    let state_of = |out: &Path, frame: u64| -> String {
        let m: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("cargo_walk/manifest.json")).unwrap()).unwrap();
        let f = m["frames"].as_array().unwrap().iter().find(|f| f["index"] == frame).expect("the frame in the manifest");
        f["state"].as_str().unwrap().to_string()
    };
    let (edited, clean) = (dir.join("edited"), dir.join("clean"));
    render(&edited, "0..40");
    let scene = simreel::scene::load(&scene_file).unwrap();
    let folder = simreel::output::layout::SceneFolder::of(&edited, &scene);
    let saved: Vec<(u32, Vec<u8>)> = simreel::pipeline::snapshots::nearest(&folder, &scene, 40).collect();
    assert_eq!(saved.iter().map(|s| s.0).collect::<Vec<_>>(), [40, 36, 24, 12], "the states a render of 0..40 saves");
    // frame 36: the last spring's rate set to 3.4e38; frame 24: the frame's time set to NaN.
    // Each written back with its header and checksum recomputed, as an attacker would.
    for (at, offset, value) in [(36u32, None, 3.4e38), (24, Some(24), f64::NAN)] {
        let (_, mut state) = saved.iter().find(|s| s.0 == at).cloned().unwrap();
        let offset = offset.unwrap_or(state.len() - 8);
        put_f64(&mut state, offset, value);
        std::fs::remove_file(folder.snapshot(at)).unwrap();
        simreel::pipeline::snapshots::save(&folder, &scene, at, &state).unwrap();
    }
    std::fs::remove_file(folder.snapshot(40)).unwrap();
    let said = render(&edited, "38");
    for at in [36, 24] {
        assert!(
            said.contains(&format!("warning: cargo_walk: the saved state at frame {at} in "))
                && said.contains("passed over, simulated from frame 12"),
            "no warning of the edited state at {at}:\n{said}"
        );
    }
    render(&clean, "38");
    assert_eq!(state_of(&edited, 38), state_of(&clean, 38), "the state after passing over the edited ones");
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(edited.join("cargo_walk/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["simulated_from"], 12, "simulated from the last state that fits");
}

/// Every file under `dir`, with its bytes.
fn files_of(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| (e.path(), std::fs::read(e.path()).unwrap())).collect();
    v.sort();
    v
}

#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
#[test]
fn links_planted_under_every_name_a_render_writes_lead_nowhere_and_a_shared_folder_is_said() {
    require_gpu();
    let dir = scratch();
    let (home, out) = (dir.join("home"), dir.join("out"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(".bashrc"), "# mine\n").unwrap();
    std::fs::write(home.join("id_ed25519"), "KEY").unwrap();
    let frames = out.join("flock");
    std::fs::create_dir_all(frames.join("snapshots")).unwrap();
    // a folder anyone can write, as a shared /tmp project is
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o777)).unwrap();
    let before = files_of(&home);
    // links under the names the render writes, and under every temporary name of the pattern of
    // earlier versions for the next process ids
    let next = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid").ok().and_then(|p| p.trim().parse::<u32>().ok()).unwrap_or(1);
    let mut names: Vec<(std::path::PathBuf, &str)> = Vec::new();
    for f in 0..30 {
        names.push((frames.join(format!("frame_{f:04}.png")), ".bashrc"));
    }
    names.extend([
        (frames.join("manifest.json"), "id_ed25519"),
        (frames.join(".simreel.lock"), "planted"),
        (out.join("flock.gif"), ".bashrc"),
    ]);
    for f in [4, 8, 12, 29] {
        names.push((frames.join(format!("snapshots/frame_{f:04}.state")), "id_ed25519"));
    }
    let mut planted = 0;
    for (path, target) in &names {
        let _ = symlink(home.join(target), path);
        for pid in next..next + 40 {
            let mut tmp = path.clone().into_os_string();
            tmp.push(format!(".{pid}.tmp"));
            planted += symlink(home.join(target), tmp).is_ok() as usize;
        }
    }
    assert!(planted > 1000, "{planted}");
    let o = simreel()
        .args(["render"])
        .arg(root().join("tests/scenes/flock_30.toml"))
        .args(["--size", "64x36", "--format", "png,gif", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{said}");
    assert_eq!(files_of(&home), before, "a write went through a planted link");
    assert!(!home.join("planted").exists());
    for (path, _) in &names[..30] {
        let m = std::fs::symlink_metadata(path).unwrap();
        assert!(m.is_file() && std::fs::read(path).unwrap().starts_with(b"\x89PNG"), "{} is the frame", path.display());
    }
    let warning = format!("warning: {} is writable by every user", std::fs::canonicalize(&out).unwrap().display());
    let absolute = format!("warning: {} is writable by every user", std::path::absolute(&out).unwrap().display());
    assert!(said.contains(&warning) || said.contains(&absolute), "no warning of the shared folder:\n{said}");
    assert_eq!(said.matches("is writable by every user").count(), 1, "said once:\n{said}");
}
