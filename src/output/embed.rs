//! `simreel embed`: a folder a static blog can host, in which a scene plays live — the scene file,
//! the web player (the simulations compiled to WebAssembly, `crates/simreel-web`, built by
//! `scripts/build-web`), the `<simreel-player>` element's script, a poster of the first frame
//! drawn by this renderer (what a browser without WebGPU or WebGL2 shows), a page that plays it
//! and the snippet to paste into a post.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::OutputError;
use crate::scene::Scene;

/// The player's files, as `scripts/build-web` writes them.
pub const PLAYER_FILES: [&str; 3] = ["simreel_web_bg.wasm", "simreel_web.js", "simreel-player.js"];

/// Largest player file read: the wasm is about 4 MB.
const MAX_PLAYER_FILE: u64 = 64 << 20;

/// What an embed folder holds, for the command to say.
#[derive(Debug)]
pub struct Embedded {
    pub folder: PathBuf,
    pub scene_file: String,
    pub snippet: String,
    /// Bytes of the wasm.
    pub wasm_bytes: u64,
}

/// Where a player built for this simreel may be: beside the program (`web/`, a release archive's
/// layout; `../web`, a checkout's `target/release/simreel` and `target/web`), newest first.
pub fn player_candidates(exe: &Path) -> Vec<PathBuf> {
    let Some(dir) = exe.parent() else { return Vec::new() };
    vec![dir.join("web"), dir.join("../web"), dir.join("../share/simreel/web")]
}

/// The kinds a player plays, in the order of its mark, by the mark's letters.
const PLAYER_KINDS: [&str; 5] = ["terrain", "flock", "dice", "wind", "cargo"];

/// The kinds the player `wasm` plays, from the mark inside it (`simreel-kinds:` and a letter a
/// kind, `-` for one left out: `scripts/build-web --kinds`); `None` where it has no mark.
pub fn player_kinds(wasm: &[u8]) -> Option<Vec<&'static str>> {
    const MARK: &[u8] = b"simreel-kinds:";
    let at = wasm.windows(MARK.len()).position(|w| w == MARK)? + MARK.len();
    let letters = wasm.get(at..at + PLAYER_KINDS.len())?;
    let kinds: Vec<&str> = PLAYER_KINDS.iter().zip(letters).filter(|(k, l)| k.as_bytes()[0] == **l).map(|(k, _)| *k).collect();
    letters.iter().all(|l| *l == b'-' || PLAYER_KINDS.iter().any(|k| k.as_bytes()[0] == *l)).then_some(kinds)
}

/// The player in `dir`, checked: every file there, the wasm built from this simreel's own sources
/// (its build fingerprint is inside it), since a player of other sources would step other states
/// than this program renders, and playing scenes of `kind` (a player of some kinds plays no other).
pub fn read_player(dir: &Path, kind: &str) -> Result<Vec<(&'static str, Vec<u8>)>, String> {
    let mut files = Vec::new();
    for name in PLAYER_FILES {
        let path = dir.join(name);
        let bytes = simreel_compare::fs::read_plain_at_most(&path, MAX_PLAYER_FILE).map_err(|e| format!("{}: {e}", path.display()))?;
        files.push((name, bytes));
    }
    let wasm = &files[0].1;
    if !wasm.starts_with(b"\0asm") {
        return Err(format!("{} is not WebAssembly", dir.join(PLAYER_FILES[0]).display()));
    }
    let build = crate::BUILD.as_bytes();
    if !wasm.windows(build.len()).any(|w| w == build) {
        return Err(format!(
            "the player in {} was built from other sources than this simreel ({}): run scripts/build-web again",
            dir.display(),
            crate::BUILD
        ));
    }
    if let Some(kinds) = player_kinds(wasm).filter(|k| !k.contains(&kind)) {
        return Err(format!(
            "the player in {} plays {} only, not a {kind} scene: build one that does (scripts/build-web --kinds {kind}, or every kind into target/web) and pass it with --player",
            dir.display(),
            kinds.join(", ")
        ));
    }
    Ok(files)
}

/// The snippet a post embeds: the element and its script, relative to the folder's address.
pub fn snippet(scene_file: &str, alt: &str) -> String {
    let alt = html_escape(alt);
    let src = html_escape(scene_file);
    format!(
        "<script type=\"module\" src=\"simreel-player.js\"></script>\n<simreel-player src=\"{src}\" poster=\"poster.png\" alt=\"{alt}\"></simreel-player>\n"
    )
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The folder's page: the player alone, with the snippet shown under it.
fn page(scene: &Scene, snippet: &str) -> String {
    let title = html_escape(scene.description.as_deref().unwrap_or(&scene.name));
    let shown = html_escape(snippet);
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n<style>body {{ margin: 2rem; font: 15px/1.5 system-ui, sans-serif; }} pre {{ background: #f3f4f6; padding: 0.75rem; overflow-x: auto; }}</style>\n</head>\n<body>\n<h1>{title}</h1>\n{snippet}<p>Paste this where the scene should play (the folder's files beside the page):</p>\n<pre><code>{shown}</code></pre>\n</body>\n</html>\n"
    )
}

/// Writes the embed folder `out` for `scene` (read from `scene_text`): the scene under its file
/// name, the player's files, `poster` (the first frame as PNG), `index.html` and `snippet.html`.
pub fn write(
    scene: &Scene,
    scene_text: &str,
    player: &[(&'static str, Vec<u8>)],
    poster: &[u8],
    out: &Path,
) -> Result<Embedded, OutputError> {
    let folder = super::folder(out)?;
    let scene_file = scene.path.file_name().and_then(OsStr::to_str).filter(|n| n.ends_with(".toml")).unwrap_or("scene.toml").to_string();
    let snippet = snippet(&scene_file, scene.description.as_deref().unwrap_or(&scene.name));
    let mut files: Vec<(&str, &[u8])> = vec![(&scene_file, scene_text.as_bytes()), ("poster.png", poster)];
    files.extend(player.iter().map(|(n, b)| (*n, b.as_slice())));
    let page = page(scene, &snippet);
    files.push(("index.html", page.as_bytes()));
    files.push(("snippet.html", snippet.as_bytes()));
    for (name, bytes) in files {
        folder.write(OsStr::new(name), bytes, false).map_err(super::write_err(&out.join(name)))?;
    }
    let wasm = &player[0].1;
    Ok(Embedded { folder: out.to_path_buf(), scene_file, snippet, wasm_bytes: wasm.len() as u64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snippet_escapes_what_it_quotes() {
        let s = snippet("a\"b.toml", "<dice> & \"rolls\"");
        assert!(s.contains("src=\"a&quot;b.toml\""), "{s}");
        assert!(s.contains("alt=\"&lt;dice&gt; &amp; &quot;rolls&quot;\""), "{s}");
        assert!(!s.contains("<dice>"));
    }

    #[test]
    fn the_mark_says_the_kinds_a_player_plays() {
        let kinds = |mark: &[u8]| player_kinds(&[b"\0asm junk ".as_slice(), mark, b" more"].concat());
        assert_eq!(kinds(b"simreel-kinds:tfdwc"), Some(vec!["terrain", "flock", "dice", "wind", "cargo"]));
        assert_eq!(kinds(b"simreel-kinds:--d-c"), Some(vec!["dice", "cargo"]));
        assert_eq!(kinds(b"simreel-kinds:-----"), Some(vec![]));
        // a player of every kind before the mark, and a mark that is not one
        assert_eq!(kinds(b"no mark"), None);
        assert_eq!(kinds(b"simreel-kinds:xyz12"), None);
        assert_eq!(kinds(b"simreel-kinds:fd"), None);
    }

    #[test]
    fn a_player_of_other_sources_or_not_wasm_is_refused() {
        let dir = std::env::temp_dir().join(format!("simreel-embed-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in [
            (PLAYER_FILES[0], b"\0asm\x01\0\0\0 simreel 0.0.0+other".to_vec()),
            (PLAYER_FILES[1], b"js".to_vec()),
            (PLAYER_FILES[2], b"js".to_vec()),
        ] {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        assert!(read_player(&dir, "dice").unwrap_err().contains("other sources"));
        let mut ours = b"\0asm\x01\0\0\0".to_vec();
        ours.extend_from_slice(crate::BUILD.as_bytes());
        std::fs::write(dir.join(PLAYER_FILES[0]), &ours).unwrap();
        assert_eq!(read_player(&dir, "dice").unwrap().len(), 3);
        // a player of some kinds: its own scenes only
        let mut flock_only = ours.clone();
        flock_only.extend_from_slice(b"\0simreel-kinds:-f---\0");
        std::fs::write(dir.join(PLAYER_FILES[0]), &flock_only).unwrap();
        assert_eq!(read_player(&dir, "flock").unwrap().len(), 3);
        let e = read_player(&dir, "dice").unwrap_err();
        assert!(e.contains("plays flock only, not a dice scene") && e.contains("--kinds dice"), "{e}");
        std::fs::write(dir.join(PLAYER_FILES[0]), b"<html>").unwrap();
        assert!(read_player(&dir, "dice").unwrap_err().contains("not WebAssembly"));
        std::fs::remove_file(dir.join(PLAYER_FILES[2])).unwrap();
        assert!(read_player(&dir, "dice").unwrap_err().contains("simreel-player.js"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
