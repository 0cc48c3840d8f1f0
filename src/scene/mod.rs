//! Scene files: TOML → a validated [`Scene`]. Every problem in a file is reported at once, with
//! `file:line:col`, the key, what was expected and a "did you mean" hint for misspelt keys; nothing
//! here touches the GPU. Sizes are checked against an estimate of memory before anything is
//! allocated.

pub mod cargo;
pub mod color;
pub mod common;
mod cost;
pub mod dice;
pub mod effects;
pub mod error;
pub mod eye;
pub mod figure;
pub mod flock;
pub mod frames;
pub mod golden;
pub mod identity;
pub mod keys;
pub mod kind_tables;
pub mod memory;
pub mod overrides;
pub mod reader;
pub mod schema;
pub mod terrain;
pub mod values;
pub mod wind;

use std::path::{Path, PathBuf};

pub use common::{CameraSpec, Format, LightSpec, OutputSpec, RenderSpec, Timing};
pub use error::{Diagnostic, SceneError};
pub use identity::Identity;
use keys::Key;
pub use kind_tables::{KINDS, KindLook, KindSpec, KindTable};
pub use memory::{Available, available_memory};
use reader::{Diagnostics, TableReader};
pub use values::{Animated, Srgb};

const NAME: Key = Key::of("name", keys::Ty::FileName)
    .said("the file's name without .toml")
    .doc("names the output folder and files, and the goldens' folder");
const SEED: Key = Key::int("seed", 0, 0, i64::MAX).doc("every random draw of the simulation comes from it");
const DESCRIPTION: Key = Key::text("description").doc("what the scene shows, for people");
const RENDER: Key = Key::table("render", &common::RENDER).doc(common::RENDER.doc);
const CAMERA: Key = Key::table("camera", &common::CAMERA).doc(common::CAMERA.doc);
const LIGHT: Key = Key::table("light", &common::LIGHT).doc(common::LIGHT.doc);
const OUTPUT: Key = Key::table("output", &common::OUTPUT).doc(common::OUTPUT.doc);
const GOLDEN: Key = Key::table("golden", &golden::GOLDEN).doc(golden::GOLDEN.doc);

/// The keys at the top level of every scene file (the kind's own table comes with `kind`).
const ROOT_KEYS: [Key; 9] = [kind_tables::KIND, NAME, SEED, DESCRIPTION, RENDER, CAMERA, LIGHT, OUTPUT, GOLDEN];

/// A loaded, validated scene: what its simulation is built from ([`SimSpec`]), what only its
/// drawing reads ([`LookSpec`]), and what changes no frame (its name, outputs and golden check).
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// Where it came from (for messages).
    pub path: PathBuf,
    /// Output name: `name = "…"`, else the file stem.
    pub name: String,
    /// `description`: what the scene shows, for people.
    pub description: Option<String>,
    pub sim: SimSpec,
    pub look: LookSpec,
    pub output: OutputSpec,
    /// `[golden]`: the frames a golden-image check renders and its tolerances.
    pub golden: Option<golden::GoldenSpec>,
    /// Values the file gives under a former name (read as the new one): said, never refused.
    pub deprecations: Vec<Diagnostic>,
    /// The values given on the command line over the file's (`--set`), as `KEY=VALUE`.
    pub overrides: Vec<String>,
}

/// Everything a scene's simulation is built from, and nothing else: its seed, the timing of its
/// frames and its kind's simulation spec. A simulation's constructor receives this alone.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SimSpec {
    pub seed: u64,
    pub timing: Timing,
    pub kind: KindSpec,
}

/// What only drawing reads: the frame's size, samples and background, the camera, the light and
/// the kind's look. A change here draws the same simulation states again.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LookSpec {
    /// Pixels.
    pub width: u32,
    pub height: u32,
    /// Samples per pixel, 1 or 4.
    pub msaa: u32,
    /// Vertical background gradient (sRGB).
    pub background_top: Srgb,
    pub background_bottom: Srgb,
    pub camera: CameraSpec,
    pub light: LightSpec,
    pub kind: KindLook,
}

/// Resident memory of the process before any scene: the program, its GPU API layer and a software adapter's
/// own (lavapipe on two cores: about 120–130 MiB rendering an empty scene; the rest is room for an
/// adapter with more threads).
pub const RENDERER_BASE: u64 = 160 << 20;

/// Longest scene name (it names the output folder and files).
pub const MAX_NAME: usize = 100;

/// Largest scene file: far beyond any hand-written scene (the shipped ones are under 4 KiB), small
/// enough that reading and checking one takes well under a second.
pub const MAX_SCENE_BYTES: u64 = 4 << 20;

/// Reads and validates a scene file.
pub fn load(path: &Path) -> Result<Scene, SceneError> {
    load_with(path, &[])
}

/// [`load`], with `overrides` (`--set`) over the file's values.
pub fn load_with(path: &Path, overrides: &[overrides::Override]) -> Result<Scene, SceneError> {
    let read = |source| SceneError::Read { path: path.to_path_buf(), source };
    // a huge file is refused before it is read
    let size = std::fs::metadata(path).map_err(read)?.len();
    if size > MAX_SCENE_BYTES {
        return Err(too_long(path, size));
    }
    let unreadable = |why: String| read(std::io::Error::new(std::io::ErrorKind::InvalidData, why));
    if std::fs::metadata(path).map_err(read)?.is_dir() {
        return Err(unreadable("it is a folder, not a scene file".into()));
    }
    // through no link another user planted (a shared scenes folder); never a FIFO
    let bytes = simreel_compare::fs::read_trusted(path).map_err(read)?;
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        return Err(unreadable(format!("it holds binary data (a NUL byte at offset {at}), not TOML text")));
    }
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.valid_up_to();
            let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
            return Err(unreadable(format!("it is not UTF-8 text: the byte at offset {at} (line {line}) is 0x{:02x}", bytes[at])));
        }
    };
    overrides::parse_with(text, path, overrides)
}

/// Deepest nesting of arrays and inline tables a scene may have (the shipped ones need 3).
pub const MAX_DEPTH: usize = 64;

/// Where brackets and braces first nest deeper than [`MAX_DEPTH`], outside strings and comments.
fn too_deep(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            q @ (b'"' | b'\'') => {
                // a string: basic (with escapes) or literal, one line or three-quoted
                let triple: &[u8] = if q == b'"' { b"\"\"\"" } else { b"\'\'\'" };
                let long = b[i..].starts_with(triple);
                let close: &[u8] = if long { triple } else { &triple[..1] };
                i += close.len();
                while i < b.len() && !b[i..].starts_with(close) && (long || b[i] != b'\n') {
                    i += if q == b'"' && b[i] == b'\\' { 2 } else { 1 };
                }
                // the loop's step below moves past the closing quote
                i += close.len() - 1;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

fn too_long(path: &Path, bytes: u64) -> SceneError {
    let message = format!("the file is {}; scene files are at most {}", error::human_bytes(bytes), error::human_bytes(MAX_SCENE_BYTES));
    let diagnostics = vec![Diagnostic { line: 1, col: 1, key: String::new(), message, hint: None }];
    SceneError::Invalid { path: path.to_path_buf(), diagnostics, more: 0 }
}

/// Validates scene text; `path` names it in messages and gives the default name.
pub fn parse(text: &str, path: &Path) -> Result<Scene, SceneError> {
    if text.len() as u64 > MAX_SCENE_BYTES {
        return Err(too_long(path, text.len() as u64));
    }
    let diags = Diagnostics::new(text).with_file(path);
    if let Some(at) = too_deep(text) {
        // refused before the TOML parser sees it: a few kilobytes of brackets made it allocate
        // tens of megabytes
        diags.error(at..at, "", format!("arrays and tables nest deeper than {MAX_DEPTH} levels"), None);
        let (diagnostics, more) = diags.into_vec();
        return Err(SceneError::Invalid { path: path.to_path_buf(), diagnostics, more });
    }
    let (doc, syntax) = toml::de::DeTable::parse_recoverable(text);
    if !syntax.is_empty() {
        // only the syntax: what the parser recovered lacks the keys past each mistake, and what
        // would be said of them (a value out of range at 1:1) stands in front of the real mistake
        for e in &syntax {
            let span = e.span().unwrap_or(0..0);
            diags.error(span, "", format!("TOML syntax: {}", e.message().trim()), None);
        }
        let (diagnostics, more) = diags.into_vec();
        return Err(SceneError::Invalid { path: path.to_path_buf(), diagnostics, more });
    }
    let root = TableReader::root(&doc, &kind_tables::ROOT, &diags);
    let scene = read_scene(&root, path);
    root.finish();
    if diags.has_errors() {
        let (diagnostics, more) = diags.into_vec();
        return Err(SceneError::Invalid { path: path.to_path_buf(), diagnostics, more });
    }
    let mut scene = scene.ok_or_else(|| SceneError::Invalid { path: path.to_path_buf(), diagnostics: Vec::new(), more: 0 })?;
    scene.deprecations = diags.deprecations();
    Ok(scene)
}

fn read_scene(root: &TableReader, path: &Path) -> Option<Scene> {
    let kind_name = match root.string(&kind_tables::KIND) {
        Some(k) => Some(k),
        None => {
            root.error_here(format!(
                "the scene needs `kind` = one of {}",
                KINDS.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(", ")
            ));
            None
        }
    };
    let kind_name = kind_name.and_then(|k| {
        if KINDS.contains(&k.as_str()) {
            Some(k)
        } else {
            let hint = reader::did_you_mean(&k, KINDS.iter().copied()).map(|h| format!("; did you mean \"{h}\"?")).unwrap_or_default();
            root.error_at(&kind_tables::KIND, format!("unknown scene kind \"{k}\": this build simulates {}{hint}", KINDS.join(", ")));
            None
        }
    });
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("scene").to_string();
    let name = root.string(&NAME).unwrap_or(stem);
    let seed = root.int(&SEED) as u64;
    let description = root.string(&DESCRIPTION);
    let r = root.table(&RENDER);
    let render = common::read_render(&r);
    r.finish();
    let c = root.table(&CAMERA);
    let camera = common::read_camera(&c);
    c.finish();
    let l = root.table(&LIGHT);
    let light = common::read_light(&l);
    l.finish();
    let o = root.table(&OUTPUT);
    let output = common::read_output(&o);
    o.finish();
    let golden = root.has(&GOLDEN).then(|| {
        let g = root.table(&GOLDEN);
        let spec = golden::read_golden(&g, render.frames, render.width, render.height);
        g.finish();
        spec
    });
    // Only this kind's table is read: `root.finish()` then reports a table of another kind as an
    // unknown key, so it is never silently ignored; with no kind known, a kind's table is no
    // mistake of its own (the one to report is the kind's).
    let Some(kind_name) = kind_name else {
        root.excuse(KINDS);
        return None;
    };
    let (kind, kind_look) = KindSpec::read(&kind_name, root, &render)?;
    Some(Scene {
        path: path.to_path_buf(),
        name,
        description,
        sim: SimSpec { seed, timing: render.timing(), kind },
        look: LookSpec {
            width: render.width,
            height: render.height,
            msaa: render.msaa,
            background_top: render.background_top,
            background_bottom: render.background_bottom,
            camera,
            light,
            kind: kind_look,
        },
        output,
        golden,
        deprecations: Vec::new(),
        overrides: Vec::new(),
    })
}

impl Scene {
    /// The deprecation notes, one `warning: file:line:col: key: message (hint)` line each.
    pub fn deprecation_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.deprecations.iter().map(|d| format!("warning: {}", error::Listing { path: &self.path, items: std::slice::from_ref(d) }))
    }

    /// What its frames are: the canonical hashes of its simulation's part and its drawing's.
    /// Made from the values each time it is asked for, so it cannot go stale when a caller changes
    /// the scene (a size given on the command line, a draft, a golden check's size).
    pub fn identity(&self) -> Identity {
        Identity { simulation: identity::hash(&self.sim), drawing: identity::hash(&self.look) }
    }

    /// Frames in the scene.
    pub fn frames(&self) -> u32 {
        self.sim.timing.frames
    }

    /// The kind's name, as written in `kind = "…"`.
    pub fn kind_name(&self) -> &'static str {
        self.sim.kind.name()
    }

    /// The draft of this scene: one sample a pixel at half its size (at least 16 pixels a side):
    /// what the studio shows first, and what `render --draft` writes, named `<name>-draft` so that
    /// it never takes the place of the final frames. The simulation is the same.
    pub fn into_draft(mut self) -> Scene {
        self.look.width = (self.look.width / 2).max(16);
        self.look.height = (self.look.height / 2).max(16);
        self.look.msaa = 1;
        self.name = format!("{}-draft", self.name);
        self
    }

    /// The files this scene is read from: its own, and a figure's data files and its panels'
    /// scene files (and theirs). A change to any of them can change its frames.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut files = vec![self.path.clone()];
        if let KindLook::Figure(f) = &self.look.kind {
            files.extend(f.files.iter().cloned());
        }
        files
    }

    /// A rough upper bound of the memory a render of this scene needs (peak resident memory of the
    /// process): the program and its renderer, the simulation's own state, and frames in flight
    /// through render, readback and encoding. docs/benchmarks/memory.md compares it with measured peaks.
    pub fn memory_estimate(&self, frames_in_flight: u64) -> (u64, String) {
        let px = self.look.width as u64 * self.look.height as u64;
        let frame = px * 4 * (self.look.msaa as u64 + 2); // MSAA colour + resolve + readback
        let frames = frame * frames_in_flight;
        let (sim, what) = kind_tables::memory(&self.sim.kind, &self.look.kind);
        let what = format!("{what} at {}×{}", self.look.width, self.look.height);
        (RENDERER_BASE + sim + frames, what)
    }

    /// Fails with [`SceneError::TooBig`] when the estimate exceeds the memory this process may
    /// still take ([`available_memory`]).
    pub fn check_memory(&self, available: &Available) -> Result<(), SceneError> {
        let (needed, what) = self.memory_estimate(8);
        if needed > available.bytes {
            return Err(SceneError::TooBig { path: self.path.clone(), what, needed, available: available.bytes, by: available.by.clone() });
        }
        Ok(())
    }
}

/// Every `*.toml` under `dir` and its subfolders, sorted (a folder's own files before its
/// subfolders').
pub fn scene_files(dir: &Path) -> Result<Vec<PathBuf>, SceneError> {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|source| SceneError::Read { path: dir.to_path_buf(), source })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    let mut files: Vec<PathBuf> = entries.iter().filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "toml")).cloned().collect();
    files.sort();
    let mut dirs: Vec<&PathBuf> = entries.iter().filter(|d| d.is_dir()).collect();
    dirs.sort();
    for d in dirs {
        files.extend(scene_files(d)?);
    }
    Ok(files)
}
