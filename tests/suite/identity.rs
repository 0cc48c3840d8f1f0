//! Same bytes whatever the output folder holds: an edited scene rendered into the folder of its
//! earlier version gives the bytes a render into an empty folder gives. One test per way the
//! folder used to leak into a render (a saved state of another simulation, a frame kept by
//! `--resume` for a figure whose panel changed, an animation rebuilt from one frame), and the
//! leftovers of a longer version of a scene.

use std::path::Path;

use crate::common::{require_gpu, root, scratch, simreel};

fn ok(o: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    err
}

/// `simreel render SCENE --out OUT ARGS…`, its stderr.
fn render(scene: &Path, out: &Path, args: &[&str]) -> String {
    ok(&simreel().arg("render").arg(scene).arg("--out").arg(out).args(args).output().unwrap())
}

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn manifest(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&bytes(path)).unwrap()
}

/// Renders `frame` of `file` into a copy of `full` (a whole run of its earlier version) and into
/// an empty folder: the frame's bytes, and the state the manifests record, are the same.
fn same_as_fresh(file: &Path, name: &str, frame: u32, full: &Path, size: &str) -> String {
    let dir = full.parent().unwrap();
    let (kept, fresh) = (dir.join("kept"), dir.join("fresh"));
    let _ = std::fs::remove_dir_all(&kept);
    crate::common::copy_tree(full, &kept);
    let f = frame.to_string();
    let said = render(file, &kept, &["--frames", &f, "--size", size, "--format", "png"]);
    render(file, &fresh, &["--frames", &f, "--size", size, "--format", "png", "--quiet"]);
    let png = format!("{name}/frame_{frame:04}.png");
    assert!(
        bytes(&kept.join(&png)) == bytes(&fresh.join(&png)),
        "{}: frame {frame} depends on what the folder held:\n{said}",
        file.display()
    );
    let state = |d: &Path| {
        let m = manifest(&d.join(name).join("manifest.json"));
        m["frames"].as_array().unwrap().iter().find(|e| e["index"] == frame).unwrap()["state"].clone()
    };
    assert_eq!(state(&kept), state(&fresh));
    said
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_load_of_another_size_restores_no_state_of_the_old_one() {
    require_gpu();
    let dir = scratch();
    let file = dir.join("stack.toml");
    let text = "kind = \"cargo\"\n[render]\nduration = 5.0\n[cargo.route]\nlegs = [{ to = [5.0, 0.0] }, { wait = 2.0 }]\n\
                [[cargo.link]]\nname = \"bottom\"\nsize = [0.42, 0.34, 0.62]\n[[cargo.link]]\nname = \"middle\"\n[[cargo.link]]\nname = \"top\"\n";
    std::fs::write(&file, text).unwrap();
    let full = dir.join("full");
    render(&file, &full, &["--size", "96x64", "--format", "png", "--quiet"]);
    // the bottom load's height lifts the two above it: their resting heights are the simulation's
    std::fs::write(&file, text.replace("0.34", "0.6")).unwrap();
    let said = same_as_fresh(&file, "stack", 140, &full, "96x64");
    assert!(said.contains("saved states of another version of the scene passed over: simulated from the start"), "{said}");
    let m = manifest(&dir.join("kept/stack/manifest.json"));
    assert!(m["stale_states"].as_u64().unwrap() > 0 && m.get("simulated_from").is_none(), "{m}");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_chart_of_another_length_is_simulated_with_its_own_history() {
    require_gpu();
    let dir = scratch();
    let file = dir.join("walk.toml");
    let text = std::fs::read_to_string(root().join("scenes/cargo_walk.toml")).unwrap();
    assert!(text.contains("seconds = 5.0"), "scenes/cargo_walk.toml no longer holds `seconds = 5.0`: update this test");
    std::fs::write(&file, &text).unwrap();
    let full = dir.join("full");
    render(&file, &full, &["--size", "320x200", "--format", "png", "--quiet"]);
    // the history kept for the chart is the simulation's: a state with 5 s of it is not one with 10
    std::fs::write(&file, text.replace("seconds = 5.0", "seconds = 10.0")).unwrap();
    same_as_fresh(&file, "cargo_walk", 300, &full, "320x200");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_figure_whose_panel_changed_is_drawn_again_by_resume() {
    require_gpu();
    let dir = scratch();
    crate::common::copy_tree(&root().join("scenes"), &dir.join("scenes"));
    let figure = dir.join("scenes/figures/dice_roll.toml");
    let out = dir.join("out");
    let args = ["--size", "240x100", "--format", "png", "--resume"];
    render(&figure, &out, &args);
    let again = render(&figure, &out, &args);
    assert!(again.contains("nothing to render: 1 frame in "), "{again}");
    // the panel's scene file gets another seed: another figure, whatever its own file says
    let dice = dir.join("scenes/dice.toml");
    let text = std::fs::read_to_string(&dice).unwrap();
    let seed = text.lines().find(|l| l.starts_with("seed = ")).expect("scenes/dice.toml names its seed");
    std::fs::write(&dice, text.replacen(seed, "seed = 77", 1)).unwrap();
    let said = render(&figure, &out, &args);
    assert!(said.contains("1 frame there was rendered by another version of the scene: rendered again"), "{said}");
    let fresh = dir.join("fresh");
    render(&figure, &fresh, &args);
    let png = "dice_roll/frame_0000.png";
    assert!(bytes(&out.join(png)) == bytes(&fresh.join(png)), "the figure kept from before its panel changed");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_render_of_some_frames_leaves_the_animation_and_the_manifest_whole() {
    require_gpu();
    let dir = scratch();
    let file = dir.join("flock.toml");
    let text = std::fs::read_to_string(root().join("tests/scenes/flock_30.toml")).unwrap();
    std::fs::write(&file, &text).unwrap();
    let out = dir.join("out");
    let args = ["--size", "96x72", "--format", "png,gif"];
    render(&file, &out, &args);
    let (gif, manifest_path) = (out.join("flock.gif"), out.join("flock/manifest.json"));
    let whole = bytes(&gif);
    // the last frame alone: the GIF is already of these frames, the manifest still lists all 30
    let said = render(&file, &out, &[&args[..], &["--frames", "-1"]].concat());
    assert!(said.contains("flock.gif already of these frames"), "{said}");
    assert!(bytes(&gif) == whole, "a render of one frame rewrote the GIF");
    let before = manifest(&manifest_path);
    assert_eq!(before["frames"].as_array().unwrap().len(), 30);
    assert_eq!(before["animations"][0]["format"], "gif");
    // another theme, the last frame alone: that frame is another, the GIF is left as it was and
    // the command says why; the manifest says which frame is which
    std::fs::write(&file, text.replace("theme = \"light\"", "theme = \"dark\"")).unwrap();
    let said = render(&file, &out, &[&args[..], &["--frames", "-1"]].concat());
    assert!(said.contains("flock.gif left as it was: 29 of its 30 frames from another version of the scene"), "{said}");
    assert!(bytes(&gif) == whole);
    let after = manifest(&manifest_path);
    let ids = |m: &serde_json::Value| -> Vec<String> {
        m["frames"].as_array().unwrap().iter().map(|e| e["identity"].as_str().unwrap().to_string()).collect()
    };
    let (was, now) = (ids(&before), ids(&after));
    assert_eq!(now.len(), 30);
    assert_eq!(now[..29], was[..29], "the frames it did not render keep their entries");
    assert_ne!(now[29], was[29], "the frame it rendered is another");
    assert_eq!(after["animations"], before["animations"], "the GIF's record stays with the GIF");
    // every frame again: the GIF is made of the scene as it is now
    render(&file, &out, &args);
    let fresh = dir.join("fresh");
    render(&file, &fresh, &args);
    assert!(bytes(&gif) == bytes(&fresh.join("flock.gif")), "the GIF of the whole render differs from a fresh one");
    assert!(bytes(&gif) != whole);
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_shorter_scene_removes_its_own_frames_past_its_end() {
    require_gpu();
    let dir = scratch();
    let file = dir.join("flock.toml");
    let text = std::fs::read_to_string(root().join("tests/scenes/flock_30.toml")).unwrap();
    std::fs::write(&file, &text).unwrap();
    let out = dir.join("out");
    render(&file, &out, &["--size", "64x48", "--format", "png", "--quiet"]);
    // a file of the user's own stays, whatever it is called, unless it is named like a frame
    std::fs::write(out.join("flock/notes.txt"), "mine").unwrap();
    std::fs::write(&file, text.replace("frames = 30", "frames = 20")).unwrap();
    let said = render(&file, &out, &["--size", "64x48", "--format", "png"]);
    assert!(said.contains("10 frames past the scene's end removed"), "{said}");
    let frames: Vec<String> = std::fs::read_dir(out.join("flock"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("frame_"))
        .collect();
    assert_eq!(frames.len(), 20, "{frames:?}");
    assert!(out.join("flock/notes.txt").is_file());
    // a render of some frames removes nothing
    std::fs::write(&file, text.replace("frames = 30", "frames = 10")).unwrap();
    let said = render(&file, &out, &["--size", "64x48", "--format", "png", "--frames", "0"]);
    assert!(!said.contains("removed"), "{said}");
    assert!(out.join("flock/frame_0019.png").is_file());
}

/// A simulation's state at a frame does not depend on which frames were asked for on the way
/// (every frame, every ninth, or only the middle one): each shipped scene's state at its last
/// frame, saved as bytes, is the same three ways. A render of some frames saves states that a
/// render of others then starts from, so a state that remembered its path would make the bytes
/// depend on what the folder held.
#[test]
fn the_state_at_a_frame_does_not_depend_on_the_frames_visited_on_the_way() {
    let mut differ = Vec::new();
    for file in crate::common::shipped_scenes() {
        let scene = simreel::scene::load(&file).unwrap_or_else(|e| panic!("{e}"));
        let last = scene.frames() - 1;
        let paths: [(&str, Vec<u32>); 3] = [
            ("every frame", (0..=last).collect()),
            ("every ninth", (0..=last).step_by(9).chain([last]).collect()),
            ("the middle", vec![last / 2, last]),
        ];
        let states: Vec<(&str, Option<Vec<u8>>, u64)> = paths
            .iter()
            .map(|(how, frames)| {
                let mut sim = simreel::kinds::simulation(&scene.sim);
                let mut seen = std::collections::BTreeSet::new();
                for &f in frames {
                    if seen.insert(f) {
                        sim.advance(f);
                    }
                }
                (*how, sim.snapshot(), sim.digest().hash)
            })
            .collect();
        for (how, state, hash) in &states[1..] {
            if (state, hash) != (&states[0].1, &states[0].2) {
                differ.push(format!("{}: {how} gives another state at frame {last} than every frame", file.display()));
            }
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
