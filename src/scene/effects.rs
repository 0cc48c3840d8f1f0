//! What a change to each key redoes, found by trying it rather than declared: for every key of
//! every kind (shared tables, the kind's own, tagged cases, arrays of tables), two scene documents
//! that differ in that key alone are read, and the parts of the two scenes are compared. A key
//! whose change moves the simulation's part ([`super::SimSpec`]) changes the simulation; one that
//! moves only the drawing's part ([`super::LookSpec`]) changes the drawing only; one that moves
//! neither changes no frame. The scene reference and the JSON Schema say what this finds, so they
//! say where each key lands in the code, and cannot disagree with it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use toml::{Table as Doc, Value};

use super::keys::{DefaultValue, Key, Table, Ty};
use super::kind_tables::ROOT;
use super::{Scene, parse};

/// What a change to a key redoes, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effect {
    /// Neither simulates nor draws anything again (where and how output is written, what a golden
    /// check compares, names).
    Output,
    /// Draws the same states again.
    Drawing,
    /// Simulates again.
    Simulation,
}

impl Effect {
    /// In words, after a key's description ("" for the simulation: the usual case).
    pub fn words(self) -> &'static str {
        match self {
            Effect::Simulation => "",
            Effect::Drawing => "changes the drawing only",
            Effect::Output => "changes no frame",
        }
    }
}

/// Every key's effect, by kind and dotted path (`render.width`, `cargo.link[].size`, a tagged
/// case's keys under their table's path).
#[derive(Debug, Default)]
pub struct Effects {
    by_key: BTreeMap<(String, String), Effect>,
    /// Keys no pair of documents could be found for (a bug in the probe: the suite fails on it).
    pub unknown: Vec<(String, String)>,
}

impl Effects {
    /// The effect of the key at `path` in a scene of kind `kind`.
    pub fn of(&self, kind: &str, path: &str) -> Option<Effect> {
        self.by_key.get(&(kind.to_string(), path.to_string())).copied()
    }

    /// The effect of the key at `path` in every kind that has it: (kind, effect).
    pub fn across_kinds(&self, path: &str) -> Vec<(&str, Effect)> {
        self.by_key.iter().filter(|((_, p), _)| p == path).map(|((k, _), e)| (k.as_str(), *e)).collect()
    }

    /// How many keys were tried.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

/// The effects of this build's keys, found once (about 0.2 s) the first time they are asked for.
pub fn effects() -> &'static Effects {
    static EFFECTS: OnceLock<Effects> = OnceLock::new();
    EFFECTS.get_or_init(probe_all)
}

/// One level of the path to a table: the key naming it, whether it is an array of tables, and
/// what it holds when a table below it is probed.
#[derive(Clone)]
struct Step {
    name: String,
    array: bool,
    base: Doc,
    /// An array's items before the one probed (a load a later one rests on).
    before: Vec<Value>,
}

fn dotted(steps: &[Step]) -> String {
    steps.iter().map(|s| if s.array { format!("{}[]", s.name) } else { s.name.clone() }).collect::<Vec<_>>().join(".")
}

fn probe_all() -> Effects {
    let data = DataFiles::new();
    let mut found: BTreeMap<(String, String), Option<Effect>> = BTreeMap::new();
    let tagged = ROOT.tagged.as_ref().expect("the top level is tagged by kind");
    for (kind, kind_keys) in tagged.cases {
        let keys: Vec<&Key> = ROOT.keys.iter().chain(kind_keys.iter()).collect();
        let here = Doc::new();
        let mut p = Probe { kind, found: &mut found, data: &data };
        p.keys(&[], &here, &keys, None);
    }
    let mut out = Effects::default();
    for (key, effect) in found {
        match effect {
            Some(e) => {
                out.by_key.insert(key, e);
            }
            None => out.unknown.push(key),
        }
    }
    out
}

/// Two small JSON files for the keys that name a data file, in a private folder of their own
/// (an unguessable name in the temporary folder, made exclusively), removed when dropped.
struct DataFiles {
    dir: Option<simreel_compare::fs::TempFolder>,
}

impl DataFiles {
    fn new() -> Self {
        let dir = simreel_compare::fs::TempFolder::new("simreel-effects").ok();
        for (name, v) in [("a.json", 1), ("b.json", 2)] {
            if let Some(d) = &dir {
                let _ = d.folder.write(name.as_ref(), format!("{{\"v\": {v}, \"values\": [1, {v}]}}").as_bytes(), false);
            }
        }
        DataFiles { dir }
    }

    fn path(&self, name: &str) -> String {
        let dir =
            self.dir.as_ref().map_or_else(|| std::path::PathBuf::from("simreel-effects-unavailable"), |d| d.folder.path().to_path_buf());
        dir.join(name).display().to_string()
    }
}

struct Probe<'a> {
    kind: &'a str,
    /// Every key tried so far (a key of several cases of a tagged table: its strongest effect).
    found: &'a mut BTreeMap<(String, String), Option<Effect>>,
    data: &'a DataFiles,
}

impl Probe<'_> {
    fn record(&mut self, path: String, effect: Option<Effect>) -> Option<Effect> {
        let slot = self.found.entry((self.kind.to_string(), path)).or_insert(None);
        *slot = (*slot).max(effect);
        effect
    }

    /// The keys of the table at `steps` (holding `here`), of tagged case `case`: each probed,
    /// tables below recursively. The strongest effect of any of them.
    fn keys(&mut self, steps: &[Step], here: &Doc, keys: &[&Key], tag: Option<&str>) -> Option<Effect> {
        let mut strongest = None;
        for key in keys {
            if key.name == "kind" && steps.is_empty() || Some(key.name) == tag {
                continue;
            }
            let path = if steps.is_empty() { key.name.to_string() } else { format!("{}.{}", dotted(steps), key.name) };
            let effect = match key.ty {
                Ty::Table(sub) | Ty::Tables(sub) => {
                    let array = matches!(key.ty, Ty::Tables(_));
                    let effect = self.table(steps, here, key.name, array, sub);
                    self.record(path, effect)
                }
                _ => {
                    let effect = self.leaf(steps, here, key, &path);
                    self.record(path, effect)
                }
            };
            strongest = strongest.max(effect);
        }
        strongest
    }

    /// The table `name` (an array of tables: its one item) under `steps`, every case of it.
    fn table(&mut self, steps: &[Step], parent: &Doc, name: &str, array: bool, t: &Table) -> Option<Effect> {
        let mut below = steps.to_vec();
        if let Some(last) = below.last_mut() {
            last.base = parent.clone();
        }
        let cases: Vec<Option<&str>> = match &t.tagged {
            Some(g) => g.cases.iter().map(|(c, _)| Some(*c)).collect(),
            None => vec![None],
        };
        let mut strongest = None;
        for case in &cases {
            let mut below = below.clone();
            // a chart takes `values` or `[[…series]]`, not both
            if name == "series"
                && let Some(parent) = below.last_mut()
            {
                parent.base.remove("values");
                parent.base.insert("type".into(), Value::String("line".into()));
            }
            // a pick-up needs the jige on the ground
            if *case == Some("pick_up")
                && let Some(parent) = below.last_mut()
            {
                parent.base.insert("mode".into(), Value::String("ground".into()));
            }
            let mut steps = below.clone();
            let path = format!(
                "{}{name}{}",
                if steps.is_empty() { String::new() } else { format!("{}.", dotted(&steps)) },
                if array { "[]" } else { "" }
            );
            steps.push(Step { name: name.to_string(), array, base: Doc::new(), before: Vec::new() });
            let here = base(&path, t, *case, self.kind);
            let keys = keys_of(t, *case);
            let effect = self.keys(&steps, &here, &keys, t.tagged.as_ref().map(|g| g.tag));
            strongest = strongest.max(effect);
        }
        // the tag itself: one case against another
        if let (Some(g), [Some(a), Some(b), ..]) = (&t.tagged, cases.as_slice()) {
            let path = format!(
                "{}{name}{}",
                if below.is_empty() { String::new() } else { format!("{}.", dotted(&below)) },
                if array { "[]" } else { "" }
            );
            let mut steps = below.clone();
            steps.push(Step { name: name.to_string(), array, base: Doc::new(), before: Vec::new() });
            let scenes = [a, b].map(|c| self.read(&steps, &base(&path, t, Some(c), self.kind)));
            let effect = match scenes {
                [Some(x), Some(y)] => Some(difference(&x, &y)),
                _ => None,
            };
            let effect = self.record(format!("{path}.{}", g.tag), effect);
            strongest = strongest.max(effect);
        }
        strongest
    }

    /// One key that holds a value: the first two of its candidate values that both read.
    fn leaf(&mut self, steps: &[Step], here: &Doc, key: &Key, path: &str) -> Option<Effect> {
        let table = dotted(steps);
        let mut cands = candidates(&table, key);
        if key.name == "data" {
            // a chart's data file: its values read from it
            let values = table.ends_with("chart").then(|| ("values".to_string(), Some(Value::String("values".into()))));
            cands = ["a.json", "b.json"]
                .iter()
                .map(|f| [("data".to_string(), Some(Value::String(self.data.path(f))))].into_iter().chain(values.clone()).collect())
                .collect();
        }
        if table.ends_with("link[]") && key.name == "support" {
            // a load rests on one listed before it
            let mut steps = steps.to_vec();
            if let Some(last) = steps.last_mut() {
                last.before = vec![Value::Table(toml::from_str::<Doc>("name = \"bottom\"").expect("a table"))];
            }
            let mut top = here.clone();
            top.insert("name".into(), Value::String("top".into()));
            return self.pair(&steps, &top, &cands);
        }
        if table.ends_with("panel[]") && matches!(key.name, "inset" | "region" | "inset_color" | "units") {
            // an inset magnifies a scene panel listed before it
            let mut steps = steps.to_vec();
            if let Some(last) = steps.last_mut() {
                let scene = Value::Table(toml::from_str::<Doc>(&format!("scene = \"{INLINE_SCENE}\"")).expect("a table"));
                last.before = vec![scene.clone(), scene];
            }
            let mut inset = here.clone();
            inset.remove("chart");
            inset.insert("inset".into(), Value::Integer(1));
            inset.insert("region".into(), Value::Array(vec![num(0.0), num(0.0), num(10.0), num(10.0)]));
            return self.pair(&steps, &inset, &cands);
        }
        let found = self.pair(steps, here, &cands);
        // a panel's key that is about its scene: tried on a scene panel too
        let to_scene = |d: &mut Doc| {
            d.remove("chart");
            d.insert("scene".into(), Value::String(INLINE_SCENE.into()));
        };
        if found.is_none() && table.ends_with("panel[]") {
            let mut scene = here.clone();
            to_scene(&mut scene);
            let _ = path;
            return self.pair(steps, &scene, &cands);
        }
        if found.is_none()
            && let Some(at) = steps.iter().position(|s| s.name == "panel" && s.array)
            && at + 1 < steps.len()
        {
            let mut steps = steps.to_vec();
            to_scene(&mut steps[at].base);
            return self.pair(&steps, here, &cands);
        }
        found
    }

    /// The effect between the first two different scenes `cands` make of `here`.
    fn pair(&mut self, steps: &[Step], here: &Doc, cands: &[Assignment]) -> Option<Effect> {
        let mut read: Vec<Scene> = Vec::new();
        for c in cands.iter().take(8) {
            let mut doc = here.clone();
            for (k, v) in c {
                match v {
                    Some(v) => doc.insert(k.clone(), v.clone()),
                    None => doc.remove(k),
                };
            }
            if let Some(s) = self.read(steps, &doc)
                && read.first().is_none_or(|first| *first != s)
            {
                read.push(s);
                if read.len() == 2 {
                    return Some(difference(&read[0], &read[1]));
                }
            }
        }
        None
    }

    /// The scene of the document with `table` at `steps` (each level above as its base holds
    /// it), when it reads.
    fn read(&self, steps: &[Step], table: &Doc) -> Option<Scene> {
        let text = document(self.kind, steps, table);
        parse(&text, Path::new("probe.toml")).ok()
    }
}

/// What differs between two scenes read from documents that differ in one key.
fn difference(a: &Scene, b: &Scene) -> Effect {
    let (x, y) = (a.identity(), b.identity());
    if x.simulation != y.simulation {
        Effect::Simulation
    } else if x.drawing != y.drawing {
        Effect::Drawing
    } else {
        Effect::Output
    }
}

/// The keys of `t` with those of `case`.
fn keys_of<'t>(t: &'t Table, case: Option<&str>) -> Vec<&'t Key> {
    let extra = t.tagged.as_ref().and_then(|g| g.cases.iter().find(|(c, _)| Some(*c) == case)).map_or(&[][..], |(_, k)| *k);
    t.keys.iter().chain(extra).collect()
}

/// Placeholders for inline tables, which a panel's `scene` and `with` must be and the TOML writer
/// does not make: written as strings, then swapped for the inline text.
const INLINE_SCENE: &str = "@inline-scene@";
const INLINE_SCENE_B: &str = "@inline-scene-b@";
const INLINE_WITH_A: &str = "@inline-with-a@";
const INLINE_WITH_B: &str = "@inline-with-b@";

/// The scene file of kind `kind` with `table` at `steps`.
fn document(kind: &str, steps: &[Step], table: &Doc) -> String {
    let mut doc = Doc::new();
    doc.insert("kind".into(), Value::String(kind.into()));
    match steps.split_first() {
        None => doc.extend(table.clone()),
        Some((first, _)) => {
            let value = place(steps, table);
            doc.insert(first.name.clone(), wrap(first, value));
        }
    }
    let text = toml::to_string(&doc).unwrap_or_default();
    text.replace(&format!("\"{INLINE_SCENE}\""), "{ kind = \"flock\" }")
        .replace(&format!("\"{INLINE_SCENE_B}\""), "{ kind = \"flock\", seed = 2 }")
        .replace(&format!("\"{INLINE_WITH_A}\""), "{ flock = { agents = 3 } }")
        .replace(&format!("\"{INLINE_WITH_B}\""), "{ flock = { agents = 4 } }")
}

/// The value of `steps[0]`'s table holding the levels below it, `table` innermost.
fn place(steps: &[Step], table: &Doc) -> Value {
    match steps {
        [_] | [] => Value::Table(table.clone()),
        [first, rest @ ..] => {
            let mut t = first.base.clone();
            let inner = place(rest, table);
            t.insert(rest[0].name.clone(), wrap(&rest[0], inner));
            Value::Table(t)
        }
    }
}

/// `value` as the key of `step` holds it: an array of tables ends with it.
fn wrap(step: &Step, value: Value) -> Value {
    match step.array {
        true => Value::Array(step.before.iter().cloned().chain([value]).collect()),
        false => value,
    }
}

fn num(x: f64) -> Value {
    Value::Float(x)
}

/// A table that holds what `t` requires (and what its reader needs besides), its tag set to
/// `case` when it is tagged.
fn base(path: &str, t: &Table, case: Option<&str>, kind: &str) -> Doc {
    let mut doc = Doc::new();
    let case = case.or_else(|| t.tagged.as_ref().map(|g| g.cases[0].0));
    for k in keys_of(t, case).into_iter().filter(|k| k.required) {
        let value = match k.ty {
            Ty::Table(sub) => Some(Value::Table(base(&format!("{path}.{}", k.name), sub, None, kind))),
            _ => candidates(path, k).into_iter().next().and_then(|c| c.into_iter().find(|(n, _)| n == k.name)).and_then(|(_, v)| v),
        };
        if let Some(v) = value {
            doc.insert(k.name.into(), v);
        }
    }
    if let (Some(tagged), Some(case)) = (&t.tagged, case) {
        doc.insert(tagged.tag.into(), Value::String(case.into()));
    }
    // a leg is one of `to`, `wait` or `teleport`; a panel shows a scene; a chart has values; a
    // golden check names its frames; a pick-up needs the jige on the ground
    if path.ends_with("legs[]") {
        doc.insert("wait".into(), num(1.0));
    }
    if path.ends_with("panel[]") {
        doc.insert("chart".into(), Value::Table(toml::from_str::<Doc>("values = [1, 2]").expect("a table")));
    }
    if path.ends_with(".chart") {
        doc.insert("values".into(), Value::Array(vec![num(1.0), num(2.0)]));
    }
    if path == "golden" {
        doc.insert("frames".into(), Value::Array(vec![Value::Integer(0)]));
    }
    if path.ends_with("link[]") {
        doc.insert("name".into(), Value::String("bottom".into()));
    }
    let _ = kind;
    doc
}

/// One way of setting a key: the keys set (or removed: `None`) together.
type Assignment = Vec<(String, Option<Value>)>;

fn set(key: &str, v: Value) -> Assignment {
    vec![(key.to_string(), Some(v))]
}

/// Values for `key` of the table at `table` (dotted), each as the keys it sets: its default (or
/// its absence) first, then others of its type, with what the reader requires beside them.
fn candidates(table: &str, key: &Key) -> Vec<Assignment> {
    let name = key.name;
    let last = table.rsplit('.').next().unwrap_or(table);
    let pair = |a: Value, b: Value| vec![set(name, a), set(name, b)];
    // what the reader checks beyond each key's own type
    match (last, name) {
        ("event[]", "link") => return pair(Value::String("bottom".into()), Value::String("middle".into())),
        ("label[]", "at") => return pair(Value::Array(vec![num(10.0), num(10.0)]), Value::Array(vec![num(20.0), num(10.0)])),
        ("arrow[]", "from" | "to") => return pair(Value::Array(vec![num(1.0), num(2.0)]), Value::Array(vec![num(3.0), num(2.0)])),
        ("panel[]", "scene") => {
            return [INLINE_SCENE, INLINE_SCENE_B]
                .iter()
                .map(|s| vec![("chart".to_string(), None), (name.to_string(), Some(Value::String((*s).into())))])
                .collect();
        }
        ("panel[]", "with") => {
            let scene = ("scene".to_string(), Some(Value::String(INLINE_SCENE.into())));
            return [INLINE_WITH_A, INLINE_WITH_B]
                .iter()
                .map(|w| vec![("chart".to_string(), None), scene.clone(), (name.to_string(), Some(Value::String((*w).into())))])
                .collect();
        }
        ("panel[]", "inset") => return pair(Value::Integer(1), Value::Integer(2)),
        ("panel[]", "region") => {
            let rect = |x: f64| Value::Array(vec![num(x), num(x), num(10.0), num(10.0)]);
            return pair(rect(0.0), rect(5.0));
        }
        ("panel[]", "wire_color" | "wire_width") => {
            let style = ("style".to_string(), Some(Value::String("wireframe".into())));
            return candidates("", key)
                .into_iter()
                .map(|mut a| {
                    a.push(style.clone());
                    a
                })
                .collect();
        }
        ("cube", "grid" | "samples") => {
            let grid = |g: [i64; 3], s: f64| {
                let n = (g[0] * g[1] * g[2]) as usize;
                vec![
                    ("grid".to_string(), Some(Value::Array(g.iter().map(|&v| Value::Integer(v)).collect()))),
                    ("samples".to_string(), Some(Value::Array(vec![num(s); n]))),
                ]
            };
            return vec![grid([2, 2, 2], 0.5), grid(if name == "grid" { [3, 2, 2] } else { [2, 2, 2] }, -0.5)];
        }
        ("flock", "edges") => {
            let nodes = (
                "node".to_string(),
                toml::from_str::<Doc>("node = [{ x = 1, y = 1 }, { x = 2, y = 2 }, { x = 3, y = 1 }]")
                    .ok()
                    .and_then(|mut d| d.remove("node")),
            );
            let edges = |e: [i64; 2]| {
                vec![
                    nodes.clone(),
                    ("edges".to_string(), Some(Value::Array(vec![Value::Array(e.iter().map(|&v| Value::Integer(v)).collect())]))),
                ]
            };
            return vec![edges([0, 1]), edges([1, 2])];
        }
        ("link[]", "support") => return pair(Value::String("root".into()), Value::String("bottom".into())),
        ("legs[]", "to" | "cruise" | "teleport") => {
            let to = |x: f64, cruise: Option<f64>| {
                let mut a = vec![
                    ("wait".to_string(), None),
                    (if name == "teleport" { "teleport" } else { "to" }.to_string(), Some(Value::Array(vec![num(x), num(0.0)]))),
                ];
                if let Some(c) = cruise {
                    a.push(("cruise".to_string(), Some(num(c))));
                }
                a
            };
            return match name {
                "cruise" => vec![to(1.0, Some(1.0)), to(1.0, Some(1.5))],
                _ => vec![to(1.0, None), to(2.0, None)],
            };
        }
        ("chart", "categories") => {
            return pair(
                Value::Array(vec![Value::String("a".into()), Value::String("b".into())]),
                Value::Array(vec![Value::String("c".into()), Value::String("d".into())]),
            );
        }
        ("chart", "x") => {
            let x = |a: f64| {
                vec![
                    ("type".to_string(), Some(Value::String("line".into()))),
                    ("x".to_string(), Some(Value::Array(vec![num(a), num(a + 1.0)]))),
                ]
            };
            return vec![x(0.0), x(1.0)];
        }
        ("chart", "series") => return Vec::new(),
        ("chart", "reference_label") => {
            let r =
                |l: &str| vec![("reference".to_string(), Some(num(1.0))), ("reference_label".to_string(), Some(Value::String(l.into())))];
            return vec![r("a"), r("b")];
        }
        ("series[]", "x") => {
            let x = |a: f64| {
                vec![
                    ("values".to_string(), Some(Value::Array(vec![num(1.0), num(2.0)]))),
                    ("x".to_string(), Some(Value::Array(vec![num(a), num(a + 1.0)]))),
                ]
            };
            return vec![x(0.0), x(1.0)];
        }
        _ => {}
    }
    let mut out: Vec<Assignment> = Vec::new();
    if !key.required {
        out.push(vec![(name.to_string(), None)]);
    }
    out.extend(values(key, &key.ty).into_iter().map(|v| set(name, v)));
    out
}

/// Valid values of type `ty` for `key`: its default first where it has one, then others.
fn values(key: &Key, ty: &Ty) -> Vec<Value> {
    let shifted = |d: f64, min: f64, max: f64| -> Vec<f64> {
        let up = if max < 1e300 { (d + max) / 2.0 } else { d + 1.0 };
        let down = if min > -1e300 { (d + min) / 2.0 } else { d - 1.0 };
        [d, up, down, d + 0.25, d - 0.25, min.max(-1e3), max.min(1e3)].into_iter().filter(|x| (min..=max).contains(x)).collect()
    };
    let numbers = |d: &[f64], min: f64, max: f64, len: usize| -> Vec<Value> {
        let d: Vec<f64> = if d.len() == len { d.to_vec() } else { vec![min.max(0.0).min(max); len] };
        // whole numbers stay whole (segment counts, grid sizes)
        let whole = d.iter().all(|x| x.fract() == 0.0);
        let shifted = |x: f64, min: f64, max: f64| -> Vec<f64> {
            let s = shifted(x, min, max);
            if whole { s.into_iter().map(f64::round).filter(|v| (min..=max).contains(v)).collect() } else { s }
        };
        let variants: Vec<Vec<f64>> = (0..4)
            .map(|k| {
                d.iter()
                    .map(|&x| {
                        let s = shifted(x, min, max);
                        s.get(k).copied().unwrap_or(x)
                    })
                    .collect()
            })
            .collect();
        variants.into_iter().map(|v| if len == 1 { num(v[0]) } else { Value::Array(v.into_iter().map(num).collect()) }).collect()
    };
    match (*ty, key.default) {
        (Ty::Int { min, max }, d) => {
            let d = if let DefaultValue::Int(d) = d { d } else { min.max(0).min(max) };
            [d, d + 1, d - 1, min, min.saturating_add(1)].into_iter().filter(|x| (min..=max).contains(x)).map(Value::Integer).collect()
        }
        (Ty::Float { min, max }, d) => {
            let d = if let DefaultValue::Float(d) = d { d } else { min.max(0.0).min(max) };
            shifted(d, min, max).into_iter().map(num).collect()
        }
        (Ty::IntIn(allowed), _) => allowed.iter().map(|&a| Value::Integer(a)).collect(),
        (Ty::Bool, _) => vec![Value::Boolean(false), Value::Boolean(true)],
        (Ty::Str | Ty::FileName, _) => vec![Value::String("a".into()), Value::String("b".into())],
        (Ty::Choice(c), _) => c.iter().map(|c| Value::String((*c).into())).collect(),
        (Ty::Color, _) => vec![Value::String("#808080".into()), Value::String("#123456".into())],
        (Ty::Vector { len, min, max } | Ty::Animated { len, min, max }, DefaultValue::Numbers(d)) => numbers(d, min, max, len),
        (Ty::Vector { len, min, max } | Ty::Animated { len, min, max }, DefaultValue::Float(d)) => numbers(&[d], min, max, len),
        (Ty::Vector { len, min, max } | Ty::Animated { len, min, max }, _) => numbers(&[], min, max, len),
        (Ty::Whole { len, min, max }, DefaultValue::Numbers(d)) => numbers(d, min as f64, max as f64, len),
        (Ty::Whole { len, min, max }, _) => numbers(&[], min as f64, max as f64, len),
        (Ty::Rows(widths), _) => {
            let w = widths[0];
            (1..3).map(|k| Value::Array(vec![Value::Array((0..w).map(|i| num((k + i) as f64 * 0.5)).collect())])).collect()
        }
        (Ty::List(item) | Ty::NonEmpty(item), _) => values(key, item).into_iter().map(|v| Value::Array(vec![v])).collect(),
        (Ty::Either(types), _) => types.iter().flat_map(|t| values(key, t)).collect(),
        (Ty::Table(_) | Ty::Tables(_) | Ty::Free, _) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_of_every_kind_is_tried_and_lands_somewhere() {
        let e = effects();
        assert!(e.unknown.is_empty(), "no two documents read for: {:?}", e.unknown);
        assert!(e.len() > 500, "{} keys", e.len());
    }
}
