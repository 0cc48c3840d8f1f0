//! The JSON Schema of scene files against the scene reader, with independent validators (Python's
//! `jsonschema`, and Taplo's CLI, the checker behind Even Better TOML): every shipped scene passes
//! both; a corpus made from the key declarations (each table of each kind, then an unknown key, a
//! value of the wrong type, one out of range, a required key left out) is refused by the reader and
//! the schema alike, and its unmutated documents accepted by both; the committed schema and scene
//! reference are what `simreel schema` makes now.

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
    let dir = scratch("schema-shipped");
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
        (Ty::Rows(widths), _) => Value::Array(vec![Value::Array(vec![num(0.0); widths[0]])]),
        (Ty::List(item), _) => Value::Array(vec![fill(path, &Key::of(key.name, *item), item)]),
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
        Ty::Animated { len: 1, max, .. } if max < 1e300 => Some(Value::Float(max + max.abs() + 1.0)),
        _ => None,
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
    let kind_root = &simreel::scene::kind::ROOT;
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
                let mut m = here.clone();
                m.insert(k.name.into(), wrong_type(&k.ty));
                cases.push(Case { what: format!("{name}.{}: wrong type", k.name), text: doc(m), valid: false });
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
    }
    let dir = scratch("schema-corpus");
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
        if c.valid { valid += 1 } else { invalid += 1 }
    }
    eprintln!("schema corpus: {valid} valid and {invalid} broken documents");
    assert!(wrong.is_empty(), "{} of {} documents judged wrongly:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
    assert!(invalid > 400, "a corpus of {invalid} broken documents: the walk lost tables");
}

/// A valid value for `key` other than its default (`None` where the type has no simple one).
fn another_value(key: &Key) -> Option<Value> {
    let shifted = |d: f64, min: f64, max: f64| {
        let up = if max < 1e300 { (d + max) / 2.0 } else { d + 1.0 };
        let down = if min > -1e300 { (d + min) / 2.0 } else { d - 1.0 };
        [up, down].into_iter().find(|x| *x != d && (min..=max).contains(x))
    };
    Some(match (key.ty, key.default) {
        (Ty::Float { min, max }, DefaultValue::Float(d)) => Value::Float(shifted(d, min, max)?),
        (Ty::Int { min, max }, DefaultValue::Int(d)) => Value::Integer(if d < max {
            d + 1
        } else if d > min {
            d - 1
        } else {
            return None;
        }),
        (Ty::IntIn(allowed), DefaultValue::Int(d)) => Value::Integer(*allowed.iter().find(|a| **a != d)?),
        (Ty::Bool, DefaultValue::Bool(b)) => Value::Boolean(!b),
        (Ty::Choice(c), _) if c.len() > 1 => Value::String(c[1].into()),
        (Ty::Color, _) => Value::String("#123456".into()),
        (Ty::Str, _) => Value::String("another".into()),
        (Ty::FileName, _) => Value::String("another".into()),
        (Ty::Vector { min, max, .. } | Ty::Animated { min, max, .. }, DefaultValue::Numbers(d)) => {
            let v: Option<Vec<Value>> = d.iter().map(|&x| shifted(x, min, max).map(Value::Float)).collect();
            if d.len() == 1 { v?.pop()? } else { Value::Array(v?) }
        }
        (Ty::Animated { len: 1, min, max }, DefaultValue::Float(d)) => Value::Float(shifted(d, min, max)?),
        _ => return None,
    })
}

/// The hashes of the simulation's state at `frames`, simulated from the start (the readable facts
/// beside them may present the state as the camera sees it: the dice's faces left to right).
fn digests(scene: &simreel::scene::Scene, frames: &[u32]) -> Vec<u64> {
    let mut sim = simreel::kinds::build(scene);
    frames
        .iter()
        .map(|&f| {
            let _ = sim.frame(f);
            sim.digest().hash
        })
        .collect()
}

/// The table at `path` in `t` (`name[]`: the first item of an array of tables), made where missing.
fn table_at<'d>(t: &'d mut Doc, path: &[String]) -> Option<&'d mut Doc> {
    let Some((step, rest)) = path.split_first() else { return Some(t) };
    let next = match step.strip_suffix("[]") {
        Some(name) => t.get_mut(name)?.as_array_mut()?.first_mut()?.as_table_mut()?,
        None => t.entry(step.clone()).or_insert_with(|| Value::Table(Doc::new())).as_table_mut()?,
    };
    table_at(next, rest)
}

/// Every key at `path` (a table of `doc`) and below that the declarations say only draws, or
/// changes no frame, set to another valid value: (where, the changed document).
fn mutations(doc: &Doc, decl: &Table, path: &[String], out: &mut Vec<(String, Doc)>) {
    let mut probe = doc.clone();
    let Some(here) = table_at(&mut probe, path) else { return };
    // a tagged table's own case only (the scene's kind, a shape's type)
    let tag = decl.tagged.as_ref().and_then(|t| here.get(t.tag)?.as_str().map(String::from));
    let case =
        decl.tagged.iter().flat_map(|t| t.cases.iter()).filter(|(name, _)| tag.as_deref() == Some(*name)).flat_map(|(_, k)| k.iter());
    for key in decl.keys.iter().chain(case) {
        let deeper = |name: String| [path, &[name]].concat();
        match key.ty {
            Ty::Table(sub) => mutations(doc, sub, &deeper(key.name.to_string()), out),
            Ty::Tables(sub) if here.get(key.name).and_then(Value::as_array).is_some_and(|a| !a.is_empty()) => {
                mutations(doc, sub, &deeper(format!("{}[]", key.name)), out)
            }
            _ if !matches!(key.effect, simreel::scene::keys::Effect::Simulation) => {
                let Some(value) = another_value(key) else { continue };
                let mut changed = doc.clone();
                let Some(t) = table_at(&mut changed, path) else { continue };
                t.insert(key.name.to_string(), value);
                out.push((deeper(key.name.to_string()).join("."), changed));
            }
            _ => {}
        }
    }
}

#[test]
fn every_key_declared_to_only_draw_or_change_no_frame_leaves_the_simulation_alone() {
    // one shipped scene of each kind that simulates, at frames through the whole scene
    let cases = [
        ("scenes/terrain.toml", vec![0, 89]),
        ("scenes/flock.toml", vec![0, 200, 389]),
        ("scenes/dice.toml", vec![0, 60, 179]),
        ("scenes/wind_forest.toml", vec![0, 90, 179]),
        ("scenes/cargo_walk.toml", vec![0, 120, 359]),
    ];
    let (mut checked, mut refused) = (0, 0);
    for (file, frames) in cases {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let doc: Doc = toml::from_str(&text).unwrap();
        let base = simreel::scene::parse(&text, &root().join(file)).unwrap();
        let expected = digests(&base, &frames);
        let mut variants = Vec::new();
        mutations(&doc, &simreel::scene::kind::ROOT, &[], &mut variants);
        for (what, changed) in variants {
            let text = toml::to_string(&changed).unwrap();
            // a value the reader refuses across keys (a range that must contain another) proves nothing
            let scene = match simreel::scene::parse(&text, &root().join(file)) {
                Ok(s) => s,
                Err(_) => {
                    refused += 1;
                    continue;
                }
            };
            assert_eq!(scene.fingerprint.simulation, base.fingerprint.simulation, "{file}: {what} is filed with the simulation's inputs");
            assert_eq!(digests(&scene, &frames), expected, "{file}: {what} is declared to only draw, but the simulation changes with it");
            checked += 1;
        }
    }
    assert!(checked > 150, "only {checked} keys checked ({refused} refused)");
}
