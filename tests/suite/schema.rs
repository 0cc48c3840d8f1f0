//! The JSON Schema of scene files against the scene reader, with independent validators (Python's
//! `jsonschema`, and Taplo's CLI, the checker behind Even Better TOML): every shipped scene passes
//! both; a corpus made from the key declarations (each table of each kind, then an unknown key, a
//! value of the wrong type, one out of range, a required key left out) is refused by the reader and
//! the schema alike, with one message for its one mistake, and its unmutated documents accepted
//! by both; Taplo's messages name the key; the committed schema and scene reference are what
//! `simreel schema` makes now.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use simreel::scene::keys::{DefaultValue, Key, Table, Ty};
use toml::{Table as Doc, Value};

use crate::common::{root, scratch, shipped_scenes, simreel, test_tools};

/// The test tools' Python (with `jsonschema`), as scripts/ensure-test-tools makes it.
fn python() -> std::process::Command {
    let venv = test_tools().join("venv/bin/python3");
    std::process::Command::new(if venv.is_file() { venv } else { PathBuf::from("python3") })
}

/// Taplo's CLI, as scripts/ensure-test-tools installs it.
fn taplo() -> PathBuf {
    let bin = test_tools().join("node_modules/.bin/taplo");
    assert!(bin.is_file(), "no taplo at {}: scripts/ensure-test-tools installs it (npm install @taplo/cli)", bin.display());
    bin
}

fn schema_text() -> String {
    let o = simreel().arg("schema").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Each file's problems by Python's `jsonschema` (an empty list: valid).
fn validate(schema: &Path, files: &[PathBuf]) -> BTreeMap<String, Vec<String>> {
    let mut verdicts = BTreeMap::new();
    for chunk in files.chunks(400) {
        let o = python().arg(root().join("tests/tools/schema_check.py")).arg(schema).args(chunk).output().unwrap();
        assert!(
            o.status.success(),
            "the validator failed (pip install jsonschema; scripts/ensure-test-tools does):\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let part: BTreeMap<String, Vec<String>> = serde_json::from_slice(&o.stdout).unwrap();
        verdicts.extend(part);
    }
    verdicts
}

fn scene_files() -> Vec<PathBuf> {
    let mut files = shipped_scenes();
    files.extend(simreel::scene::scene_files(&root().join("tests/scenes")).unwrap());
    files
}

#[test]
fn every_shipped_and_test_scene_validates_against_the_schema() {
    let dir = scratch();
    let schema = dir.join("scene.schema.json");
    std::fs::write(&schema, schema_text()).unwrap();
    let files = scene_files();
    assert!(files.len() >= 30, "{} scene files", files.len());
    let bad: Vec<_> = validate(&schema, &files).into_iter().filter(|(_, p)| !p.is_empty()).collect();
    assert!(bad.is_empty(), "scenes the schema refuses: {bad:#?}");
    // Taplo reads the schema as editors do
    let o = std::process::Command::new(taplo())
        .args(["check", "--no-auto-config"])
        .arg("--schema")
        .arg(format!("file://{}", schema.display()))
        .args(&files)
        .output()
        .unwrap();
    assert!(o.status.success(), "taplo check:\n{}", String::from_utf8_lossy(&o.stderr));
    // and the repository's .taplo.toml points editors at the committed schema
    let o = std::process::Command::new(taplo()).arg("check").current_dir(root()).output().unwrap();
    assert!(o.status.success(), "taplo check with .taplo.toml:\n{}", String::from_utf8_lossy(&o.stderr));
    let broken = dir.join("broken.toml");
    std::fs::write(&broken, "kind = \"terrain\"\n[terrain.height]\noctaves = 13\n").unwrap();
    let o = std::process::Command::new(taplo())
        .args(["check", "--no-auto-config", "--schema"])
        .arg(format!("file://{}", schema.display()))
        .arg(&broken)
        .output()
        .unwrap();
    assert!(!o.status.success(), "taplo accepts an out-of-range value");
    // a scene anywhere else names the schema in its first line, as docs/scenes.md says
    for (octaves, valid) in [(5, true), (13, false)] {
        let headed = dir.join(format!("headed-{octaves}.toml"));
        let header = format!("#:schema {}", root().join("docs/scene.schema.json").display());
        std::fs::write(&headed, format!("{header}\nkind = \"terrain\"\n[terrain.height]\noctaves = {octaves}\n")).unwrap();
        let o = std::process::Command::new(taplo()).args(["check", "--no-auto-config"]).arg(&headed).output().unwrap();
        assert_eq!(o.status.success(), valid, "octaves = {octaves} under a `#:schema` line:\n{}", String::from_utf8_lossy(&o.stderr));
    }
}

/// Taplo's verdict on `file` checked against `schema` (no `.taplo.toml`): success, and the text
/// of its messages (the `error:` lines, runs of one message once).
fn taplo_check(schema: &Path, file: &Path) -> (bool, Vec<String>) {
    let o = std::process::Command::new(taplo())
        .args(["check", "--no-auto-config", "--schema"])
        .arg(format!("file://{}", schema.display()))
        .arg(file)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let mut errors: Vec<String> = text.lines().filter_map(|l| l.strip_prefix("error: ")).map(str::to_string).collect();
    errors.dedup();
    (o.status.success(), errors)
}

/// Typical mistakes as an editor (Even Better TOML) shows them with the full schema: each message
/// names the key and what is wrong, never "… is not valid under any of the schemas listed in the
/// 'oneOf' keyword" (what a schema of one alternative per kind gave, once per kind).
#[test]
fn taplo_names_each_typical_mistake() {
    let dir = scratch();
    let schema = dir.join("scene.schema.json");
    std::fs::write(&schema, schema_text()).unwrap();
    let mistakes = [
        ("kind = \"dice\"\n[dice]\ncout = 3\n", "Additional properties are not allowed ('cout' was unexpected)"),
        ("kind = \"dice\"\n[dise]\ncount = 3\n", "Additional properties are not allowed ('dise' was unexpected)"),
        ("kind = \"dice\"\n[dice]\ncount = 40\n", "40 is greater than the maximum of 12"),
        ("kind = \"dice\"\n[dice]\ncount = \"three\"\n", "\"three\" is not of type \"integer\""),
        ("kind = \"dices\"\n[dice]\ncount = 3\n", "\"dices\" is not one of [\"terrain\",\"flock\",\"dice\",\"wind\",\"cargo\",\"figure\"]"),
        ("[dice]\ncount = 3\n", "\"kind\" is a required property"),
        ("kind = \"terrain\"\n[terrain]\nalgorithm = \"marching_squares\"\n", "\"marching_squares\" is not one of [\"marching_cubes\","),
        ("kind = \"dice\"\n[dice]\ncolors = [\"#12345\"]\n", "\"#12345\" does not match \"^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$\""),
        ("kind = \"wind\"\n[wind]\nspeed = \"fast\"\n", "\"fast\" is not of types \"array\", \"number\", \"object\""),
        (
            "kind = \"cargo\"\n[[cargo.event]]\nkind = \"action\"\nat = 2.0\ndurations = 1.0\n",
            "Additional properties are not allowed ('durations' was unexpected)",
        ),
        ("kind = \"dice\"\n[camera]\nposition = [1, 2]\n", "[1,2] has less than 3 items"),
        ("kind = \"flock\"\n[flock]\nagents = 2.5\n", "2.5 is not of types \"integer\", \"string\""),
    ];
    let mut wrong = Vec::new();
    for (i, (text, expected)) in mistakes.iter().enumerate() {
        let file = dir.join(format!("mistake{i:02}.toml"));
        std::fs::write(&file, text).unwrap();
        let (ok, errors) = taplo_check(&schema, &file);
        let named = errors.iter().all(|e| e.starts_with(expected));
        if ok || errors.is_empty() || !named {
            wrong.push(format!("{text}  expected: {expected}\n  taplo: {errors:?} (passed: {ok})"));
        }
        assert!(simreel::scene::parse(text, &file).is_err(), "the reader accepts\n{text}");
    }
    assert!(wrong.is_empty(), "Taplo's messages do not name the mistake:\n{}", wrong.join("\n"));
}

/// A user's own project, outside this checkout, as docs/scenes.md sets it up: the schema written
/// into it and its own `.taplo.toml` (the block in the docs) check its scenes with `taplo check`;
/// and from this checkout a scene outside it is checked with `--no-auto-config` and a `#:schema` line.
#[test]
fn taplo_checks_scenes_in_a_users_own_project_as_the_docs_say() {
    let project = scratch();
    std::fs::create_dir_all(project.join("scenes")).unwrap();
    std::fs::write(project.join("scene.schema.json"), schema_text()).unwrap();
    let docs = std::fs::read_to_string(root().join("docs/scenes.md")).unwrap();
    let start = docs.find("# .taplo.toml, at the root of your project").expect("docs/scenes.md shows a project's .taplo.toml");
    let block: String = docs[start..].lines().take_while(|l| l.trim() != "```").map(|l| format!("{}\n", l.trim_start())).collect();
    std::fs::write(project.join(".taplo.toml"), block).unwrap();
    std::fs::write(project.join("Cargo.toml"), "[package]\nname = \"theirs\"\n").unwrap();
    std::fs::write(project.join("scenes/roll.toml"), "kind = \"dice\"\n[dice]\ncount = 3\n").unwrap();
    let run = || std::process::Command::new(taplo()).arg("check").current_dir(&project).output().unwrap();
    let o = run();
    assert!(o.status.success(), "taplo check in the project:\n{}", String::from_utf8_lossy(&o.stderr));
    std::fs::write(project.join("scenes/broken.toml"), "kind = \"dice\"\n[dice]\ncout = 3\n").unwrap();
    let o = run();
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && said.contains("('cout' was unexpected)") && said.contains("broken.toml"), "{said}");
    // from this checkout, a scene outside it: skipped by the checkout's .taplo.toml, checked
    // with --no-auto-config and its `#:schema` line
    let outside = project.join("headed.toml");
    let header = format!("#:schema {}", project.join("scene.schema.json").display());
    std::fs::write(&outside, format!("{header}\nkind = \"dice\"\n[dice]\ncount = 40\n")).unwrap();
    let from_checkout =
        |args: &[&str]| std::process::Command::new(taplo()).arg("check").args(args).arg(&outside).current_dir(root()).output().unwrap();
    let o = from_checkout(&[]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("excluded=1"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = from_checkout(&["--no-auto-config"]);
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && said.contains("40 is greater than the maximum of 12"), "{said}");
}

#[test]
fn the_committed_schema_and_reference_are_what_simreel_makes_now() {
    let committed = std::fs::read_to_string(root().join("docs/scene.schema.json")).unwrap_or_default();
    assert!(committed == schema_text(), "docs/scene.schema.json is stale: simreel schema > docs/scene.schema.json");
    let o = simreel().args(["schema", "--reference"]).output().unwrap();
    let reference = String::from_utf8(o.stdout).unwrap();
    let committed = std::fs::read_to_string(root().join("docs/scene-reference.md")).unwrap_or_default();
    assert!(committed == reference, "docs/scene-reference.md is stale: simreel schema --reference > docs/scene-reference.md");
    let o = simreel().args(["schema", "--kind", "dice"]).output().unwrap();
    let dice: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(dice["properties"]["kind"]["const"], "dice");
    assert!(dice["properties"]["dice"]["properties"]["count"]["description"].as_str().unwrap().contains("how many dice"));
    assert_eq!(dice["properties"]["dice"]["properties"]["count"]["maximum"], 12);
}

/// One document of the corpus: where it changes what, whether it must be accepted.
struct Case {
    what: String,
    text: String,
    valid: bool,
}

/// What a key given on its own needs beside it, where the reader has a rule across keys that a
/// schema does not state: TOML merged over the table after the key (`!` first: in place of the
/// table).
fn companions(path: &str, key: &str) -> Option<&'static str> {
    let table = path.rsplit('.').next().unwrap_or(path);
    Some(match (table, key) {
        ("cube", "grid" | "samples") => "samples = [0, 0, 0, 0, 0, 0, 0, 0]",
        ("flock", "edges") => "node = [{ x = 1, y = 1 }, { x = 2, y = 2 }]\nedges = [[0, 1]]",
        ("link[]", "support") => "support = \"root\"",
        ("legs[]", "to") => "!to = [1.0, 0.0]",
        ("legs[]", "cruise") => "!to = [1.0, 0.0]\ncruise = 1.0",
        ("legs[]", "teleport") => "!teleport = [1.0, 0.0]",
        // a panel's scene and `with` are inline tables: written as text (below)
        ("panel[]", "scene") => "@scene = { kind = \"flock\" }",
        ("panel[]", "with") => "@scene = { kind = \"flock\" }\nwith = { flock = { agents = 3 } }",
        ("panel[]", "rect") => "rect = [0, 0, 10, 10]",
        ("panel[]", "style") => "@scene = { kind = \"flock\" }\nstyle = \"wireframe\"",
        // an inset magnifies a scene panel before it
        ("panel[]", "inset" | "region" | "inset_color" | "units") => {
            "@scene = { kind = \"flock\" }\n[[figure.panel]]\ninset = 1\nregion = [0, 0, 10, 10]\ninset_color = \"#808080\""
        }
        ("panel[]", "wire_color" | "wire_width") => {
            "@scene = { kind = \"flock\" }\nstyle = \"wireframe\"\nwire_color = \"#808080\"\nwire_width = 2"
        }
        ("chart", "categories") => "categories = [\"a\", \"b\"]",
        ("chart", "x") => "type = \"line\"\nx = [0, 1]",
        ("chart", "series") => "!series = [{ values = [1, 2] }]",
        ("chart", "reference_label") => "reference = 1",
        ("series[]", "x") => "values = [1, 2]\nx = [0, 1]",
        _ => return None,
    })
}

/// A value `ty` accepts, for a key `key` of the table at `path`.
fn fill(path: &str, key: &Key, ty: &Ty) -> Value {
    // what the reader checks beyond each key's own type: names that must exist, canvas points
    match (path, key.name) {
        (p, "link") if p.ends_with("event[]") => return Value::String("bottom".into()),
        (p, "at") if p.ends_with("label[]") => return Value::Array(vec![Value::Float(10.0), Value::Float(10.0)]),
        (p, "from" | "to") if p.ends_with("arrow[]") => return Value::Array(vec![Value::Float(1.0), Value::Float(2.0)]),
        _ => {}
    }
    let num = |x: f64| Value::Float(x);
    match (*ty, key.default) {
        (Ty::Int { min, .. }, DefaultValue::Int(d)) => Value::Integer(d.max(min)),
        (Ty::Int { min, .. }, _) => Value::Integer(min),
        (Ty::Float { .. }, DefaultValue::Float(d)) => num(d),
        (Ty::Float { min, max }, _) if min > -1e300 && max < 1e300 => num((min + max) / 2.0),
        (Ty::Float { min, max }, _) => num(min.max(0.0).min(max)),
        (Ty::Bool, DefaultValue::Bool(b)) => Value::Boolean(b),
        (Ty::Bool, _) => Value::Boolean(false),
        (Ty::IntIn(allowed), _) => Value::Integer(allowed[0]),
        (Ty::Str | Ty::FileName, _) => Value::String("x".into()),
        (Ty::Choice(c), _) => Value::String(c[0].into()),
        (Ty::Color, _) => Value::String("#808080".into()),
        (Ty::Vector { len, .. } | Ty::Animated { len, .. }, DefaultValue::Numbers(d)) if d.len() == len => {
            if len == 1 {
                num(d[0])
            } else {
                Value::Array(d.iter().map(|&x| num(x)).collect())
            }
        }
        (Ty::Vector { len, min, .. } | Ty::Animated { len, min, .. }, _) => Value::Array(vec![num(min.max(0.0)); len]),
        (Ty::Whole { len, .. }, DefaultValue::Numbers(d)) if d.len() == len => {
            Value::Array(d.iter().map(|&x| Value::Integer(x as i64)).collect())
        }
        (Ty::Whole { len, min, .. }, _) => Value::Array(vec![Value::Integer(min); len]),
        (Ty::Rows(widths), _) => Value::Array(vec![Value::Array(vec![num(0.0); widths[0]])]),
        (Ty::List(item) | Ty::NonEmpty(item), _) => Value::Array(vec![fill(path, &Key::of(key.name, *item), item)]),
        (Ty::Table(t), _) => Value::Table(base(&format!("{path}.{}", key.name), t, None)),
        (Ty::Tables(t), _) => Value::Array(vec![Value::Table(base(&format!("{path}.{}[]", key.name), t, None))]),
        (Ty::Either(types), _) => fill(path, key, &types[0]),
        (Ty::Free, _) => Value::Table(Doc::new()),
    }
}

/// A table that holds what `t` requires (and what the reader needs besides), its tag set to
/// `case` when it is tagged.
fn base(path: &str, t: &Table, case: Option<&str>) -> Doc {
    let mut doc = Doc::new();
    let case = case.or_else(|| t.tagged.as_ref().map(|g| g.cases[0].0));
    for k in keys_of(t, case).into_iter().filter(|k| k.required) {
        doc.insert(k.name.into(), fill(path, k, &k.ty));
    }
    if let (Some(tagged), Some(case)) = (&t.tagged, case) {
        doc.insert(tagged.tag.into(), Value::String(case.into()));
    }
    // a leg is one of `to`, `wait` or `teleport`; a panel shows a scene or a chart
    if path.ends_with("legs[]") {
        doc.insert("wait".into(), Value::Float(1.0));
    }
    if path.ends_with("panel[]") {
        doc.insert("chart".into(), toml::from_str::<Doc>("values = [1, 2]").map(Value::Table).unwrap());
    }
    if path.ends_with(".chart") {
        doc.insert("values".into(), Value::Array(vec![Value::Float(1.0), Value::Float(2.0)]));
    }
    if path == "golden" {
        doc.insert("frames".into(), Value::Array(vec![Value::Integer(0)]));
    }
    doc
}

/// The keys of `t` with those of `case`.
fn keys_of<'t>(t: &'t Table, case: Option<&str>) -> Vec<&'t Key> {
    let extra = t.tagged.as_ref().and_then(|g| g.cases.iter().find(|(c, _)| Some(*c) == case)).map_or(&[][..], |(_, k)| *k);
    t.keys.iter().chain(extra).collect()
}

/// A value of the wrong type for `ty`: a string for a boolean, a boolean for anything else.
fn wrong_type(ty: &Ty) -> Value {
    match ty {
        Ty::Bool => Value::String("yes".into()),
        _ => Value::Boolean(true),
    }
}

/// A value just outside the range of `ty`, when it has a finite end.
fn out_of_range(key: &Key) -> Option<Value> {
    match key.ty {
        // between two allowed values where there is room, else past the last
        Ty::IntIn(allowed) => {
            Some(Value::Integer(allowed.windows(2).find(|w| w[1] - w[0] > 1).map_or(allowed[allowed.len() - 1] + 1, |w| w[0] + 1)))
        }
        Ty::FileName => Some(Value::String("../elsewhere".into())),
        Ty::Int { max, .. } if max < i64::MAX => Some(Value::Integer(max + 1)),
        Ty::Int { min, .. } if min > i64::MIN => Some(Value::Integer(min - 1)),
        Ty::Float { max, .. } if max < 1e300 => Some(Value::Float(max + max.abs() + 1.0)),
        Ty::Vector { len, max, .. } if max < 1e300 => Some(Value::Array(vec![Value::Float(max + max.abs() + 1.0); len])),
        Ty::Whole { len, max, .. } => Some(Value::Array(vec![Value::Integer(max + 1); len])),
        Ty::Animated { len: 1, max, .. } if max < 1e300 => Some(Value::Float(max + max.abs() + 1.0)),
        _ => None,
    }
}

/// A value written in place of the marker, past what 64 bits hold.
const HUGE_MARK: i64 = 9_123_456_789_012_345_678;

enum Shape {
    Value(Value),
    /// An integer past 64 bits (TOML's own integers stop there).
    Huge,
}

/// Values of `key`'s type in the shapes the reader and the validator must agree on, each with
/// whether it is valid: (what, value, valid).
fn other_shapes(key: &Key) -> Vec<(&'static str, Shape, bool)> {
    let whole_float = |x: i64| Value::Float(x as f64);
    match key.ty {
        Ty::Int { min, .. } => vec![
            ("a whole number written as a float", Shape::Value(whole_float(min.max(0))), true),
            ("a number with a fraction", Shape::Value(Value::Float(min.max(0) as f64 + 0.5)), false),
            ("an integer past 64 bits", Shape::Huge, false),
        ],
        Ty::IntIn(allowed) => vec![
            ("a whole number written as a float", Shape::Value(whole_float(allowed[0])), true),
            ("an integer past 64 bits", Shape::Huge, false),
        ],
        Ty::Whole { len, min, .. } => vec![
            ("whole numbers written as floats", Shape::Value(Value::Array(vec![whole_float(min); len])), true),
            ("numbers with a fraction", Shape::Value(Value::Array(vec![Value::Float(min as f64 + 0.5); len])), false),
        ],
        Ty::Float { .. } => vec![("an integer past 64 bits", Shape::Huge, false)],
        Ty::Either(types) => {
            let mut shapes = vec![("an integer past 64 bits", Shape::Huge, false)];
            if let Some(list) = types.iter().find(|t| matches!(t, Ty::List(_) | Ty::NonEmpty(_))) {
                shapes.push(("an empty list", Shape::Value(Value::Array(Vec::new())), matches!(list, Ty::List(_))));
            }
            shapes
        }
        Ty::List(_) => vec![("an empty list", Shape::Value(Value::Array(Vec::new())), true)],
        Ty::NonEmpty(_) => vec![("an empty list", Shape::Value(Value::Array(Vec::new())), false)],
        Ty::Animated { len: 1, .. } => vec![
            ("a number in a list of one", Shape::Value(Value::Array(vec![Value::Float(0.5)])), false),
            ("an empty list", Shape::Value(Value::Array(Vec::new())), false),
            ("an integer past 64 bits", Shape::Huge, false),
        ],
        Ty::Str | Ty::FileName => vec![
            ("a NUL character", Shape::Value(Value::String("a\u{0}b".into())), false),
            ("an escape character", Shape::Value(Value::String("a\u{1b}b".into())), false),
        ],
        _ => Vec::new(),
    }
}

/// The document of kind `kind` with `table` at `path` (a path of keys, `[]` for an array of
/// tables), and each table above it as its own base holds it.
fn document(kind: &str, path: &[(String, Doc)], table: Doc) -> Doc {
    let mut doc: Doc = toml::from_str(&format!("kind = \"{kind}\"")).unwrap();
    fn put(at: &mut Doc, path: &[(String, Doc)], table: Doc) {
        let ((head, parent_base), rest) = (&path[0], &path[1..]);
        let (name, array) = match head.strip_suffix("[]") {
            Some(n) => (n, true),
            None => (head.as_str(), false),
        };
        let here = if rest.is_empty() {
            table
        } else {
            let mut parent = parent_base.clone();
            put(&mut parent, rest, table);
            parent
        };
        let v = Value::Table(here);
        at.insert(name.into(), if array { Value::Array(vec![v]) } else { v });
    }
    put(&mut doc, path, table);
    doc
}

/// Every table under `t` (at `path`, each level with the base its parent holds): (path,
/// declaration, case).
#[allow(clippy::type_complexity)]
fn tables<'t>(path: Vec<(String, Doc)>, t: &'t Table, out: &mut Vec<(Vec<(String, Doc)>, &'t Table, Option<&'t str>)>) {
    let cases: Vec<Option<&str>> = match &t.tagged {
        Some(g) => g.cases.iter().map(|(c, _)| Some(*c)).collect(),
        None => vec![None],
    };
    let dotted = |p: &[(String, Doc)]| p.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(".");
    for case in cases {
        out.push((path.clone(), t, case));
        // a nested table sits in its parent's base, of the parent's case
        let mut parent = path.clone();
        if let Some(last) = parent.last_mut() {
            last.1 = base(&dotted(&path), t, case);
        }
        for k in keys_of(t, case) {
            let (sub, name) = match k.ty {
                Ty::Table(s) => (s, k.name.to_string()),
                Ty::Tables(s) => (s, format!("{}[]", k.name)),
                _ => continue,
            };
            let mut p = parent.clone();
            p.push((name, Doc::new()));
            if !out.iter().any(|(q, ..)| dotted(q) == dotted(&p)) {
                tables(p, sub, out);
            }
        }
    }
}

#[test]
fn a_corpus_of_broken_scenes_is_refused_by_the_reader_and_the_schema_alike() {
    let kind_root = &simreel::scene::kind_tables::ROOT;
    let tagged = kind_root.tagged.as_ref().unwrap();
    let mut cases = Vec::new();
    for (kind, kind_keys) in tagged.cases {
        // the shared tables, then the kind's own, each table with its sub-tables
        let mut found = Vec::new();
        for k in kind_root.keys.iter().chain(kind_keys.iter()) {
            if let Ty::Table(t) = k.ty {
                tables(vec![(k.name.to_string(), Doc::new())], t, &mut found);
            }
        }
        for (path, t, case) in found {
            let dotted = path.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(".");
            let here = base(&dotted, t, case);
            let name = format!("{kind}: [{dotted}]{}", case.map(|c| format!(" ({c})")).unwrap_or_default());
            // two rules of the reader a schema cannot state: a pick-up needs the jige on the ground,
            // and a chart takes `values` or `[[…series]]`, not both
            let mut path = path.clone();
            for (name, parent) in path.iter_mut() {
                if name == "chart" && dotted.contains("series[]") {
                    parent.remove("values");
                    parent.insert("type".into(), Value::String("line".into()));
                }
                if name == "cargo" && case == Some("pick_up") {
                    parent.insert("mode".into(), Value::String("ground".into()));
                }
            }
            let doc = |table: Doc| toml::to_string(&document(kind, &path, table)).unwrap();
            cases.push(Case { what: format!("{name} as it is"), text: doc(here.clone()), valid: true });
            let mut unknown = here.clone();
            unknown.insert("surely_not_a_key".into(), Value::Integer(1));
            cases.push(Case { what: format!("{name}: an unknown key"), text: doc(unknown), valid: false });
            // a key only another case declares (another shape's, another event's)
            let mine: Vec<&str> = keys_of(t, case).iter().map(|k| k.name).collect();
            let mut others: Vec<&Key> = t.tagged.iter().flat_map(|g| g.cases.iter().flat_map(|(_, ks)| ks.iter())).collect();
            others.retain(|k| !mine.contains(&k.name));
            others.dedup_by_key(|k| k.name);
            for other in others {
                let mut m = here.clone();
                m.insert(other.name.into(), fill(&dotted, other, &other.ty));
                cases.push(Case { what: format!("{name}: another case's {}", other.name), text: doc(m), valid: false });
            }
            let tag = t.tagged.as_ref().map(|g| g.tag);
            for k in keys_of(t, case).into_iter().filter(|k| Some(k.name) != tag) {
                // every declared key is taken: given a value of its type, it is accepted
                if !here.contains_key(k.name) {
                    let mut m = here.clone();
                    m.insert(k.name.into(), fill(&dotted, k, &k.ty));
                    let text = match companions(&dotted, k.name) {
                        // a panel written out: its inline tables stay inline
                        Some(text) if text.starts_with('@') => format!("kind = \"{kind}\"\n\n[[figure.panel]]\n{}\n", &text[1..]),
                        Some(more) => {
                            if more.starts_with('!') {
                                m = Doc::new();
                            }
                            m.extend(toml::from_str::<Doc>(more.trim_start_matches('!')).unwrap());
                            doc(m)
                        }
                        None => doc(m),
                    };
                    cases.push(Case { what: format!("{name}.{}: given", k.name), text, valid: true });
                }
                // the table a broken value of this key goes into: one with nothing else wrong (a
                // key that stands in place of the table's others, such as a leg's `to`, alone)
                let here = match companions(&dotted, k.name) {
                    Some(more) if more.starts_with('!') => toml::from_str::<Doc>(&more[1..]).unwrap(),
                    _ => here.clone(),
                };
                let mut m = here.clone();
                m.insert(k.name.into(), wrong_type(&k.ty));
                cases.push(Case { what: format!("{name}.{}: wrong type", k.name), text: doc(m), valid: false });
                // the shapes a reader and a validator may read apart (empty lists, a number in a list of
                // one, a whole number written as a
                // float (taken, as JSON Schema's `integer` takes it), one with a fraction, one past
                // 64 bits, a control character in a string
                let plain = companions(&dotted, k.name).is_none();
                for (how, v, valid) in other_shapes(k) {
                    if valid && !plain {
                        continue;
                    }
                    let mut m = here.clone();
                    let text = match v {
                        Shape::Value(v) => {
                            m.insert(k.name.into(), v);
                            doc(m)
                        }
                        Shape::Huge => {
                            m.insert(k.name.into(), Value::Integer(HUGE_MARK));
                            doc(m).replace(&HUGE_MARK.to_string(), "99999999999999999999999999")
                        }
                    };
                    cases.push(Case { what: format!("{name}.{}: {how}", k.name), text, valid });
                }
                if let Some(v) = out_of_range(k) {
                    let mut m = here.clone();
                    m.insert(k.name.into(), v);
                    cases.push(Case { what: format!("{name}.{}: out of range", k.name), text: doc(m), valid: false });
                }
                if k.required {
                    let mut m = here.clone();
                    m.remove(k.name);
                    cases.push(Case { what: format!("{name}.{}: missing", k.name), text: doc(m), valid: false });
                }
            }
        }
        cases.push(Case { what: format!("{kind}: no kind"), text: format!("[{kind}]\n"), valid: false });
        for (other, _) in tagged.cases.iter().filter(|(other, _)| other != kind) {
            cases.push(Case { what: format!("{kind}: [{other}]"), text: format!("kind = \"{kind}\"\n[{other}]\n"), valid: false });
        }
    }
    let dir = scratch();
    // the data file a figure's `data = "x"` names
    std::fs::write(dir.join("x"), "{}").unwrap();
    let schema = dir.join("scene.schema.json");
    std::fs::write(&schema, schema_text()).unwrap();
    let files: Vec<PathBuf> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let f = dir.join(format!("case{i:04}.toml"));
            std::fs::write(&f, &c.text).unwrap();
            f
        })
        .collect();
    let verdicts = validate(&schema, &files);
    let mut wrong = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    let mut echoes = Vec::new();
    for (c, f) in cases.iter().zip(&files) {
        let reader = simreel::scene::parse(&c.text, f);
        let schema_problems = &verdicts[&f.display().to_string()];
        let (reader_ok, schema_ok) = (reader.is_ok(), schema_problems.is_empty());
        if reader_ok != c.valid || schema_ok != c.valid {
            let said = match &reader {
                Ok(_) => "accepted".to_string(),
                Err(e) => e.to_string(),
            };
            wrong.push(format!("{}\n  reader: {said}\n  schema: {schema_problems:?}\n{}", c.what, c.text));
        }
        if let Err(simreel::scene::SceneError::Invalid { diagnostics, more, .. }) = &reader
            && diagnostics.len() + more > 1
        {
            echoes.push(format!("{}: {} problems\n{}", c.what, diagnostics.len() + more, reader.as_ref().err().unwrap()));
        }
        if c.valid { valid += 1 } else { invalid += 1 }
    }
    eprintln!("schema corpus: {valid} valid and {invalid} broken documents");

    assert!(wrong.is_empty(), "{} of {} documents judged wrongly:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
    // one mistake, one message: the reader reports the root cause, not its echoes (a value of the
    // wrong type, then "needs …" of the same key or its table)
    assert!(echoes.is_empty(), "{} broken documents (one mistake each) yield more than one problem:\n{}", echoes.len(), echoes.join("\n"));
    assert!(invalid > 400, "a corpus of {invalid} broken documents: the walk lost tables");
}

#[test]
fn what_each_key_redoes_is_where_the_reader_puts_it_and_the_docs_say_so() {
    use simreel::scene::effects::{Effect, effects};
    let e = effects();
    assert!(e.unknown.is_empty(), "{:?}", e.unknown);
    // the size draws, except for a flock without a canvas of its own, which lives on it
    for kind in ["terrain", "dice", "wind", "cargo", "figure"] {
        assert_eq!(e.of(kind, "render.width"), Some(Effect::Drawing), "{kind}");
    }
    assert_eq!(e.of("flock", "render.width"), Some(Effect::Simulation));
    for (kind, path, effect) in [
        // a load's size is its resting height on the stack; the chart's seconds are history kept
        ("cargo", "cargo.link[].size", Effect::Simulation),
        ("cargo", "cargo.plot.seconds", Effect::Simulation),
        ("cargo", "cargo.link[].color", Effect::Drawing),
        ("flock", "flock.trail", Effect::Simulation),
        ("flock", "flock.trails", Effect::Drawing),
        ("terrain", "terrain.colors.cliff", Effect::Drawing),
        ("wind", "wind.grass[].dry_share", Effect::Drawing),
        ("figure", "figure.panel[].frame", Effect::Simulation),
        ("figure", "figure.data", Effect::Drawing),
        ("dice", "golden.tolerance.channel", Effect::Output),
        ("dice", "name", Effect::Output),
        ("dice", "render.fps", Effect::Simulation),
    ] {
        assert_eq!(e.of(kind, path), Some(effect), "{kind}: {path}");
    }
    // the reference says what was found
    let reference = std::fs::read_to_string(root().join("docs/scene-reference.md")).unwrap();
    let row = |key: &str| {
        reference.lines().find(|l| l.starts_with(&format!("| `{key}` |"))).unwrap_or_else(|| panic!("no row for {key}")).to_string()
    };
    assert!(row("width").ends_with("; changes the drawing only; changes the simulation for flock |"), "{}", row("width"));
    assert!(row("seconds").ends_with("history shown |"), "{}", row("seconds"));
}
