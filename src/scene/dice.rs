//! `[dice]`: jelly dice (seed 000): how many, how firm, their colours, when they are thrown, and
//! scripted hands that grab a die, drag it along a path and let go. Metres and seconds; y is up;
//! the table is the plane y = 0 inside an invisible fence of radius 3 m around the origin.

use toml::de::DeValue;

use super::common::RenderSpec;
use super::keys::{Key, Table, Ty};
use super::kind_tables::KindTable;
use super::reader::{TableReader, number_list};
use super::values::Srgb;

const DIE: Key = Key::int("die", 1, 1, MAX_DICE as i64).doc("which die, numbered from 1");
const CORNER: Key = Key::of("corner", Ty::Either(&[Ty::Choice(&["top"]), Ty::Vector { len: 3, min: 0.0, max: 1.0 }]))
    .said("\"top\"")
    .doc("where the hand takes hold: \"top\" (the highest corner) or [x, y, z], each 0 or 1 along the die's own axes");
const PARTICLE: Key = Key::int("particle", 0, 0, 63).doc("or hold lattice particle 0..63 (i + 4j + 16k in the pip frame)");
const GRAB_AT: Key = Key::float("at", 0.0, 0.0, 86_400.0).unit("s").doc("when the hand closes");
const RELEASE: Key = Key::float("release", 1.0, 0.0, 86_400.0).said("at + 1").unit("s").doc("when the hand lets go");
const PATH: Key =
    Key::of("path", Ty::Rows(&[4])).doc("[[time, dx, dy, dz], …]: seconds, and metres from the grabbed point; linear between, held after");
const GRAB: Table =
    Table::new("a scripted hand: grab a die, drag it along a path, let go", &[DIE, CORNER, PARTICLE, GRAB_AT, RELEASE, PATH]);

const PLACE_AT: Key = Key::vector("at", &[0.0, 0.5, 0.0], -10.0, 10.0).required().unit("m").doc("the die's centre");
const UP: Key = Key::int("up", 1, 1, 6).doc("the face that points up before `turn` and `tilt`");
const TURN: Key = Key::float("turn", 0.0, -3600.0, 3600.0).unit("°").doc("turned about the vertical, counter-clockwise seen from above");
const TILT: Key = Key::float("tilt", 0.0, -180.0, 180.0).unit("°").doc("leaning over toward `toward`");
const TOWARD: Key = Key::float("toward", 0.0, -3600.0, 3600.0).unit("°").doc("the azimuth the die leans toward, from +x toward +z");
const ASLEEP: Key = Key::flag("asleep", false).doc("held still where it is put until thrown, nudged, grabbed or touched");
const PLACE: Table = Table::new("a die put somewhere by hand before the scene starts", &[DIE, PLACE_AT, UP, TURN, TILT, TOWARD, ASLEEP]);

const COUNT: Key = Key::int("count", 5, 1, MAX_DICE as i64).doc("how many dice");
const FIRMNESS: Key =
    Key::of("firmness", Ty::Either(&[Ty::Float { min: 0.0, max: 100.0 }, Ty::NonEmpty(&Ty::Float { min: 0.0, max: 100.0 })]))
        .said("55")
        .doc("0 (soft) to 100 (firm): one for every die, or an array with one per die");
const FIRMNESS_ONE: Key = Key::float("firmness", 55.0, 0.0, 100.0);
const COLORS: Key = Key::of("colors", Ty::NonEmpty(&Ty::Color)).said("six bright colours").doc("body colours, used in turn");
const PIP_COLOR: Key = Key::color("pip_color", Srgb([0.97, 0.97, 0.95])).doc("colour of the pips");
const OPACITY: Key = Key::float("opacity", 0.58, 0.05, 1.0).doc("opacity of the jelly bodies");
const ROLLS: Key = Key::of("rolls", Ty::List(&Ty::Float { min: 0.0, max: 86_400.0 }))
    .said("[0.0]")
    .unit("s")
    .doc("when every die is thrown, increasing ([] for never)");
const DROP: Key = Key::float("drop", 0.0, 0.0, 10.0).unit("m").doc("height of the dice above the table before the first throw");
const RESULTS: Key = Key::flag("results", true).doc("draw the strip of results read from the physics");
const GRAB_KEY: Key = Key::tables("grab", &GRAB).doc(GRAB.doc);
const PLACE_KEY: Key = Key::tables("place", &PLACE).doc(PLACE.doc);

/// `[dice]`.
const DICE: Table = Table::new(
    "jelly dice as small-step XPBD soft bodies, thrown, settled, read from the physics",
    &[COUNT, FIRMNESS, COLORS, PIP_COLOR, OPACITY, ROLLS, DROP, RESULTS, GRAB_KEY, PLACE_KEY],
);

/// Most dice a scene or a study may roll (the arena holds about this many side by side).
pub const MAX_DICE: usize = 12;

/// Where a hand takes hold of a die.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum Hold {
    /// The die's highest corner when grabbed.
    TopCorner,
    /// Corner (each 0 or 1 along the die's own x, y, z: the pip frame, +y showing 1).
    Corner([u8; 3]),
    /// Lattice particle 0..63 (i + 4j + 16k in the pip frame).
    Particle(u8),
}

/// `[[dice.grab]]`: a scripted hand.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GrabSpec {
    /// 0-based die (written 1-based in the file).
    pub die: usize,
    pub hold: Hold,
    /// When the hand closes, seconds.
    pub at: f64,
    /// (time, offset) keyframes: where the held point is, relative to where it was grabbed;
    /// linear in between, held after the last.
    pub path: Vec<(f64, [f64; 3])>,
    /// When the hand lets go.
    pub release: f64,
}

/// `[[dice.place]]`: a die put somewhere by hand before the scene starts (instead of its resting
/// place), so an author can stage a case: a die leaning on the fence, two dice pressed together.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PlaceSpec {
    /// 0-based die (written 1-based in the file).
    pub die: usize,
    /// Centre, metres.
    pub at: [f64; 3],
    /// The face (1–6) that points up before `turn` and `tilt`.
    pub up: u8,
    /// Degrees turned about the vertical (counter-clockwise seen from above).
    pub turn: f64,
    /// Degrees the die leans over, toward azimuth `toward` (degrees from +x toward +z).
    pub tilt: f64,
    pub toward: f64,
    /// Held still where it is put until it is thrown, nudged, grabbed or touched.
    pub asleep: bool,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DiceSpec {
    pub count: usize,
    /// Firmness 0 (soft) to 100 (firm), per die.
    pub firmness: Vec<f64>,
    /// Times at which every die is thrown.
    pub rolls: Vec<f64>,
    /// Height of the dice above the table before the first throw (they drop from there).
    pub drop: f64,
    pub grabs: Vec<GrabSpec>,
    pub places: Vec<PlaceSpec>,
}

/// Default body colours, one per die in turn.
pub const PALETTE: [Srgb; 6] =
    [Srgb::hex("#e8364f"), Srgb::hex("#2f8fe8"), Srgb::hex("#33b864"), Srgb::hex("#f2a516"), Srgb::hex("#9b5de5"), Srgb::hex("#f06fae")];

fn read_grab(g: &TableReader, count: usize, duration: f64) -> Option<GrabSpec> {
    let die = g.int(&DIE) as usize;
    if die > count {
        g.error_at(&DIE, format!("die {die} does not exist: the scene has {count} (numbered from 1)"));
    }
    if g.has(&CORNER) && g.has(&PARTICLE) {
        g.error_here("give `corner` or `particle`, not both");
    }
    let hold = if g.has(&PARTICLE) {
        Hold::Particle(g.int(&PARTICLE) as u8)
    } else {
        match g.raw(&CORNER).map(|v| v.get_ref()) {
            None => Hold::TopCorner,
            Some(DeValue::String(s)) if s.as_ref() == "top" => Hold::TopCorner,
            Some(v) => match number_list(v) {
                Some(c) if c.len() == 3 && c.iter().all(|&x| x == 0.0 || x == 1.0) => Hold::Corner([c[0] as u8, c[1] as u8, c[2] as u8]),
                _ => {
                    g.error_at(&CORNER, "expected \"top\" or [x, y, z] with each 0 or 1 (the die's own axes)");
                    Hold::TopCorner
                }
            },
        }
    };
    let at = g.float(&GRAB_AT);
    let release = g.float_or(&RELEASE, at + 1.0);
    if release <= at {
        g.error_at(&RELEASE, format!("the hand lets go at {release} s, before it grabs at {at} s"));
    }
    let mut path = Vec::new();
    if let Some(v) = g.raw(&PATH) {
        let items = match v.get_ref() {
            DeValue::Array(a) => a.iter().map(|i| number_list(i.get_ref())).collect::<Option<Vec<_>>>(),
            _ => None,
        };
        match items {
            Some(items) if items.iter().all(|i| i.len() == 4) => {
                for i in items {
                    path.push((i[0], [i[1], i[2], i[3]]));
                }
            }
            _ => g.error_at(&PATH, "expected [[time, dx, dy, dz], …]: seconds, and metres from the grabbed point"),
        }
    }
    if path.windows(2).any(|w| w[1].0 <= w[0].0) {
        g.error_at(&PATH, "path times must increase");
    }
    if path.first().is_some_and(|p| p.0 < at) {
        g.error_at(&PATH, format!("the path starts before the hand grabs (at = {at} s)"));
    }
    if path.iter().any(|p| p.1.iter().any(|d| d.abs() > 6.0)) {
        g.error_at(&PATH, "offsets are at most 6 m: the table is 6 m across");
    }
    if at > duration {
        g.error_at(&GRAB_AT, format!("the scene ends at {duration:.2} s, before this grab"));
    }
    g.finish();
    Some(GrabSpec { die: die - 1, hold, at, path, release })
}

fn read_place(p: &TableReader, count: usize) -> Option<PlaceSpec> {
    let die = p.int(&DIE) as usize;
    if die > count {
        p.error_at(&DIE, format!("die {die} does not exist: the scene has {count} (numbered from 1)"));
    }
    if !p.has(&PLACE_AT) {
        p.error_here("a placed die needs `at = [x, y, z]` (its centre, metres)");
    }
    let at = p.numbers(&PLACE_AT);
    if at[1] < 0.0 {
        p.error_at(&PLACE_AT, "the centre is on or above the table (y ≥ 0) and within 10 m of its middle");
    }
    let spec = PlaceSpec {
        die: die - 1,
        at,
        up: p.int(&UP) as u8,
        turn: p.float(&TURN),
        tilt: p.float(&TILT),
        toward: p.float(&TOWARD),
        asleep: p.flag(&ASLEEP),
    };
    p.finish();
    Some(spec)
}

/// What only the dice's drawing reads.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DiceLook {
    /// Body colour per die (sRGB).
    pub colors: Vec<Srgb>,
    pub pip_color: Srgb,
    /// Opacity of the jelly body, 0..1.
    pub opacity: f64,
    /// Draw the results strip.
    pub results: bool,
}

impl KindTable for DiceSpec {
    const NAME: &'static str = "dice";
    const TABLE: &'static Table = &DICE;

    type Look = DiceLook;

    fn read(t: &TableReader, render: &RenderSpec) -> (Self, DiceLook) {
        read_dice(t, render.duration())
    }

    fn frame_cost(&self, _: &DiceLook) -> (f64, f64) {
        // 108 ms drawing at 640×400, 0.7 ms stepping five dice
        (420.0, 0.15 * self.count as f64)
    }

    fn memory(&self, _: &DiceLook) -> (u64, String) {
        // solver state (about 10 KiB a die); each die's rounded, pipped mesh bent into a buffer of
        // its own on the GPU side and its copies (measured: about 4 MiB a die); the table and the
        // results strip's text
        (self.count as u64 * ((10 << 10) + (4 << 20)) + (4 << 20), format!("{} dice", self.count))
    }
}

fn read_dice(t: &TableReader, duration: f64) -> (DiceSpec, DiceLook) {
    let count = t.int(&COUNT) as usize;
    let firmness = match t.raw(&FIRMNESS).map(|v| v.get_ref()) {
        None => vec![55.0; count],
        Some(DeValue::Array(_)) => match t.raw(&FIRMNESS).and_then(|v| number_list(v.get_ref())) {
            // an item out of range is named by its place; the length is held against `count`
            // only when `count` itself is right (else its own problem is the one to fix)
            Some(f) => match f.iter().position(|x| !(0.0..=100.0).contains(x)) {
                Some(i) => {
                    t.error_at(&FIRMNESS, format!("firmness[{i}] is {}: each die's firmness is from 0 to 100", f[i]));
                    vec![55.0; count]
                }
                None if f.len() != count => {
                    if !t.failed(&COUNT) {
                        let why = if t.has(&COUNT) { "as `count` says".to_string() } else { format!("`count` is not given: {count}") };
                        t.error_at(
                            &FIRMNESS,
                            format!("expected one firmness from 0 to 100, or an array of {count} (one per die; {why}): found {}", f.len()),
                        );
                    }
                    vec![55.0; count]
                }
                None => f,
            },
            None => {
                t.error_at(&FIRMNESS, "expected one firmness from 0 to 100, or an array of them (one per die)");
                vec![55.0; count]
            }
        },
        Some(_) => vec![t.float(&FIRMNESS_ONE); count],
    };
    // the colours are used in turn
    let palette = if t.has(&COLORS) { t.color_list(&COLORS).unwrap_or_else(|| PALETTE.to_vec()) } else { PALETTE.to_vec() };
    let colors = (0..count).map(|i| palette[i % palette.len()]).collect();
    let rolls = match t.raw(&ROLLS) {
        None => vec![0.0],
        Some(v) => match number_list(v.get_ref()) {
            Some(r) if r.iter().all(|&x| (0.0..=86_400.0).contains(&x)) && r.windows(2).all(|w| w[1] > w[0]) => r,
            _ => {
                t.error_at(&ROLLS, "expected increasing throw times in seconds, e.g. [0.0, 6.0] (or [] for none)");
                vec![0.0]
            }
        },
    };
    let grabs: Vec<GrabSpec> = t.tables(&GRAB_KEY).iter().filter_map(|g| read_grab(g, count, duration)).collect();
    let mut by_time: Vec<&GrabSpec> = grabs.iter().collect();
    by_time.sort_by(|a, b| a.at.total_cmp(&b.at));
    if by_time.windows(2).any(|w| w[1].at < w[0].release) {
        t.error_at(&GRAB_KEY, "one hand at a time: a grab must start after the previous one is released");
    }
    let places: Vec<PlaceSpec> = t.tables(&PLACE_KEY).iter().filter_map(|p| read_place(p, count)).collect();
    for (i, a) in places.iter().enumerate() {
        if places[..i].iter().any(|b| b.die == a.die) {
            t.error_at(&PLACE_KEY, format!("die {} is placed twice", a.die + 1));
        }
    }
    let look = DiceLook { colors, pip_color: t.color(&PIP_COLOR), opacity: t.float(&OPACITY), results: t.flag(&RESULTS) };
    (DiceSpec { count, firmness, rolls, drop: t.float(&DROP), grabs, places }, look)
}
