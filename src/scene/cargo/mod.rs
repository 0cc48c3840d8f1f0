//! `[cargo]`: a carrier walking a scripted route with an A-frame carrier (jige) on its back and
//! three stacked loads that lag, sway and settle (seed 001). Defaults are the seed's numbers
//! wherever it gives one; the gains, wall strength and impulse sizes it leaves out take the values
//! `../shared/specs/cargo.md` §1.13 suggests. Angles are degrees, lift is centimetres, lengths
//! metres, times seconds.

mod keys;
mod route;

use crate::portable;
use keys::*;
use route::read_route;
pub use route::{Drag, GaitSpec, Leg, RouteSpec};

use super::common::RenderSpec;
use super::keys::Table;
use super::kind_tables::KindTable;
use super::reader::TableReader;
use super::values::{Animated, Srgb};

/// How the springs are stepped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Integrator {
    /// Closed-form damped-spring steps on a fixed clock, input from the support's exact
    /// acceleration: the same trajectory at any game frame rate, stable at any frame length.
    Exact,
    /// `euler_capped` (the post after its fix): semi-implicit Euler, steps of at most
    /// 1/`substep_hz`, at most `max_substeps` a game frame, the rest of a long frame dropped.
    EulerCapped,
    /// `euler_split` (the post before its fix): the frame split into at most 4 steps, so a long
    /// frame takes long steps (and the springs diverge).
    EulerSplit,
}

/// Where the support's acceleration comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Input {
    /// Derivatives of the scripted motion, sampled on the simulation clock.
    Exact,
    /// The seed's finite differences of positions across game frames.
    Difference,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Mode {
    /// Worn on the carrier's back.
    Back,
    /// Standing on the ground, propped on its stick.
    Ground,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Shape {
    Sack,
    Crate,
    Bundle,
}

/// One damped spring set: the frame's sway or one load's pitch, roll and lift.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LinkSpec {
    pub name: String,
    /// Index of the link whose pivot carries this one's (`None`: the package root).
    pub support: Option<usize>,
    /// Natural frequency, Hz.
    pub frequency: f64,
    pub damping: f64,
    /// Pitch target range, degrees (− = away from the carrier's back).
    pub pitch: [f64; 2],
    /// Roll target range ±, degrees.
    pub roll: f64,
    /// Upward lift limit, centimetres.
    pub lift: f64,
    /// Pitch °/(m/s²), roll °/(m/s²), lift cm/(m/s²).
    pub gain: [f64; 3],
    /// Depth (along the carrier's forward axis), height, width, metres: its resting height on
    /// the stack is the simulation's.
    pub size: [f64; 3],
}

/// How a load is drawn.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LinkLook {
    pub color: Srgb,
    pub shape: Shape,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FrameSpec {
    pub frequency: f64,
    pub damping: f64,
    /// Largest sway target, degrees.
    pub max_angle: f64,
    /// Pitch and roll, °/(m/s²).
    pub gain: [f64; 2],
    /// Angular velocity given to the frame by a load, °/s.
    pub impulse: f64,
}

/// A climb along +x: flat before `from`, `rise` metres higher after `to`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Ramp {
    pub from: f64,
    pub to: f64,
    pub rise: f64,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GroundSpec {
    pub ramp: Option<Ramp>,
}

/// How the ground is drawn.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GroundLook {
    /// Checker square side, metres.
    pub grid: f64,
    pub colors: [Srgb; 2],
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum EventKind {
    /// A load put on: link index, the fill ratio from then on, impulse (pitch °/s, roll °/s,
    /// lift m/s at the top link).
    Load {
        link: usize,
        fill: Option<f64>,
        impulse: [f64; 3],
    },
    /// A roll, root motion or jige animation: input scaled by `reduced_input` for its duration.
    Action {
        duration: f64,
    },
    /// The emulated game clock takes `count` frames of `dt` seconds.
    Hitch {
        dt: f64,
        count: u32,
    },
    PutDown,
    PickUp,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EventSpec {
    pub at: f64,
    pub kind: EventKind,
}

/// Which link values the strip chart draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Trace {
    Pitch,
    Roll,
    Lift,
}

/// The strip chart as drawn (the history it shows is the simulation's: `CargoSpec::history`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PlotLook {
    pub traces: Vec<Trace>,
    /// Fraction of the image height the chart takes.
    pub height: f64,
    pub labels: bool,
}

/// A camera that moves with the carrier: eye and target offsets from its ground position.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FollowSpec {
    pub offset: [f64; 3],
    pub look: [f64; 3],
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CargoSpec {
    pub mode: Mode,
    /// The jige's fill ratio over time (loads with a `fill` override it from their time on).
    pub fill: Animated<1>,
    /// Fill ratios that map to heaviness 0 and 1.
    pub light_heavy: [f64; 2],
    /// Multipliers of frequency, gains and damping at heaviness 1.
    pub heavy: [f64; 3],
    pub integrator: Integrator,
    pub input: Input,
    pub substep_hz: f64,
    pub max_substeps: u32,
    pub game_hz: f64,
    pub teleport_speed: f64,
    pub max_accel: f64,
    pub reduced_input: f64,
    /// Seconds a ground jige's springs stay on after a load.
    pub ground_reset: f64,
    /// Seconds over which the sway left at that moment fades out (0: the seed's snap).
    pub reset_fade: f64,
    /// Seconds a put-down or pick-up takes.
    pub transition: f64,
    /// Extra stiffness outside a limit (× ω) and damping ratio of the wall on outward motion.
    pub wall: [f64; 2],
    pub frame: FrameSpec,
    pub links: Vec<LinkSpec>,
    pub route: RouteSpec,
    pub ground: GroundSpec,
    pub events: Vec<EventSpec>,
    /// Seconds of history the simulation keeps for the strip chart (`[cargo.plot] seconds`);
    /// `None` without a chart.
    pub history: Option<f64>,
}

struct LinkDefault {
    name: &'static str,
    support: Option<usize>,
    frequency: f64,
    damping: f64,
    pitch: [f64; 2],
    roll: f64,
    lift: f64,
    gain: [f64; 3],
    size: [f64; 3],
    color: Srgb,
    shape: Shape,
}

/// The seed's table of light-load values (1.3.4), with the suggested gains and this project's
/// sizes and colours.
const LINKS: [LinkDefault; 3] = [
    LinkDefault {
        name: "bottom",
        support: None,
        frequency: 2.2,
        damping: 0.5,
        pitch: [-2.0, 0.5],
        roll: 1.5,
        lift: 0.5,
        gain: [0.6, 0.6, 0.1],
        size: [0.42, 0.34, 0.62],
        color: Srgb::hex("#b5895a"),
        shape: Shape::Sack,
    },
    LinkDefault {
        name: "middle",
        support: None,
        frequency: 1.5,
        damping: 0.38,
        pitch: [-4.0, 0.7],
        roll: 3.5,
        lift: 1.2,
        gain: [1.2, 1.2, 0.25],
        size: [0.36, 0.3, 0.54],
        color: Srgb::hex("#6f8f4e"),
        shape: Shape::Crate,
    },
    LinkDefault {
        name: "top",
        support: Some(1),
        frequency: 1.2,
        damping: 0.32,
        pitch: [-6.0, 1.0],
        roll: 5.0,
        lift: 2.0,
        gain: [1.8, 1.8, 0.4],
        size: [0.3, 0.26, 0.44],
        color: Srgb::hex("#c4553b"),
        shape: Shape::Bundle,
    },
];

/// What only the cargo's drawing reads.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CargoLook {
    /// Per load, in the order of `CargoSpec::links`.
    pub links: Vec<LinkLook>,
    pub ground: GroundLook,
    pub plot: Option<PlotLook>,
    pub follow: Option<FollowSpec>,
    pub dust: bool,
    /// Translucent copies of the loads at their rest pose.
    pub ghost: bool,
}

impl KindTable for CargoSpec {
    const NAME: &'static str = "cargo";
    const TABLE: &'static Table = &CARGO;

    type Look = CargoLook;

    fn read(t: &TableReader, render: &RenderSpec) -> (Self, CargoLook) {
        read_cargo(t, render.duration())
    }

    fn frame_cost(&self, _: &CargoLook) -> (f64, f64) {
        // cargo_walk: 69 ms drawing at 640×400, 0.6 ms for a frame's poses, straps and chart
        (270.0, 0.6)
    }

    fn memory(&self, _: &CargoLook) -> (u64, String) {
        // spring state, the strip chart's history (a sample a game frame), the strap mesh
        let history = (self.game_hz * 60.0) as u64 * 64;
        (1 << 20 | history, format!("{} loads", self.links.len()))
    }
}

fn read_cargo(t: &TableReader, duration: f64) -> (CargoSpec, CargoLook) {
    let integrator = match t.choice(&INTEGRATOR) {
        "euler_split" => Integrator::EulerSplit,
        "euler_capped" => Integrator::EulerCapped,
        _ => Integrator::Exact,
    };
    let input_default = if integrator == Integrator::Exact { "exact" } else { "difference" };
    let input = match t.raw(&INPUT) {
        None => input_default,
        Some(_) => t.choice(&INPUT),
    };
    if input == "exact" && integrator != Integrator::Exact {
        t.error_at(&INPUT, "the post's integrators take the post's input: `input = \"difference\"` (or leave it out)");
    }
    let light_heavy = t.numbers(&FILL_LIGHT_HEAVY);
    if !(light_heavy[0] >= 0.0 && light_heavy[1] <= 1.0 && light_heavy[0] < light_heavy[1]) {
        t.error_at(&FILL_LIGHT_HEAVY, "expected [light, heavy] fill ratios with 0 ≤ light < heavy ≤ 1");
    }
    let heavy_t = t.table(&HEAVY_KEY);
    let heavy = [heavy_t.float(&HEAVY_FREQUENCY), heavy_t.float(&HEAVY_GAIN), heavy_t.float(&HEAVY_DAMPING)];
    heavy_t.finish();
    let (links, link_looks) = read_links(t);
    let names: Vec<String> = links.iter().map(|l| l.name.clone()).collect();
    let route = read_route(&t.table(&ROUTE_KEY));
    let transition = t.float(&TRANSITION);
    let events = read_events(t, &names, duration, transition);
    let wall_t = t.table(&WALL_KEY);
    let wall = [wall_t.float(&WALL_STIFFNESS), wall_t.float(&WALL_DAMPING)];
    wall_t.finish();
    let (ramp, ground) = read_ground(&t.table(&GROUND_KEY));
    let (history, plot) = read_plot(t).unzip();
    let spec = CargoSpec {
        mode: if t.choice(&MODE) == "ground" { Mode::Ground } else { Mode::Back },
        fill: t.animated(&FILL),
        light_heavy,
        heavy,
        integrator,
        input: if input == "exact" { Input::Exact } else { Input::Difference },
        substep_hz: t.float(&SUBSTEP_HZ),
        max_substeps: t.int(&MAX_SUBSTEPS) as u32,
        game_hz: t.float(&GAME_HZ),
        teleport_speed: t.float(&TELEPORT_SPEED),
        max_accel: t.float(&MAX_ACCEL),
        reduced_input: t.float(&REDUCED_INPUT),
        ground_reset: t.float(&GROUND_RESET),
        reset_fade: t.float(&RESET_FADE),
        transition,
        wall,
        frame: read_frame(&t.table(&FRAME_KEY)),
        links,
        route,
        ground: GroundSpec { ramp },
        events,
        history,
    };
    let look = CargoLook { links: link_looks, ground, plot, follow: read_follow(t), dust: t.flag(&DUST), ghost: t.flag(&GHOST) };
    (spec, look)
}

fn read_frame(f: &TableReader) -> FrameSpec {
    let spec = FrameSpec {
        frequency: f.float(&FRAME_FREQUENCY),
        damping: f.float(&FRAME_DAMPING),
        max_angle: f.float(&MAX_ANGLE),
        gain: f.numbers(&FRAME_GAIN),
        impulse: f.float(&FRAME_IMPULSE),
    };
    f.finish();
    spec
}

fn read_links(t: &TableReader) -> (Vec<LinkSpec>, Vec<LinkLook>) {
    let tables = t.tables(&LINK_KEY);
    if tables.is_empty() {
        return LINKS.iter().map(|d| default_link(d, d.name.to_string())).unzip();
    }
    if tables.len() > 8 {
        t.error_at(&LINK_KEY, "at most 8 loads");
    }
    let mut out: Vec<LinkSpec> = Vec::new();
    let mut looks: Vec<LinkLook> = Vec::new();
    for (i, l) in tables.iter().enumerate().take(8) {
        let name = l.string(&LINK_NAME).unwrap_or_else(|| LINKS.get(i).map_or(format!("load{i}"), |d| d.name.to_string()));
        let base = LINKS.iter().find(|d| d.name == name).unwrap_or(&LINKS[i.min(2)]);
        let (mut link, mut look) = default_link(base, name.clone());
        link.support = match l.string(&SUPPORT).as_deref() {
            None => base.support.filter(|&s| s < i),
            Some("root") => None,
            Some(s) => match out.iter().position(|o| o.name == s) {
                Some(k) => Some(k),
                None => {
                    l.error_at(&SUPPORT, format!("\"{s}\" is not an earlier load: name one listed above, or \"root\""));
                    None
                }
            },
        };
        link.frequency = l.float_or(&LINK_FREQUENCY, base.frequency);
        if link.frequency <= 0.0 {
            l.error_at(&LINK_FREQUENCY, "a frequency must be above 0 Hz");
        }
        link.damping = l.float_or(&LINK_DAMPING, base.damping);
        link.pitch = l.numbers_or(&LINK_PITCH, base.pitch);
        if !(link.pitch[0] <= 0.0 && 0.0 <= link.pitch[1] && link.pitch[1] - link.pitch[0] <= 180.0) {
            l.error_at(&LINK_PITCH, "expected [most away from the back, most toward it] degrees, with min ≤ 0 ≤ max");
            link.pitch = base.pitch;
        }
        link.roll = l.float_or(&LINK_ROLL, base.roll);
        link.lift = l.float_or(&LINK_LIFT, base.lift);
        link.gain = l.numbers_or(&LINK_GAIN, base.gain);
        link.size = l.numbers_or(&LINK_SIZE, base.size);
        if l.has(&LINK_COLOR) {
            look.color = l.color(&LINK_COLOR);
        }
        look.shape = match l.choice(&LINK_SHAPE) {
            "crate" => Shape::Crate,
            "bundle" => Shape::Bundle,
            _ if l.has(&LINK_SHAPE) => Shape::Sack,
            _ => base.shape,
        };
        if out.iter().any(|o| o.name == name) {
            l.error_at(&LINK_NAME, format!("two loads are named \"{name}\""));
        }
        l.finish();
        out.push(link);
        looks.push(look);
    }
    (out, looks)
}

fn default_link(d: &LinkDefault, name: String) -> (LinkSpec, LinkLook) {
    let spec = LinkSpec {
        name,
        support: d.support,
        frequency: d.frequency,
        damping: d.damping,
        pitch: d.pitch,
        roll: d.roll,
        lift: d.lift,
        gain: d.gain,
        size: d.size,
    };
    (spec, LinkLook { color: d.color, shape: d.shape })
}

fn read_ground(g: &TableReader) -> (Option<Ramp>, GroundLook) {
    let ramp = g.has(&RAMP_KEY).then(|| {
        let r = g.table(&RAMP_KEY);
        let ramp = Ramp { from: r.float(&RAMP_FROM), to: r.float(&RAMP_TO), rise: r.float(&RISE) };
        if ramp.to - ramp.from < 1.0 {
            r.error_here("a ramp runs at least 1 m: `to` must be 1 or more above `from`");
        }
        if ramp.rise.abs() > 0.5 * (ramp.to - ramp.from) {
            r.error_at(&RISE, "a ramp steeper than 1 in 2 cannot be walked");
        }
        r.finish();
        ramp
    });
    let look = GroundLook { grid: g.float(&GRID), colors: [g.color(&GROUND_COLOR), g.color(&GROUND_COLOR2)] };
    g.finish();
    (ramp, look)
}

fn read_events(t: &TableReader, names: &[String], duration: f64, transition: f64) -> Vec<EventSpec> {
    let mut out = Vec::new();
    let mut last = f64::NEG_INFINITY;
    // where the jige is (from `mode`) and when it was last moved, to check put-downs and pick-ups
    let mut grounded = t.raw(&MODE).and_then(|v| v.get_ref().as_str().map(|m| m == "ground")).unwrap_or(false);
    let mut moved = f64::NEG_INFINITY;
    for e in t.tables(&EVENT_KEY) {
        let at = e.float(&EVENT_AT);
        if !e.has(&EVENT_AT) {
            e.error_here("an event needs `at` (seconds)");
        }
        if at < last {
            e.error_at(&EVENT_AT, format!("events are listed in time order: {at} s comes after {last} s"));
        }
        if at > duration {
            e.error_at(&EVENT_AT, format!("{at} s is after the scene's end ({duration} s)"));
        }
        last = at;
        if !e.has(&EVENT_KIND) {
            e.error_here("an event needs `kind`: load, action, hitch, put_down or pick_up");
        }
        let kind = match e.choice(&EVENT_KIND) {
            _ if !e.has(&EVENT_KIND) => EventKind::Action { duration: 0.0 },
            "load" => {
                let name = e.string(&EVENT_LINK).unwrap_or_default();
                let link = names.iter().position(|n| *n == name).unwrap_or_else(|| {
                    if e.failed(&EVENT_LINK) {
                        return 0;
                    }
                    e.error_at(&EVENT_LINK, format!("\"{name}\" is not a load: one of {}", names.join(", ")));
                    0
                });
                let imp = e.table(&IMPULSE_KEY);
                let impulse = [imp.float(&IMPULSE_PITCH), imp.float(&IMPULSE_ROLL), imp.float(&IMPULSE_LIFT)];
                imp.finish();
                let fill = e.has(&EVENT_FILL).then(|| e.float(&EVENT_FILL));
                EventKind::Load { link, fill, impulse }
            }
            "action" => EventKind::Action { duration: e.float(&ACTION_DURATION) },
            "hitch" => EventKind::Hitch { dt: e.float(&HITCH_DT), count: e.int(&HITCH_COUNT) as u32 },
            swap => {
                let down = swap == "put_down";
                if down == grounded {
                    let (now, then) = if grounded { ("on the ground", "pick_up") } else { ("on the back", "put_down") };
                    e.error_at(&EVENT_KIND, format!("the jige is {now} at {at} s: the next swap is a `{then}`"));
                } else if at < moved + transition {
                    let until = moved + transition;
                    e.error_at(
                        &EVENT_AT,
                        format!("the previous put-down or pick-up takes until {until:.2} s (`transition` = {transition} s)"),
                    );
                }
                grounded = down;
                moved = at;
                if down { EventKind::PutDown } else { EventKind::PickUp }
            }
        };
        e.finish();
        out.push(EventSpec { at, kind });
    }
    out
}

/// `[cargo.plot]`: the seconds of history the simulation keeps for it, and how it is drawn.
fn read_plot(t: &TableReader) -> Option<(f64, PlotLook)> {
    if !t.has(&PLOT_KEY) {
        return None;
    }
    let p = t.table(&PLOT_KEY);
    let mut traces = Vec::new();
    if let Some(v) = p.raw(&TRACES) {
        match v.get_ref().as_array() {
            Some(items) => {
                for item in items.iter() {
                    match item.get_ref().as_str() {
                        Some("pitch") => traces.push(Trace::Pitch),
                        Some("roll") => traces.push(Trace::Roll),
                        Some("lift") => traces.push(Trace::Lift),
                        _ => p.error_at(&TRACES, "traces are \"pitch\", \"roll\" and \"lift\""),
                    }
                }
            }
            None => p.error_at(&TRACES, "expected an array such as [\"pitch\", \"lift\"]"),
        }
    } else {
        traces = vec![Trace::Pitch, Trace::Lift];
    }
    if traces.is_empty() && !p.failed(&TRACES) {
        p.error_at(&TRACES, "name at least one trace");
    }
    let seconds = p.float(&PLOT_SECONDS);
    let look = PlotLook { traces, height: p.float(&PLOT_HEIGHT), labels: p.flag(&LABELS) };
    p.finish();
    Some((seconds, look))
}

fn read_follow(t: &TableReader) -> Option<FollowSpec> {
    if !t.has(&FOLLOW_KEY) {
        return None;
    }
    let f = t.table(&FOLLOW_KEY);
    let spec = FollowSpec { offset: f.numbers(&OFFSET), look: f.numbers(&LOOK) };
    f.finish();
    Some(spec)
}
