//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `simreel` binary built for these tests, without this machine's adapter preference (the
/// tests that need one set it).
pub fn simreel() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_simreel"));
    c.current_dir(root()).env_remove("SIMREEL_BACKEND").env_remove("SIMREEL_ADAPTER");
    c
}

/// A copy of `from` (a file, or a folder and everything in it) at `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    }
}

/// A fresh scratch folder named from the running test's own path:
/// `target/test-scratch/<module>/<test>` (so a failed test's files are found by its name).
pub fn scratch() -> PathBuf {
    fresh(&test_path())
}

/// A fresh scratch folder for one part of the running test (a test that needs two, or a helper
/// that tests call): `target/test-scratch/<module>/<test>.<part>`.
pub fn scratch_part(part: &str) -> PathBuf {
    assert!(!part.is_empty() && !part.contains(['/', '\\']) && part != "..", "a scratch part is one plain name: {part:?}");
    fresh(&format!("{}.{part}", test_path()))
}

/// The running test's path in its test binary (`render/interrupted_render_resumes`): libtest runs
/// each test on a thread named after it.
fn test_path() -> String {
    let thread = std::thread::current();
    let name = thread.name().filter(|n| *n != "main").expect("scratch folders are made on a test's own thread (named after the test)");
    name.replace("::", "/")
}

fn fresh(relative: &str) -> PathBuf {
    let d = root().join("target").join("test-scratch").join(relative);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

/// Fails with a clear message when no adapter exists (install mesa-vulkan-drivers for lavapipe).
/// Tests that call it carry `#[cfg_attr(skip_gpu_tests, ignore = …)]`: built with
/// SIMREEL_SKIP_GPU_TESTS=1 (see build.rs) they are reported as ignored, with their count.
pub fn require_gpu() {
    let out = simreel().arg("adapters").output().expect("run simreel adapters");
    assert!(
        out.status.success(),
        "no wgpu adapter: install Mesa's lavapipe (apt-get install mesa-vulkan-drivers) or set SIMREEL_SKIP_GPU_TESTS=1\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Where scripts/ensure-test-tools puts what the tests drive besides the system's packages:
/// `venv/` (Python tools), `node_modules/` (Taplo), `bin/` (mdBook).
pub fn test_tools() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from).join("test-tools")
}

/// Every shipped scene file: `scenes/*.toml` and the figures under `scenes/figures/`.
pub fn shipped_scenes() -> Vec<PathBuf> {
    simreel::scene::scene_files(&root().join("scenes")).expect("scenes/ is readable")
}

pub fn read_png(path: &Path) -> simreel::output::png::Decoded {
    simreel::output::png::read(path).unwrap_or_else(|e| panic!("{e}"))
}

/// A file made immutable (`chattr +i`) until dropped: one that even root cannot remove. Tests that
/// use it carry `#[cfg_attr(skip_privileged_tests, ignore = …)]`.
pub struct Immutable(PathBuf);

impl Immutable {
    pub fn new(path: &Path) -> Immutable {
        let st = Command::new("chattr").arg("+i").arg(path).status();
        assert!(
            st.is_ok_and(|s| s.success()),
            "chattr +i {} failed: run as root on a file system that has the attribute, or set SIMREEL_SKIP_PRIVILEGED_TESTS=1 to count this test as ignored",
            path.display()
        );
        Immutable(path.to_path_buf())
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

/// Every file of a render of `flock`: frames, GIF, and the manifest's frames and final state.
pub fn same_render(a: &Path, b: &Path) {
    same_scene(a, b, "flock", 30);
}

/// Every file of scene `name`'s render (`frames` frames): frames, GIF, and the manifest's
/// frames and final state.
pub fn same_scene(a: &Path, b: &Path, name: &str, count: usize) {
    let frames = |d: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(d.join(name))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| n.to_string_lossy().ends_with(".png"))
            .collect();
        v.sort();
        v
    };
    let names = frames(a);
    assert_eq!(names.len(), count, "{name}");
    assert_eq!(names, frames(b), "{name}");
    for n in &names {
        assert!(std::fs::read(a.join(name).join(n)).unwrap() == std::fs::read(b.join(name).join(n)).unwrap(), "{name}: {n:?} differs");
    }
    let gif = format!("{name}.gif");
    assert!(std::fs::read(a.join(&gif)).unwrap() == std::fs::read(b.join(&gif)).unwrap(), "the GIFs of {name} differ");
    let manifest =
        |d: &Path| serde_json::from_slice::<serde_json::Value>(&std::fs::read(d.join(name).join("manifest.json")).unwrap()).unwrap();
    let (ma, mb) = (manifest(a), manifest(b));
    for key in ["frames", "final_state", "identity", "settings_hash", "frames_in_scene", "animations"] {
        assert_eq!(ma[key], mb[key], "{name}: {key}");
    }
}
