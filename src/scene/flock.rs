//! `[flock]`: 2-D autonomous agents working a graph of nodes (seed 004): counts, steering constants,
//! state-machine timings, the scripted cursor and clicks, theme, reduced motion. Canvas units are
//! the scene's pixels unless `canvas` says otherwise; y points down; times are seconds.

use super::common::RenderSpec;
use super::kind::KindTable;
use super::reader::TableReader;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

/// How many of something: a number, or scaled with the canvas area.
#[derive(Clone, Copy, Debug, PartialEq)]
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

#[derive(Clone, Debug, PartialEq)]
pub struct FlockSpec {
    /// Logical canvas size (default: the render size).
    pub canvas: [f64; 2],
    pub theme: Theme,
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
    pub shock_radius: f64,
    pub shock_strength: f64,
    pub packet_speed: f64,
    /// Positions kept per agent for its trail.
    pub trail: u32,
    /// Simulation steps per second (fixed step).
    pub step_hz: u32,
    /// Draw one still frame of the graph instead of animating (the seed's prefers-reduced-motion).
    pub reduced_motion: bool,
    pub show_trails: bool,
    pub show_paths: bool,
    /// Cursor keyframes: (time, x, y), linear in between; before the first and after the last the
    /// cursor rests there.
    pub cursor: Vec<[f64; 3]>,
    /// Clicks: (time, x, y); a click written as [time] happens at the cursor.
    pub clicks: Vec<(f64, Option<[f64; 2]>)>,
}

/// Largest agent count a scene may ask for (memory grows by about 300 bytes an agent).
pub const MAX_AGENTS: i64 = 2_000_000;
/// Largest node count: generated nodes are placed by best-candidate sampling, O(n²).
pub const MAX_NODES: i64 = 2_000;

fn count(t: &TableReader, key: &'static str, per_area: f64, max: i64) -> Count {
    match t.raw(key).map(|v| v.get_ref().as_str().map(str::to_string)) {
        Some(Some(s)) if s == "auto" => Count::PerArea(per_area),
        Some(Some(s)) => {
            t.error_at(key, format!("\"{s}\" is not a count: use a number or \"auto\""));
            Count::PerArea(per_area)
        }
        Some(None) => Count::Fixed(t.int_in(key, 1, 0..=max) as u32),
        None => Count::PerArea(per_area),
    }
}

impl KindTable for FlockSpec {
    const NAME: &'static str = "flock";

    fn read(t: &TableReader, render: &RenderSpec) -> Self {
        read_flock(t, render.width, render.height)
    }

    fn memory(&self) -> (u64, String) {
        let area = self.canvas[0] * self.canvas[1];
        let agents = self.agents.resolve(area, 1, MAX_AGENTS as u32) as u64;
        // agent state, trail ring, and the shapes of a frame (trail segments dominate)
        let trail = if self.show_trails { self.trail as u64 } else { 0 };
        let per_agent = 64 + 8 * trail + 96 * (trail + 3);
        (agents * per_agent, format!("{agents} agents"))
    }
}

fn read_flock(t: &TableReader, width: u32, height: u32) -> FlockSpec {
    let canvas = t.numbers("canvas", [width as f64, height as f64]);
    if canvas.iter().any(|c| !(16.0..=1e6).contains(c)) {
        t.error_at("canvas", "canvas sides are from 16 to 10⁶ units");
    }
    let range = |key: &'static str, default: [f64; 2]| {
        let r = t.numbers::<2>(key, default);
        if !(r[0] > 0.0 && r[1] >= r[0]) {
            t.error_at(key, "expected [shortest, longest] seconds, both positive");
            return default;
        }
        r
    };
    let node_list: Vec<[f64; 2]> = t
        .tables("node")
        .iter()
        .map(|n| {
            let p = [n.f64_in("x", 0.0, -1e6..1e6), n.f64_in("y", 0.0, -1e6..1e6)];
            if !n.has("x") || !n.has("y") {
                n.error_here("a node needs `x` and `y`");
            }
            n.finish();
            p
        })
        .collect();
    let edges: Vec<[u32; 2]> = t
        .rows("edges", 2, "a pair of node numbers [a, b]")
        .into_iter()
        .filter_map(|e| {
            let ok = e.iter().all(|&v| v >= 0.0 && v.fract() == 0.0 && (v as usize) < node_list.len());
            if !ok {
                t.error_at("edges", format!("edges join listed nodes, numbered 0 to {}", node_list.len().saturating_sub(1)));
            }
            ok.then(|| [e[0] as u32, e[1] as u32])
        })
        .collect();
    let cursor: Vec<[f64; 3]> = t.rows("cursor", 3, "[time, x, y]").into_iter().map(|p| [p[0], p[1], p[2]]).collect();
    if cursor.windows(2).any(|w| w[1][0] <= w[0][0]) {
        t.error_at("cursor", "cursor keyframe times must increase");
    }
    let clicks = t
        .rows("clicks", 0, "[time] or [time, x, y]")
        .into_iter()
        .filter_map(|c| match c.len() {
            1 => Some((c[0], None)),
            3 => Some((c[0], Some([c[1], c[2]]))),
            _ => {
                t.error_at("clicks", "each click is [time] (at the cursor) or [time, x, y]");
                None
            }
        })
        .collect();
    let max_speed = t.f64_in("max_speed", 80.0, 1e-3..1e6);
    let spec = FlockSpec {
        canvas,
        theme: if t.choice("theme", &["light", "dark"]) == "dark" { Theme::Dark } else { Theme::Light },
        agents: count(t, "agents", 40_000.0, MAX_AGENTS),
        nodes: count(t, "nodes", 110_000.0, MAX_NODES),
        node_list,
        edges,
        edges_per_node: t.int_in("edges_per_node", 2, 0..=16) as u32,
        max_speed,
        // With reactivity 3.2/s the approach is overdamped (no overshoot) while the arrival gain
        // max_speed / arrive_radius stays below 3.2 / 4 = 0.8 per second.
        arrive_radius: t.f64_in("arrive_radius", max_speed / 0.72, 1e-3..1e6),
        reactivity: t.f64_in("reactivity", 3.2, 1e-3..1e3),
        wander: t.f64_in("wander", 14.0, 0.0..1e6),
        orbit_radius: t.f64_in("orbit_radius", 22.0, 1e-3..1e6),
        work_time: range("work_time", [1.4, 3.2]),
        curious_time: range("curious_time", [1.6, 3.2]),
        lure_radius: t.f64_in("lure_radius", 150.0, 0.0..1e6),
        lure_rate: t.f64_in("lure_rate", 1.5, 0.0..1e3),
        cooldown: t.f64_in("cooldown", 2.5, 0.0..1e4),
        cursor_alive: t.f64_in("cursor_alive", 2.2, 0.0..1e4),
        cursor_smoothing: t.f64_in("cursor_smoothing", 8.0, 1e-3..1e3),
        separation_radius: t.f64_in("separation_radius", 16.0, 0.0..1e6),
        separation_strength: t.f64_in("separation_strength", 240.0, 0.0..1e7),
        shock_radius: t.f64_in("shock_radius", 260.0, 0.0..1e6),
        shock_strength: t.f64_in("shock_strength", 420.0, 0.0..1e7),
        packet_speed: t.f64_in("packet_speed", 240.0, 1e-3..1e6),
        trail: t.int_in("trail", 22, 0..=256) as u32,
        step_hz: t.int_in("step_hz", 60, 1..=2000) as u32,
        reduced_motion: t.bool("reduced_motion", false),
        show_trails: t.bool("trails", true),
        show_paths: t.bool("paths", true),
        cursor,
        clicks,
    };
    if spec.node_list.is_empty() && !spec.edges.is_empty() {
        t.error_at("edges", "`edges` need listed nodes ([[flock.node]])");
    }
    spec
}
