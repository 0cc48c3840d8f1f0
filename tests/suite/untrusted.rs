//! Every file simreel reads back is untrusted input: a report's `summary.json`, a golden check's
//! run manifest, a render's manifest, a pending image. A sweep over every path-bearing field of
//! each points it outside the user's folders (an absolute path, `..`, a symbolic link, another
//! user's file), with the content hash an attacker would write, runs what reads it back as a user
//! would (from a project folder of their own, outside this checkout), and asserts nothing outside
//! changed and nothing from outside came in.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use simreel::golden::trust::{pixels_sha256, sha256};
use simreel::output::png::{Decoded, Effort, encode};

/// A place of a user's and the victim's files beside it, both outside the checkout.
pub(crate) struct World {
    pub(crate) base: PathBuf,
    pub(crate) project: PathBuf,
    pub(crate) victim: PathBuf,
}

impl World {
    pub(crate) fn new(name: &str) -> World {
        let base = std::env::temp_dir().join(format!("simreel-untrusted-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let (project, victim) = (base.join("project"), base.join("victim"));
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&victim).unwrap();
        let secret = |p: &str, body: &[u8], mode: u32| {
            std::fs::write(victim.join(p), body).unwrap();
            std::fs::set_permissions(victim.join(p), std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
        };
        secret("id_ed25519", b"-----BEGIN OPENSSH PRIVATE KEY----- VICTIM-SECRET", 0o600);
        secret(".bashrc", b"# VICTIM-SECRET bashrc\n", 0o644);
        secret("victim.txt", b"VICTIM-SECRET text", 0o644);
        secret("photo.png", &encode(&victim_image(96, 64).rgba, 96, 64, Effort::Fast), 0o644);
        secret("other.png", &encode(&victim_image(96, 64).rgba, 96, 64, Effort::Fast), 0o600);
        // another user's file (as root, made another user's; elsewhere it stays the tester's)
        let _ = std::os::unix::fs::chown(victim.join("other.png"), Some(65534), Some(65534));
        World { base, project, victim }
    }

    pub(crate) fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_simreel"))
            .current_dir(&self.project)
            .args(args)
            .env_remove("SIMREEL_BACKEND")
            .env_remove("SIMREEL_ADAPTER")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// Every entry under the victim's folder: kind, content, mode and owner.
    pub(crate) fn snapshot(&self) -> BTreeMap<PathBuf, (bool, Vec<u8>, u32, u32)> {
        let mut all = BTreeMap::new();
        for e in std::fs::read_dir(&self.victim).unwrap().flatten() {
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            let body = if m.is_file() { std::fs::read(e.path()).unwrap() } else { Vec::new() };
            all.insert(e.path(), (m.file_type().is_symlink(), body, m.mode(), m.uid()));
        }
        all
    }

    /// Fails when a file under the project holds the victim's secret, or the victim's picture.
    pub(crate) fn nothing_came_in(&self, case: &str) {
        let victim = victim_image(96, 64);
        let mut stack = vec![self.project.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let m = std::fs::symlink_metadata(e.path()).unwrap();
                if m.is_dir() {
                    stack.push(e.path());
                } else if m.is_file() {
                    let body = std::fs::read(e.path()).unwrap();
                    assert!(!body.windows(13).any(|w| w == b"VICTIM-SECRET"), "{case}: {} holds the victim's secret", e.path().display());
                    if let Ok(img) = simreel::output::picture::decode_as(&body, None) {
                        assert!(img.rgba != victim.rgba, "{case}: {} holds the victim's picture", e.path().display());
                    }
                }
            }
        }
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// The victim's picture: a pattern no render makes.
fn victim_image(w: u32, h: u32) -> Decoded {
    let rgba = (0..w * h).flat_map(|i| [(i * 7 % 251) as u8, (i * 13 % 241) as u8, 0xa5, 255]).collect();
    Decoded { width: w, height: h, rgba }
}

pub(crate) fn picture(w: u32, h: u32, shade: u8) -> Vec<u8> {
    encode(&[shade, 90, 200 - shade / 2, 255].repeat((w * h) as usize), w, h, Effort::Fast)
}

pub(crate) fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Where each hostile value points: a file of the victim's (absolute), the same reached by `..`,
/// through a symbolic link to the file, through a link to its folder, another user's file.
fn hostile_paths(w: &World, inside: &Path) -> Vec<(String, PathBuf)> {
    std::fs::create_dir_all(inside).unwrap();
    let _ = symlink(w.victim.join("photo.png"), inside.join("link.png"));
    let _ = symlink(&w.victim, inside.join("linked"));
    let up = inside.components().count() - 1;
    let dots: PathBuf = std::iter::repeat_n("..", up).collect::<PathBuf>().join(w.victim.strip_prefix("/").unwrap());
    vec![
        ("absolute key".into(), w.victim.join("id_ed25519")),
        ("absolute bashrc".into(), w.victim.join(".bashrc")),
        ("absolute picture".into(), w.victim.join("photo.png")),
        ("absolute new picture".into(), w.victim.join("new.png")),
        ("dot-dot".into(), inside.join(&dots).join("photo.png")),
        ("link to a file".into(), inside.join("link.png")),
        ("link to a folder".into(), inside.join("linked/photo.png")),
        ("another user's file".into(), w.victim.join("other.png")),
    ]
}

/// The hash an attacker would record for `path`: its real content's, so that only the folder
/// checks stand between it and an accept.
fn hash_of(path: &Path) -> Option<String> {
    std::fs::read(path).ok().map(|b| sha256(&b))
}

#[test]
fn a_comparison_report_cannot_make_an_accept_touch_anything_outside() {
    let w = World::new("compare");
    let (base, new) = (w.project.join("shots/base"), w.project.join("shots/new"));
    std::fs::create_dir_all(&base).unwrap();
    std::fs::create_dir_all(&new).unwrap();
    std::fs::write(base.join("a.png"), picture(96, 64, 10)).unwrap();
    std::fs::write(new.join("a.png"), picture(96, 64, 200)).unwrap();
    std::fs::write(base.join("gone.png"), picture(96, 64, 30)).unwrap();
    let o = w.run(&["compare", "shots/base", "shots/new", "-q"]);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    let summary_file = w.project.join("out/compare-report/summary.json");
    let pristine = std::fs::read_to_string(&summary_file).unwrap();
    let before = w.snapshot();
    let targets = hostile_paths(&w, &w.project.join("shots/base"));
    let mut cases = 0;
    for field in ["expected_file", "actual_file", "expected_dir", "actual_dir"] {
        for (what, target) in &targets {
            for frame in 0..2 {
                let mut s: Value = serde_json::from_str(&pristine).unwrap();
                let t = json!(target.display().to_string());
                match field {
                    // the folder the comparison was given, and the file under it
                    "expected_dir" | "actual_dir" => {
                        s["compared"][field] = json!(target.parent().unwrap().display().to_string());
                        s["frames"][frame][field.replace("_dir", "_file")] = t;
                    }
                    _ => s["frames"][frame][field] = t,
                }
                // the attacker records the target's own hash
                if let Some(h) = hash_of(target) {
                    let side = if field.starts_with("expected") { "expected" } else { "actual" };
                    s["frames"][frame]["sha256"][side] = json!(h);
                }
                std::fs::write(&summary_file, serde_json::to_string(&s).unwrap()).unwrap();
                let o = w.run(&["golden", "review", "--compare", "--accept-all"]);
                let case = format!("{field} → {what} (frame {frame}): {}", text(&o));
                assert!(o.status.code().is_some_and(|c| c == 0 || c == 2), "{case}");
                assert_eq!(w.snapshot(), before, "{case}: the victim's files changed");
                w.nothing_came_in(&case);
                // put the project back for the next case
                std::fs::write(base.join("a.png"), picture(96, 64, 10)).unwrap();
                std::fs::write(base.join("gone.png"), picture(96, 64, 30)).unwrap();
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 64);
    // an accept of a file changed since the comparison is refused
    std::fs::write(&summary_file, &pristine).unwrap();
    std::fs::write(new.join("a.png"), picture(96, 64, 220)).unwrap();
    let o = w.run(&["golden", "review", "--compare", "--accept-all"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not what was compared"), "{}", text(&o));
    assert_eq!(std::fs::read(base.join("a.png")).unwrap(), picture(96, 64, 10));
    // and the report as the comparison wrote it is accepted: the folders then agree
    std::fs::remove_file(base.join("link.png")).unwrap();
    std::fs::remove_file(base.join("linked")).unwrap();
    std::fs::write(new.join("a.png"), picture(96, 64, 200)).unwrap();
    std::fs::write(base.join("gone.png"), picture(96, 64, 30)).unwrap();
    let o = w.run(&["golden", "review", "--compare", "--accept-all"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(std::fs::read(base.join("a.png")).unwrap(), picture(96, 64, 200));
    assert!(!base.join("gone.png").exists());
    assert!(w.run(&["compare", "shots/base", "shots/new", "-q"]).status.success());
}

#[test]
fn pending_images_that_are_links_are_never_followed() {
    let w = World::new("pending");
    let dir = w.project.join("tests/goldens");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("p.png"), picture(96, 64, 10)).unwrap();
    symlink(w.victim.join("photo.png"), dir.join("p.new.png")).unwrap();
    symlink(w.victim.join(".bashrc"), dir.join("q.png")).unwrap();
    std::fs::write(dir.join("q.new.png"), picture(96, 64, 50)).unwrap();
    symlink(&w.victim, dir.join("linked")).unwrap();
    std::fs::write(w.victim.join("r.new.png"), picture(96, 64, 70)).unwrap();
    let before = w.snapshot();
    let o = w.run(&["golden", "review", "--pending", "tests", "--accept-all"]);
    assert!(o.status.code().is_some_and(|c| c == 0 || c == 2), "{}", text(&o));
    assert_eq!(w.snapshot(), before, "{}", text(&o));
    w.nothing_came_in(&text(&o));
    assert_eq!(std::fs::read(dir.join("p.png")).unwrap(), picture(96, 64, 10), "{}", text(&o));
}

pub(crate) const SCENE: &str = r#"kind = "flock"
name = "tiny"
seed = 3

[render]
width = 96
height = 64
fps = 10
frames = 4

[flock]
agents = 12
nodes = 4

[golden]
frames = [0, 3]

[golden.tolerance]
channel = 0
reason = "exact: the test's own approved images"
"#;

/// The project's tiny scene, approved, then its approved images spoilt so that a check fails.
pub(crate) fn failing_check(w: &World) {
    std::fs::write(w.project.join("tiny.toml"), SCENE).unwrap();
    let o = w.run(&["golden", "bless", "tiny.toml"]);
    assert!(o.status.success(), "{}", text(&o));
    for e in std::fs::read_dir(w.project.join("tests/golden/tiny")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "png") {
            std::fs::write(e.path(), picture(96, 64, 120)).unwrap();
        }
    }
    let o = w.run(&["golden", "check", "tiny.toml"]);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
fn a_check_report_and_its_run_manifest_cannot_bless_anything_from_outside() {
    crate::common::require_gpu();
    let w = World::new("check");
    failing_check(&w);
    let run = w.project.join("out/golden-run/tiny");
    let (manifest_file, summary_file) = (run.join("manifest.json"), w.project.join("out/golden-report/summary.json"));
    let (manifest, summary) = (std::fs::read_to_string(&manifest_file).unwrap(), std::fs::read_to_string(&summary_file).unwrap());
    let frame_file = run.join("frame_0000.png");
    let frame = std::fs::read(&frame_file).unwrap();
    let before = w.snapshot();
    let victim_sha = pixels_sha256(&victim_image(96, 64));
    for (what, target) in hostile_paths(&w, &run) {
        for how in ["manifest", "file"] {
            let mut m: Value = serde_json::from_str(&manifest).unwrap();
            if how == "manifest" {
                m["frames"][0]["file"] = json!(target.display().to_string());
            } else {
                std::fs::remove_file(&frame_file).unwrap();
                symlink(&target, &frame_file).unwrap();
            }
            std::fs::write(&manifest_file, serde_json::to_string(&m).unwrap()).unwrap();
            let mut s: Value = serde_json::from_str(&summary).unwrap();
            for f in s["frames"].as_array_mut().unwrap() {
                f["sha256"]["actual"] = json!(victim_sha);
            }
            std::fs::write(&summary_file, serde_json::to_string(&s).unwrap()).unwrap();
            for args in [&["golden", "review", "tiny.toml", "--accept-all"][..], &["golden", "bless", "tiny.toml", "--from-last-run"]] {
                let o = w.run(args);
                let case = format!("{how} → {what}, {}: {}", args.join(" "), text(&o));
                assert!(o.status.code().is_some_and(|c| c == 0 || c == 2), "{case}");
                assert_eq!(w.snapshot(), before, "{case}: the victim's files changed");
                w.nothing_came_in(&case);
            }
            let _ = std::fs::remove_file(&frame_file);
            std::fs::write(&frame_file, &frame).unwrap();
        }
    }
    // untouched, the check's own render is accepted
    std::fs::write(&manifest_file, &manifest).unwrap();
    std::fs::write(&summary_file, &summary).unwrap();
    let o = w.run(&["golden", "review", "tiny.toml", "--accept-all"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(w.run(&["golden", "check", "tiny.toml"]).status.success());
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
fn a_render_manifest_cannot_make_a_resumed_render_read_or_write_outside() {
    crate::common::require_gpu();
    let w = World::new("render");
    std::fs::write(w.project.join("tiny.toml"), SCENE).unwrap();
    let o = w.run(&["render", "tiny.toml", "--format", "png,gif"]);
    assert!(o.status.success(), "{}", text(&o));
    let manifest_file = w.project.join("out/tiny/manifest.json");
    let manifest = std::fs::read_to_string(&manifest_file).unwrap();
    let before = w.snapshot();
    for (what, target) in hostile_paths(&w, &w.project.join("out/tiny")) {
        for field in ["frame", "gif", "animation", "scene_file"] {
            let mut m: Value = serde_json::from_str(&manifest).unwrap();
            let t = json!(target.display().to_string());
            match field {
                "frame" => m["frames"][1]["file"] = t,
                "gif" => m["gif"] = t,
                "animation" => m["animations"][0]["file"] = t,
                _ => m["scene_file"] = t,
            }
            std::fs::write(&manifest_file, serde_json::to_string(&m).unwrap()).unwrap();
            let o = w.run(&["render", "tiny.toml", "--format", "png,gif", "--resume"]);
            let case = format!("{field} → {what}: {}", text(&o));
            assert!(o.status.success(), "{case}");
            assert_eq!(w.snapshot(), before, "{case}: the victim's files changed");
            w.nothing_came_in(&case);
        }
    }
}
