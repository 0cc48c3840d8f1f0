//! The JSON Schema of scene files and the scene reference in the docs, both made from the key
//! declarations the reader checks against ([`super::keys`]), and what a change to each key redoes
//! from where it lands in the scene's parts ([`super::effects`]), so neither can drift from the
//! code.
//!
//! The schema is draft-07, the newest draft Taplo (Even Better TOML) validates with: `kind` picks
//! one of the alternatives of the top level, each holding the shared tables and that kind's own;
//! a tagged table (a terrain shape's `type`, a cargo event's `kind`) is an alternative per tag.

use serde_json::{Map, Value, json};

use super::effects::{Effect, effects};
use super::keys::{DefaultValue, Key, Table, Tagged, Ty};
use super::kind_tables::{KINDS, ROOT};
use super::reader::MAX_STRING;

/// The draft the schema is written to.
pub const DRAFT: &str = "http://json-schema.org/draft-07/schema#";

/// The schema of scene files of every kind, or of kind `kind` alone; `None` for a kind this build
/// does not know.
pub fn json_schema(kind: Option<&str>) -> Option<Value> {
    let tagged = ROOT.tagged.as_ref().expect("the top level is tagged by kind");
    let mut schema = match kind {
        Some(kind) => {
            let (name, keys) = tagged.cases.iter().find(|(name, _)| *name == kind)?;
            case_schema(&ROOT, tagged.tag, name, keys, &At { kind: Some(name), path: String::new() })
        }
        None => tagged_schema(&ROOT, tagged, &At { kind: None, path: String::new() }, |name| At { kind: Some(name), path: String::new() }),
    };
    let definitions = shared_tables(&mut schema);
    let top = schema.as_object_mut().expect("an object");
    if !definitions.is_empty() {
        top.insert("definitions".into(), Value::Object(definitions));
    }
    top.insert("$schema".into(), json!(DRAFT));
    top.insert("title".into(), json!(format!("simreel scene file{}", kind.map(|k| format!(" (kind = \"{k}\")")).unwrap_or_default())));
    top.insert("description".into(), json!(ROOT.doc));
    Some(schema)
}

/// Tables that appear more than once (the shared tables in every kind's alternative, a camera in
/// a panel) moved to `definitions` and referred to, each named after the key it first appears
/// at: the schema an editor loads is a fraction of the size.
fn shared_tables(schema: &mut Value) -> Map<String, Value> {
    fn count(v: &Value, seen: &mut std::collections::HashMap<String, usize>) {
        match v {
            Value::Object(o) => {
                if o.get("type") == Some(&json!("object")) && o.contains_key("properties") {
                    *seen.entry(v.to_string()).or_default() += 1;
                }
                o.values().for_each(|c| count(c, seen));
            }
            Value::Array(a) => a.iter().for_each(|c| count(c, seen)),
            _ => {}
        }
    }
    fn replace(
        v: &mut Value,
        key: &str,
        seen: &std::collections::HashMap<String, usize>,
        defs: &mut Map<String, Value>,
        names: &mut std::collections::HashMap<String, String>,
    ) {
        let table = v.get("type") == Some(&json!("object")) && v.get("properties").is_some();
        let text = table.then(|| v.to_string()).filter(|t| seen.get(t).copied().unwrap_or(0) > 1);
        if let Some(text) = text {
            // an animated value's ramp is a ramp, whichever key first had it
            let ramp = v.get("description").and_then(Value::as_str).is_some_and(|d| d.starts_with("a ramp"));
            let key = if ramp { "ramp" } else { key };
            let name = names
                .entry(text)
                .or_insert_with(|| {
                    let mut name = key.to_string();
                    let mut n = 1;
                    while defs.contains_key(&name) {
                        n += 1;
                        name = format!("{key}{n}");
                    }
                    name
                })
                .clone();
            if !defs.contains_key(&name) {
                let mut body = v.clone();
                if let Value::Object(b) = &mut body {
                    for (k, c) in b.iter_mut() {
                        replace(c, k, seen, defs, names);
                    }
                }
                defs.insert(name.clone(), body);
            }
            *v = json!({ "$ref": format!("#/definitions/{name}") });
            return;
        }
        match v {
            Value::Object(o) => {
                for (k, c) in o.iter_mut() {
                    let k = if ["properties", "items", "oneOf", "anyOf"].contains(&k.as_str()) { key.to_string() } else { k.clone() };
                    replace(c, &k, seen, defs, names);
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|c| replace(c, key, seen, defs, names)),
            _ => {}
        }
    }
    let mut seen = std::collections::HashMap::new();
    count(schema, &mut seen);
    let (mut defs, mut names) = (Map::new(), std::collections::HashMap::new());
    replace(schema, "table", &seen, &mut defs, &mut names);
    defs
}

/// Where a key is: the kind of its scene (none: the tables every kind shares, in the reference)
/// and its dotted path as [`super::effects`] names it (`cargo.link[].size`).
#[derive(Clone, Debug)]
struct At<'a> {
    kind: Option<&'a str>,
    path: String,
}

impl At<'_> {
    fn key(&self, name: &str) -> Self {
        let path = if self.path.is_empty() { name.to_string() } else { format!("{}.{name}", self.path) };
        At { kind: self.kind, path }
    }

    /// The item of the array of tables here.
    fn item(&self) -> Self {
        At { kind: self.kind, path: format!("{}[]", self.path) }
    }
}

/// A tagged table (the top level by `kind`, a terrain shape by `type`) as validators and editors
/// read it best: one object whose properties are every case's keys (so an editor completes any
/// of them), with one `if`/`then` per case that admits that case's keys alone. A mistake is then
/// reported against the case the tag names, at the key (Taplo's messages for a `oneOf` name
/// neither: "… is not valid under any of the schemas listed in the 'oneOf' keyword", once per
/// case). A key declared by several cases with different schemas is described in the properties
/// and checked in each case's `then`. `base` is where the table's own keys are described,
/// `case_at` where a case's are.
fn tagged_schema<'a>(table: &Table, tagged: &'a Tagged, base: &At, case_at: impl Fn(&'a str) -> At<'a>) -> Value {
    let mut outer = object_schema(table.doc, table.keys.iter(), base);
    outer.as_object_mut().expect("an object").remove("additionalProperties");
    let names: Vec<&str> = tagged.cases.iter().map(|(name, _)| *name).collect();
    let tag_doc = outer["properties"][tagged.tag]["description"].clone();
    outer["properties"][tagged.tag] = json!({ "type": "string", "enum": names, "description": tag_doc });
    let mut required: Vec<Value> = outer.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    if !required.contains(&json!(tagged.tag)) {
        required.push(json!(tagged.tag));
    }
    outer["required"] = Value::Array(required);
    // each case's keys, and which names more than one case declares differently
    let cases: Vec<(&str, Vec<(&Key, Value)>)> = tagged
        .cases
        .iter()
        .map(|(name, keys)| (*name, keys.iter().map(|k| (k, key_schema(k, &case_at(name).key(k.name)))).collect()))
        .collect();
    let mut differing: Vec<&str> = Vec::new();
    for (i, (_, keys)) in cases.iter().enumerate() {
        for (k, schema) in keys {
            let other = cases[..i].iter().flat_map(|(_, ks)| ks.iter()).find(|(o, _)| o.name == k.name);
            match other {
                Some((_, s)) if s != schema && !differing.contains(&k.name) => differing.push(k.name),
                Some(_) => {}
                None => {
                    outer["properties"][k.name] = schema.clone();
                }
            }
        }
    }
    for name in &differing {
        let description = outer["properties"][*name]["description"].clone();
        outer["properties"][*name] = json!({ "description": description });
    }
    let own: Vec<&str> = table.keys.iter().map(|k| k.name).collect();
    let branches: Vec<(Value, Value)> = cases
        .iter()
        .map(|(name, keys)| {
            let allowed: Vec<&str> = own.iter().copied().chain(keys.iter().map(|(k, _)| k.name)).collect();
            // checked in the properties above (`true`), or here where the cases differ
            let properties: Map<String, Value> = allowed
                .iter()
                .map(|name| {
                    let differs = differing.contains(name);
                    let own = keys.iter().find(|(k, _)| k.name == *name).map(|(_, s)| s.clone());
                    (name.to_string(), own.filter(|_| differs).unwrap_or(Value::Bool(true)))
                })
                .collect();
            let mut then = json!({ "properties": properties, "additionalProperties": false });
            let required: Vec<&str> = keys.iter().filter(|(k, _)| k.required).map(|(k, _)| k.name).collect();
            if !required.is_empty() {
                then["required"] = json!(required);
            }
            (json!({ "properties": { (tagged.tag): { "const": name } }, "required": [tagged.tag] }), then)
        })
        .collect();
    if let (Value::Object(o), Some(Value::Object(c))) = (&mut outer, chain(branches)) {
        o.extend(c);
    }
    outer
}

/// `if`/`then`/`else` over exclusive conditions, the first that holds choosing its `then`: a
/// chain rather than an `allOf` of `if`s, which Taplo reads as an object's own schema no more
/// (no completion of its keys).
fn chain(branches: Vec<(Value, Value)>) -> Option<Value> {
    let mut chain: Option<Value> = None;
    for (condition, then) in branches.into_iter().rev() {
        let mut branch = json!({ "if": condition, "then": then });
        if let Some(rest) = chain {
            branch["else"] = rest;
        }
        chain = Some(branch);
    }
    chain
}

/// One alternative of a tagged table: its own keys, the tag's value, and that case's keys.
fn case_schema(table: &Table, tag: &str, case: &str, keys: &[Key], at: &At) -> Value {
    let mut object = object_schema(table.doc, table.keys.iter().chain(keys), at);
    let properties = object["properties"].as_object_mut().expect("properties");
    let tag_doc = properties.get(tag).and_then(|p| p.get("description")).cloned().unwrap_or(json!(""));
    properties.insert(tag.to_string(), json!({ "const": case, "description": tag_doc }));
    object
}

/// An object of `keys`: each described, none other allowed, the required ones required.
fn object_schema<'k>(doc: &str, keys: impl Iterator<Item = &'k Key>, at: &At) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for k in keys {
        properties.insert(k.name.to_string(), key_schema(k, &at.key(k.name)));
        if k.required {
            required.push(json!(k.name));
        }
    }
    let mut o = json!({ "type": "object", "description": doc, "properties": properties, "additionalProperties": false });
    if !required.is_empty() {
        o["required"] = Value::Array(required);
    }
    o
}

/// A key's schema: its type's, with its description (unit, what changing it redoes) and default.
fn key_schema(k: &Key, at: &At) -> Value {
    let mut s = type_schema(&k.ty, at);
    let o = s.as_object_mut().expect("an object");
    // a former name is still read (with a deprecation note), so a file that has one is valid
    if let Some(Value::Array(names)) = o.get_mut("enum") {
        names.extend(k.renamed.iter().map(|(old, _)| json!(old)));
    }
    o.insert("description".into(), json!(description(k, at)));
    if let Some(d) = default_value(k) {
        o.insert("default".into(), d);
    }
    s
}

/// The one line an editor shows for a key: what it is, its unit, its default in words when it
/// has one, and what a change to it redoes.
fn description(k: &Key, at: &At) -> String {
    let mut d = k.doc.to_string();
    if !k.unit.is_empty() {
        d.push_str(&format!(" ({})", k.unit));
    }
    if !k.said.is_empty() {
        d.push_str(&format!("; default: {}", k.said));
    }
    d.push_str(&renamed_words(k));
    d.push_str(&effect_words(at));
    d
}

/// "; formerly `"seed"` for `"euler_split"`" for a choice whose values were renamed.
fn renamed_words(k: &Key) -> String {
    if k.renamed.is_empty() {
        return String::new();
    }
    let pairs: Vec<String> = k.renamed.iter().map(|(old, now)| format!("`\"{old}\"` for `\"{now}\"`")).collect();
    format!("; formerly {} (still read, with a deprecation note)", pairs.join(", "))
}

/// What a change to the key at `at` redoes, in words (nothing for the simulation: the usual
/// case), as [`super::effects`] found it; for a key every kind shares, what it does in most kinds
/// and the kinds where it does otherwise.
fn effect_words(at: &At) -> String {
    let e = effects();
    let found: Vec<(&str, Effect)> = match at.kind {
        Some(kind) => e.of(kind, &at.path).map(|x| vec![(kind, x)]).unwrap_or_default(),
        None => e.across_kinds(&at.path),
    };
    let mut counts: Vec<(Effect, Vec<&str>)> = Vec::new();
    for (kind, effect) in found {
        match counts.iter_mut().find(|(x, _)| *x == effect) {
            Some((_, kinds)) => kinds.push(kind),
            None => counts.push((effect, vec![kind])),
        }
    }
    counts.sort_by_key(|(x, kinds)| (std::cmp::Reverse(kinds.len()), *x));
    let Some(((most, _), others)) = counts.split_first() else { return String::new() };
    let words = |x: Effect| match x {
        Effect::Simulation => "changes the simulation",
        other => other.words(),
    };
    let mut text = most.words().to_string();
    for (x, kinds) in others {
        let lead = if text.is_empty() { "" } else { "; " };
        text.push_str(&format!("{lead}{} for {}", words(*x), kinds.join(", ")));
    }
    if text.is_empty() { text } else { format!("; {text}") }
}

/// The declared default as JSON, where it is the default (not one said in words).
fn default_value(k: &Key) -> Option<Value> {
    if !k.said.is_empty() {
        return None;
    }
    Some(match k.default {
        DefaultValue::Nothing => return None,
        DefaultValue::Int(i) => json!(i),
        DefaultValue::Float(f) => json!(f),
        DefaultValue::Bool(b) => json!(b),
        DefaultValue::Str(s) => json!(s),
        DefaultValue::Color(c) => json!(hex(c.0)),
        DefaultValue::Numbers(n) if n.len() == 1 => json!(n[0]),
        DefaultValue::Numbers(n) => json!(n),
    })
}

/// `#rrggbb` of an sRGB colour.
fn hex(c: [f32; 3]) -> String {
    let b = c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8);
    format!("#{:02x}{:02x}{:02x}", b[0], b[1], b[2])
}

/// A number from `min` to `max` (an end at the largest float is left open).
fn number(min: f64, max: f64) -> Value {
    let mut n = json!({ "type": "number" });
    if min > -f64::MAX {
        n["minimum"] = json!(min);
    }
    if max < f64::MAX {
        n["maximum"] = json!(max);
    }
    // a TOML integer has 64 bits (a larger one is written as a float); a validator that reads
    // TOML into big integers (Python's) is told so where the range alone would not
    if min < i64::MIN as f64 || max > i64::MAX as f64 {
        n["if"] = json!({ "type": "integer" });
        n["then"] = json!({ "minimum": i64::MIN, "maximum": i64::MAX });
    }
    n
}

/// An array of exactly `len` of `item`.
fn tuple(item: Value, len: usize) -> Value {
    json!({ "type": "array", "items": item, "minItems": len, "maxItems": len })
}

fn type_schema(ty: &Ty, at: &At) -> Value {
    match *ty {
        Ty::Int { min, max } => json!({ "type": "integer", "minimum": min, "maximum": max }),
        Ty::Float { min, max } => number(min, max),
        Ty::IntIn(allowed) => json!({ "type": "integer", "enum": allowed }),
        Ty::Bool => json!({ "type": "boolean" }),
        Ty::Str => {
            json!({ "type": "string", "maxLength": MAX_STRING, "pattern": "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$" })
        }
        Ty::FileName => {
            json!({ "type": "string", "minLength": 1, "maxLength": super::MAX_NAME, "pattern": "^[^./\\\\\\u0000-\\u001f\\u007f-\\u009f][^/\\\\\\u0000-\\u001f\\u007f-\\u009f]*$" })
        }
        Ty::Choice(choices) => json!({ "type": "string", "enum": choices }),
        Ty::Color => {
            by_type(vec![json!({ "type": "string", "pattern": "^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$" }), tuple(number(0.0, 1.0), 3)])
        }
        Ty::Vector { len, min, max } => tuple(number(min, max), len),
        Ty::Whole { len, min, max } => tuple(json!({ "type": "integer", "minimum": min, "maximum": max }), len),
        Ty::Animated { len, min, max } => {
            let value = if len == 1 { number(min, max) } else { tuple(number(min, max), len) };
            let keyframe = json!({ "type": "array", "items": { "type": "number" }, "minItems": len + 1, "maxItems": len + 1 });
            let ramp = json!({
                "type": "object",
                "description": "a ramp from `from` to `to` between fractions `start` and `end` of the scene",
                "properties": {
                    "from": value, "to": value,
                    "start": number(0.0, 1.0), "end": number(0.0, 1.0),
                    "ease": { "type": "string", "enum": ["smooth", "linear", "in", "out"] },
                },
                "required": ["from", "to"],
                "additionalProperties": false,
            });
            let keyframes = json!({ "type": "array", "items": keyframe, "minItems": 1 });
            let list = if len == 1 {
                keyframes
            } else {
                // numbers alone are the value; anything else is keyframes
                json!({ "type": "array", "if": { "items": { "type": "number" } }, "then": value, "else": keyframes })
            };
            by_type(if len == 1 { vec![value, ramp, list] } else { vec![ramp, list] })
        }
        Ty::Rows(widths) => {
            let rows: Vec<Value> = widths.iter().map(|&w| tuple(json!({ "type": "number" }), w)).collect();
            let row = if rows.len() == 1 { rows[0].clone() } else { json!({ "anyOf": rows }) };
            json!({ "type": "array", "items": row })
        }
        Ty::List(item) => json!({ "type": "array", "items": type_schema(item, at) }),
        Ty::NonEmpty(item) => json!({ "type": "array", "items": type_schema(item, at), "minItems": 1 }),
        Ty::Table(t) => table_schema(t, at),
        Ty::Tables(t) => json!({ "type": "array", "items": table_schema(t, &at.item()) }),
        Ty::Either(types) => by_type(types.iter().map(|t| type_schema(t, at)).collect()),
        Ty::Free => json!({ "type": "object" }),
    }
}

/// Alternatives told apart by the JSON type of the value, as an `if`/`then` chain on the type
/// (the first alternative of a type wins; integers before other numbers), so that a validator
/// reports the one alternative meant ("\"#12345\" does not match …") rather than "… is not valid
/// under any of the schemas listed in the 'anyOf' keyword"; alternatives of one type stay an
/// `anyOf` among themselves.
fn by_type(alternatives: Vec<Value>) -> Value {
    fn types(v: &Value) -> Vec<&str> {
        match &v["type"] {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    }
    if alternatives.iter().any(|a| types(a).is_empty()) {
        return json!({ "anyOf": alternatives });
    }
    let mut all: Vec<&str> = Vec::new();
    let mut branches: Vec<(&str, Value)> = Vec::new();
    for t in ["integer", "number", "string", "boolean", "array", "object"] {
        let takes = |a: &Value| types(a).iter().any(|&x| x == t || (t == "integer" && x == "number"));
        let mut matching: Vec<Value> = alternatives.iter().filter(|a| takes(a)).cloned().collect();
        if alternatives.iter().any(|a| types(a).contains(&t)) {
            all.push(t);
        }
        match matching.len() {
            0 => {}
            1 => branches.push((t, matching.remove(0))),
            _ => branches.push((t, json!({ "anyOf": matching }))),
        }
    }
    if all.contains(&"number") {
        all.retain(|&t| t != "integer");
    }
    let mut schema = json!({ "type": all });
    let branches = branches.into_iter().map(|(t, then)| (json!({ "type": t }), then)).collect();
    if let (Value::Object(s), Some(Value::Object(c))) = (&mut schema, chain(branches)) {
        s.extend(c);
    }
    schema
}

fn table_schema(t: &Table, at: &At) -> Value {
    match &t.tagged {
        None => object_schema(t.doc, t.keys.iter(), at),
        Some(tagged) => tagged_schema(t, tagged, at, |_| at.clone()),
    }
}

/// The scene reference: every table and key of every kind, as Markdown, from the declarations.
pub fn reference() -> String {
    let mut out = String::from(
        "# Scene reference\n\n<!-- made by `simreel schema --reference`: edit the key declarations (src/scene), not this file -->\n\n\
         Every key of a scene file: its type, default, range or choices, unit, and what a change to it redoes. \
         `simreel schema` prints the same as a JSON Schema for editors. Tables are written `[table]` or `[[table]]` (an \
         array of tables); a dotted path such as `terrain.height` is the table `[terrain.height]`.\n\n",
    );
    let tagged = ROOT.tagged.as_ref().expect("tagged by kind");
    out.push_str("## Every scene\n\n");
    let shared = At { kind: None, path: String::new() };
    section(&mut out, "", ROOT.doc, ROOT.keys, &shared);
    for k in ROOT.keys {
        if let Ty::Table(t) = k.ty {
            table_reference(&mut out, k.name, t, &shared.key(k.name));
        }
    }
    for (name, keys) in tagged.cases {
        out.push_str(&format!("## `kind = \"{name}\"`\n\n"));
        for k in keys.iter() {
            if let Ty::Table(t) = k.ty {
                table_reference(&mut out, name, t, &At { kind: Some(name), path: name.to_string() });
            }
        }
    }
    debug_assert_eq!(tagged.cases.len(), KINDS.len());
    out
}

/// A table's keys, then its sub-tables', depth first (`path` as the reference shows it, `at` as
/// the effects name it).
fn table_reference(out: &mut String, path: &str, t: &Table, at: &At) {
    let mut keys: Vec<&Key> = t.keys.iter().collect();
    if let Some(tagged) = &t.tagged {
        section(out, path, t.doc, t.keys, at);
        for (case, case_keys) in tagged.cases {
            if !case_keys.is_empty() {
                section(out, &format!("{path} ({} = \"{case}\")", tagged.tag), "", case_keys, at);
            }
        }
        keys.extend(tagged.cases.iter().flat_map(|(_, k)| k.iter()));
    } else {
        section(out, path, t.doc, t.keys, at);
    }
    let mut seen = Vec::new();
    for k in keys {
        let (sub, below) = match k.ty {
            Ty::Table(s) => (s, at.key(k.name)),
            Ty::Tables(s) => (s, at.key(k.name).item()),
            _ => continue,
        };
        if seen.contains(&k.name) {
            continue;
        }
        seen.push(k.name);
        table_reference(out, &format!("{path}.{}", k.name), sub, &below);
    }
}

/// One table's keys as a Markdown table.
fn section(out: &mut String, path: &str, doc: &str, keys: &[Key], at: &At) {
    if !path.is_empty() {
        out.push_str(&format!("### `[{path}]`\n\n"));
    }
    if !doc.is_empty() {
        out.push_str(&format!("{}.\n\n", capitalised(doc)));
    }
    out.push_str("| key | type | default | unit | meaning |\n|---|---|---|---|---|\n");
    for k in keys {
        let default = if !k.said.is_empty() {
            k.said.to_string()
        } else if k.required {
            "required".to_string()
        } else {
            default_words(k).unwrap_or_else(|| "—".into())
        };
        let cell = crate::text::table_cell;
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {}{} |\n",
            k.name,
            cell(&type_words(&k.ty)),
            cell(&default),
            cell(k.unit),
            cell(&format!("{}{}", k.doc, renamed_words(k))),
            effect_words(&at.key(k.name))
        ));
    }
    out.push('\n');
}

/// A number as a person writes it: `12`, `0.35`, `1e6`.
fn number_words(v: f64) -> String {
    if v.abs() >= 1e6 && v.fract() == 0.0 { format!("{v:e}") } else { format!("{v}") }
}

/// The declared default as a scene file would write it.
fn default_words(k: &Key) -> Option<String> {
    Some(match k.default {
        DefaultValue::Nothing => return None,
        DefaultValue::Int(i) => format!("`{i}`"),
        DefaultValue::Float(f) => format!("`{}`", number_words(f)),
        DefaultValue::Bool(b) => format!("`{b}`"),
        DefaultValue::Str(s) => format!("`\"{s}\"`"),
        DefaultValue::Color(c) => format!("`\"{}\"`", hex(c.0)),
        DefaultValue::Numbers(n) if n.len() == 1 => format!("`{}`", number_words(n[0])),
        DefaultValue::Numbers(n) => format!("`[{}]`", n.iter().map(|&v| number_words(v)).collect::<Vec<_>>().join(", ")),
    })
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// A type in words, with its range.
fn type_words(ty: &Ty) -> String {
    let range = |min: f64, max: f64| match (min <= -f64::MAX, max >= f64::MAX) {
        (true, true) => String::new(),
        (false, true) => format!(" ≥ {}", number_words(min)),
        (true, false) => format!(" ≤ {}", number_words(max)),
        (false, false) => format!(" {}..{}", number_words(min), number_words(max)),
    };
    match *ty {
        Ty::Int { min: i64::MIN, max: i64::MAX } => "integer".into(),
        Ty::Int { min, max: i64::MAX } => format!("integer ≥ {min}"),
        Ty::Int { min, max } => format!("integer {min}..{max}"),
        Ty::Float { min, max } => format!("number{}", range(min, max)),
        Ty::IntIn(allowed) => allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(" or "),
        Ty::Bool => "boolean".into(),
        Ty::Str => "string".into(),
        Ty::FileName => format!("name (1..{} characters, no `/` or `\\`, not starting with `.`)", super::MAX_NAME),
        Ty::Choice(c) => c.iter().map(|c| format!("`\"{c}\"`")).collect::<Vec<_>>().join(", "),
        Ty::Color => "colour".into(),
        Ty::Vector { len, min, max } => format!("{len} numbers{}", range(min, max)),
        Ty::Whole { len, min, max } => format!("{len} whole numbers{}", range(min as f64, max as f64)),
        Ty::Animated { len: 1, min, max } => format!("animated number{}", range(min, max)),
        Ty::Animated { len, min, max } => format!("animated {len} numbers{}", range(min, max)),
        Ty::Rows(w) => format!("rows of {} numbers", w.iter().map(usize::to_string).collect::<Vec<_>>().join(" or ")),
        Ty::List(item) => format!("array of {}", type_words(item)),
        Ty::NonEmpty(item) => format!("array of at least one {}", type_words(item)),
        Ty::Table(_) => "table".into(),
        Ty::Tables(_) => "array of tables".into(),
        Ty::Either(types) => types.iter().map(type_words).collect::<Vec<_>>().join(" or "),
        Ty::Free => "table of a scene's keys".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table a scene can hold, by its dotted path (tagged cases' tables included).
    fn table_paths(path: &str, t: &Table, out: &mut Vec<String>) {
        let cases = t.tagged.iter().flat_map(|g| g.cases.iter().flat_map(|(_, keys)| keys.iter()));
        for k in t.keys.iter().chain(cases) {
            if let Ty::Table(sub) | Ty::Tables(sub) = k.ty {
                let p = if path.is_empty() { k.name.to_string() } else { format!("{path}.{}", k.name) };
                if !out.contains(&p) {
                    out.push(p.clone());
                    table_paths(&p, sub, out);
                }
            }
        }
    }

    #[test]
    fn the_reference_has_a_section_for_every_table_a_scene_can_hold() {
        let reference = reference();
        let mut paths = Vec::new();
        table_paths("", &ROOT, &mut paths);
        assert!(paths.len() > 40 && paths.iter().any(|p| p == "render") && paths.iter().any(|p| p == "golden.tolerance"), "{paths:?}");
        for p in &paths {
            assert!(reference.contains(&format!("### `[{p}]`")), "the scene reference has no section for [{p}]");
        }
    }
}
