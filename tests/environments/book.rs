//! The book: `docs/` built by mdBook as the site is, without a warning.

use std::path::PathBuf;
use std::process::Command;

use crate::common::{root, scratch, test_tools};

#[test]
#[cfg_attr(skip_book_tests, ignore = "mdBook is not installed (cargo install mdbook); scripts/test installs it")]
fn the_book_builds_without_warnings() {
    let installed = test_tools().join("bin/mdbook");
    let mdbook = if installed.is_file() { installed } else { PathBuf::from("mdbook") };
    let dest = scratch();
    let o = Command::new(&mdbook).args(["build", "docs", "--dest-dir"]).arg(&dest).current_dir(root()).output().unwrap_or_else(|e| {
        panic!("{} cannot run ({e}): install it (cargo install mdbook) or set SIMREEL_SKIP_BOOK_TESTS=1", mdbook.display())
    });
    let said = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{said}");
    assert!(!said.contains("WARN") && !said.contains("ERROR"), "the book builds with warnings:\n{said}");
    for page in ["index.html", "kinds/dice.html", "scene-reference.html", "gallery.html", "gallery/dice.gif", "scene.schema.json"] {
        assert!(dest.join(page).is_file(), "the book has no {page}");
    }
    // "Live in your post" plays the flock in the page where scripts/book embedded it beside
    let live = std::fs::read_to_string(dest.join("live.html")).unwrap();
    for wanted in
        ["<script type=\"module\" src=\"live/simreel-player.js\">", "<simreel-player src=\"live/flock.toml\"", "gallery/flock.gif"]
    {
        assert!(live.contains(wanted), "live.html has no {wanted}");
    }
    let player = test_tools().parent().unwrap().join("web");
    if player.join("simreel_web_bg.wasm").is_file() {
        let o = crate::common::simreel()
            .args(["embed", "scenes/flock.toml", "-o"])
            .arg(dest.join("live"))
            .arg("--player")
            .arg(&player)
            .current_dir(root())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for file in ["flock.toml", "poster.png", "simreel-player.js", "simreel_web_bg.wasm"] {
            assert!(dest.join("live").join(file).is_file(), "scripts/book's embed left no live/{file}");
        }
    }
}
