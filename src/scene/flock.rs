//! `[flock]`: 2-D autonomous agents working a graph of nodes (seed 004): counts, steering constants,
//! state-machine timings, the scripted cursor and clicks, theme, reduced motion. Canvas units are
//! the scene's pixels unless `canvas` says otherwise; y points down; times are seconds.

use super::common::RenderSpec;
use super::keys::{Key, Table, Ty};
use super::kind_tables::{FrameSize, KindTable, Load};
use super::reader::TableReader;
use super::values::Srgb;
use crate::portable;

/// A count: a number, or "auto" (scaled with the canvas area).
const AGENT_COUNT: Key = Key::int("agents", 1, 0, MAX_AGENTS);
const NODE_COUNT: Key = Key::int("nodes", 1, 0, MAX_NODES);

const CANVAS: Key =
    Key::vector("canvas", &[640.0, 480.0], 16.0, 1e6).said("the render's size").doc("the logical canvas the agents move on");
const THEME: Key = Key::choice("theme", &["light", "dark"]).doc("colours: light or dark");
const AGENTS: Key = Key::of("agents", Ty::Either(&[AGENT_COUNT.ty, Ty::Choice(&["auto"])]))
    .said("\"auto\": one per 40 000 square units")
    .doc("how many agents");
const NODES: Key = Key::of("nodes", Ty::Either(&[NODE_COUNT.ty, Ty::Choice(&["auto"])]))
    .said("\"auto\": one per 110 000 square units")
    .doc("how many nodes the graph has (unless listed)");
const X: Key = Key::float("x", 0.0, -1e6, 1e6).required().doc("across, canvas units");
const Y: Key = Key::float("y", 0.0, -1e6, 1e6).required().doc("down, canvas units");
const NODE: Table = Table::new("a node of the graph, placed by hand", &[X, Y]);
const NODE_KEY: Key = Key::tables("node", &NODE).doc("nodes placed by hand (instead of generated)");
const EDGES: Key = Key::of("edges", Ty::Rows(&[2])).doc("edges between listed nodes, [a, b] (numbered from 0)");
const EDGES_PER_NODE: Key = Key::int("edges_per_node", 2, 0, 16).doc("each generated node links to this many nearest neighbours");
const MAX_SPEED: Key = Key::float("max_speed", 80.0, 1e-3, 1e6).unit("units/s").doc("fastest an agent moves");
const ARRIVE_RADIUS: Key = Key::float("arrive_radius", 111.1, 1e-3, 1e6)
    .said("max_speed / 0.72")
    .unit("units")
    .doc("inside it the desired speed falls in proportion (arrival)");
const REACTIVITY: Key = Key::float("reactivity", 3.2, 1e-3, 1e3).unit("1/s").doc("how fast velocity follows the desired velocity");
const WANDER: Key = Key::float("wander", 14.0, 0.0, 1e6).unit("units/s").doc("strength of the wander while seeking");
const ORBIT_RADIUS: Key =
    Key::float("orbit_radius", 22.0, 1e-3, 1e6).unit("units").doc("radius of the orbit an agent flies around the node it works at");
const WORK_TIME: Key = Key::vector("work_time", &[1.4, 3.2], 1e-6, 1e6).unit("s").doc("[shortest, longest] time an agent works a node");
const CURIOUS_TIME: Key =
    Key::vector("curious_time", &[1.6, 3.2], 1e-6, 1e6).unit("s").doc("[shortest, longest] time an agent stays curious");
const LURE_RADIUS: Key = Key::float("lure_radius", 150.0, 0.0, 1e6).unit("units").doc("the live cursor lures agents within this distance");
const LURE_RATE: Key =
    Key::float("lure_rate", 1.5, 0.0, 1e3).unit("1/s").doc("chance per second of turning curious within the lure radius");
const COOLDOWN: Key = Key::float("cooldown", 2.5, 0.0, 1e4).unit("s").doc("after being curious, an agent is not lured again for this long");
const CURSOR_ALIVE: Key =
    Key::float("cursor_alive", 2.2, 0.0, 1e4).unit("s").doc("the cursor counts as alive this long after it last moved");
const CURSOR_SMOOTHING: Key = Key::float("cursor_smoothing", 8.0, 1e-3, 1e3).unit("1/s").doc("exponential smoothing rate of the cursor");
const SEPARATION_RADIUS: Key = Key::float("separation_radius", 16.0, 0.0, 1e6).unit("units").doc("agents push apart within this distance");
const NEIGHBOURS: Key = Key::int("neighbours", 7, 1, 64).doc(
    "separation heeds at most this many nearest agents within its radius (starlings heed about seven, whatever the flock's density), so a denser crowd costs no more an agent",
);
const SEPARATION_STRENGTH: Key = Key::float("separation_strength", 240.0, 0.0, 1e7).unit("units/s²").doc("how hard agents push apart");
const SHOCK_RADIUS: Key = Key::float("shock_radius", 260.0, 0.0, 1e6).unit("units").doc("a click pushes agents within this distance");
const SHOCK_STRENGTH: Key = Key::float("shock_strength", 420.0, 0.0, 1e7).unit("units/s").doc("how hard a click pushes");
const PACKET_SPEED: Key =
    Key::float("packet_speed", 240.0, 1e-3, 1e6).unit("units/s").doc("speed of a packet along an edge after work is done");
const TRAIL: Key = Key::int("trail", 22, 0, 256).doc("positions kept per agent for its trail");
const STEP_HZ: Key = Key::int("step_hz", 60, 1, 2000).unit("steps/s").doc("simulation steps a second");
const REDUCED_MOTION: Key =
    Key::flag("reduced_motion", false).doc("one still frame of the graph instead of the animation (prefers-reduced-motion)");
const TRAILS: Key = Key::flag("trails", true).doc("draw the agents' trails");
const BACKGROUND: Key = Key::color("background", crate::srgb!("#f6f7f9"))
    .said("the theme's: #f6f7f9 light, #0e1117 dark")
    .doc("the canvas's colour, over the theme's (\"#ffffff\" to match a white page)");
const LEGEND: Key = Key::choice("legend", super::common::CORNERS)
    .doc("a legend of what the agents' colours mean (seeking, working, curious, with how many), in that corner of the canvas");
const PATHS: Key = Key::flag("paths", true).doc("draw a dashed line from each seeking agent to its target node");
const CURSOR_LOOK: Key = Key::choice("cursor_look", &["subtle", "visible"])
    .doc("how the live cursor is drawn: \"subtle\" (a thin ring, its lure radius faint) or \"visible\" (a bold ring and dot on a halo, the lure radius clear, for readers who cannot see a pointer)");
const CURSOR: Key =
    Key::of("cursor", Ty::Rows(&[3])).doc("cursor keyframes [time, x, y], linear in between; it rests before the first and after the last");
const CLICKS: Key = Key::of("clicks", Ty::Rows(&[1, 3])).doc("clicks [time] (at the cursor) or [time, x, y]");
const POINTER: Key = Key::of("pointer", Ty::Rows(&[3])).doc(
    "a reader's pointer as the web player recorded it (\"save this take\"): [time, x, y], each held until the next; from its first time on it is the cursor",
);

/// `[flock]`.
const FLOCK: Table = Table::new(
    "2-D agents working a graph of nodes, lured by a scripted cursor",
    &[
        CANVAS,
        THEME,
        AGENTS,
        NODES,
        NODE_KEY,
        EDGES,
        EDGES_PER_NODE,
        MAX_SPEED,
        ARRIVE_RADIUS,
        REACTIVITY,
        WANDER,
        ORBIT_RADIUS,
        WORK_TIME,
        CURIOUS_TIME,
        LURE_RADIUS,
        LURE_RATE,
        COOLDOWN,
        CURSOR_ALIVE,
        CURSOR_SMOOTHING,
        SEPARATION_RADIUS,
        NEIGHBOURS,
        SEPARATION_STRENGTH,
        SHOCK_RADIUS,
        SHOCK_STRENGTH,
        PACKET_SPEED,
        TRAIL,
        STEP_HZ,
        REDUCED_MOTION,
        TRAILS,
        BACKGROUND,
        LEGEND,
        PATHS,
        CURSOR_LOOK,
        CURSOR,
        CLICKS,
        POINTER,
    ],
);

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Theme {
    Light,
    Dark,
}

/// How many of something: a number, or scaled with the canvas area.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum Count {
    Fixed(u32),
    /// One per this many square canvas units.
    PerArea(f64),
}

impl Count {
    pub fn resolve(self, area: f64, min: u32, max: u32) -> u32 {
        match self {
            Count::Fixed(n) => n,
            Count::PerArea(a) => ((area / a).round() as u32).clamp(min, max),
        }
    }
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FlockSpec {
    /// Logical canvas size (default: the render size).
    pub canvas: [f64; 2],
    pub agents: Count,
    pub nodes: Count,
    /// Explicit node positions (replace the generated ones).
    pub node_list: Vec<[f64; 2]>,
    /// Explicit edges between listed nodes; otherwise each node links to its nearest neighbours.
    pub edges: Vec<[u32; 2]>,
    pub edges_per_node: u32,
    /// Canvas units per second.
    pub max_speed: f64,
    /// Inside this distance the desired speed falls in proportion (arrival).
    pub arrive_radius: f64,
    /// Velocity follows the desired velocity at this rate (1/s): v += (desired − v)·min(1, rate·dt).
    pub reactivity: f64,
    pub wander: f64,
    pub orbit_radius: f64,
    pub work_time: [f64; 2],
    pub curious_time: [f64; 2],
    pub lure_radius: f64,
    /// Chance per second of turning curious while the live cursor is within the lure radius.
    pub lure_rate: f64,
    pub cooldown: f64,
    /// The cursor counts as alive this long after it last moved.
    pub cursor_alive: f64,
    /// Exponential smoothing rate of the cursor (s += (x − s)·rate·dt).
    pub cursor_smoothing: f64,
    pub separation_radius: f64,
    pub separation_strength: f64,
    /// Separation heeds at most this many nearest agents.
    pub neighbours: u32,
    pub shock_radius: f64,
    pub shock_strength: f64,
    pub packet_speed: f64,
    /// Positions kept per agent for its trail.
    pub trail: u32,
    /// Simulation steps per second (fixed step).
    pub step_hz: u32,
    /// Draw one still frame of the graph instead of animating (the seed's prefers-reduced-motion).
    pub reduced_motion: bool,
    /// Cursor keyframes: (time, x, y), linear in between; before the first and after the last the
    /// cursor rests there.
    pub cursor: Vec<[f64; 3]>,
    /// Clicks: (time, x, y); a click written as [time] happens at the cursor.
    pub clicks: Vec<(f64, Option<[f64; 2]>)>,
    /// A reader's pointer (time, x, y), recorded by the web player: held from each key to the
    /// next (a page samples its pointer once a frame); from the first key on it is the cursor.
    pub pointer: Vec<[f64; 3]>,
}

/// An agent's disc, a seeking agent's dashed path to its target and its trail's segments, canvas
/// units: as the flock is drawn, and as its cost is estimated.
pub const AGENT_RADIUS: f32 = 3.2;
pub const PATH_WIDTH: f32 = 1.1;
pub const TRAIL_WIDTH: f32 = 2.0;

/// Largest agent count a scene may ask for (memory grows by about 300 bytes an agent).
pub const MAX_AGENTS: i64 = 2_000_000;
/// Largest node count: generated nodes are placed by best-candidate sampling, O(n²).
pub const MAX_NODES: i64 = 2_000;

/// A count at `key` (read as `number`: its range), or "auto": one per `per_area`.
fn count(t: &TableReader, key: &Key, number: &Key, per_area: f64) -> Count {
    match t.raw(key).map(|v| v.get_ref().as_str().map(str::to_string)) {
        Some(Some(s)) if s == "auto" => Count::PerArea(per_area),
        Some(Some(s)) => {
            t.error_at(key, format!("\"{s}\" is not a count: use a number or \"auto\""));
            Count::PerArea(per_area)
        }
        Some(None) => Count::Fixed(t.int(number) as u32),
        None => Count::PerArea(per_area),
    }
}

/// What only the flock's drawing reads.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FlockLook {
    pub theme: Theme,
    /// Draw the trails the simulation keeps.
    pub show_trails: bool,
    /// Draw a dashed line from each seeking agent to its target node.
    pub show_paths: bool,
    /// Draw the live cursor bold, on a halo (`cursor_look = "visible"`).
    pub visible_cursor: bool,
    /// The corner of the canvas the legend of the states' colours stands in, if any.
    pub legend: Option<Corner>,
    /// The canvas's colour, where the scene gives one over the theme's.
    pub background: Option<Srgb>,
}

pub use crate::frame::Corner;

impl KindTable for FlockSpec {
    const NAME: &'static str = "flock";
    const TABLE: &'static Table = &FLOCK;

    type Look = FlockLook;

    fn read(t: &TableReader, render: &RenderSpec) -> (Self, FlockLook) {
        read_flock(t, render.width, render.height)
    }

    fn frame_cost(&self, _: &FlockLook) -> (f64, f64) {
        // flock_crowd: 21 ms drawing at 960×540 (its canvas over the gradient, not multisampled);
        // the agents are its `load`
        (45.0, 0.0)
    }

    fn load(&self, look: &FlockLook, at: FrameSize) -> Load {
        use crate::frame::shape_quad;
        let agents = self.agents.resolve(self.canvas[0] * self.canvas[1], 1, MAX_AGENTS as u32) as f64;
        let scale = (at.width as f64 / self.canvas[0]).min(at.height as f64 / self.canvas[1]);
        let diagonal = portable::hypot(self.canvas[0], self.canvas[1]);
        let steps = self.step_hz as f64 / at.fps.max(1e-3);
        // each agent's disc; a path to its target (seeking agents, most of them: all counted) of
        // the mean distance between two points of the canvas, about 0.37 of its diagonal; a
        // trail of segments one step long
        let mut quads = vec![(1.0, shape_quad(0.0, 2.0 * AGENT_RADIUS as f64, scale))];
        if look.show_paths {
            quads.push((1.0, shape_quad(0.37 * diagonal, PATH_WIDTH as f64, scale)));
        }
        if look.show_trails && self.trail > 1 {
            let step = (self.max_speed / self.step_hz as f64).min(diagonal);
            quads.push(((self.trail - 1) as f64, shape_quad(step, TRAIL_WIDTH as f64, scale)));
        }
        let sum = |f: &dyn Fn(f64, [f64; 2]) -> f64| agents * quads.iter().map(|&(n, q)| f(n, q)).sum::<f64>();
        Load {
            shapes: sum(&|n, _| n),
            shape_pixels: sum(&|n, q| n * q[0]),
            shape_edges: sum(&|n, q| n * q[1]),
            // 0.6 µs an agent a step (flock_crowd: 4.7 ms stepping 4 000 agents twice a frame)
            simulate_ms: agents * steps * 0.6e-3,
            what: format!("{} agents", crate::text::number(agents)),
        }
    }

    fn memory(&self, look: &FlockLook) -> (u64, String) {
        let area = self.canvas[0] * self.canvas[1];
        let agents = self.agents.resolve(area, 1, MAX_AGENTS as u32) as u64;
        // agent state and its neighbour grid, the trail ring, and the shapes of a frame (trail
        // segments dominate). Measured with this build: a million agents without trails peaked at
        // 2.1 GB resident (about 1,100 bytes an agent besides its 3 shapes), 200,000 with the
        // default trail at 2.0 GB (25 shapes an agent); a shape lives in about four frames in
        // flight and once more in the renderer's vertex buffers: 350 bytes in all
        const AGENT: u64 = 1_100;
        const SHAPE: u64 = 350;
        let drawn = if look.show_trails { self.trail as u64 } else { 0 };
        let per_agent = AGENT + 8 * self.trail as u64 + SHAPE * (drawn + 3);
        (agents * per_agent, format!("{agents} agents"))
    }
}

fn read_flock(t: &TableReader, width: u32, height: u32) -> (FlockSpec, FlockLook) {
    let canvas = t.numbers_or(&CANVAS, [width as f64, height as f64]);
    let range = |key: &Key| {
        let r = t.numbers::<2>(key);
        if !(r[0] > 0.0 && r[1] >= r[0]) {
            t.error_at(key, "expected [shortest, longest] seconds, both positive");
            return key.default_numbers();
        }
        r
    };
    let node_list: Vec<[f64; 2]> = t
        .tables(&NODE_KEY)
        .iter()
        .map(|n| {
            let p = [n.float(&X), n.float(&Y)];
            if !n.has(&X) || !n.has(&Y) {
                n.error_here("a node needs `x` and `y`");
            }
            n.finish();
            p
        })
        .collect();
    let edges: Vec<[u32; 2]> = t
        .rows(&EDGES, "a pair of node numbers [a, b]")
        .into_iter()
        .filter_map(|e| {
            let ok = e.iter().all(|&v| v >= 0.0 && v.fract() == 0.0 && (v as usize) < node_list.len());
            if !ok {
                t.error_at(&EDGES, format!("edges join listed nodes, numbered 0 to {}", node_list.len().saturating_sub(1)));
            }
            ok.then(|| [e[0] as u32, e[1] as u32])
        })
        .collect();
    let cursor: Vec<[f64; 3]> = t.rows(&CURSOR, "[time, x, y]").into_iter().map(|p| [p[0], p[1], p[2]]).collect();
    if cursor.windows(2).any(|w| w[1][0] <= w[0][0]) {
        t.error_at(&CURSOR, "cursor keyframe times must increase");
    }
    let pointer: Vec<[f64; 3]> = t.rows(&POINTER, "[time, x, y]").into_iter().map(|p| [p[0], p[1], p[2]]).collect();
    if pointer.windows(2).any(|w| w[1][0] <= w[0][0]) {
        t.error_at(&POINTER, "pointer times must increase");
    }
    let clicks = t
        .rows(&CLICKS, "[time] or [time, x, y]")
        .into_iter()
        .filter_map(|c| match c.len() {
            1 => Some((c[0], None)),
            3 => Some((c[0], Some([c[1], c[2]]))),
            _ => {
                t.error_at(&CLICKS, "each click is [time] (at the cursor) or [time, x, y]");
                None
            }
        })
        .collect();
    let max_speed = t.float(&MAX_SPEED);
    let spec = FlockSpec {
        canvas,
        agents: count(t, &AGENTS, &AGENT_COUNT, 40_000.0),
        nodes: count(t, &NODES, &NODE_COUNT, 110_000.0),
        node_list,
        edges,
        edges_per_node: t.int(&EDGES_PER_NODE) as u32,
        max_speed,
        // With reactivity 3.2/s the approach is overdamped (no overshoot) while the arrival gain
        // max_speed / arrive_radius stays below 3.2 / 4 = 0.8 per second.
        arrive_radius: t.float_or(&ARRIVE_RADIUS, max_speed / 0.72),
        reactivity: t.float(&REACTIVITY),
        wander: t.float(&WANDER),
        orbit_radius: t.float(&ORBIT_RADIUS),
        work_time: range(&WORK_TIME),
        curious_time: range(&CURIOUS_TIME),
        lure_radius: t.float(&LURE_RADIUS),
        lure_rate: t.float(&LURE_RATE),
        cooldown: t.float(&COOLDOWN),
        cursor_alive: t.float(&CURSOR_ALIVE),
        cursor_smoothing: t.float(&CURSOR_SMOOTHING),
        separation_radius: t.float(&SEPARATION_RADIUS),
        separation_strength: t.float(&SEPARATION_STRENGTH),
        neighbours: t.int(&NEIGHBOURS) as u32,
        shock_radius: t.float(&SHOCK_RADIUS),
        shock_strength: t.float(&SHOCK_STRENGTH),
        packet_speed: t.float(&PACKET_SPEED),
        trail: t.int(&TRAIL) as u32,
        step_hz: t.int(&STEP_HZ) as u32,
        reduced_motion: t.flag(&REDUCED_MOTION),
        cursor,
        clicks,
        pointer,
    };
    if spec.node_list.is_empty() && !spec.edges.is_empty() {
        t.error_at(&EDGES, "`edges` need listed nodes ([[flock.node]])");
    }
    let look = FlockLook {
        theme: if t.choice(&THEME) == "dark" { Theme::Dark } else { Theme::Light },
        show_trails: t.flag(&TRAILS),
        show_paths: t.flag(&PATHS),
        visible_cursor: t.choice(&CURSOR_LOOK) == "visible",
        background: t.has(&BACKGROUND).then(|| t.color(&BACKGROUND)),
        legend: super::common::corner(t.choice(&LEGEND)),
    };
    (spec, look)
}
