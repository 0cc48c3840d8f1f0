//! Golden-image regression: every shipped scene with a `[golden]` table matches its goldens on
//! lavapipe; deliberately perturbed scenes fail (the tolerances are tight enough); blessing writes
//! only what changed; other adapters use override folders; the HTML report works in a real
//! headless browser.

use std::path::{Path, PathBuf};

use crate::common::{Immutable, require_gpu, root, scratch, simreel};

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn shipped_scenes_match_their_goldens() {
    require_gpu();
    let out = scratch();
    let o = simreel().args(["golden", "check", "scenes"]).arg("--out").arg(&out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "golden check failed:\n{err}");
    assert!(err.contains("all ") && err.contains(" golden frames match"), "{err}");
    // a passing check says where its report went, and it is there
    let report = out.join("golden-report/report.html");
    assert!(err.contains(&format!("report: {}", report.display())) && report.is_file(), "{err}");
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("golden-report/summary.json")).unwrap()).unwrap();
    let golden_frames: usize = simreel::golden::collect_scenes(&[root().join("scenes")])
        .unwrap()
        .iter()
        .map(|s| s.golden.as_ref().expect("a golden table").frames.len())
        .sum();
    assert_eq!(summary["checked"].as_u64().unwrap() as usize, golden_frames, "every golden frame of every shipped scene is checked");
    assert_eq!(summary["failed"], 0);
    for f in summary["frames"].as_array().unwrap() {
        assert!(f["state"].as_str().unwrap().contains("identical"), "{f}");
    }
}

/// Writes `scenes/<base>.toml` with `from` replaced by `to` (which must occur) into `dir`.
fn perturbed(dir: &Path, base: &str, label: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join(format!("scenes/{base}.toml"))).unwrap();
    assert!(text.contains(from), "scenes/{base}.toml no longer contains {from:?}: update the must-fail set");
    let path = dir.join(format!("{base}_{label}.toml"));
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path
}

/// `simreel golden check` of `scene` against the shipped goldens, reports in `out`.
fn check_against_shipped_goldens(scene: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    simreel()
        .args(["golden", "check"])
        .args(extra)
        .arg("--goldens")
        .arg(root().join("tests/golden"))
        .arg("--out")
        .arg(out)
        .arg(scene)
        .output()
        .unwrap()
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn perturbed_scenes_fail_against_the_unperturbed_goldens() {
    require_gpu();
    let dir = scratch();
    // (label, scene, from, to, whether the simulation state changes)
    let cases = [
        ("camera_nudged_one_degree", "terrain", "start = 200", "start = 201", false),
        ("band_colour_shifted", "terrain", "{ height = 0.2, color = \"#7aa34d\" }", "{ height = 0.2, color = \"#7da34d\" }", false),
        ("sun_lower", "cliffs", "sun_elevation = 38", "sun_elevation = 37", false),
        (
            "mesh_with_a_hole",
            "terrain",
            "[terrain.overhang]",
            "[[terrain.shapes]]\ntype = \"capsule\"\na = [-7.5, 1.2, -1.0]\nb = [-6.0, 1.2, -1.0]\nradius = 0.5\nop = \"subtract\"\n\n[terrain.overhang]",
            true,
        ),
        ("blend_grows_faster", "cliffs", "to = 4.5, ease = \"smooth\" }", "to = 4.6, ease = \"smooth\" }", true),
        ("one_agent_missing", "flock", "agents = 30", "agents = 29", true),
        ("second_click_later", "flock", "clicks = [[6.5], [10.0]]", "clicks = [[6.5], [10.1]]", true),
        ("dark_theme", "flock_still", "theme = \"light\"", "theme = \"dark\"", false),
        ("dice_show_other_faces", "dice", "seed = 1\n", "seed = 2\n", true),
        ("jelly_more_opaque", "dice", "opacity = 0.58", "opacity = 0.6", false),
        ("pulled_a_little_higher", "dice_pull", "[0.9, 0.75, 0.55, 0.35]", "[0.9, 0.75, 0.6, 0.35]", true),
        ("gusts_a_little_stronger", "wind_meadow", "gust = { amplitude = 2.4,", "gust = { amplitude = 2.5,", true),
        ("walker_a_moment_later", "wind_meadow", "[[0.5, -8.0, 6.0]", "[[0.6, -8.0, 6.0]", true),
        ("blast_a_little_later", "wind_forest", "at = 2.5\n", "at = 2.55\n", true),
        ("kinematic_tree_on_the_default_model", "wind_seed", "model = \"kinematic\"\nat = [-6.0, 2.0]", "at = [-6.0, 2.0]", true),
        ("ground_a_shade_lighter", "wind_field", "ground = \"#3a3f47\"", "ground = \"#3f3f47\"", false),
        ("jige_a_little_fuller", "cargo_walk", "fill = 0.5", "fill = 0.52", true),
        ("follow_camera_nearer", "cargo_walk", "offset = [0.3, 1.3, 6.2]", "offset = [0.3, 1.3, 6.1]", false),
        ("middle_load_a_moment_later", "cargo_load", "at = 2.4", "at = 2.45", true),
    ];
    for (label, base, from, to, sim_changes) in cases {
        let scene = perturbed(&dir, base, label, from, to);
        let out = dir.join(label);
        let o = check_against_shipped_goldens(&scene, &out, &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(4), "{label} was not caught:\n{err}");
        assert!(
            err.contains(" of 1 golden frame failed") || err.contains(" golden frames failed") || err.contains("the flicker check of"),
            "{label}: {err}"
        );
        assert!(err.contains("first diverging frame"), "{label}: {err}");
        let changed = err.contains("simulation state CHANGED");
        assert_eq!(changed, sim_changes, "{label}: the report should say whether the simulation changed:\n{err}");
        let report = out.join("golden-report");
        for f in ["report.html", "summary.json", "junit.xml"] {
            assert!(report.join(f).is_file(), "{label}: no {f}");
        }
        let pngs =
            std::fs::read_dir(&report).unwrap().filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "png")).count();
        assert!(pngs >= 5, "{label}: {pngs} report images");
        let junit = std::fs::read_to_string(report.join("junit.xml")).unwrap();
        assert!(junit.contains("<failure"), "{label}");
        assert!(junit.contains("golden bless"), "{label}: the bless command is in the failure");
    }
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn missing_goldens_fail_with_the_bless_command_and_blessing_writes_only_changes() {
    require_gpu();
    let dir = scratch();
    let goldens = dir.join("goldens");
    let out = dir.join("out");
    let scene = root().join("tests/scenes/small_terrain.toml");
    let text = std::fs::read_to_string(&scene).unwrap()
        + "\n[golden]\nframes = \"0,20,47\"\n[golden.tolerance]\nchannel = 0\nmax_pixels = 0\nreason = \"test: exact on lavapipe\"\n";
    let path = dir.join("small.toml");
    std::fs::write(&path, &text).unwrap();
    let golden = |args: &[&str]| {
        simreel().arg("golden").args(args).arg("--goldens").arg(&goldens).arg("--out").arg(&out).arg(&path).output().unwrap()
    };
    let check = || golden(&["check", "--quiet"]);

    let o = check();
    assert_eq!(o.status.code(), Some(4));
    let report = std::fs::read_to_string(out.join("golden-report/report.html")).unwrap();
    assert!(report.contains("no golden image"));
    assert!(report.contains("simreel golden bless"));
    assert!(!goldens.exists(), "check must never write goldens");

    // accept what the check rendered
    let o = golden(&["bless", "--from-last-run"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    };
    let g = goldens.join("small_terrain");
    // three images, their state digests, and the adapter they were approved on
    assert_eq!(files(&g).len(), 7, "{:?}", files(&g));
    let record = std::fs::read_to_string(g.join("approved-on.toml")).unwrap();
    assert!(record.contains("backend = \"vulkan\"") && record.contains("driver = \"llvmpipe\""), "{record}");
    for f in files(&g).iter().filter(|f| f.ends_with(".png")) {
        let d = crate::common::read_png(&g.join(f));
        assert!(d.width <= 320 && d.height <= 240, "{f} is {}×{}", d.width, d.height);
    }
    assert!(check().status.success());

    // blessing again (rendering twice) changes nothing
    let before: Vec<std::time::SystemTime> = files(&g).iter().map(|f| std::fs::metadata(g.join(f)).unwrap().modified().unwrap()).collect();
    let o = golden(&["bless"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 files written, 3 images unchanged"), "{}", String::from_utf8_lossy(&o.stderr));
    let after: Vec<std::time::SystemTime> = files(&g).iter().map(|f| std::fs::metadata(g.join(f)).unwrap().modified().unwrap()).collect();
    assert_eq!(before, after);

    // a change to one frame's golden: bless --filter rewrites just that frame
    std::fs::copy(g.join("frame_0000.png"), g.join("frame_0020.png")).unwrap();
    assert_eq!(check().status.code(), Some(4));
    let o = golden(&["bless", "--filter", "small_terrain:20"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("1 file written, 0 images unchanged"), "{err}");
    assert!(check().status.success());

    // a second approved image is accepted too
    std::fs::copy(g.join("frame_0047.png"), g.join("frame_0000.alt.png")).unwrap();
    std::fs::copy(g.join("frame_0047.png"), g.join("frame_0000.png")).unwrap();
    assert_eq!(check().status.code(), Some(4), "a wrong image alone must fail");
    std::fs::remove_file(g.join("frame_0000.png")).unwrap();
    let o = golden(&["bless", "--filter", "small_terrain:0"]);
    assert!(o.status.success());
    std::fs::rename(g.join("frame_0000.png"), g.join("frame_0000.lavapipe.png")).unwrap();
    std::fs::copy(g.join("frame_0047.png"), g.join("frame_0000.png")).unwrap();
    let o = check();
    assert!(o.status.success(), "one matching approved image among several must pass");
    let summary = std::fs::read_to_string(out.join("golden-report/summary.json")).unwrap();
    assert!(summary.contains("best of 3 approved images"), "{summary}");
}

/// The report files of `dir` besides the shards' folders: name and bytes, sorted.
fn report_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| (e.file_name().to_string_lossy().to_string(), std::fs::read(e.path()).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_split_check_merges_into_the_report_of_one_check() {
    require_gpu();
    let dir = scratch();
    // four scenes, one of them failing on its pixels only
    let opaque = perturbed(&dir, "dice", "jelly_more_opaque", "opacity = 0.58", "opacity = 0.6");
    let scenes: Vec<PathBuf> =
        ["scenes/flock.toml", "scenes/flock_still.toml", "scenes/cargo_walk.toml"].iter().map(|s| root().join(s)).chain([opaque]).collect();
    let check = |out: &Path, extra: &[&str]| {
        simreel()
            .args(["golden", "check", "--quiet", "--goldens"])
            .arg(root().join("tests/golden"))
            .arg("--out")
            .arg(out)
            .args(extra)
            .args(&scenes)
            .output()
            .unwrap()
    };
    let (one, split) = (dir.join("one"), dir.join("split"));
    assert_eq!(check(&one, &[]).status.code(), Some(4));
    // each shard checks whole scenes and fails only when its own scenes do
    let mut failing = 0;
    let mut checked = Vec::new();
    for i in 1..=3 {
        let o = check(&split, &["--shard", &format!("{i}/3")]);
        let report = split.join(format!("golden-report/shard-{i}-of-3"));
        let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(report.join("summary.json")).unwrap()).unwrap();
        let failed = summary["failed"].as_u64().unwrap();
        assert_eq!(o.status.code(), Some(if failed > 0 { 4 } else { 0 }), "{}", String::from_utf8_lossy(&o.stderr));
        failing += (failed > 0) as u32;
        for f in summary["frames"].as_array().unwrap() {
            checked.push((f["scene"].as_str().unwrap().to_string(), f["frame"].as_u64().unwrap()));
        }
    }
    assert_eq!(failing, 1, "only the dice fail, on one shard");
    checked.sort();
    let before = checked.len();
    checked.dedup();
    assert_eq!(before, checked.len(), "a frame was checked twice");
    assert_eq!(checked.len(), 13, "every golden frame once: {checked:?}");
    assert!(!split.join("golden-run/flock/snapshots").exists(), "a golden check simulates from the start and saves no states");
    // a shard's report from a check of other scenes is refused, naming it
    let second = split.join("golden-report/shard-2-of-3");
    let good = dir.join("good-2");
    std::fs::rename(&second, &good).unwrap();
    let other = dir.join("other");
    let o = simreel()
        .args(["golden", "check", "--quiet", "--shard", "2/3", "--goldens"])
        .arg(root().join("tests/golden"))
        .arg("--out")
        .arg(&other)
        .args(&scenes[..3])
        .output()
        .unwrap();
    assert!(o.status.code().is_some_and(|c| c == 0 || c == 4), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::rename(other.join("golden-report/shard-2-of-3"), &second).unwrap();
    let o = simreel().args(["golden", "merge", "--out"]).arg(&split).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("the reports are of different checks"), "{err}");
    std::fs::remove_dir_all(&second).unwrap();
    std::fs::rename(&good, &second).unwrap();
    // a missing shard is named
    let third = split.join("golden-report/shard-3-of-3");
    let kept = dir.join("kept-3");
    std::fs::rename(&third, &kept).unwrap();
    let o = simreel().args(["golden", "merge", "--shards", "3", "--out"]).arg(&split).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("the report of shard 3/3 is missing"), "{err}");
    std::fs::rename(&kept, &third).unwrap();
    // the merge fails as the whole check does, and writes its report byte for byte, failing
    // frames' images included
    let o = simreel().args(["golden", "merge", "--out"]).arg(&split).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains("golden frames failed"), "{err}");
    let (a, b) = (report_files(&one.join("golden-report")), report_files(&split.join("golden-report")));
    assert_eq!(a.iter().map(|f| &f.0).collect::<Vec<_>>(), b.iter().map(|f| &f.0).collect::<Vec<_>>());
    // the bless commands name each check's --out: the only difference allowed
    let (one_out, split_out) = (one.display().to_string(), split.display().to_string());
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        let same = match (std::str::from_utf8(x), std::str::from_utf8(y)) {
            (Ok(x), Ok(y)) => x == y.replace(&split_out, &one_out),
            _ => x == y,
        };
        assert!(same, "{name} differs from one machine's");
    }
    assert!(a.iter().any(|f| f.0.ends_with("__diff.png")), "the failing frames' images are there");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn other_adapters_use_their_override_folder() {
    require_gpu();
    // llvmpipe through GL stands in for "another adapter" on a machine without a GPU; its driver
    // version ("4.5 (Core Profile) Mesa 22.3.6") is where the override's `driver` is found.
    let gl = simreel().args(["adapters", "--backend", "gl"]).output().unwrap();
    if !gl.status.success() {
        panic!("no GL adapter: install libegl1 and libgl1-mesa-dri (scripts/test does)\n{}", String::from_utf8_lossy(&gl.stderr));
    }
    let dir = scratch();
    let goldens = dir.join("goldens");
    let out = dir.join("out");
    let base = std::fs::read_to_string(root().join("tests/scenes/small_terrain.toml")).unwrap();
    let golden = "\n[golden]\nframes = [10]\n[golden.tolerance]\nchannel = 0\nmax_pixels = 0\nreason = \"test: exact on lavapipe\"\n";
    let with_override = format!(
        "{base}{golden}[[golden.overrides]]\nbackend = \"gl\"\nvendor = \"mesa\"\ndriver = \"Mesa\"\nimages = \"gl-llvmpipe\"\nchannel = 0\nmax_pixels = 0\nreason = \"test: llvmpipe through GL, exact against its own images\"\n"
    );
    let plain = dir.join("plain.toml");
    std::fs::write(&plain, format!("{base}{golden}")).unwrap();
    let over = dir.join("over.toml");
    std::fs::write(&over, &with_override).unwrap();
    let run = |args: &[&str], scene: &Path| {
        simreel().args(args).arg("--quiet").arg("--goldens").arg(&goldens).arg("--out").arg(&out).arg(scene).output().unwrap()
    };

    // without an override, blessing on GL is refused: canonical goldens come from lavapipe
    let o = run(&["golden", "bless", "--backend", "gl"], &plain);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("override"), "{}", String::from_utf8_lossy(&o.stderr));
    // with one, GL's images go to its folder and the canonical ones stay lavapipe's
    assert!(run(&["golden", "bless"], &over).status.success());
    let o = run(&["golden", "bless", "--backend", "gl"], &over);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(goldens.join("small_terrain/gl-llvmpipe/frame_0010.png").is_file());
    assert!(goldens.join("small_terrain/frame_0010.png").is_file());
    assert!(run(&["golden", "check", "--backend", "gl"], &over).status.success());
    assert!(run(&["golden", "check"], &over).status.success());
    let summary = std::fs::read_to_string(out.join("golden-report/summary.json")).unwrap();
    assert!(summary.contains("lavapipe (canonical)"), "{summary}");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
#[cfg_attr(skip_privileged_tests, ignore = "needs root to make a file immutable (SIMREEL_SKIP_PRIVILEGED_TESTS is set)")]
fn a_report_folder_that_cannot_be_cleared_fails_the_check_instead_of_keeping_old_images() {
    require_gpu();
    let out = scratch();
    let report = out.join("golden-report");
    std::fs::create_dir_all(&report).unwrap();
    let old = report.join("flock_still__frame_0000__actual.png");
    std::fs::copy(root().join("tests/golden/flock_still/frame_0000.png"), &old).unwrap();
    let _stuck = Immutable::new(&old);
    let o = simreel().args(["golden", "check", "--quiet", "scenes/flock_still.toml", "--out"]).arg(&out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "a report beside an earlier failure's image: {err}");
    assert!(err.contains("cannot remove") && err.contains("golden-report"), "{err}");
    assert!(!report.join("summary.json").exists(), "no report is written among stale files");
}

fn chromium() -> PathBuf {
    for c in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"] {
        if Path::new(c).exists() {
            return PathBuf::from(c);
        }
    }
    panic!("no Chromium: install it (apt-get install chromium; scripts/test does) to test the HTML report");
}

fn headless(profile: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(chromium());
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--virtual-time-budget=5000",
        "--window-size=1400,1000",
    ]);
    c.arg(format!("--user-data-dir={}", profile.display()));
    c
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn html_report_works_in_a_headless_browser() {
    require_gpu();
    let dir = scratch();
    let scene = perturbed(&dir, "terrain", "nudged", "start = 200", "start = 203");
    let out = dir.join("out");
    let o = check_against_shipped_goldens(&scene, &out, &["--quiet"]);
    assert_eq!(o.status.code(), Some(4));
    let report = out.join("golden-report/report.html").canonicalize().unwrap();
    let url = format!("file://{}", report.display());

    let dom = headless(&dir.join("profile-a")).arg("--dump-dom").arg(format!("{url}#selftest")).output().unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout);
    let start = dom.find("<pre id=\"selftest\">").expect("report has its self-test block") + "<pre id=\"selftest\">".len();
    let result = &dom[start..start + dom[start..].find("</pre>").unwrap()];
    assert!(result.contains("broken 0"), "images did not load: {result}");
    let images: usize = result.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(images >= 3 * 6, "{images} images in the report: {result}");
    assert!(result.contains("slider moves"), "{result}");
    assert!(result.contains("hover swaps"), "{result}");

    // What is on screen changes with the slider: two screenshots differ.
    let shot = |n: u32, name: &str| {
        let file = dir.join(name);
        let st = headless(&dir.join(format!("profile-{name}")))
            .arg(format!("--screenshot={}", file.display()))
            .arg(format!("{url}#slider={n}"))
            .output()
            .unwrap();
        assert!(file.is_file(), "no screenshot: {}", String::from_utf8_lossy(&st.stderr));
        crate::common::read_png(&file)
    };
    let (a, b) = (shot(5, "a.png"), shot(95, "b.png"));
    assert_eq!((a.width, a.height), (b.width, b.height));
    let differing = a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)).filter(|(p, q)| p != q).count();
    assert!(differing > 2000, "moving the slider changed only {differing} pixels");
}

/// A user's own project, outside this checkout: scenes, goldens and output in folders of its own
/// naming. The commands the check prints (in `golden review` and the summary) carry its
/// `--goldens` and `--out`, so that run as printed they bless into the user's goldens from the run
/// the check made; and files a person may have broken are errors naming them, never defaults.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn printed_commands_carry_the_checks_folders_and_broken_files_are_named() {
    require_gpu();
    let project = scratch();
    std::fs::create_dir_all(project.join("my-scenes")).unwrap();
    let text = std::fs::read_to_string(root().join("tests/scenes/small_terrain.toml")).unwrap()
        + "\n[golden]\nframes = \"0,47\"\n[golden.tolerance]\nchannel = 0\nmax_pixels = 0\nreason = \"test: exact on lavapipe\"\n";
    std::fs::write(project.join("my-scenes/spin.toml"), text).unwrap();
    let golden = |args: &[&str]| {
        simreel()
            .current_dir(&project)
            .arg("golden")
            .args(args)
            .args(["my-scenes", "--goldens", "my-goldens", "--out", "elsewhere"])
            .output()
            .unwrap()
    };
    assert_eq!(golden(&["check", "--quiet"]).status.code(), Some(4), "no goldens yet");
    // what review prints without a terminal, and the summary, carry the check's folders
    let o = golden(&["review"]);
    let printed = String::from_utf8_lossy(&o.stdout).into_owned();
    // each line a command, then what it accepts as a shell comment
    let commands: Vec<&str> =
        printed.lines().filter(|l| l.starts_with("simreel golden bless")).map(|l| l.split("  # ").next().unwrap()).collect();
    assert_eq!(commands.len(), 2, "{printed}\n{}", String::from_utf8_lossy(&o.stderr));
    let summary = simreel::golden::summary::Summary::read(&project.join("elsewhere/golden-report/summary.json")).unwrap();
    for f in &summary.frames {
        let bless = f.bless.as_deref().unwrap();
        assert!(bless.ends_with("--from-last-run --goldens my-goldens --out elsewhere"), "{bless}");
        assert!(commands.contains(&bless), "{bless} is not among what review printed:\n{printed}");
    }
    // run as printed (by a shell, `simreel` on the PATH), they write into my-goldens
    let bin = Path::new(env!("CARGO_BIN_EXE_simreel")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    for c in &commands {
        let o = std::process::Command::new("sh").arg("-c").arg(c).current_dir(&project).env("PATH", &path).output().unwrap();
        assert!(o.status.success(), "{c}:\n{}", String::from_utf8_lossy(&o.stderr));
    }
    assert!(project.join("my-goldens/small_terrain/frame_0047.png").is_file());
    assert!(!project.join("tests").exists() && !project.join("out").exists(), "nothing written outside the user's folders");
    assert!(golden(&["check", "--quiet"]).status.success());
    // a bless from another output folder says where it looked
    let o = simreel()
        .current_dir(&project)
        .args(["golden", "bless", "my-scenes", "--goldens", "my-goldens", "--from-last-run", "--out", "nowhere"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("nowhere/golden-run") && err.contains("same --out"), "{err}");
    // a summary a person broke: review says which file, never "no failures"
    let summary_file = project.join("elsewhere/golden-report/summary.json");
    std::fs::write(&summary_file, "{\"frames\": [{\"passed\": false}]}").unwrap();
    let o = golden(&["review"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("summary.json is not a golden check's summary"), "{err}");
    // an approved-on record that does not parse: named, not read as "no record"
    std::fs::write(project.join("my-goldens/small_terrain/approved-on.toml"), "adapter = [\n").unwrap();
    let o = golden(&["check", "--quiet"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("approved-on.toml is not a record"), "{err}");
}

/// `golden review` without `--out` finds the last check where it wrote its report (a check with
/// `--out build/golden` reports in build/golden/golden-report), even with an older passing
/// report in out/; and where there is none, says where it looked.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn review_without_out_finds_the_last_check_where_it_was_written() {
    require_gpu();
    let project = scratch();
    std::fs::create_dir_all(project.join("scenes")).unwrap();
    let text = std::fs::read_to_string(root().join("tests/scenes/small_terrain.toml")).unwrap()
        + "\n[golden]\nframes = [0, -1]\nsize = [64, 48]\n[golden.tolerance]\nchannel = 0\nmax_pixels = 0\nreason = \"test: exact on lavapipe\"\n";
    std::fs::write(project.join("scenes/spin.toml"), text).unwrap();
    let run = |args: &[&str]| simreel().current_dir(&project).args(args).stdin(std::process::Stdio::null()).output().unwrap();
    let o = run(&["golden", "review"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("looked in out/golden-report and in every folder up to two levels below"), "{err}");
    assert!(run(&["golden", "bless", "--quiet"]).status.success());
    // a passing check in out/, then a failing one elsewhere (frame -1 is the last frame's golden)
    assert!(run(&["golden", "check", "--quiet"]).status.success());
    let last = project.join("tests/golden/small_terrain/frame_0047.png");
    assert!(last.is_file(), "frames = [0, -1] approves frame 47 of 48");
    std::fs::copy(project.join("tests/golden/small_terrain/frame_0000.png"), &last).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let o = run(&["golden", "check", "--quiet", "--out", "build/golden"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains("1 of 2 golden frames failed"), "{err}");
    let o = run(&["golden", "review"]);
    let (said, printed) = (String::from_utf8_lossy(&o.stderr), String::from_utf8_lossy(&o.stdout));
    assert!(said.contains("the last report is build/golden/golden-report, the newest of 2 found"), "{said}");
    assert!(printed.contains("--filter small_terrain:47 --from-last-run --out build/golden"), "{printed}");
    // --out chooses: out/'s check passed, and review says where it looked
    let o = run(&["golden", "review", "--out", "out"]);
    let printed = String::from_utf8_lossy(&o.stdout);
    assert!(printed.contains("nothing to review: the last check in out/golden-report"), "{printed}");
}

/// A failed check's report folder, taken to another machine (a clone of the project, the folder
/// downloaded where the check wrote it): the command its summary gives approves the frames as the
/// check rendered them (same pixels, same state digest) and the next check passes; a frame of
/// another version of the scene, of an adapter the goldens take no images of, or whose picture
/// changed or is a link, is refused and nothing is written.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_downloaded_report_is_accepted_in_a_clone_and_refused_when_it_is_not_this_scene() {
    require_gpu();
    let base = scratch();
    let runner = base.join("runner");
    std::fs::create_dir_all(runner.join("scenes")).unwrap();
    let text = std::fs::read_to_string(root().join("tests/scenes/small_terrain.toml")).unwrap()
        + "\n[golden]\nframes = [0, 10, -1]\nsize = [64, 48]\n[golden.tolerance]\nchannel = 2\nmax_pixels = 0.001\nreason = \"lavapipe\"\n";
    std::fs::write(runner.join("scenes/t.toml"), text).unwrap();
    let run = |dir: &Path, args: &[&str]| simreel().current_dir(dir).args(args).output().unwrap();
    assert!(run(&runner, &["golden", "bless", "--quiet"]).status.success());
    // the committed goldens are wrong at frames 10 and 47: the runner's check fails
    let goldens = runner.join("tests/golden/small_terrain");
    for f in ["frame_0010.png", "frame_0047.png"] {
        std::fs::copy(goldens.join("frame_0000.png"), goldens.join(f)).unwrap();
    }
    assert_eq!(run(&runner, &["golden", "check", "--quiet"]).status.code(), Some(4));
    let report = runner.join("out/golden-report");
    let summary = simreel::golden::summary::Summary::read(&report.join("summary.json")).unwrap();
    let command = summary.accept_from_report.clone().expect("the summary gives the command");
    assert_eq!(command, "simreel golden bless scenes/t.toml --from-report out/golden-report");
    let md = std::fs::read_to_string(report.join("summary.md")).unwrap();
    assert!(md.contains("2 of 3 golden frames failed") && md.contains(&command) && md.matches("<img ").count() == 2, "{md}");
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    assert!(html.contains(&command), "the page gives it too");
    // a clone: the scenes and the committed goldens, the report downloaded into out/golden-report
    let clone = |name: &str| {
        let dir = base.join(name);
        crate::common::copy_tree(&runner.join("scenes"), &dir.join("scenes"));
        crate::common::copy_tree(&runner.join("tests"), &dir.join("tests"));
        crate::common::copy_tree(&report, &dir.join("out/golden-report"));
        dir
    };
    let snapshot = |dir: &Path| report_files(&dir.join("tests/golden/small_terrain"));
    let refused = |dir: &Path, why: &str| {
        let before = snapshot(dir);
        let o = run(dir, &["golden", "bless", "scenes/t.toml", "--from-report", "out/golden-report"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{why}: {err}");
        assert!(err.contains(why), "{why}: {err}");
        assert!(snapshot(dir) == before, "{why}: nothing written");
    };
    // another version of the scene here
    let dir = clone("edited");
    let scene = dir.join("scenes/t.toml");
    std::fs::write(&scene, std::fs::read_to_string(&scene).unwrap().replace("size = [64, 48]", "size = [64, 40]")).unwrap();
    refused(&dir, "rendered from another version of the scene");
    // another adapter, which no override covers
    let dir = clone("other-adapter");
    let file = dir.join("out/golden-report/summary.json");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("\"vendor\": \"mesa\"", "\"vendor\": \"nvidia\"")
        .replace("llvmpipe", "NVIDIA H200");
    std::fs::write(&file, text).unwrap();
    refused(&dir, "not lavapipe, and no [[golden.overrides]]");
    // a picture swapped after the check, and one that is a link out of the folder
    let dir = clone("swapped");
    let pic = dir.join("out/golden-report/small_terrain__frame_0010__actual.png");
    std::fs::copy(runner.join("out/golden-run/small_terrain/frame_0000.png"), &pic).unwrap();
    refused(&dir, "not the one the check rendered");
    let dir = clone("linked");
    let pic = dir.join("out/golden-report/small_terrain__frame_0047__actual.png");
    std::fs::remove_file(&pic).unwrap();
    std::os::unix::fs::symlink(runner.join("out/golden-run/small_terrain/frame_0047.png"), &pic).unwrap();
    refused(&dir, "is not a plain file");
    // the clone as it is: the printed command accepts both frames, pixels and states as the
    // runner rendered them, and the next check passes
    let dir = clone("accepted");
    let bin = Path::new(env!("CARGO_BIN_EXE_simreel")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let o = std::process::Command::new("sh").arg("-c").arg(&command).current_dir(&dir).env("PATH", &path).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in [10, 47] {
        let name = format!("frame_{f:04}");
        let (got, rendered) = (
            simreel::output::png::read(&dir.join(format!("tests/golden/small_terrain/{name}.png"))).unwrap(),
            simreel::output::png::read(&runner.join(format!("out/golden-run/small_terrain/{name}.png"))).unwrap(),
        );
        assert!(got.rgba == rendered.rgba, "frame {f}: the runner's pixels");
        let state = std::fs::read_to_string(dir.join(format!("tests/golden/small_terrain/{name}.state.txt"))).unwrap();
        let f_summary = summary.frames.iter().find(|s| s.subject.label() == format!("small_terrain:{f}")).unwrap();
        assert_eq!(state.trim(), f_summary.rendered.as_ref().unwrap().state);
    }
    let o = run(&dir, &["golden", "check", "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
