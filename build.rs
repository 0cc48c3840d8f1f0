//! Build settings from the environment: with `SIMREEL_SKIP_GPU_TESTS` set, the tests that need a
//! GPU or software adapter are compiled as ignored (`#[cfg_attr(skip_gpu_tests, ignore)]`), so
//! the test run counts them as ignored instead of reporting them as passed.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(skip_gpu_tests)");
    println!("cargo::rerun-if-env-changed=SIMREEL_SKIP_GPU_TESTS");
    if std::env::var_os("SIMREEL_SKIP_GPU_TESTS").is_some() {
        println!("cargo::rustc-cfg=skip_gpu_tests");
    }
}
