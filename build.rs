//! Build settings from the environment: with `SIMREEL_SKIP_GPU_TESTS` set, the tests that need a
//! GPU or software adapter are compiled as ignored (`#[cfg_attr(skip_gpu_tests, ignore)]`), so
//! the test run counts them as ignored instead of reporting them as passed. And a fingerprint of
//! the sources (`SIMREEL_SOURCE_HASH`, FNV-1a of every file under `src/`): saved simulation
//! states name the build that wrote them, since the version number stays while the code changes.

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
    println!("cargo::rustc-check-cfg=cfg(skip_gpu_tests)");
    println!("cargo::rerun-if-env-changed=SIMREEL_SKIP_GPU_TESTS");
    if std::env::var_os("SIMREEL_SKIP_GPU_TESTS").is_some() {
        println!("cargo::rustc-cfg=skip_gpu_tests");
    }
    println!("cargo::rerun-if-changed=src");
    let mut all = Vec::new();
    files(Path::new("src"), &mut all);
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
