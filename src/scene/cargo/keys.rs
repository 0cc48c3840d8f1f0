//! The keys of `[cargo]` (see `super::keys`): every one declared once, with its default (the
//! seed's number wherever it gives one), range, unit and meaning.

use crate::scene::keys::{Key, Table, Ty};

const FAR: f64 = 1e6;
/// By load, the seed's light-load values (1.3.4): said for a per-load key.
macro_rules! by_load {
    ($key:expr, $said:literal) => {
        $key.said(concat!("by load name: ", $said))
    };
}

pub const MODE: Key = Key::choice("mode", &["back", "ground"]).doc("where the jige starts: on the carrier's back or on the ground");
pub const FILL: Key =
    Key::animated("fill", &[0.3], 0.0, 1.0).doc("the jige's fill ratio over time (a load's `fill` changes it from then on)");
pub const FILL_LIGHT_HEAVY: Key =
    Key::vector("fill_light_heavy", &[0.3, 0.8], 0.0, 1.0).doc("the fill ratios that count as light (heaviness 0) and heavy (1)");
pub const HEAVY_FREQUENCY: Key = Key::float("frequency", 0.7, 0.05, 4.0).doc("frequency multiplier at heaviness 1");
pub const HEAVY_GAIN: Key = Key::float("gain", 1.3, 0.0, 10.0).doc("gain multiplier at heaviness 1");
pub const HEAVY_DAMPING: Key = Key::float("damping", 0.9, 0.05, 4.0).doc("damping multiplier at heaviness 1");
const HEAVY: Table = Table::new("how a heavy jige changes the springs", &[HEAVY_FREQUENCY, HEAVY_GAIN, HEAVY_DAMPING]);
pub const HEAVY_KEY: Key = Key::table("heavy", &HEAVY).doc(HEAVY.doc);
pub const INTEGRATOR: Key = Key::choice("integrator", &["exact", "euler_capped", "euler_split"])
    .renamed(&[("seed_fixed", "euler_capped"), ("seed", "euler_split")])
    .doc("how the springs are stepped: closed form on a fixed clock; semi-implicit Euler in capped steps, the rest of a long frame dropped (the post after its fix); or Euler with each frame split into at most 4 steps (the post before it)");
pub const INPUT: Key = Key::choice("input", &["exact", "difference"])
    .said("\"exact\" with the exact integrator, else \"difference\"")
    .doc("the support's acceleration: derivatives of the script, or the post's frame differences");
pub const SUBSTEP_HZ: Key =
    Key::float("substep_hz", 120.0, 30.0, 10_000.0).unit("steps/s").doc("the fixed clock of the exact integrator and the post's fix");
pub const MAX_SUBSTEPS: Key = Key::int("max_substeps", 8, 1, 1000).doc("the post's fix: most steps a game frame (the rest is dropped)");
pub const GAME_HZ: Key = Key::float("game_hz", 60.0, 5.0, 1000.0).unit("frames/s").doc("the emulated game's frame rate");
pub const TELEPORT_SPEED: Key =
    Key::float("teleport_speed", 20.0, 0.1, FAR).unit("m/s").doc("a move faster than this is a teleport, not felt by the loads");
pub const MAX_ACCEL: Key = Key::float("max_accel", 60.0, 0.1, FAR).unit("m/s²").doc("the support's acceleration is clamped to this");
pub const REDUCED_INPUT: Key = Key::float("reduced_input", 0.3, 0.0, 1.0).doc("input scale while an action plays");
pub const GROUND_RESET: Key =
    Key::float("ground_reset", 1.6, 0.0, 60.0).unit("s").doc("a ground jige's springs stay on this long after a load");
pub const RESET_FADE: Key =
    Key::float("reset_fade", 0.4, 0.0, 10.0).unit("s").doc("the sway left at a reset fades out over this (0: the post's snap)");
pub const TRANSITION: Key = Key::float("transition", 1.0, 0.05, 10.0).unit("s").doc("how long a put-down or pick-up takes");
pub const WALL_STIFFNESS: Key = Key::float("stiffness", 2.0, 0.0, 20.0).doc("extra stiffness outside a limit, × ω");
pub const WALL_DAMPING: Key = Key::float("damping", 1.0, 0.0, 20.0).doc("damping ratio of the wall on outward motion");
const WALL: Table = Table::new("the soft wall at each limit", &[WALL_STIFFNESS, WALL_DAMPING]);
pub const WALL_KEY: Key = Key::table("wall", &WALL).doc(WALL.doc);

pub const FRAME_FREQUENCY: Key = Key::float("frequency", 1.6, 1e-3, 100.0).unit("Hz").doc("the frame's own sway frequency");
pub const FRAME_DAMPING: Key = Key::float("damping", 0.4, 0.0, 2.0).doc("its damping ratio");
pub const MAX_ANGLE: Key = Key::float("max_angle", 5.0, 0.0, 45.0).unit("°").doc("its largest pitch and roll");
pub const FRAME_GAIN: Key = Key::vector("gain", &[0.8, 0.8], 0.0, 100.0).unit("°/(m/s²)").doc("[pitch, roll] per unit of acceleration");
pub const FRAME_IMPULSE: Key = Key::float("impulse", 10.0, -1e3, 1e3).unit("°/s").doc("the kick a load gives the frame");
const FRAME: Table =
    Table::new("the jige's frame, swaying on the carrier's back", &[FRAME_FREQUENCY, FRAME_DAMPING, MAX_ANGLE, FRAME_GAIN, FRAME_IMPULSE]);
pub const FRAME_KEY: Key = Key::table("frame", &FRAME).doc(FRAME.doc);

pub const LINK_NAME: Key = Key::text("name").said("bottom, middle, top").doc("the load's name (the three seed loads' defaults follow it)");
pub const SUPPORT: Key =
    Key::text("support").said("what the post stacks it on").doc("the load it rests on (one listed above), or \"root\"");
pub const LINK_FREQUENCY: Key =
    by_load!(Key::float("frequency", 2.2, 1e-3, 100.0), "bottom 2.2, middle 1.5, top 1.2").unit("Hz").doc("sway frequency");
pub const LINK_DAMPING: Key = by_load!(Key::float("damping", 0.5, 0.0, 2.0), "bottom 0.5, middle 0.38, top 0.32").doc("damping ratio");
pub const LINK_PITCH: Key = by_load!(Key::vector("pitch", &[-2.0, 0.5], -180.0, 180.0), "[-2, 0.5], [-4, 0.7], [-6, 1]")
    .unit("°")
    .doc("[most away from the back, most toward it]");
pub const LINK_ROLL: Key = by_load!(Key::float("roll", 1.5, 0.0, 90.0), "1.5, 3.5, 5").unit("°").doc("largest roll either way");
pub const LINK_LIFT: Key = by_load!(Key::float("lift", 0.5, 0.0, 100.0), "0.5, 1.2, 2").unit("cm").doc("largest lift off its support");
pub const LINK_GAIN: Key =
    by_load!(Key::vector("gain", &[0.6, 0.6, 0.1], 0.0, 100.0), "[0.6, 0.6, 0.1], [1.2, 1.2, 0.25], [1.8, 1.8, 0.4]")
        .doc("[pitch, roll, lift] response per unit of acceleration (°, °, cm per m/s²)");
pub const LINK_SIZE: Key =
    by_load!(Key::vector("size", &[0.42, 0.34, 0.62], 0.02, 3.0), "[0.42, 0.34, 0.62], [0.36, 0.3, 0.54], [0.3, 0.26, 0.44]")
        .unit("m")
        .doc("its size");
pub const LINK_COLOR: Key =
    by_load!(Key::color("color", crate::scene::values::Srgb::hex("#b5895a")), "#b5895a, #6f8f4e, #c4553b").doc("its colour");
pub const LINK_SHAPE: Key = by_load!(Key::choice("shape", &["sack", "crate", "bundle"]), "sack, crate, bundle").doc("how it is drawn");
const LINK: Table = Table::new(
    "a load on the jige: a damped spring in pitch, roll and lift on its support",
    &[LINK_NAME, SUPPORT, LINK_FREQUENCY, LINK_DAMPING, LINK_PITCH, LINK_ROLL, LINK_LIFT, LINK_GAIN, LINK_SIZE, LINK_COLOR, LINK_SHAPE],
);
pub const LINK_KEY: Key = Key::tables("link", &LINK).said("the post's three loads").doc("the loads, bottom first (at most 8)");

pub const CRUISE: Key = Key::float("cruise", 1.4, 0.05, 20.0).unit("m/s").doc("walking speed");
pub const STEP_HZ: Key = Key::float("step_hz", 1.9, 0.1, 10.0).unit("steps/s").doc("steps a second");
pub const BOB: Key = Key::float("bob", 0.02, 0.0, 0.3).unit("m").doc("how far each step lifts the carrier");
pub const SWAY: Key = Key::float("sway", 0.02, 0.0, 0.3).unit("m").doc("how far each step sways it sideways");
pub const LEAN: Key = Key::float("lean", 1.5, 0.0, 20.0).unit("°").doc("how far it leans into its acceleration");
const GAIT: Table = Table::new("the carrier's steps", &[STEP_HZ, BOB, SWAY, LEAN]);
pub const GAIT_KEY: Key = Key::table("gait", &GAIT).doc(GAIT.doc);
pub const TO: Key = Key::vector("to", &[0.0, 0.0], -FAR, FAR).unit("m").doc("walk to [x, z]");
pub const LEG_CRUISE: Key = CRUISE.said("the route's `cruise`").doc("walking speed on this leg");
pub const WAIT: Key = Key::float("wait", 1.0, 0.0, 1e5).unit("s").doc("or stand still this long");
pub const TELEPORT: Key = Key::vector("teleport", &[0.0, 0.0], -FAR, FAR).unit("m").doc("or appear at [x, z]");
const LEG: Table = Table::new("one leg of the route: one of `to`, `wait` or `teleport`", &[TO, LEG_CRUISE, WAIT, TELEPORT]);
pub const LEGS: Key = Key::tables("legs", &LEG).doc("the route, leg by leg (starts, stops and teleports)");
pub const DRAG_AT: Key = Key::float("at", 0.0, 0.0, 1e5).required().unit("s").doc("when a hand takes the carrier over");
pub const DRAG_TO: Key = Key::vector("to", &[0.0, 0.0], -FAR, FAR).required().unit("m").doc("where it leads it, [x, z]");
const DRAG: Table = Table::new(
    "a hand leading the carrier (the web player's drag): from `at` it stops as smoothly as it walks (a start or a turn under way is finished first), turns and walks to `to`; the route's legs after that are dropped",
    &[DRAG_AT, DRAG_TO],
);
pub const DRAGS: Key = Key::tables("drags", &DRAG).doc("hands leading the carrier off its route, in time order");
pub const START: Key = Key::vector("start", &[0.0, 0.0], -FAR, FAR).unit("m").doc("where the carrier starts, [x, z]");
pub const HEADING: Key = Key::float("heading", 0.0, -360.0, 360.0).unit("°").doc("which way it faces before the first leg");
pub const ACCEL: Key = Key::float("accel", 1.8, 0.05, 100.0).unit("m/s²").doc("peak acceleration of starts and stops");
const ROUTE: Table = Table::new("the carrier's scripted walk", &[CRUISE, GAIT_KEY, LEGS, DRAGS, START, HEADING, ACCEL]);
pub const ROUTE_KEY: Key = Key::table("route", &ROUTE).doc(ROUTE.doc);

pub const RAMP_FROM: Key = Key::float("from", 0.0, -1e4, 1e4).unit("m").doc("where the ramp starts along x");
pub const RAMP_TO: Key = Key::float("to", 1.0, -1e4, 1e4).unit("m").doc("where it ends (at least 1 m on)");
pub const RISE: Key = Key::float("rise", 0.5, -100.0, 100.0).unit("m").doc("how far it climbs (at most 1 in 2)");
const RAMP: Table = Table::new("a ramp the carrier climbs", &[RAMP_FROM, RAMP_TO, RISE]);
pub const RAMP_KEY: Key = Key::table("ramp", &RAMP).doc(RAMP.doc);
pub const GRID: Key = Key::float("grid", 0.5, 0.05, 100.0).unit("m").doc("side of the ground's checker squares");
pub const GROUND_COLOR: Key = Key::color("color", crate::scene::values::Srgb::hex("#c9c2b2")).doc("one checker colour");
pub const GROUND_COLOR2: Key = Key::color("color2", crate::scene::values::Srgb::hex("#b3ab99")).doc("the other checker colour");
const GROUND: Table = Table::new("the ground: a checker, with an optional ramp", &[RAMP_KEY, GRID, GROUND_COLOR, GROUND_COLOR2]);
pub const GROUND_KEY: Key = Key::table("ground", &GROUND).doc(GROUND.doc);

pub const EVENT_AT: Key = Key::float("at", 0.0, 0.0, 1e5).required().unit("s").doc("when it happens (events in time order)");
pub const EVENT_KIND: Key = Key::choice("kind", &["load", "action", "hitch", "put_down", "pick_up"]).required().doc("what happens");
pub const EVENT_LINK: Key = Key::text("link").required().doc("the load that lands (by name)");
pub const IMPULSE_PITCH: Key = Key::float("pitch", 25.0, -1e3, 1e3).unit("°/s").doc("kick in pitch");
pub const IMPULSE_ROLL: Key = Key::float("roll", 8.0, -1e3, 1e3).unit("°/s").doc("kick in roll");
pub const IMPULSE_LIFT: Key = Key::float("lift", 0.15, -10.0, 10.0).unit("m/s").doc("kick in lift");
const IMPULSE: Table = Table::new("the kick a landing load gets", &[IMPULSE_PITCH, IMPULSE_ROLL, IMPULSE_LIFT]);
pub const IMPULSE_KEY: Key = Key::table("impulse", &IMPULSE).doc(IMPULSE.doc);
pub const EVENT_FILL: Key = Key::float("fill", 0.5, 0.0, 1.0).said("unchanged").doc("the jige's fill ratio from then on");
pub const ACTION_DURATION: Key = Key::float("duration", 0.7, 0.0, 1e4).unit("s").doc("how long the reduced input lasts");
pub const HITCH_DT: Key = Key::float("dt", 1.0 / 3.0, 1e-3, 10.0).unit("s").doc("length of each long game frame");
pub const HITCH_COUNT: Key = Key::int("count", 1, 1, 1000).doc("how many long frames in a row");
const EVENT: Table = Table::tagged(
    "something that happens at a time: a load lands, an action, a hitch, a put-down or pick-up",
    &[EVENT_AT, EVENT_KIND],
    "kind",
    &[
        ("load", &[EVENT_LINK, IMPULSE_KEY, EVENT_FILL]),
        ("action", &[ACTION_DURATION]),
        ("hitch", &[HITCH_DT, HITCH_COUNT]),
        ("put_down", &[]),
        ("pick_up", &[]),
    ],
);
pub const EVENT_KEY: Key = Key::tables("event", &EVENT).doc(EVENT.doc);

pub const PLOT_SECONDS: Key = Key::float("seconds", 4.0, 0.5, 600.0).unit("s").doc("history shown");
pub const TRACES: Key = Key::of("traces", Ty::NonEmpty(&Ty::Choice(&["pitch", "roll", "lift"])))
    .said("[\"pitch\", \"lift\"]")
    .doc("the lanes: each load's value (thick), target (thin) and limits (dashed)");
pub const PLOT_HEIGHT: Key = Key::float("height", 0.3, 0.1, 0.8).doc("share of the frame's height the chart takes");
pub const LABELS: Key = Key::flag("labels", true).doc("each load's frequency, damping and gain after heaviness");
const PLOT: Table = Table::new("a strip chart over the bottom of the frame", &[PLOT_SECONDS, TRACES, PLOT_HEIGHT, LABELS]);
pub const PLOT_KEY: Key = Key::table("plot", &PLOT).doc(PLOT.doc);

pub const OFFSET: Key = Key::vector("offset", &[0.0, 1.6, 4.2], -FAR, FAR).unit("m").doc("the eye's offset from the carrier");
pub const LOOK: Key = Key::vector("look", &[0.0, 1.1, 0.0], -FAR, FAR).unit("m").doc("the point looked at, offset from the carrier");
const FOLLOW: Table = Table::new("a camera that moves with the carrier", &[OFFSET, LOOK]);
pub const FOLLOW_KEY: Key = Key::table("follow", &FOLLOW).doc(FOLLOW.doc);
pub const DUST: Key = Key::flag("dust", true).doc("dust where a load lands");
pub const GHOST: Key = Key::flag("ghost", false).doc("translucent copies of the loads at their rest pose");

/// `[cargo]`.
pub const CARGO: Table = Table::new(
    "a carrier's jige with three stacked loads that lag, sway and settle",
    &[
        MODE,
        FILL,
        FILL_LIGHT_HEAVY,
        HEAVY_KEY,
        INTEGRATOR,
        INPUT,
        SUBSTEP_HZ,
        MAX_SUBSTEPS,
        GAME_HZ,
        TELEPORT_SPEED,
        MAX_ACCEL,
        REDUCED_INPUT,
        GROUND_RESET,
        RESET_FADE,
        TRANSITION,
        WALL_KEY,
        FRAME_KEY,
        LINK_KEY,
        ROUTE_KEY,
        GROUND_KEY,
        EVENT_KEY,
        PLOT_KEY,
        FOLLOW_KEY,
        DUST,
        GHOST,
    ],
);
