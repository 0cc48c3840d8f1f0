//! `--set KEY=VALUE`: a scene's values given on the command line. Each replaces the key's value in
//! the file's text (or adds the key, and the tables it needs), and the edited text is then read
//! and checked as the file is, so an override can give nothing a file could not: an unknown key,
//! a value out of range or of the wrong type is refused with the reader's own message. The
//! values reach the scene's identity as any value does, and the manifest records them.

use std::fmt;
use std::path::Path;

use toml_edit::{ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value};

use super::error::{Diagnostic, SceneError};

/// One `KEY=VALUE`: a dotted key path (`flock.theme`, `wind.grass[0].density`) and a TOML value.
#[derive(Clone, Debug)]
pub struct Override {
    path: Vec<Step>,
    /// The key as written.
    key: String,
    value: Value,
}

#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key, self.value.to_string().trim())
    }
}

impl std::str::FromStr for Override {
    type Err = String;

    /// `KEY=VALUE`. A value that is not TOML but a plain word (`light`, `flock-light`) is a
    /// string, since a shell takes the quotes off `flock.theme="light"`; a string that reads as
    /// another TOML value keeps its quotes inside others (`name='"1"'`).
    fn from_str(s: &str) -> Result<Override, String> {
        let (key, value) =
            s.split_once('=').ok_or_else(|| format!("\"{s}\" is not KEY=VALUE (e.g. flock.theme=light or render.fps=25)"))?;
        let key = key.trim();
        let path = key_path(key)?;
        let text = value.trim();
        let value = match text.parse::<Value>() {
            Ok(v) => v,
            Err(_) if !text.is_empty() && !text.contains(['"', '\'', '[', ']', '{', '}', '\n']) => Value::from(text),
            Err(e) => {
                let why = e.to_string();
                // the parser's words, without its position and drawing of the text
                let said: Vec<&str> = why
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.contains('|') && !l.starts_with("TOML parse error"))
                    .collect();
                let said = if said.is_empty() { String::new() } else { format!(": {}", said.join(", ")) };
                return Err(format!("{key}: \"{text}\" is not a TOML value{said}"));
            }
        };
        Ok(Override { path, key: key.to_string(), value: value.decorated(" ", "") })
    }
}

/// `a.b[2].c` as steps; a key is a bare TOML key (letters, digits, `_`, `-`).
fn key_path(key: &str) -> Result<Vec<Step>, String> {
    let bad = |why: &str| format!("\"{key}\" is not a key path: {why} (e.g. flock.theme or wind.grass[0].density)");
    if key.is_empty() {
        return Err(bad("it is empty"));
    }
    let mut steps = Vec::new();
    for part in key.split('.') {
        let (name, mut rest) = part.split_once('[').map_or((part, ""), |(n, r)| (n, r));
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(bad(&format!("\"{name}\" is not a bare key")));
        }
        steps.push(Step::Key(name.to_string()));
        while !rest.is_empty() {
            let (index, after) = rest.split_once(']').ok_or_else(|| bad("a `[` without its `]`"))?;
            let index = index.trim().parse::<usize>().map_err(|_| bad(&format!("\"[{index}]\" is not an index")))?;
            steps.push(Step::Index(index));
            rest = match after.strip_prefix('[') {
                Some(r) => r,
                None if after.is_empty() => "",
                None => return Err(bad("text after `]`")),
            };
        }
    }
    Ok(steps)
}

/// Where a step has reached in the document.
enum Place<'a> {
    Item(&'a mut Item),
    Table(&'a mut Table),
    Value(&'a mut Value),
}

impl Override {
    /// The dotted key as written.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Sets this value in `doc`, adding the key and the tables it needs.
    fn apply(&self, doc: &mut DocumentMut) -> Result<(), String> {
        let mut place = Place::Table(doc.as_table_mut());
        let mut at = String::new();
        for step in &self.path {
            place = self.step(place, step, &at)?;
            match step {
                Step::Key(k) if at.is_empty() => at = k.clone(),
                Step::Key(k) => at = format!("{at}.{k}"),
                Step::Index(i) => at = format!("{at}[{i}]"),
            }
        }
        let value = self.value.clone();
        match place {
            Place::Item(item) => {
                // a replaced value keeps its comment
                let suffix = item.as_value().and_then(|v| v.decor().suffix().cloned());
                let mut value = value;
                if let Some(s) = suffix {
                    value.decor_mut().set_suffix(s);
                }
                *item = Item::Value(value);
            }
            Place::Value(v) => {
                let decor = v.decor().clone();
                *v = value;
                *v.decor_mut() = decor;
            }
            Place::Table(_) => return Err(format!("{}: {at} is a table: give a key inside it", self.key)),
        }
        Ok(())
    }

    /// One step from `place` (at key path `at`), adding a missing key as a table.
    fn step<'a>(&self, place: Place<'a>, step: &Step, at: &str) -> Result<Place<'a>, String> {
        let last = std::ptr::eq(step, self.path.last().expect("a path has a step"));
        let not_a = |what: &str| format!("{}: {at} holds a value ({what}), not a table", self.key);
        match (place, step) {
            (Place::Table(t), Step::Key(k)) => Ok(Place::Item(table_entry(t, k))),
            (Place::Item(item), Step::Key(k)) => {
                if item.is_none() {
                    *item = Item::Table(Table::new());
                }
                match item {
                    Item::Table(t) => Ok(Place::Item(table_entry(t, k))),
                    Item::Value(Value::InlineTable(t)) => Ok(Place::Value(inline_entry(t, k, last))),
                    Item::ArrayOfTables(_) => Err(format!("{}: {at} is a list of tables: give its index ({at}[0].{k})", self.key)),
                    Item::Value(v) => Err(not_a(v.type_name())),
                    Item::None => unreachable!("a missing key became a table"),
                }
            }
            (Place::Value(Value::InlineTable(t)), Step::Key(k)) => Ok(Place::Value(inline_entry(t, k, last))),
            (Place::Value(v), Step::Key(_)) => Err(not_a(v.type_name())),
            (Place::Item(Item::ArrayOfTables(a)), Step::Index(i)) => Ok(Place::Table(tables_at(a, *i, &self.key, at)?)),
            (Place::Item(Item::Value(Value::Array(a))) | Place::Value(Value::Array(a)), Step::Index(i)) => {
                let n = a.len();
                a.get_mut(*i).map(Place::Value).ok_or_else(|| format!("{}: {at} has {n} entries, numbered from 0", self.key))
            }
            (_, Step::Index(_)) => Err(format!("{}: {at} is not a list", self.key)),
        }
    }
}

fn table_entry<'a>(t: &'a mut Table, k: &str) -> &'a mut Item {
    t.entry(k).or_insert(Item::None)
}

/// The value at `k` in an inline table: a new inline table when missing and not the path's last
/// step, else a placeholder the value replaces.
fn inline_entry<'a>(t: &'a mut InlineTable, k: &str, last: bool) -> &'a mut Value {
    let empty = if last { Value::from(false) } else { Value::InlineTable(InlineTable::new()) };
    t.get_or_insert(k, empty)
}

fn tables_at<'a>(a: &'a mut ArrayOfTables, i: usize, key: &str, at: &str) -> Result<&'a mut Table, String> {
    let n = a.len();
    a.get_mut(i).ok_or_else(|| format!("{key}: {at} has {n} entries, numbered from 0"))
}

/// `text` (the file at `path`) with `overrides` applied in order, then read as a scene: the file's
/// own problems are said at its lines; what the overrides bring is said by key.
pub fn parse_with(text: &str, path: &Path, overrides: &[Override]) -> Result<super::Scene, SceneError> {
    let mut scene = super::parse(text, path)?;
    if overrides.is_empty() {
        return Ok(scene);
    }
    let given = overrides.iter().map(|o| o.to_string()).collect::<Vec<_>>();
    let refused =
        |diagnostics: Vec<Diagnostic>, more| SceneError::Overridden { path: path.to_path_buf(), given: given.join(" "), diagnostics, more };
    let mut doc = text.parse::<DocumentMut>().expect("a scene that reads is a TOML document");
    the_length_given(&mut doc, overrides);
    for o in overrides {
        if let Err(message) = o.apply(&mut doc) {
            let (key, message) = message.split_once(": ").map_or((String::new(), message.clone()), |(k, m)| (k.to_string(), m.to_string()));
            return Err(refused(vec![Diagnostic { line: 0, col: 0, key, message, hint: None }], 0));
        }
    }
    let deprecations = std::mem::take(&mut scene.deprecations);
    let mut scene = match super::parse(&doc.to_string(), path) {
        Ok(s) => s,
        Err(SceneError::Invalid { diagnostics, more, .. }) => return Err(refused(diagnostics, more)),
        Err(e) => return Err(e),
    };
    // the file's former names, at the file's lines (an override's own are its to fix)
    scene.deprecations = deprecations;
    scene.overrides = given;
    Ok(scene)
}

/// A scene's length is `render.frames` or `render.duration`: an override of one stands for the
/// length, and the other the file gives goes (`--set render.frames=600` over a scene that gives
/// its duration renders 600 frames). Both given on the command line stay both, for the reader
/// to refuse.
fn the_length_given(doc: &mut DocumentMut, overrides: &[Override]) {
    let given = |name: &str| overrides.iter().any(|o| o.path == [Step::Key("render".into()), Step::Key(name.into())]);
    let Some(render) = doc.get_mut("render").and_then(Item::as_table_like_mut) else { return };
    for (set, other) in [("frames", "duration"), ("duration", "frames")] {
        if given(set) && !given(other) {
            render.remove(other);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(text: &str, overrides: &[&str]) -> String {
        let mut doc = text.parse::<DocumentMut>().unwrap();
        for o in overrides {
            o.parse::<Override>().unwrap().apply(&mut doc).unwrap();
        }
        doc.to_string()
    }

    #[test]
    fn a_value_is_replaced_where_it_stands_and_a_missing_key_is_added() {
        let text = "kind = \"flock\"\n\n[render]\nfps = 30 # smooth\n\n[flock]\nagents = 40\n";
        assert_eq!(set(text, &["render.fps=25"]), text.replace("fps = 30 # smooth", "fps = 25 # smooth"));
        assert_eq!(set(text, &["flock.theme=light"]), format!("{text}theme = \"light\"\n"));
        // a table the file lacks, and a key at the top
        let out = set(text, &["camera.fov=40", "name=flock-light"]);
        assert!(out.starts_with("kind = \"flock\"\nname = \"flock-light\"\n"), "{out}");
        assert!(out.ends_with("[camera]\nfov = 40\n"), "{out}");
        // lists of tables, arrays and inline tables by index and key
        let text = "[[wind.grass]]\ndensity = 60\nwave = { amplitude = 30.0 }\n[[wind.grass]]\ndensity = 5\n";
        let out = set(text, &["wind.grass[1].density=7", "wind.grass[0].wave.amplitude=2.5", "wind.grass[0].wave.speed=1"]);
        let tight = out.replace(' ', "");
        assert!(tight.contains("density=7\n") && tight.contains("wave={amplitude=2.5,speed=1}"), "{out}");
        let out = set("size = [1, 2]\n", &["size[1]=5"]);
        assert_eq!(out, "size = [1, 5]\n");
    }

    #[test]
    fn a_length_given_replaces_the_other_length_the_file_gives() {
        let parse = |text: &str, o: &[&str]| {
            let o: Vec<Override> = o.iter().map(|o| o.parse().unwrap()).collect();
            parse_with(text, Path::new("s.toml"), &o)
        };
        let by_duration = "kind = \"flock\"\n[render]\nfps = 30\nduration = 2.0\n";
        let by_frames = "kind = \"flock\"\nrender = { fps = 30, frames = 60 }\n";
        assert_eq!(parse(by_duration, &["render.frames=600"]).unwrap().sim.timing.frames, 600);
        assert_eq!(parse(by_frames, &["render.duration=5"]).unwrap().sim.timing.frames, 150);
        assert_eq!(parse(by_duration, &["render.duration=3"]).unwrap().sim.timing.frames, 90);
        // both on the command line: refused, as in a file
        let e = parse(by_duration, &["render.frames=600", "render.duration=3"]).unwrap_err().to_string();
        assert!(e.contains("not both"), "{e}");
        // another key of the same name elsewhere is not the length
        let e = parse(by_duration, &["flock.frames=600"]).unwrap_err().to_string();
        assert!(e.contains("flock.frames"), "{e}");
    }

    #[test]
    fn values_are_toml_and_a_plain_word_is_a_string() {
        let value = |s: &str| s.parse::<Override>().unwrap().value.to_string();
        assert_eq!(value("a=light").trim(), "\"light\"");
        assert_eq!(value("a=\"light\"").trim(), "\"light\"");
        assert_eq!(value("a=25").trim(), "25");
        assert_eq!(value("a=true").trim(), "true");
        assert_eq!(value("a=[640, 360]").trim(), "[640, 360]");
        assert_eq!(value("a='\"1\"'").trim(), "'\"1\"'");
        for bad in ["theme", "=light", "a..b=1", "a[x]=1", "a[1=2", "a=[1,", "a=\"open", "a b=1"] {
            assert!(bad.parse::<Override>().is_err(), "{bad} was taken");
        }
    }

    #[test]
    fn a_key_that_cannot_take_the_value_is_refused_by_name() {
        let refused = |text: &str, o: &str| {
            let mut doc = text.parse::<DocumentMut>().unwrap();
            o.parse::<Override>().unwrap().apply(&mut doc).unwrap_err()
        };
        assert!(refused("[render]\nfps = 30\n", "render.fps.x=1").contains("render.fps holds a value (integer), not a table"));
        assert!(refused("[[wind.grass]]\nd = 1\n", "wind.grass[3].d=1").contains("wind.grass has 1 entries"));
        assert!(refused("[[wind.grass]]\nd = 1\n", "wind.grass.d=1").contains("give its index (wind.grass[0].d)"));
        assert!(refused("[[wind.grass]]\nd = 1\n", "wind.grass[0]=1").contains("wind.grass[0] is a table"));
        assert!(refused("a = 1\n", "a[0]=1").contains("a is not a list"));
    }
}
