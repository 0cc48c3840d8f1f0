//! Build settings from the environment: with `SIMREEL_SKIP_GPU_TESTS` set, the tests that need a
//! GPU or software adapter are compiled as ignored (`#[cfg_attr(skip_gpu_tests, ignore)]`), so
//! the test run counts them as ignored instead of reporting them as passed; with
//! `SIMREEL_SKIP_PRIVILEGED_TESTS` set (`scripts/test` sets it where the machine does not let the
//! tests mount a tmpfs or make a file immutable: not root, or not Linux), so are the tests that
//! need to (`#[cfg_attr(skip_privileged_tests, ignore)]`); with `SIMREEL_SKIP_BOOK_TESTS` set
//! (`scripts/test` sets it where mdBook is not installed), so is the test that builds the book
//! (`#[cfg_attr(skip_book_tests, ignore)]`); with `SIMREEL_SKIP_CONTAINER_TESTS` set (where the
//! machine has no podman or debootstrap, or is not root), so is the test that builds the
//! container image (`#[cfg_attr(skip_container_tests, ignore)]`); with `SIMREEL_SKIP_WEB_TESTS` set
//! (where the web player cannot be built), so are the tests that play it in a browser
//! (`#[cfg_attr(skip_web_tests, ignore)]`). And a fingerprint of
//! everything compiled in that decides what simreel computes and draws (`SIMREEL_SOURCE_HASH`,
//! FNV-1a of every file under `src/`, `shaders/` and `assets/`, and of `Cargo.toml` and
//! `Cargo.lock`): saved simulation states, render manifests (what `--resume` and `merge` trust)
//! and golden reports name the build that wrote them, since the version number stays while the
//! code changes.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    for (var, cfg) in [
        ("SIMREEL_SKIP_GPU_TESTS", "skip_gpu_tests"),
        ("SIMREEL_SKIP_PRIVILEGED_TESTS", "skip_privileged_tests"),
        ("SIMREEL_SKIP_BOOK_TESTS", "skip_book_tests"),
        ("SIMREEL_SKIP_CONTAINER_TESTS", "skip_container_tests"),
        ("SIMREEL_SKIP_WEB_TESTS", "skip_web_tests"),
    ] {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        println!("cargo::rerun-if-env-changed={var}");
        if std::env::var_os(var).is_some() {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
    let inputs = ["src", "shaders", "assets", "Cargo.toml", "Cargo.lock"];
    let mut all = Vec::new();
    for input in inputs {
        println!("cargo::rerun-if-changed={input}");
        let path = Path::new(input);
        if path.is_dir() {
            files(path, &mut all);
        } else {
            all.push(path.to_path_buf());
        }
    }
    all.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in &all {
        let name = p.to_string_lossy().replace('\\', "/");
        for b in name.bytes().chain(std::fs::read(p).unwrap_or_default()) {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo::rustc-env=SIMREEL_SOURCE_HASH={h:016x}");
}
