//! `[cargo]`: a carrier walking a scripted route with an A-frame carrier (jige) on its back and
//! three stacked loads that lag, sway and settle (seed 001). Defaults are the seed's numbers
//! wherever it gives one; the gains, wall strength and impulse sizes it leaves out take the values
//! `../shared/specs/cargo.md` §1.13 suggests. Angles are degrees, lift is centimetres, lengths
//! metres, times seconds.

use super::common::RenderSpec;
use super::kind::KindTable;
use super::reader::TableReader;
use super::values::{Animated, Srgb};

/// How the springs are stepped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Integrator {
    /// Closed-form damped-spring steps on a fixed clock, input from the support's exact
    /// acceleration: the same trajectory at any game frame rate, stable at any frame length.
    Exact,
    /// The seed after its fix: semi-implicit Euler, steps of at most 1/`substep_hz`, at most
    /// `max_substeps` a game frame, the rest of a long frame dropped.
    SeedFixed,
    /// The seed before its fix: the frame split into at most 4 steps, so a long frame takes long
    /// steps (and the springs diverge).
    Seed,
}

/// Where the support's acceleration comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Derivatives of the scripted motion, sampled on the simulation clock.
    Exact,
    /// The seed's finite differences of positions across game frames.
    Difference,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Worn on the carrier's back.
    Back,
    /// Standing on the ground, propped on its stick.
    Ground,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Sack,
    Crate,
    Bundle,
}

/// One damped spring set: the frame's sway or one load's pitch, roll and lift.
#[derive(Clone, Debug, PartialEq)]
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
    /// Depth (along the carrier's forward axis), height, width, metres.
    pub size: [f64; 3],
    pub color: Srgb,
    pub shape: Shape,
}

#[derive(Clone, Debug, PartialEq)]
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

/// One part of the route.
#[derive(Clone, Debug, PartialEq)]
pub enum Leg {
    /// Walk in a straight line to (x, z), starting and stopping at rest.
    To { to: [f64; 2], cruise: f64 },
    /// Stand still.
    Wait(f64),
    /// Vanish and reappear at (x, z) at once.
    Teleport([f64; 2]),
}

#[derive(Clone, Debug, PartialEq)]
pub struct GaitSpec {
    /// Steps a second at cruise speed.
    pub step_hz: f64,
    /// Vertical bob once a step and lateral sway once a stride, metres at cruise speed.
    pub bob: f64,
    pub sway: f64,
    /// Forward lean per m/s² of acceleration, degrees.
    pub lean: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RouteSpec {
    pub start: [f64; 2],
    /// Heading at the start, degrees from +x toward +z.
    pub heading: f64,
    pub cruise: f64,
    /// Peak acceleration of a start or a stop, m/s².
    pub accel: f64,
    pub legs: Vec<Leg>,
    pub gait: GaitSpec,
}

/// A climb along +x: flat before `from`, `rise` metres higher after `to`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ramp {
    pub from: f64,
    pub to: f64,
    pub rise: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GroundSpec {
    pub ramp: Option<Ramp>,
    /// Checker square side, metres.
    pub grid: f64,
    pub colors: [Srgb; 2],
}

#[derive(Clone, Debug, PartialEq)]
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

#[derive(Clone, Debug, PartialEq)]
pub struct EventSpec {
    pub at: f64,
    pub kind: EventKind,
}

/// Which link values the strip chart draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trace {
    Pitch,
    Roll,
    Lift,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlotSpec {
    /// Seconds of history shown.
    pub seconds: f64,
    pub traces: Vec<Trace>,
    /// Fraction of the image height the chart takes.
    pub height: f64,
    pub labels: bool,
}

/// A camera that moves with the carrier: eye and target offsets from its ground position.
#[derive(Clone, Debug, PartialEq)]
pub struct FollowSpec {
    pub offset: [f64; 3],
    pub look: [f64; 3],
}

#[derive(Clone, Debug, PartialEq)]
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
    pub plot: Option<PlotSpec>,
    pub follow: Option<FollowSpec>,
    pub dust: bool,
    /// Translucent copies of the loads at their rest pose.
    pub ghost: bool,
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

impl KindTable for CargoSpec {
    const NAME: &'static str = "cargo";

    fn read(t: &TableReader, render: &RenderSpec) -> Self {
        read_cargo(t, render.duration())
    }

    fn memory(&self) -> (u64, String) {
        // spring state, the strip chart's history (a sample a game frame), the strap mesh
        let history = (self.game_hz * 60.0) as u64 * 64;
        (1 << 20 | history, format!("{} loads", self.links.len()))
    }
}

fn read_cargo(t: &TableReader, duration: f64) -> CargoSpec {
    let integrator = match t.choice("integrator", &["exact", "seed_fixed", "seed"]) {
        "seed" => Integrator::Seed,
        "seed_fixed" => Integrator::SeedFixed,
        _ => Integrator::Exact,
    };
    let input_default = if integrator == Integrator::Exact { "exact" } else { "difference" };
    let input = match t.raw("input") {
        None => input_default,
        Some(_) => t.choice("input", &["exact", "difference"]),
    };
    if input == "exact" && integrator != Integrator::Exact {
        t.error_at("input", "the seed's integrators take the seed's input: `input = \"difference\"` (or leave it out)");
    }
    let light_heavy = t.numbers("fill_light_heavy", [0.3, 0.8]);
    if !(light_heavy[0] >= 0.0 && light_heavy[1] <= 1.0 && light_heavy[0] < light_heavy[1]) {
        t.error_at("fill_light_heavy", "expected [light, heavy] fill ratios with 0 ≤ light < heavy ≤ 1");
    }
    let heavy_t = t.table("heavy");
    let heavy =
        [heavy_t.f64_in("frequency", 0.7, 0.05..4.0), heavy_t.f64_in("gain", 1.3, 0.0..10.0), heavy_t.f64_in("damping", 0.9, 0.05..4.0)];
    heavy_t.finish();
    let links = read_links(t);
    let names: Vec<String> = links.iter().map(|l| l.name.clone()).collect();
    let route = read_route(&t.table("route"));
    let transition = t.f64_in("transition", 1.0, 0.05..10.0);
    let events = read_events(t, &names, duration, transition);
    let wall_t = t.table("wall");
    let wall = [wall_t.f64_in("stiffness", 2.0, 0.0..20.0), wall_t.f64_in("damping", 1.0, 0.0..20.0)];
    wall_t.finish();
    CargoSpec {
        mode: if t.choice("mode", &["back", "ground"]) == "ground" { Mode::Ground } else { Mode::Back },
        fill: t.animated("fill", [0.3], 0.0..1.0),
        light_heavy,
        heavy,
        integrator,
        input: if input == "exact" { Input::Exact } else { Input::Difference },
        substep_hz: t.f64_in("substep_hz", 120.0, 30.0..10_000.0),
        max_substeps: t.int_in("max_substeps", 8, 1..=1000) as u32,
        game_hz: t.f64_in("game_hz", 60.0, 5.0..1000.0),
        teleport_speed: t.f64_in("teleport_speed", 20.0, 0.1..1e6),
        max_accel: t.f64_in("max_accel", 60.0, 0.1..1e6),
        reduced_input: t.f64_in("reduced_input", 0.3, 0.0..1.0),
        ground_reset: t.f64_in("ground_reset", 1.6, 0.0..60.0),
        reset_fade: t.f64_in("reset_fade", 0.4, 0.0..10.0),
        transition,
        wall,
        frame: read_frame(&t.table("frame")),
        links,
        route,
        ground: read_ground(&t.table("ground")),
        events,
        plot: read_plot(t),
        follow: read_follow(t),
        dust: t.bool("dust", true),
        ghost: t.bool("ghost", false),
    }
}

fn read_frame(f: &TableReader) -> FrameSpec {
    let spec = FrameSpec {
        frequency: f.f64_in("frequency", 1.6, 1e-3..100.0),
        damping: f.f64_in("damping", 0.4, 0.0..2.0),
        max_angle: f.f64_in("max_angle", 5.0, 0.0..45.0),
        gain: f.numbers("gain", [0.8, 0.8]),
        impulse: f.f64_in("impulse", 10.0, -1e3..1e3),
    };
    if spec.gain.iter().any(|g| !(0.0..=100.0).contains(g)) {
        f.error_at("gain", "frame gains are from 0 to 100 °/(m/s²)");
    }
    f.finish();
    spec
}

fn read_links(t: &TableReader) -> Vec<LinkSpec> {
    let tables = t.tables("link");
    if tables.is_empty() {
        return LINKS.iter().map(|d| default_link(d, d.name.to_string())).collect();
    }
    if tables.len() > 8 {
        t.error_at("link", "at most 8 loads");
    }
    let mut out: Vec<LinkSpec> = Vec::new();
    for (i, l) in tables.iter().enumerate().take(8) {
        let name = l.string("name").unwrap_or_else(|| LINKS.get(i).map_or(format!("load{i}"), |d| d.name.to_string()));
        let base = LINKS.iter().find(|d| d.name == name).unwrap_or(&LINKS[i.min(2)]);
        let mut link = default_link(base, name.clone());
        link.support = match l.string("support").as_deref() {
            None => base.support.filter(|&s| s < i),
            Some("root") => None,
            Some(s) => match out.iter().position(|o| o.name == s) {
                Some(k) => Some(k),
                None => {
                    l.error_at("support", format!("\"{s}\" is not an earlier load: name one listed above, or \"root\""));
                    None
                }
            },
        };
        link.frequency = l.f64_in("frequency", base.frequency, 1e-3..100.0);
        if link.frequency <= 0.0 {
            l.error_at("frequency", "a frequency must be above 0 Hz");
        }
        link.damping = l.f64_in("damping", base.damping, 0.0..2.0);
        link.pitch = l.numbers("pitch", base.pitch);
        if !(link.pitch[0] <= 0.0 && 0.0 <= link.pitch[1] && link.pitch[1] - link.pitch[0] <= 180.0) {
            l.error_at("pitch", "expected [most away from the back, most toward it] degrees, with min ≤ 0 ≤ max");
            link.pitch = base.pitch;
        }
        link.roll = l.f64_in("roll", base.roll, 0.0..90.0);
        link.lift = l.f64_in("lift", base.lift, 0.0..100.0);
        link.gain = l.numbers("gain", base.gain);
        if link.gain.iter().any(|g| !(0.0..=100.0).contains(g)) {
            l.error_at("gain", "gains are from 0 to 100 (°/(m/s²) for pitch and roll, cm/(m/s²) for lift)");
            link.gain = base.gain;
        }
        link.size = l.numbers("size", base.size);
        if link.size.iter().any(|s| !(0.02..=3.0).contains(s)) {
            l.error_at("size", "sides are from 0.02 to 3 metres");
            link.size = base.size;
        }
        link.color = l.color("color", link.color);
        link.shape = match l.choice("shape", &["sack", "crate", "bundle"]) {
            "crate" => Shape::Crate,
            "bundle" => Shape::Bundle,
            _ if l.has("shape") => Shape::Sack,
            _ => base.shape,
        };
        if out.iter().any(|o| o.name == name) {
            l.error_at("name", format!("two loads are named \"{name}\""));
        }
        l.finish();
        out.push(link);
    }
    out
}

fn default_link(d: &LinkDefault, name: String) -> LinkSpec {
    LinkSpec {
        name,
        support: d.support,
        frequency: d.frequency,
        damping: d.damping,
        pitch: d.pitch,
        roll: d.roll,
        lift: d.lift,
        gain: d.gain,
        size: d.size,
        color: d.color,
        shape: d.shape,
    }
}

fn read_route(r: &TableReader) -> RouteSpec {
    let cruise = r.f64_in("cruise", 1.4, 0.05..20.0);
    let gait_t = r.table("gait");
    let gait = GaitSpec {
        step_hz: gait_t.f64_in("step_hz", 1.9, 0.1..10.0),
        bob: gait_t.f64_in("bob", 0.02, 0.0..0.3),
        sway: gait_t.f64_in("sway", 0.02, 0.0..0.3),
        lean: gait_t.f64_in("lean", 1.5, 0.0..20.0),
    };
    gait_t.finish();
    let mut legs = Vec::new();
    for l in r.tables("legs") {
        let n = ["to", "wait", "teleport"].iter().filter(|k| l.has(k)).count();
        if n != 1 {
            l.error_here("a leg is one of { to = [x, z] }, { wait = seconds } or { teleport = [x, z] }");
        }
        if l.has("to") {
            legs.push(Leg::To { to: l.numbers("to", [0.0, 0.0]), cruise: l.f64_in("cruise", cruise, 0.05..20.0) });
        } else if l.has("wait") {
            legs.push(Leg::Wait(l.f64_in("wait", 1.0, 0.0..1e5)));
        } else if l.has("teleport") {
            legs.push(Leg::Teleport(l.numbers("teleport", [0.0, 0.0])));
        }
        l.finish();
    }
    let start = r.numbers("start", [0.0, 0.0]);
    let mut at = start;
    for (i, leg) in legs.iter().enumerate() {
        match leg {
            Leg::To { to, .. } if (to[0] - at[0]).hypot(to[1] - at[1]) < 1e-3 => {
                r.error_at("legs", format!("leg {i} goes nowhere: it ends where it starts ({:.2}, {:.2})", at[0], at[1]));
            }
            Leg::To { to, .. } | Leg::Teleport(to) => at = *to,
            Leg::Wait(_) => {}
        }
    }
    let spec = RouteSpec {
        start,
        heading: r.f64_in("heading", 0.0, -360.0..360.0),
        cruise,
        accel: r.f64_in("accel", 1.8, 0.05..100.0),
        legs,
        gait,
    };
    r.finish();
    spec
}

fn read_ground(g: &TableReader) -> GroundSpec {
    let ramp = g.has("ramp").then(|| {
        let r = g.table("ramp");
        let ramp =
            Ramp { from: r.f64_in("from", 0.0, -1e4..1e4), to: r.f64_in("to", 1.0, -1e4..1e4), rise: r.f64_in("rise", 0.5, -100.0..100.0) };
        if ramp.to - ramp.from < 1.0 {
            r.error_here("a ramp runs at least 1 m: `to` must be 1 or more above `from`");
        }
        if ramp.rise.abs() > 0.5 * (ramp.to - ramp.from) {
            r.error_at("rise", "a ramp steeper than 1 in 2 cannot be walked");
        }
        r.finish();
        ramp
    });
    let spec = GroundSpec {
        ramp,
        grid: g.f64_in("grid", 0.5, 0.05..100.0),
        colors: [g.color("color", crate::srgb!("#c9c2b2")), g.color("color2", crate::srgb!("#b3ab99"))],
    };
    g.finish();
    spec
}

fn read_events(t: &TableReader, names: &[String], duration: f64, transition: f64) -> Vec<EventSpec> {
    let mut out = Vec::new();
    let mut last = f64::NEG_INFINITY;
    // where the jige is (from `mode`) and when it was last moved, to check put-downs and pick-ups
    let mut grounded = t.raw("mode").and_then(|v| v.get_ref().as_str().map(|m| m == "ground")).unwrap_or(false);
    let mut moved = f64::NEG_INFINITY;
    for e in t.tables("event") {
        let at = e.f64_in("at", 0.0, 0.0..1e5);
        if !e.has("at") {
            e.error_here("an event needs `at` (seconds)");
        }
        if at < last {
            e.error_at("at", format!("events are listed in time order: {at} s comes after {last} s"));
        }
        if at > duration {
            e.error_at("at", format!("{at} s is after the scene's end ({duration} s)"));
        }
        last = at;
        if !e.has("kind") {
            e.error_here("an event needs `kind`: load, action, hitch, put_down or pick_up");
        }
        let kind = match e.choice("kind", &["load", "action", "hitch", "put_down", "pick_up"]) {
            _ if !e.has("kind") => EventKind::Action { duration: 0.0 },
            "load" => {
                let name = e.string("link").unwrap_or_default();
                let link = names.iter().position(|n| *n == name).unwrap_or_else(|| {
                    e.error_at("link", format!("\"{name}\" is not a load: one of {}", names.join(", ")));
                    0
                });
                let imp = e.table("impulse");
                let impulse =
                    [imp.f64_in("pitch", 25.0, -1e3..1e3), imp.f64_in("roll", 8.0, -1e3..1e3), imp.f64_in("lift", 0.15, -10.0..10.0)];
                imp.finish();
                let fill = e.has("fill").then(|| e.f64_in("fill", 0.5, 0.0..1.0));
                EventKind::Load { link, fill, impulse }
            }
            "action" => EventKind::Action { duration: e.f64_in("duration", 0.7, 0.0..1e4) },
            "hitch" => EventKind::Hitch { dt: e.f64_in("dt", 1.0 / 3.0, 1e-3..10.0), count: e.int_in("count", 1, 1..=1000) as u32 },
            swap => {
                let down = swap == "put_down";
                if down == grounded {
                    let (now, then) = if grounded { ("on the ground", "pick_up") } else { ("on the back", "put_down") };
                    e.error_at("kind", format!("the jige is {now} at {at} s: the next swap is a `{then}`"));
                } else if at < moved + transition {
                    let until = moved + transition;
                    e.error_at("at", format!("the previous put-down or pick-up takes until {until:.2} s (`transition` = {transition} s)"));
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

fn read_plot(t: &TableReader) -> Option<PlotSpec> {
    if !t.has("plot") {
        return None;
    }
    let p = t.table("plot");
    let mut traces = Vec::new();
    if let Some(v) = p.raw("traces") {
        match v.get_ref().as_array() {
            Some(items) => {
                for item in items.iter() {
                    match item.get_ref().as_str() {
                        Some("pitch") => traces.push(Trace::Pitch),
                        Some("roll") => traces.push(Trace::Roll),
                        Some("lift") => traces.push(Trace::Lift),
                        _ => p.error_at("traces", "traces are \"pitch\", \"roll\" and \"lift\""),
                    }
                }
            }
            None => p.error_at("traces", "expected an array such as [\"pitch\", \"lift\"]"),
        }
    } else {
        traces = vec![Trace::Pitch, Trace::Lift];
    }
    if traces.is_empty() {
        p.error_at("traces", "name at least one trace");
    }
    let spec = PlotSpec {
        seconds: p.f64_in("seconds", 4.0, 0.5..600.0),
        traces,
        height: p.f64_in("height", 0.3, 0.1..0.8),
        labels: p.bool("labels", true),
    };
    p.finish();
    Some(spec)
}

fn read_follow(t: &TableReader) -> Option<FollowSpec> {
    if !t.has("follow") {
        return None;
    }
    let f = t.table("follow");
    let spec = FollowSpec { offset: f.numbers("offset", [0.0, 1.6, 4.2]), look: f.numbers("look", [0.0, 1.1, 0.0]) };
    f.finish();
    Some(spec)
}
