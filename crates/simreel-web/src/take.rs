//! A reader's take: what they did to a scene in the page (the pointer, presses, drags, the wheel),
//! kept as the frames they did it at and written into the scene's own text as its scripted
//! inputs. The simulation in the page runs that text, so "save this take" gives a scene file
//! `simreel render` turns into the same frames.
//!
//! Every input at frame F only changes what the scene says about times after F: it takes effect
//! at frame F + 1 (`next`), and a level that moves linearly between keys is first held at
//! F + ½ (`hold`), so the steps already taken read the same values from the new text as from the
//! old. The page's state at F is carried over as it is (a snapshot), and the rest is the scene's.

use simreel::scene::{KindSpec, Scene};
use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value};

/// What a reader did, in the scene's own units (converted from the picture's pixels when it
/// happened, with the camera of that frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Input {
    /// flock: the pointer is the cursor (canvas units).
    Cursor { x: f64, y: f64 },
    /// flock: a click, a shockwave there (canvas units).
    Shock { x: f64, y: f64 },
    /// wind: a gust of wind blowing out from where the ground was clicked (metres).
    Gust { x: f64, z: f64 },
    /// dice: every die thrown again.
    Throw,
    /// 3-D kinds: the eye turned this far about the target in all, degrees.
    Turn { degrees: f64 },
    /// terrain: the iso level set to this.
    Iso { level: f64 },
    /// dice: a hand takes the top corner of die `die` (0-based) …
    Grab { die: usize },
    /// … holds it this far from where it took it (metres) …
    Pull { offset: [f64; 3] },
    /// … and lets go.
    LetGo,
    /// cargo: the carrier led to (x, z) on the ground (metres): it stops, turns and walks there.
    Lead { x: f64, z: f64 },
}

/// A reader's hand on a die, as it will be written (`[[dice.grab]]`).
struct Hand {
    die: usize,
    at: f64,
    path: Vec<[f64; 4]>,
    release: Option<f64>,
}

/// What a kind offers a reader, as the page says it.
pub fn controls(scene: &Scene) -> &'static str {
    match &scene.sim.kind {
        KindSpec::Flock(_) => "move the pointer over the picture to lure the agents; click to scatter them",
        KindSpec::Wind(_) => "click the ground for a gust of wind there; drag to turn the camera",
        KindSpec::Dice(_) => {
            "click to throw the dice; drag a die to pull it by its top corner and let go; drag elsewhere to turn the camera"
        }
        KindSpec::Cargo(_) => {
            "drag the carrier to a spot on the ground and let go: it stops, turns and walks there; drag elsewhere to turn the camera"
        }
        KindSpec::Terrain(t) if iso_is_ours(t) => "drag to turn the camera; the wheel raises and lowers the iso level",
        _ => "drag to turn the camera",
    }
}

/// Whether a reader may move the terrain's iso level: where the scene keeps it constant (a
/// scene that sweeps it, or a single cube whose corners are written around it, keeps it).
pub fn iso_is_ours(t: &simreel::scene::terrain::TerrainSpec) -> bool {
    t.iso.is_constant() && t.cube.is_none()
}

/// When an input at `frame` holds a level (F + ½) and takes effect (F + 1), seconds rounded to
/// 0.1 ms (a tidy file; both stay strictly between frame F's last step and frame F + 1's).
pub fn hold_next(frame: u32, fps: u32) -> (f64, f64) {
    let round = |t: f64| (t * 1e4).round() / 1e4;
    (round((frame as f64 + 0.5) / fps as f64), round((frame as f64 + 1.0) / fps as f64))
}

/// Rounds a position to 1/100 of a unit: what a file shows, and what the simulation then reads.
fn tidy(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The scene text with `inputs` (frame, input), in frame order, written in as scripted inputs.
pub fn write(original: &DocumentMut, scene: &Scene, inputs: &[(u32, Input)]) -> DocumentMut {
    let mut doc = original.clone();
    let fps = scene.sim.timing.fps;
    let mut turn_keys: Option<Vec<[f64; 2]>> = None;
    let mut iso_keys: Vec<[f64; 2]> = Vec::new();
    let mut throws: Option<Vec<f64>> = None;
    let mut hands: Vec<Hand> = Vec::new();
    for &(frame, input) in inputs {
        let (hold, next) = hold_next(frame, fps);
        match input {
            Input::Cursor { x, y } => push_row(&mut doc, &["flock"], "pointer", &[next, tidy(x), tidy(y)]),
            Input::Shock { x, y } => push_row(&mut doc, &["flock"], "clicks", &[next, tidy(x), tidy(y)]),
            Input::Gust { x, z } => {
                let mut blast = Table::new();
                blast["at"] = toml_edit::value(next);
                blast["center"] = toml_edit::value(floats(&[tidy(x), tidy(z)]));
                let wind = table_at(&mut doc, &["wind"]);
                if !wind.get("blast").is_some_and(Item::is_array_of_tables) {
                    wind["blast"] = Item::ArrayOfTables(ArrayOfTables::new());
                }
                if let Some(list) = wind["blast"].as_array_of_tables_mut() {
                    list.push(blast);
                }
            }
            Input::Throw => {
                let KindSpec::Dice(d) = &scene.sim.kind else { continue };
                // the throws before the reader's stay, the reader's comes next: increasing
                let rolls = throws.get_or_insert_with(|| d.rolls.clone());
                rolls.retain(|&t| t < next);
                rolls.push(next);
            }
            Input::Grab { die } => hands.push(Hand { die, at: next, path: vec![[next, 0.0, 0.0, 0.0]], release: None }),
            Input::Pull { offset } => {
                let Some(hand) = hands.last_mut().filter(|h| h.release.is_none()) else { continue };
                // linear between keys: held up to F + ½, as a level is
                let last = hand.path[hand.path.len() - 1];
                if last[0] < hold {
                    hand.path.push([hold, last[1], last[2], last[3]]);
                }
                let key = [next, offset[0], offset[1], offset[2]];
                match hand.path.last_mut() {
                    Some(last) if last[0] == next => *last = key,
                    _ => hand.path.push(key),
                }
            }
            Input::LetGo => {
                let Some(hand) = hands.last_mut().filter(|h| h.release.is_none()) else { continue };
                // a hand opens at least a frame after it closed
                hand.release = Some(if next > hand.at { next } else { hold_next(frame + 1, fps).1 });
            }
            Input::Lead { x, z } => lead(&mut doc, next, [tidy(x), tidy(z)]),
            Input::Turn { degrees } => {
                // a turn the file has already (an earlier take) stands up to the reader's first
                let keys = turn_keys.get_or_insert_with(|| scene.look.camera.turn.iter().copied().filter(|k| k[0] < next).collect());
                keep_key(keys, next, degrees);
            }
            Input::Iso { level } => {
                if iso_keys.is_empty() {
                    let KindSpec::Terrain(t) = &scene.sim.kind else { continue };
                    iso_keys.push([0.0, t.iso.scalar_at(0.0, 1.0)]);
                }
                // linear between keys: held up to F + ½, so the frames before read what they did
                let last = iso_keys[iso_keys.len() - 1];
                if last[0] < hold {
                    iso_keys.push([hold, last[1]]);
                }
                keep_key(&mut iso_keys, next, level);
            }
        }
    }
    if let Some(first) = hands.first() {
        write_hands(&mut doc, first.at, &hands, scene.sim.timing.duration());
    }
    if let Some(rolls) = throws {
        table_at(&mut doc, &["dice"])["rolls"] = toml_edit::value(floats(&rolls));
    }
    if let Some(keys) = turn_keys {
        table_at(&mut doc, &["camera"])["turn"] = toml_edit::value(rows(&keys));
    }
    if !iso_keys.is_empty() {
        table_at(&mut doc, &["terrain"])["iso"] = toml_edit::value(rows(&iso_keys));
    }
    doc
}

/// A drag of the carrier (`[cargo.route] drags`) at `at` to `to`, after the file's own drags before
/// it (an earlier take's from then on go: the reader leads from now), as inline tables one a line
/// or, where the file writes `[[cargo.route.drags]]`, as another of those.
fn lead(doc: &mut DocumentMut, at: f64, to: [f64; 2]) {
    let route = table_at(doc, &["cargo", "route"]);
    if let Some(list) = route.get_mut("drags").and_then(Item::as_array_of_tables_mut) {
        list.retain(|t| t.get("at").and_then(Item::as_value).and_then(number).is_some_and(|t| t < at));
        let mut drag = Table::new();
        drag["at"] = toml_edit::value(at);
        drag["to"] = toml_edit::value(floats(&to));
        list.push(drag);
        return;
    }
    if route.get("drags").is_none_or(|i| i.as_array().is_none()) {
        route["drags"] = toml_edit::value(Array::new());
    }
    let list = route["drags"].as_array_mut().expect("made an array just above");
    list.retain(|v| v.as_inline_table().and_then(|t| t.get("at")).and_then(number).is_some_and(|t| t < at));
    let mut drag = InlineTable::new();
    drag.insert("at", at.into());
    drag.insert("to", Value::Array(floats(&to)));
    list.push(Value::InlineTable(drag));
    lay_out(list);
}

/// The reader's hands as `[[dice.grab]]` tables, after the scene's own grabs that close before the
/// first of them (a reader's hand takes over from there). A hand still closed holds to the end.
fn write_hands(doc: &mut DocumentMut, from: f64, hands: &[Hand], duration: f64) {
    let dice = table_at(doc, &["dice"]);
    if !dice.get("grab").is_some_and(Item::is_array_of_tables) {
        dice["grab"] = Item::ArrayOfTables(ArrayOfTables::new());
    }
    let list = dice["grab"].as_array_of_tables_mut().expect("made just above");
    let at = |t: &Table| t.get("at").and_then(Item::as_value).and_then(number);
    list.retain(|t| at(t).is_some_and(|a| a < from));
    for h in hands {
        let mut t = Table::new();
        t["die"] = toml_edit::value(h.die as i64 + 1);
        t["corner"] = toml_edit::value("top");
        t["at"] = toml_edit::value(h.at);
        t["path"] = toml_edit::value(one_a_line(h.path.iter().map(|k| Value::Array(floats(k))).collect()));
        t["release"] = toml_edit::value(h.release.unwrap_or_else(|| (duration.max(h.at) + 1.0).ceil()));
        list.push(t);
    }
}

/// Adds key (t, v), or replaces the last one when it is at `t` already (two inputs in one frame).
fn keep_key(keys: &mut Vec<[f64; 2]>, t: f64, v: f64) {
    match keys.last_mut() {
        Some(last) if last[0] == t => last[1] = v,
        _ => keys.push([t, v]),
    }
}

fn floats(values: &[f64]) -> Array {
    values.iter().copied().collect()
}

fn rows(keys: &[[f64; 2]]) -> Array {
    one_a_line(keys.iter().map(|k| Value::Array(floats(k))).collect())
}

/// An array of rows written one row a line, as a person writes keyframes.
fn one_a_line(mut rows: Array) -> Array {
    lay_out(&mut rows);
    rows
}

/// Lays `rows` out one a line.
fn lay_out(rows: &mut Array) {
    for row in rows.iter_mut() {
        row.decor_mut().set_prefix("\n  ");
    }
    rows.set_trailing("\n");
    rows.set_trailing_comma(true);
}

/// A number as TOML writes it (1.5 or 2), in seconds or units.
fn number(v: &Value) -> Option<f64> {
    v.as_float().or(v.as_integer().map(|i| i as f64))
}

/// The table at `path`, made where the file has none.
fn table_at<'a>(doc: &'a mut DocumentMut, path: &[&str]) -> &'a mut Table {
    let mut table = doc.as_table_mut();
    for name in path {
        if !table.get(name).is_some_and(Item::is_table) {
            table[name] = Item::Table(Table::new());
        }
        table = table[name].as_table_mut().expect("made a table just above");
    }
    table
}

/// Appends `row` to the array of rows `key` of the table at `path` (made where missing); for a
/// track (`pointer`), rows the file has at or after the new one's time (an earlier take's) go.
fn push_row(doc: &mut DocumentMut, path: &[&str], key: &str, row: &[f64]) {
    let table = table_at(doc, path);
    if table.get(key).is_none_or(|i| i.as_array().is_none()) {
        table[key] = toml_edit::value(Array::new());
    }
    let list = table[key].as_array_mut().expect("made an array just above");
    if key == "pointer" {
        list.retain(|v| v.as_array().and_then(|a| a.get(0)).and_then(number).is_some_and(|t| t < row[0]));
    }
    list.push(floats(row));
    lay_out(list);
}

/// Pixel (x, y) of a flock's picture in canvas units (the canvas fitted into the picture as the
/// renderer draws it: [`simreel::frame::fit`]).
pub fn canvas_at(scene: &Scene, x: f64, y: f64) -> Option<[f64; 2]> {
    let KindSpec::Flock(f) = &scene.sim.kind else { return None };
    let (w, h) = (scene.look.width as f32, scene.look.height as f32);
    let (s, [ox, oy]) = simreel::frame::fit(f.canvas.map(|c| c as f32), [0.0, 0.0, w, h]);
    Some([(x - ox as f64) / s as f64, (y - oy as f64) / s as f64])
}
