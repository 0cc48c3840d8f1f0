//! Scene validation (every problem, with line:col, key and hints), the CLI's exit codes, the shipped
//! scenes, determinism of the simulation across runs and thread counts, shader validation without a
//! GPU, and the layering rule (scene/sim code never names wgpu; the renderer never names a kind).

use std::path::Path;

use crate::common::{root, simreel};
use simreel::scene::{self, SceneError};

fn problems(text: &str) -> Vec<scene::Diagnostic> {
    match scene::parse(text, Path::new("broken.toml")) {
        Err(SceneError::Invalid { diagnostics, .. }) => diagnostics,
        Ok(_) => panic!("expected problems in:\n{text}"),
        Err(e) => panic!("unexpected error {e}"),
    }
}

#[test]
fn every_problem_is_reported_with_position_key_and_hint() {
    let text = r#"kind = "terrain"
seed = 1

[render]
widht = 320
height = 0
msaa = 2

[terrain]
resolution = [32, 32]

[terrain.height]
octaves = "many"
frequncy = 0.2

[[terrain.shapes]]
type = "sphre"
"#;
    let d = problems(text);
    let find = |key: &str| d.iter().find(|x| x.key == key).unwrap_or_else(|| panic!("no problem reported for {key}: {d:#?}"));
    let w = find("render.widht");
    assert_eq!((w.line, w.col), (5, 1));
    assert!(w.message.contains("unknown key"));
    assert_eq!(w.hint.as_deref(), Some("did you mean `width`?"));
    let h = find("render.height");
    assert_eq!((h.line, h.col), (6, 10));
    assert!(h.message.contains("out of range"), "{}", h.message);
    assert!(find("render.msaa").message.contains("use 1 or 4"));
    assert!(find("terrain.resolution").message.contains("array of 3 numbers"));
    let o = find("terrain.height.octaves");
    assert!(o.message.contains("expected an integer, found a string"), "{}", o.message);
    assert_eq!(find("terrain.height.frequncy").hint.as_deref(), Some("did you mean `frequency`?"));
    let s = find("terrain.shapes[0].type");
    assert!(s.message.contains("did you mean \"sphere\""), "{}", s.message);
    assert_eq!(s.line, 17);
    // sorted by position
    assert!(d.windows(2).all(|p| (p[0].line, p[0].col) <= (p[1].line, p[1].col)));
}

#[test]
fn kinds_syntax_and_exclusive_keys() {
    let d = problems("kind = \"terain\"\n");
    assert!(d[0].message.contains("did you mean \"terrain\""), "{:?}", d[0]);
    let d = problems("kind = \"terrain\"\n[render]\nwidth = = 3\n");
    assert!(d.iter().any(|x| x.message.starts_with("TOML syntax") && x.line == 3), "{d:?}");
    let d = problems("kind = \"terrain\"\n[render]\nframes = 10\nduration = 2.0\n");
    assert!(d.iter().any(|x| x.message.contains("either `frames` or `duration`")));
    let d = problems("seed = 1\n");
    assert!(d[0].message.contains("needs `kind`"));
    let d = problems("kind = \"terrain\"\n[camera]\nposition = [1, 2, 3]\n[camera.orbit]\nradius = 3\n");
    assert!(d.iter().any(|x| x.key == "camera.orbit" && x.message.contains("remove `position`")));
}

#[test]
fn defaults_fill_a_minimal_scene() {
    let s = scene::parse("kind = \"terrain\"\n", Path::new("dir/hills.toml")).unwrap();
    assert_eq!(s.name, "hills");
    assert_eq!((s.look.width, s.look.height, s.sim.timing.fps, s.sim.timing.frames, s.look.msaa), (640, 480, 30, 60, 4));
    let scene::KindSpec::Terrain(t) = &s.sim.kind else { panic!("a terrain scene") };
    assert_eq!(t.resolution, [96, 64, 96]);
    assert!(t.closed);
    let d = scene::parse("kind = \"terrain\"\n[render]\nduration = 2.5\nfps = 24\n", Path::new("x.toml")).unwrap();
    assert_eq!(d.sim.timing.frames, 60);
}

#[test]
fn oversized_scenes_are_refused_before_allocating() {
    let s = scene::parse("kind = \"terrain\"\n[terrain]\nresolution = 1024\n", Path::new("big.toml")).unwrap();
    let room = |bytes: u64| scene::Available { bytes, by: "a test's limit".into() };
    let err = s.check_memory(&room(1 << 30)).unwrap_err();
    assert!(err.to_string().contains("1024×1024×1024 terrain grid") && err.to_string().contains("(a test's limit)"), "{err}");
    assert!(s.check_memory(&room(u64::MAX)).is_ok());
}

/// Under an address-space limit (as `ulimit -v` sets, what a CI job or a login node may have), a
/// scene that fits the machine but not the limit is refused up front, naming the limit.
#[test]
fn the_memory_check_heeds_the_process_limit() {
    let dir = crate::common::scratch();
    // a 512³ grid: about 2 GiB, within this machine's memory, not within 1 GiB of address space
    std::fs::write(dir.join("big.toml"), "kind = \"terrain\"\n[terrain]\nresolution = 512\n").unwrap();
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v 1048576 && exec {} validate big.toml", env!("CARGO_BIN_EXE_simreel")))
        .current_dir(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(text.contains("ulimit -v") && text.contains("512×512×512"), "{text}");
}

#[test]
fn validate_command_reports_positions_and_exit_codes() {
    let dir = crate::common::scratch();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "kind = \"terrain\"\n[render]\nfsp = 30\n").unwrap();
    let out = simreel().arg("validate").arg(&bad).arg("scenes/terrain.toml").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml:3:1: render.fsp: unknown key `fsp` in [render] (did you mean `fps`?)"), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("scenes/terrain.toml: ok"), "{stdout}");

    let out = simreel().args(["validate", "scenes/terrain.toml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = simreel().args(["validate", "no/such/file.toml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read scene file no/such/file.toml"));

    // a folder: every scene file in it and below it, as `golden check` takes folders
    let shipped = simreel().args(["validate", "scenes"]).output().unwrap();
    let said = String::from_utf8_lossy(&shipped.stdout);
    assert_eq!(shipped.status.code(), Some(0), "{said}{}", String::from_utf8_lossy(&shipped.stderr));
    let files = simreel::scene::scene_files(std::path::Path::new("scenes")).unwrap();
    assert!(files.len() > 20 && files.iter().all(|f| said.contains(&format!("{}: ok", f.display()))), "{said}");
    // a figure's layout: each panel's rectangle and how its scene fits, no warning for a shipped one
    assert!(said.contains("  panel 2 at [488, 51.2, 456, 281.8] (456×282): panel 1's region [185, 80, 110, 80] magnified"), "{said}");
    assert!(said.contains("flock_crowd (flock): its 960×540 canvas scaled 0.4750× and centred"), "{said}");
    assert!(!String::from_utf8_lossy(&shipped.stderr).contains("warning"), "{}", String::from_utf8_lossy(&shipped.stderr));
    assert!(said.contains("scenes/figures/parts/mc_cube.toml: ok"), "subfolders too: {said}");
    let mine = dir.join("mine");
    std::fs::create_dir_all(mine.join("sub")).unwrap();
    std::fs::copy("scenes/terrain.toml", mine.join("terrain.toml")).unwrap();
    std::fs::copy(&bad, mine.join("sub/bad.toml")).unwrap();
    let out = simreel().arg("validate").arg(&mine).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("sub/bad.toml:3:1: render.fsp") && err.contains("1 of 2 scene files are invalid"), "{err}");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = simreel().arg("validate").arg(&empty).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no scene files (*.toml) in this folder"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bad_arguments_exit_with_code_2() {
    for args in [
        vec!["render", "scenes/terrain.toml", "--no-such-flag"],
        vec!["render", "scenes/terrain.toml", "--frames", "500"],
        vec!["render", "scenes/terrain.toml", "--size", "10x10"],
        vec!["render", "scenes/terrain.toml", "--format", "bmp"],
        vec!["render", "scenes/terrain.toml", "--backend", "opengl"],
        vec!["frobnicate"],
    ] {
        let out = simreel().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stderr.is_empty());
    }
    let out = simreel().args(["render", "scenes/terrain.toml", "--frames", "90", "--quiet"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("outside the scene's frames 0..89"));
    let out = simreel().args(["render", "scenes/terrain.toml", "--adapter", "no-such-gpu-anywhere", "--quiet"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn shipped_scenes_are_valid_and_cover_every_kind() {
    let mut kinds_seen = std::collections::BTreeSet::new();
    for p in crate::common::shipped_scenes() {
        let s = scene::load(&p).unwrap_or_else(|e| panic!("{e}"));
        kinds_seen.insert(s.kind_name());
    }
    let missing: Vec<&str> = scene::KINDS.iter().copied().filter(|k| !kinds_seen.contains(k)).collect();
    assert!(missing.is_empty(), "scenes/ has no example scene of the registered kind(s) {missing:?}");
}

fn frames_of(path: &str, frames: &[u32]) -> Vec<(simreel::frame::FrameData, String)> {
    let s = scene::load(&root().join(path)).unwrap();
    let mut sim = simreel::kinds::build(&s);
    frames
        .iter()
        .map(|&f| {
            let d = sim.frame(f);
            (d, sim.digest().to_string())
        })
        .collect()
}

#[test]
fn same_scene_same_frames_on_any_thread_count() {
    let frames = [0, 7, 23, 47];
    let one =
        rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| frames_of("tests/scenes/small_terrain.toml", &frames));
    let again =
        rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| frames_of("tests/scenes/small_terrain.toml", &frames));
    let three =
        rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap().install(|| frames_of("tests/scenes/small_terrain.toml", &frames));
    assert_eq!(one, again);
    assert_eq!(one, three);
    for ((a, da), (b, _)) in one.iter().zip(&three) {
        assert_eq!(a.digest(), b.digest());
        assert_eq!(a.meshes[0].mesh.data, b.meshes[0].mesh.data, "mesh of frame {} differs: {da}", a.index);
    }
    // the animated sphere changes the mesh between frames
    assert_ne!(one[0].0.meshes[0].mesh.key, one[3].0.meshes[0].mesh.key);
    assert!(one[0].1.contains("triangles"), "{}", one[0].1);
}

#[test]
fn shaders_validate_without_a_gpu() {
    use simreel::render::shaders;
    for (name, _) in shaders::SHADERS {
        let src = shaders::module_source(name).unwrap();
        let module = naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{name}.wgsl: {}", e.emit_to_string(&src)));
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name}.wgsl does not validate: {e:?}"));
    }
    // every file in shaders/ is in the registry
    for entry in std::fs::read_dir(root().join("shaders")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().trim_end_matches(".wgsl").to_string();
        assert!(
            shaders::PARTS.contains(&name.as_str()) || shaders::SHADERS.iter().any(|(n, _)| *n == name),
            "shaders/{name}.wgsl is not registered"
        );
    }
}

/// The GLSL ES 3.00 a WebGL2 canvas runs (the web player's fallback): every vertex and fragment
/// shader translates, `edges.wgsl` through its ES 3.0 form (the file as written does not: ES 3.0
/// has no screen-space varyings, which is why the form exists). `deform.wgsl` is compute, which
/// WebGL2 lacks: the renderer bends on the CPU there.
#[test]
fn every_drawing_shader_translates_to_webgl2s_glsl() {
    use naga::back::glsl;
    use simreel::render::shaders;
    let es300 = |name: &str, src: &str| -> Result<(), String> {
        let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
        let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
            .validate(&module)
            .map_err(|e| format!("{e:?}"))?;
        let options = glsl::Options { version: glsl::Version::Embedded { version: 300, is_webgl: true }, ..Default::default() };
        for entry in &module.entry_points {
            let pipeline = glsl::PipelineOptions { shader_stage: entry.stage, entry_point: entry.name.clone(), multiview: None };
            let mut out = String::new();
            glsl::Writer::new(&mut out, &module, &info, &options, &pipeline, naga::proc::BoundsCheckPolicies::default())
                .and_then(|mut w| w.write().map(|_| ()))
                .map_err(|e| format!("{name} {}: {e}", entry.name))?;
        }
        Ok(())
    };
    for (name, _) in shaders::SHADERS.iter().filter(|(n, _)| *n != "deform") {
        let src = if *name == "edges" { shaders::edges_for_es3() } else { shaders::module_source(name).unwrap() };
        es300(name, &src).unwrap_or_else(|e| panic!("{name}.wgsl for WebGL2: {e}"));
    }
    let as_written = es300("edges", &shaders::module_source("edges").unwrap()).unwrap_err();
    assert!(as_written.to_lowercase().contains("perspective"), "{as_written}");
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The library reads no variable of its own: the command line reads them once
/// (`simreel::environment`), so a program calling simreel is not steered by its environment.
/// What may read one: the binary (`main.rs`, `commands/`, `cli/`), that module, the test API (`SIMREEL_UPDATE` and `CI`, read in
/// the test that asserts, as insta reads its own), and two facts of the system (the folder for
/// the studio's lock, the host's name in a shard's claim).
#[test]
fn only_the_command_line_reads_simreels_variables() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let allowed = ["main.rs", "environment.rs", "golden/assert.rs", "studio/lock.rs", "output/claim.rs"];
    let mut readers = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(root().join("src")).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(f).unwrap();
        let binary = rel.starts_with("commands/") || rel.starts_with("cli/");
        if (text.contains("env::var(") || text.contains("env::var_os(") || text.contains("env::vars"))
            && !allowed.contains(&rel.as_str())
            && !binary
        {
            readers.push(rel);
        }
    }
    assert!(readers.is_empty(), "library modules that read the environment: {readers:?}");
    // nor does the comparator know the command line
    let mut golden = Vec::new();
    rust_files(&root().join("src/golden"), &mut golden);
    for f in &golden {
        assert!(!std::fs::read_to_string(f).unwrap().contains("crate::cli"), "{} imports the command line", f.display());
    }
    // the comparator's crate reads the environment only in its test API (SIMREEL_UPDATE,
    // INSTA_UPDATE, CI)
    let mut compare = Vec::new();
    rust_files(&root().join("crates/simreel-compare/src"), &mut compare);
    for f in &compare {
        let text = std::fs::read_to_string(f).unwrap();
        let rest = text.replace("\"SIMREEL_UPDATE\"", "").replace("\"INSTA_UPDATE\"", "").replace("\"CI\"", "");
        assert!(
            !rest.contains("env::var(\"") && !rest.contains("env::var_os(") && !rest.contains("env::vars"),
            "{} reads the environment",
            f.display()
        );
    }
}

#[test]
fn the_command_line_is_the_binarys_and_the_library_never_reaches_it() {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    assert!(!lib.contains("mod cli") && !lib.contains("mod commands"), "src/lib.rs declares the command line");
    let main = std::fs::read_to_string(root().join("src/main.rs")).unwrap();
    assert!(main.contains("\nmod cli;") && main.contains("\nmod commands;"), "src/main.rs declares cli/ and commands/");
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let library: Vec<_> = files
        .iter()
        .filter(|f| !f.ends_with("src/main.rs") && !f.starts_with(root().join("src/cli")) && !f.starts_with(root().join("src/commands")))
        .collect();
    assert!(library.len() > 100, "the library's files: {}", library.len());
    for f in library {
        let text = std::fs::read_to_string(f).unwrap();
        for word in ["clap", "crate::cli", "crate::commands", "simreel::cli"] {
            assert!(!text.contains(word), "{} names {word}: the command line is the binary's", f.display());
        }
    }
}

/// The platform's transcendental function a line of Rust calls, as a method (`x.sin()`) or a path
/// (`f32::sin`), if any; comments are not code.
fn platform_math(line: &str) -> Option<&'static str> {
    // and mul_add: exact, but a software routine on WebAssembly (no FMA instruction there)
    const NAMES: [&str; 24] = [
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sin_cos", "exp", "exp2", "exp_m1", "ln", "ln_1p", "log", "log2", "log10",
        "powf", "powi", "hypot", "cbrt", "sinh", "cosh", "tanh", "mul_add",
    ];
    let code = line.split("//").next().unwrap();
    let ends_there = |rest: &str| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_');
    NAMES.into_iter().find(|name| {
        code.contains(&format!(".{name}("))
            || ["f32::", "f64::"].iter().any(|ty| {
                let path = format!("{ty}{name}");
                code.match_indices(path.as_str()).any(|(at, _)| ends_there(&code[at + path.len()..]))
            })
    })
}

/// Every transcendental function simreel computes with is `simreel::portable`'s (the same bits on
/// every target): no call of the platform's in the program's sources. `clippy.toml` says the same
/// to clippy; this test holds where clippy does not run.
#[test]
fn the_program_computes_with_portable_math_only() {
    for (line, call) in [
        ("let y = x.sin() + 1.0;", Some("sin")),
        ("let y = f64::powi(x, 2);", Some("powi")),
        (".map(f32::atan2)", Some("atan2")),
        ("let y = a.mul_add(b, c);", Some("mul_add")),
        ("let y = portable::sin(x); // x.sin() would differ", None),
        ("let y = x.sqrt() + f32::consts::PI + f64::EPSILON + self.single();", None),
    ] {
        assert_eq!(platform_math(line), call, "{line}");
    }
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("src/portable.rs")) {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if let Some(call) = platform_math(line) {
                found.push(format!("{}:{}: {call}: {}", f.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "the platform's math (use simreel::portable):\n{}", found.join("\n"));
}

#[test]
fn layering_sim_and_scene_never_touch_wgpu_and_render_never_names_a_kind() {
    let mut files = Vec::new();
    rust_files(&root().join("src/sim"), &mut files);
    rust_files(&root().join("src/scene"), &mut files);
    rust_files(&root().join("src/frame"), &mut files);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(!text.contains("wgpu"), "{} mentions wgpu", f.display());
        assert!(!text.contains("crate::render"), "{} imports the renderer", f.display());
    }
    // data flows one way: the scene layer stands alone (it imports neither the simulations nor
    // the registry above both, `kinds`, nor anything built from them), and the simulations never
    // name the registry (a figure's panels are built through the `Builder` it hands them)
    let mut scene_files = Vec::new();
    rust_files(&root().join("src/scene"), &mut scene_files);
    for f in &scene_files {
        let text = std::fs::read_to_string(f).unwrap();
        for above in ["crate::sim", "crate::kinds", "crate::pipeline", "crate::golden", "crate::split", "crate::output"] {
            assert!(!text.contains(above), "{} imports {above}, a layer above the scene files", f.display());
        }
    }
    let mut sim_files = Vec::new();
    rust_files(&root().join("src/sim"), &mut sim_files);
    for f in sim_files.iter().filter(|f| !f.ends_with("tests.rs")) {
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        assert!(!code.contains("crate::kinds"), "{} names the registry above the simulations", f.display());
    }
    let mut render = Vec::new();
    rust_files(&root().join("src/render"), &mut render);
    for f in &render {
        let text = std::fs::read_to_string(f).unwrap().to_lowercase();
        for path in ["crate::sim", "crate::scene"] {
            assert!(!text.contains(path), "{} imports {path}", f.display());
        }
        let words: Vec<&str> = text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').collect();
        for kind in ["terrain", "dice", "die", "cargo", "wind", "flock", "agent"] {
            assert!(!words.contains(&kind), "{} mentions the scene kind `{kind}`", f.display());
        }
    }
}

type Graph = std::collections::BTreeMap<String, std::collections::BTreeSet<String>>;

/// The module paths `code` (of the module `here`, a `mod.rs` or not) names through `crate::`,
/// `super::` and `self::` paths, `use` groups (`super::{keys::Key, values}`) included: each cut
/// to the longest prefix that is one of `modules`.
fn named_modules(code: &str, here: &[String], modules: &std::collections::BTreeSet<Vec<String>>) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut base: Vec<String> = match start {
                "crate::" => Vec::new(),
                "super::" => here[..here.len().saturating_sub(1)].to_vec(),
                _ => here.to_vec(),
            };
            let mut rest = &code[at + start.len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            // one path, or a group of them
            let chains: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => {
                    let (mut depth, mut items, mut from) = (1, Vec::new(), 0);
                    for (i, c) in group.char_indices() {
                        match c {
                            '{' => depth += 1,
                            '}' if depth == 1 => {
                                items.push(&group[from..i]);
                                break;
                            }
                            '}' => depth -= 1,
                            ',' if depth == 1 => {
                                items.push(&group[from..i]);
                                from = i + 1;
                            }
                            _ => {}
                        }
                    }
                    items
                }
                None => vec![rest],
            };
            for chain in chains {
                let ident = chain.trim_start().split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).next().unwrap();
                let mut path = base.clone();
                path.extend(ident.split("::").filter(|p| !p.is_empty()).map(str::to_string));
                if let Some(k) = (1..=path.len()).rev().find(|&k| modules.contains(&path[..k].to_vec())) {
                    found.push(path[..k].to_vec());
                }
            }
        }
    }
    found
}

/// The library's top-level modules and, inside each, its second-level modules, with the ones each
/// names in its code (doc comments and tests left out).
fn module_graphs() -> (Graph, Graph) {
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let name = |f: &Path| -> Vec<String> {
        let rel = f.strip_prefix(&src).unwrap().with_extension("");
        let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
            parts.pop();
        }
        parts
    };
    let modules: std::collections::BTreeSet<Vec<String>> = files.iter().map(|f| name(f)).collect();
    let (mut top, mut inner) = (Graph::new(), Graph::new());
    for f in &files {
        let here = name(f);
        if here.is_empty() || ["cli", "commands"].contains(&here[0].as_str()) || f.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let code: String =
            text.split("#[cfg(test)]").next().unwrap().lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        for to in named_modules(&code, &here, &modules) {
            if to[0] != here[0] {
                top.entry(here[0].clone()).or_default().insert(to[0].clone());
            } else if here.len() >= 2 && to.len() >= 2 && here[1] != to[1] {
                inner.entry(here[..2].join("::")).or_default().insert(to[..2].join("::"));
            }
        }
    }
    (top, inner)
}

/// The pairs `(a, b)` of `graph` where `a` names `b` and `b` leads back to `a`.
fn circles(graph: &Graph) -> Vec<(String, String)> {
    let reaches = |from: &str, to: &str| {
        let (mut seen, mut todo) = (std::collections::BTreeSet::new(), vec![from.to_string()]);
        while let Some(m) = todo.pop() {
            if m == to {
                return true;
            }
            if seen.insert(m.clone()) {
                todo.extend(graph.get(&m).into_iter().flatten().cloned());
            }
        }
        false
    };
    graph.iter().flat_map(|(a, bs)| bs.iter().filter(|b| reaches(b, a)).map(move |b| (a.clone(), b.clone()))).collect()
}

#[test]
fn the_librarys_modules_name_each_other_in_no_circle_outside_the_kind_registries() {
    let (top, inner) = module_graphs();
    assert!(top.len() > 10 && inner.len() > 30, "{} top-level modules, {} inside them", top.len(), inner.len());
    assert!(top["pipeline"].contains("scene") && inner["scene::figure"].contains("scene::reader"), "the graphs are read: {top:?}");
    assert_eq!(circles(&top), Vec::new(), "top-level modules in a circle");
    // the kinds' tables (`scene::kind_tables`) name every kind's table, which names the trait it
    // implements there: a registry, the one circle allowed
    let registry = |(a, b): &(String, String)| a == "scene::kind_tables" || b == "scene::kind_tables";
    let found: Vec<_> = circles(&inner).into_iter().filter(|c| !registry(c)).collect();
    assert_eq!(found, Vec::new(), "modules in a circle inside their parent");
}

#[test]
fn layering_the_workspace_crates_depend_downward_and_the_comparator_is_a_leaf() {
    // the crates from the bottom up: each may depend only on crates before it; a new member of
    // the workspace has to take its place here
    const LAYERS: [&str; 3] = ["simreel-compare", "simreel", "simreel-web"];
    let read = |dir: &Path| -> toml::Table { std::fs::read_to_string(dir.join("Cargo.toml")).unwrap().parse().unwrap() };
    let root_manifest = read(&root());
    let members: Vec<&str> = root_manifest["workspace"]["members"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    let mut names = Vec::new();
    for member in &members {
        let manifest = read(&root().join(member));
        let name = manifest["package"]["name"].as_str().unwrap().to_string();
        let layer = LAYERS.iter().position(|&l| l == name).unwrap_or_else(|| panic!("workspace member {name} has no layer in this test"));
        for table in ["dependencies", "dev-dependencies", "build-dependencies"] {
            let Some(deps) = manifest.get(table).and_then(|t| t.as_table()) else { continue };
            for (dep, spec) in deps {
                let package = spec.get("package").and_then(|p| p.as_str()).unwrap_or(dep);
                if let Some(below) = LAYERS.iter().position(|&l| l == package) {
                    assert!(below < layer, "{name} depends on {package} ({table}): a crate depends only on the crates below it");
                }
                assert!(
                    spec.get("path").is_none() || LAYERS.contains(&package),
                    "{name}'s path dependency {package} is not a workspace crate"
                );
            }
        }
        names.push(name);
    }
    names.sort();
    let mut expected = LAYERS.to_vec();
    expected.sort();
    assert_eq!(names, expected, "every layer is a member of the workspace");
    // the comparator's own sources name nothing of the crate above it
    let mut files = Vec::new();
    rust_files(&root().join("crates/simreel-compare/src"), &mut files);
    assert!(files.len() > 10, "the comparator's files: {}", files.len());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for word in ["simreel::", "wgpu"] {
            assert!(!text.contains(word), "{} names {word}: the comparator is a leaf", f.display());
        }
    }
}

#[test]
fn former_choice_names_are_read_as_the_new_ones_and_said_to_be_deprecated() {
    let cases = [
        ("kind = \"cargo\"\n[cargo]\nintegrator = \"{}\"\ninput = \"difference\"\n", "cargo.integrator", "seed", "euler_split"),
        ("kind = \"cargo\"\n[cargo]\nintegrator = \"{}\"\ninput = \"difference\"\n", "cargo.integrator", "seed_fixed", "euler_capped"),
        ("kind = \"wind\"\n[wind]\nmodel = \"{}\"\n", "wind.model", "seed", "kinematic"),
    ];
    for (template, key, old, now) in cases {
        let read = |value: &str| scene::parse(&template.replace("{}", value), Path::new("old.toml")).unwrap_or_else(|e| panic!("{e}"));
        let (before, after) = (read(old), read(now));
        // the same scene: the same simulation and the same frames
        assert_eq!(before.sim, after.sim, "{old} → {now}");
        assert_eq!(before.identity(), after.identity());
        assert!(after.deprecations.is_empty(), "{:?}", after.deprecations);
        let [d] = before.deprecations.as_slice() else { panic!("one note: {:?}", before.deprecations) };
        assert_eq!((d.key.as_str(), d.line), (key, 3), "{d:?}");
        assert!(d.message.contains(&format!("\"{old}\" is now called \"{now}\"")), "{d:?}");
        // the schema takes what the reader takes
        let schema = scene::schema::json_schema(None).unwrap().to_string();
        assert!(schema.contains(&format!("\"{old}\"")) && schema.contains(&format!("\"{now}\"")), "{old}, {now}");
    }
    // a wrong name is still wrong, with the new names offered
    assert!(problems("kind = \"cargo\"\n[cargo]\nintegrator = \"sede\"\n").iter().any(|d| d.message.contains("\"euler_split\"")));
    // the command line says it on stderr and goes on; a figure's panel says it at the panel
    let dir = crate::common::scratch();
    std::fs::write(dir.join("w.toml"), "kind = \"wind\"\n[render]\nframes = 2\n[wind]\nmodel = \"seed\"\n").unwrap();
    std::fs::create_dir_all(dir.join("parts")).unwrap();
    std::fs::write(dir.join("parts/c.toml"), "kind = \"cargo\"\n[render]\nframes = 2\n").unwrap();
    std::fs::write(
        dir.join("fig.toml"),
        "kind = \"figure\"\n[render]\nframes = 2\n[[figure.panel]]\nscene = \"parts/c.toml\"\nwith = { cargo = { integrator = \"seed\", input = \"difference\" } }\n",
    )
    .unwrap();
    let o = simreel().arg("validate").arg(dir.join("w.toml")).arg(dir.join("fig.toml")).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("w.toml:5:9: wind.model: \"seed\" is now called \"kinematic\""), "{err}");
    assert!(
        err.contains("fig.toml:6:8: figure.panel[0].with: in the panel's scene, cargo.integrator: \"seed\" is now called \"euler_split\""),
        "{err}"
    );
    assert_eq!(err.lines().filter(|l| l.starts_with("warning: ")).count(), 2, "{err}");
    // the shipped scenes and the docs' examples use today's names
    for f in crate::common::shipped_scenes() {
        let s = scene::load(&f).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.deprecations.is_empty(), "{}: {:?}", f.display(), s.deprecations);
    }
}

#[test]
fn a_dice_firmness_list_names_the_item_out_of_range_and_keeps_quiet_when_count_is_wrong() {
    let dice = |table: &str| problems(&format!("kind = \"dice\"\n[render]\nframes = 10\n[dice]\n{table}"));
    let d = dice("count = 2\nfirmness = [10, 150]\n");
    assert!(d.iter().any(|x| x.key == "dice.firmness" && x.message.contains("firmness[1] is 150")), "{d:?}");
    // a count out of range is the one problem: the firmness list is not held against the default
    let d = dice("count = 99\nfirmness = [10, 20, 30]\n");
    assert!(d.iter().any(|x| x.key == "dice.count"), "{d:?}");
    assert!(!d.iter().any(|x| x.key == "dice.firmness"), "{d:?}");
    // no count given: the list's length is held against the default, which is said
    let d = dice("firmness = [10, 20, 30]\n");
    assert!(
        d.iter().any(|x| x.key == "dice.firmness" && x.message.contains("`count` is not given: 5") && x.message.contains("found 3")),
        "{d:?}"
    );
    assert!(
        scene::parse("kind = \"dice\"\n[render]\nframes = 10\n[dice]\ncount = 3\nfirmness = [10, 20, 30]\n", Path::new("ok.toml")).is_ok()
    );
}

/// `frames` and `duration` both (a `--set render.frames=600` over a scene that gives its duration)
/// is the one problem: the golden frames are not held against a count nobody wrote.
#[test]
fn frames_and_duration_both_is_one_problem() {
    let golden = "[golden]\nframes = [100, 500]\n[golden.tolerance]\nreason = \"exact\"\n";
    let d = problems(&format!("kind = \"flock\"\n[render]\nduration = 2.0\nframes = 600\n{golden}"));
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].key == "render.duration" && d[0].message.contains("not both"), "{d:?}");
}

#[test]
fn golden_tables_are_validated() {
    let base = "kind = \"terrain\"\n[render]\nframes = 10\nwidth = 640\nheight = 360\n";
    let s =
        scene::parse(&format!("{base}[golden]\nframes = \"0,-1\"\n[golden.tolerance]\nchannel = 1\nreason = \"r\"\n"), Path::new("g.toml"))
            .unwrap();
    let g = s.golden.unwrap();
    assert_eq!(g.frames, vec![0, 9]);
    assert_eq!(g.size, (320, 180), "fits 320×240 keeping the aspect");
    let d = problems(&format!("{base}[golden]\nframes = [0, 12]\n[golden.tolerance]\nchannel = 1\n"));
    assert!(
        d.iter().any(|x| x.key == "golden.frames" && x.message.contains("frame 12 is past the scene's end: its last frame is 9")),
        "{d:?}"
    );
    assert!(d.iter().any(|x| x.key == "golden.tolerance" && x.message.contains("reason")), "{d:?}");
    let d = problems(&format!("{base}[golden]\nframes = [0]\n"));
    assert!(d.iter().any(|x| x.message.contains("[golden.tolerance]")), "{d:?}");
    let d = problems(&format!(
        "{base}[golden]\nframes = [0]\n[golden.tolerance]\nreason = \"r\"\n[[golden.overrides]]\nbackend = \"vulcan\"\nreason = \"x\"\n"
    ));
    assert!(d.iter().any(|x| x.key == "golden.overrides[0].backend" && x.hint.as_deref() == Some("did you mean \"vulkan\"?")), "{d:?}");
}

#[test]
fn dice_tables_are_validated() {
    let text = r#"kind = "dice"
[render]
duration = 4.0

[dice]
count = 3
firmness = [10, 200]
colors = "red"
rolls = [2.0, 1.0]
opacitty = 0.5

[[dice.grab]]
die = 4
corner = [1, 2, 0]
at = 1.0
release = 0.5
path = [[0.5, 1, 0, 0]]

[[dice.grab]]
particle = 70
corner = "top"
at = 9.0
"#;
    let d = problems(text);
    let find = |key: &str, what: &str| {
        d.iter()
            .find(|x| x.key == key && x.message.contains(what))
            .unwrap_or_else(|| panic!("no problem for {key} saying {what:?}: {d:#?}"))
    };
    assert_eq!(find("dice.firmness", "firmness[1] is 200: each die's firmness is from 0 to 100").line, 7);
    find("dice.colors", "#rrggbb");
    find("dice.rolls", "increasing");
    assert_eq!(find("dice.opacitty", "unknown key").hint.as_deref(), Some("did you mean `opacity`?"));
    assert_eq!(find("dice.grab[0].die", "does not exist").line, 13);
    find("dice.grab[0].corner", "each 0 or 1");
    find("dice.grab[0].release", "before it grabs");
    find("dice.grab[0].path", "before the hand grabs");
    find("dice.grab[1]", "not both");
    find("dice.grab[1].particle", "out of range");
    find("dice.grab[1].at", "scene ends");
    // a good minimal dice scene fills in the documented defaults
    let s = scene::parse("kind = \"dice\"\n", Path::new("d.toml")).unwrap();
    let (scene::KindSpec::Dice(spec), scene::KindLook::Dice(look)) = (&s.sim.kind, &s.look.kind) else { panic!("a dice scene") };
    assert_eq!((spec.count, spec.firmness.len(), spec.rolls.as_slice(), look.results), (5, 5, &[0.0][..], true));
}

#[test]
fn shell_completions_and_man_pages_come_from_the_cli_definitions() {
    for shell in ["bash", "zsh", "fish"] {
        let out = simreel().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}: {}", String::from_utf8_lossy(&out.stderr));
        let script = String::from_utf8_lossy(&out.stdout);
        for word in ["render", "golden", "resume", "backend", "vulkan"] {
            assert!(script.contains(word), "the {shell} completions lack {word}");
        }
    }
    // the bash script completes a subcommand from its first letters
    let probe =
        "source <(\"$0\" completions bash); COMP_WORDS=(simreel gol); COMP_CWORD=1; _simreel simreel gol simreel; echo \"${COMPREPLY[*]}\"";
    let out = std::process::Command::new("bash").args(["-c", probe, env!("CARGO_BIN_EXE_simreel")]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "golden", "{}", String::from_utf8_lossy(&out.stderr));
    let out = simreel().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "an unknown shell is a usage error");

    let out = simreel().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.contains(".TH simreel 1") && page.contains("render"), "{page}");
    let dir = crate::common::scratch();
    let out = simreel().args(["man", "--out"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for name in ["simreel", "simreel-render", "simreel-golden-check", "simreel-dice-stats", "simreel-completions"] {
        let page = std::fs::read_to_string(dir.join(format!("{name}.1"))).unwrap_or_else(|e| panic!("{name}.1: {e}"));
        assert!(page.contains(&format!(".TH {name} 1")), "{name}.1 is not its own page");
    }
    assert!(std::fs::read_to_string(dir.join("simreel-render.1")).unwrap().contains("resume"));
}

#[test]
fn gif_takes_jpeg_webp_and_16_bit_png_frames_and_scales_them() {
    let dir = crate::common::scratch();
    let frames = dir.join("frames");
    std::fs::create_dir_all(&frames).unwrap();
    // a bright square moving over a gradient, 96 × 64, saved in turn as 16-bit PNG, JPEG and WebP
    for i in 0..6u32 {
        let img = image::RgbImage::from_fn(96, 64, |x, y| {
            let inside = (x / 16 == i) && (20..44).contains(&y);
            if inside { image::Rgb([250, 240, 40]) } else { image::Rgb([(x * 2) as u8, 60, (y * 3) as u8]) }
        });
        let dynamic = image::DynamicImage::ImageRgb8(img);
        let (name, picture) = match i % 3 {
            0 => (format!("f{i}.png"), image::DynamicImage::ImageRgb16(dynamic.into_rgb16())),
            1 => (format!("f{i}.jpg"), dynamic),
            _ => (format!("f{i}.webp"), dynamic),
        };
        picture.save(frames.join(name)).unwrap();
    }
    std::fs::write(frames.join("notes.txt"), "not a frame").unwrap();
    let out = dir.join("moving.gif");
    let run = simreel().args(["gif", "--fps", "12.5", "--width", "48", "-o"]).arg(&out).arg(&frames).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(String::from_utf8_lossy(&run.stderr).contains("6 frames"));
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut dec = opts.read_info(std::fs::File::open(&out).unwrap()).unwrap();
    assert_eq!((dec.width(), dec.height()), (48, 32), "scaled to 48 wide, keeping 3:2");
    let mut canvas = vec![0u8; 48 * 32 * 4];
    let mut square_x = Vec::new();
    while let Some(f) = dec.read_next_frame().unwrap() {
        for y in 0..f.height as usize {
            for x in 0..f.width as usize {
                let s = (y * f.width as usize + x) * 4;
                if f.buffer[s + 3] > 0 {
                    let d = ((y + f.top as usize) * 48 + x + f.left as usize) * 4;
                    canvas[d..d + 4].copy_from_slice(&f.buffer[s..s + 4]);
                }
            }
        }
        // where the yellow square is on the middle row: it moves 8 pixels a frame at half size
        let row = 16 * 48 * 4;
        let yellow: Vec<usize> = (0..48).filter(|&x| canvas[row + x * 4] > 200 && canvas[row + x * 4 + 2] < 120).collect();
        square_x.push(yellow.iter().sum::<usize>() as f64 / yellow.len().max(1) as f64);
    }
    assert_eq!(square_x.len(), 6);
    for (i, x) in square_x.iter().enumerate() {
        assert!((x - (4.0 + 8.0 * i as f64 - 0.5)).abs() < 1.5, "frame {i}: square at {x}, {square_x:?}");
    }
    // a frame of another size is named
    image::RgbImage::new(10, 10).save(frames.join("z.png")).unwrap();
    let run = simreel().args(["gif", "-o"]).arg(dir.join("bad.gif")).arg(&frames).output().unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("z.png"), "{}", String::from_utf8_lossy(&run.stderr));
}

#[test]
fn hostile_scene_files_are_refused_with_the_first_problems_listed() {
    // 200 000 unknown keys: the first 50 in file order are listed, then how many more there are
    let mut text = String::from("kind = \"terrain\"\n");
    for i in 0..200_000 {
        text.push_str(&format!("key_{i:06} = 1\n"));
    }
    let Err(e @ SceneError::Invalid { .. }) = scene::parse(&text, Path::new("many.toml")) else { panic!("accepted") };
    let SceneError::Invalid { diagnostics, more, .. } = &e else { unreachable!() };
    assert_eq!((diagnostics.len(), *more), (50, 199_950));
    assert!(diagnostics.windows(2).all(|w| w[0].line < w[1].line), "in file order");
    assert_eq!((diagnostics[0].line, diagnostics[0].key.as_str()), (2, "key_000000"));
    let shown = e.to_string();
    assert!(shown.starts_with("many.toml has 200000 problems:\n") && shown.ends_with("… and 199950 more problems"), "{}", &shown[..200]);

    // a file beyond 4 MiB is refused before it is read as TOML; a 20 MB name inside one too
    let huge = format!("kind = \"terrain\"\nname = \"{}\"\n", "a".repeat(20_000_000));
    let d = problems(&huge);
    assert!(d.len() == 1 && d[0].message.contains("scene files are at most 4.0 MiB"), "{d:?}");
    let dir = crate::common::scratch();
    std::fs::write(dir.join("huge.toml"), &huge).unwrap();
    let Err(SceneError::Invalid { diagnostics, .. }) = scene::load(&dir.join("huge.toml")) else { panic!("accepted") };
    assert!(diagnostics[0].message.contains("the file is 19.1 MiB"), "{diagnostics:?}");

    // long strings and names
    let d = problems(&format!("kind = \"terrain\"\ndescription = \"{}\"\n", "d".repeat(5000)));
    assert!(d.iter().any(|x| x.key == "description" && x.message.contains("at most 4096")), "{d:?}");
    let d = problems(&format!("kind = \"terrain\"\nname = \"{}\"\n", "n".repeat(101)));
    assert!(d.iter().any(|x| x.key == "name" && x.message.contains("at most 100 characters, not 101")), "{d:?}");
}

#[test]
fn deep_nesting_is_refused_before_parsing_but_brackets_in_strings_and_comments_are_text() {
    let deep = format!("kind = \"terrain\"\n\n[render]\nx = {}1{}\n", "[".repeat(2000), "]".repeat(2000));
    let d = problems(&deep);
    assert!(d.len() == 1 && d[0].message.contains("nest deeper than 64 levels") && (d[0].line, d[0].col) == (4, 69), "{d:?}");
    let brackets = "[".repeat(500);
    let text = format!(
        "kind = \"terrain\"\ndescription = \"{brackets}\\\" {brackets}\"\n# {brackets}\nname = '{brackets}'\n[render]\nwidth = 320\n"
    );
    let d = problems(&text);
    assert!(d.iter().all(|x| !x.message.contains("nest deeper")), "{d:?}");
    // the shipped scenes nest three levels at most, far from the limit
    for path in crate::common::shipped_scenes() {
        scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn a_short_fuzz_round_of_the_scene_reader_finds_no_panic_and_no_slow_input() {
    // the full round is `cargo run --release --example fuzz` (docs/benchmarks/validation.md); this one is seeded
    let mut fuzzer = simreel::fuzz::Fuzzer::new(simreel::fuzz::corpus(&root()), 7);
    let report = simreel::fuzz::round(&mut fuzzer, 20_000);
    assert_eq!(report.runs, 20_000);
    assert!(
        report.panics.is_empty(),
        "{} inputs panicked, the first:\n{}\n{}",
        report.panics.len(),
        report.panics[0].1,
        report.panics[0].0
    );
    assert!(report.slowest.0 < std::time::Duration::from_secs(1), "{:?} for:\n{}", report.slowest.0, report.slowest.1);
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn bench_gpu_script_reports_every_stage_as_json() {
    crate::common::require_gpu();
    let bin = env!("CARGO_BIN_EXE_simreel");
    // terrain has 90 frames (lengthened to 95 with --set), flock_crowd 240 (its first 95)
    let o = std::process::Command::new(root().join("scripts/bench-gpu"))
        .current_dir(root())
        .args(["--bin", bin, "--frames", "95", "--sizes", "48x32", "--scenes", "terrain flock_crowd"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // a tiny run on a software adapter may or may not keep up; the report is what is checked
    assert!(matches!(o.status.code(), Some(0 | 1)), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)));
    assert!(!v["adapter"].as_str().unwrap().is_empty());
    assert!(v["cores"].as_u64().unwrap() >= 1);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let num = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap_or_else(|| panic!("{k}: {r}"));
    for r in runs {
        assert_eq!(r["frames"], 95, "{r}");
        assert_eq!(r["size"], "48x32");
        for k in
            ["process_s", "startup_s", "end_to_end_fps", "steady_fps", "simulate_fps", "render_fps", "encode_fps", "steady_over_slowest"]
        {
            assert!(num(r, k) > 0.0, "{k}: {r}");
        }
        // startup is apart from the steady rate, and within the process's time
        assert!(num(r, "startup_s") < num(r, "process_s"), "{r}");
        assert!((num(r, "end_to_end_fps") - 95.0 / num(r, "process_s")).abs() < 0.02 * num(r, "end_to_end_fps"), "{r}");
        assert!(num(r, "adapter_s") > 0.0 && num(r, "device_s") > 0.0, "{r}");
        assert!(num(r, "render_cpu_ms_per_frame") > 0.0, "{r}");
        let slowest = r["slowest_stage"].as_str().unwrap();
        let least = ["simulate_fps", "render_fps", "encode_fps"].iter().map(|k| num(r, k)).fold(f64::INFINITY, f64::min);
        assert_eq!(num(r, &format!("{slowest}_fps")), least, "{r}");
        for stage in ["simulate", "render", "encode"] {
            let s = &r["stages"][stage];
            assert_eq!(s["fps"], r[format!("{stage}_fps").as_str()], "{r}");
            assert!(num(s, "busy_s") > 0.0 && num(s, "threads") >= 1.0, "{stage}: {r}");
        }
        let ratio = num(r, "steady_fps") / least;
        assert!((num(r, "steady_over_slowest") - ratio).abs() < 0.002, "{r}");
        assert_eq!(r["keeps_up"].as_bool().unwrap(), num(r, "steady_over_slowest") >= 0.9);
    }
    assert_eq!(o.status.code() == Some(1), runs.iter().any(|r| r["keeps_up"] == false));
}

#[test]
fn bench_gpu_script_refuses_bad_arguments() {
    for args in [vec!["--frames", "0"], vec!["--frames", "x"], vec!["--bin", "/nonexistent/simreel"], vec!["--what"]] {
        let o = std::process::Command::new(root().join("scripts/bench-gpu")).current_dir(root()).args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn frame_specs_that_start_with_a_minus_work_as_the_help_says() {
    crate::common::require_gpu();
    let out = crate::common::scratch();
    let render = |frames: &str| {
        simreel()
            .args(["render", "scenes/flock.toml", "--size", "64x48", "--format", "png", "--frames", frames, "--out"])
            .arg(&out)
            .output()
            .unwrap()
    };
    let o = render("-1");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "--frames -1: {err}");
    let last = simreel::scene::load(&root().join("scenes/flock.toml")).unwrap().sim.timing.frames - 1;
    assert!(out.join(format!("flock/frame_{last:04}.png")).is_file());
    assert!(err.contains("flock: wrote 1 frame in "), "singular: {err}");
    let o = render("-3..");
    assert!(o.status.success(), "--frames -3..: {}", String::from_utf8_lossy(&o.stderr));
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("flock/manifest.json")).unwrap()).unwrap();
    let frames: Vec<u64> = m["frames"].as_array().unwrap().iter().map(|f| f["index"].as_u64().unwrap()).collect();
    let last = last as u64;
    assert_eq!(frames, [last - 2, last - 1, last]);
}

#[test]
fn gif_takes_threads_as_the_readme_says_and_states_its_frame_rate_range() {
    let dir = crate::common::scratch();
    let frames = dir.join("frames");
    std::fs::create_dir_all(&frames).unwrap();
    for i in 0..5u32 {
        image::RgbImage::from_fn(40, 30, |x, y| image::Rgb([(x * 6 + i * 20) as u8, (y * 8) as u8, 90]))
            .save(frames.join(format!("f{i}.png")))
            .unwrap();
    }
    let gif = |threads: &str, name: &str| {
        let o = simreel().args(["gif", "--threads", threads, "-o"]).arg(dir.join(name)).arg(&frames).output().unwrap();
        assert!(o.status.success(), "--threads {threads}: {}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(dir.join(name)).unwrap()
    };
    assert_eq!(gif("1", "one.gif"), gif("2", "two.gif"), "the GIF does not depend on the worker count");
    let o = simreel().args(["gif", "--fps", "0", "-o"]).arg(dir.join("x.gif")).arg(&frames).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("outside (0, 100]"), "{err}");
    // one frame is one frame
    let single = dir.join("single");
    std::fs::create_dir_all(&single).unwrap();
    std::fs::copy(frames.join("f0.png"), single.join("f0.png")).unwrap();
    let o = simreel().args(["gif", "-o"]).arg(dir.join("single.gif")).arg(&single).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("(1 frame at 30 fps)"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A file that cannot be a scene says why: a folder, binary data, text that is not UTF-8 (where),
/// and an `SIMREEL_FFMPEG` that does not run names the path that was set.
#[test]
fn unreadable_scene_files_and_a_wrong_ffmpeg_say_why() {
    let dir = crate::common::scratch();
    std::fs::create_dir_all(dir.join("folder.toml")).unwrap();
    std::fs::write(dir.join("binary.toml"), b"kind = \"dice\"\n\x00\x01\x02").unwrap();
    std::fs::write(dir.join("latin1.toml"), b"kind = \"dice\"\nname = \"caf\xe9\"\n").unwrap();
    for (file, says) in [
        ("folder.toml", "it is a folder, not a scene file".to_string()),
        ("binary.toml", "it holds binary data (a NUL byte at offset 14), not TOML text".into()),
        ("latin1.toml", "it is not UTF-8 text: the byte at offset 25 (line 2) is 0xe9".into()),
        ("missing.toml", "No such file or directory".into()),
    ] {
        // `validate` takes folders of scenes: a command that takes one scene file reads it
        let command = if file == "folder.toml" { "mesh" } else { "validate" };
        let o =
            simreel().arg(command).arg(dir.join(file)).args(if command == "mesh" { &["-o", "x.ply"][..] } else { &[] }).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{file}: {err}");
        assert!(err.contains(&format!("cannot read scene file {}: {says}", dir.join(file).display())), "{file}: {err}");
    }
    crate::common::require_gpu();
    std::fs::write(dir.join("short.toml"), "kind = \"flock\"\nname = \"short\"\n[render]\nwidth = 64\nheight = 36\nduration = 0.1\n")
        .unwrap();
    let o = simreel()
        .args(["render", "--format", "mp4", "--quiet", "--out"])
        .arg(dir.join("out"))
        .arg(dir.join("short.toml"))
        .env("SIMREEL_FFMPEG", "/nonexistent/ffmpeg")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("SIMREEL_FFMPEG is /nonexistent/ffmpeg, which does not run as ffmpeg"), "{err}");
}
