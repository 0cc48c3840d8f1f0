//! The comparator's npm package and Python wheel, built here and installed into throwaway
//! projects outside the checkout (`scripts/test-packages`): the package's API tests, then a
//! Playwright Test project and a pytest project made of their READMEs' code blocks as printed
//! (the matcher and the plugin the packages ship, the system's Chromium), each run without a
//! golden (fails, writes it), unchanged (passes), with the button a shade redder and with another
//! colour (fails, naming the report, leaving a pending image), reviewed (`review --pending
//! --accept-all`) and updated. Needs npm's and PyPI's registries for Playwright, pytest and
//! maturin.

use std::path::Path;
use std::process::Command;

use crate::common::root;

#[test]
fn the_npm_and_python_packages_catch_a_changed_button_in_throwaway_projects() {
    let compare = Path::new(env!("CARGO_BIN_EXE_simreel")).parent().unwrap().join("simreel-compare");
    assert!(compare.is_file(), "{} is built with the workspace (cargo test --workspace)", compare.display());
    let o = Command::new(root().join("scripts/test-packages")).arg(&compare).current_dir(root()).output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    eprintln!("{out}{err}");
    assert!(o.status.success(), "scripts/test-packages failed:\n{out}\n{err}");
    let said = format!("{out}{err}");
    for step in [
        "the button a shade redder",
        "playwright: the button's colour changed",
        "pytest: the button's colour changed",
        "review --pending --accept-all, then the changed button passes",
        "the README's compare.mjs",
        "the README's compare_pngs.py",
        "--update-snapshots",
        "--update-goldens",
    ] {
        assert!(said.contains(step), "no step `{step}`:\n{said}");
    }
    assert!(said.contains("all package checks passed"), "{said}");
}
