//! The `flock` scene kind (seed 004): small agents that pick a node, fly there, orbit it while
//! working (a progress ring fills), send a packet along an edge and a pulse when done, get lured
//! into orbits by a live cursor and scattered by clicks. Drawn as 2-D shapes over a dot grid.

pub mod graph;
pub mod grid;
mod snapshot;
pub mod steer;
#[cfg(test)]
mod tests;
pub mod world;

use crate::portable;
use std::sync::Arc;

use crate::frame::{Canvas2d, Dash, Fnv, FrameData, Shape2d, StaticLayer};
use crate::scene::flock::{AGENT_RADIUS, FlockLook, FlockSpec, PATH_WIDTH, TRAIL_WIDTH, Theme};
use crate::scene::values::Srgb;
use crate::sim::rng::Rng;
use crate::sim::{Drawing, KindPainter, KindSimulation, SimFault, SimInputs, Simulation, Stage, StateDigest};
use world::{PULSE_SECONDS, SHOCK_SECONDS, State, World};

/// Colours of a theme, linear RGB.
struct Palette {
    background: [f32; 3],
    dots: [f32; 3],
    edge: [f32; 3],
    node_fill: [f32; 3],
    node_ring: [f32; 3],
    seek: [f32; 3],
    work: [f32; 3],
    curious: [f32; 3],
    cursor: [f32; 3],
}

/// A colour of the code in linear RGB.
fn linear(c: Srgb) -> [f32; 3] {
    c.to_linear()
}

impl Palette {
    fn of(theme: Theme) -> Self {
        match theme {
            Theme::Light => Palette {
                background: linear(crate::srgb!("#f6f7f9")),
                dots: linear(crate::srgb!("#cfd5de")),
                edge: linear(crate::srgb!("#8e99ad")),
                node_fill: linear(crate::srgb!("#ffffff")),
                node_ring: linear(crate::srgb!("#7b869a")),
                seek: linear(crate::srgb!("#2f6fe4")),
                work: linear(crate::srgb!("#e48a06")),
                curious: linear(crate::srgb!("#d4357f")),
                cursor: linear(crate::srgb!("#3c465a")),
            },
            Theme::Dark => Palette {
                background: linear(crate::srgb!("#0e1117")),
                dots: linear(crate::srgb!("#252c39")),
                edge: linear(crate::srgb!("#7e899c")),
                node_fill: linear(crate::srgb!("#161b25")),
                node_ring: linear(crate::srgb!("#8f9ab0")),
                seek: linear(crate::srgb!("#5c9dff")),
                work: linear(crate::srgb!("#ffb13d")),
                curious: linear(crate::srgb!("#ff6cb0")),
                cursor: linear(crate::srgb!("#d7dce6")),
            },
        }
    }

    fn of_state(&self, s: State) -> [f32; 3] {
        match s {
            State::Seek => self.seek,
            State::Work => self.work,
            State::Curious => self.curious,
        }
    }
}

fn rgba(c: [f32; 3], a: f32) -> [f32; 4] {
    [c[0], c[1], c[2], a]
}

/// Sizes in canvas units.
const DOT_SPACING: f32 = 24.0;
const DOT_RADIUS: f32 = 1.1;
const NODE_RADIUS: f32 = 7.0;

pub struct FlockSim {
    spec: FlockSpec,
    timing: crate::scene::Timing,
    world: World,
    frame: u32,
    fault: Option<SimFault>,
}

impl KindSimulation for FlockSim {
    type Spec = FlockSpec;
    type Painter = FlockPainter;

    fn new(inputs: &SimInputs<FlockSpec>, _: crate::sim::Builder) -> Self {
        let (spec, seed) = (inputs.spec, inputs.seed);
        let canvas = spec.canvas.map(|c| c as f32);
        let area = spec.canvas[0] * spec.canvas[1];
        let (nodes, edges) = if spec.node_list.is_empty() {
            let n = spec.nodes.resolve(area, 3, crate::scene::flock::MAX_NODES as u32) as usize;
            let nodes = graph::spread_nodes(n, canvas, &mut Rng::stream(seed, "flock.nodes"));
            let edges = graph::nearest_edges(&nodes, spec.edges_per_node as usize);
            (nodes, edges)
        } else {
            let nodes: Vec<[f32; 2]> = spec.node_list.iter().map(|p| p.map(|c| c as f32)).collect();
            let edges = if spec.edges.is_empty() { graph::nearest_edges(&nodes, spec.edges_per_node as usize) } else { spec.edges.clone() };
            (nodes, edges)
        };
        let agents = spec.agents.resolve(area, 1, crate::scene::flock::MAX_AGENTS as u32) as usize;
        let mut world = World::new(spec, nodes, edges, agents, seed);
        if spec.reduced_motion {
            settle(&mut world);
        }
        FlockSim { spec: spec.clone(), timing: inputs.timing, world, frame: 0, fault: None }
    }
}

impl FlockSim {
    pub fn world(&self) -> &World {
        &self.world
    }

    /// For driving the world directly (tests, benchmarks).
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }
}

/// Draws a flock: its theme's colours, the dot grid, and which of the paths and trails show.
pub struct FlockPainter {
    stage: Stage,
    look: FlockLook,
    /// The logical canvas (the simulation's).
    canvas: [f64; 2],
    reduced_motion: bool,
    palette: Palette,
    grid_layer: StaticLayer,
}

impl KindPainter for FlockPainter {
    type Sim = FlockSim;

    fn new(sim: &FlockSim, drawing: &Drawing<FlockLook>, _: crate::sim::PainterBuilder) -> Self {
        let mut palette = Palette::of(drawing.kind.theme);
        if let Some(bg) = drawing.kind.background {
            palette.background = linear(bg);
        }
        let grid_layer = dot_grid(sim.spec.canvas.map(|c| c as f32), palette.dots);
        FlockPainter {
            stage: drawing.stage(),
            look: drawing.kind.clone(),
            canvas: sim.spec.canvas,
            reduced_motion: sim.spec.reduced_motion,
            palette,
            grid_layer,
        }
    }

    fn paint(&mut self, sim: &FlockSim, frame: u32) -> FrameData {
        let mut canvas = Canvas2d {
            size: self.canvas.map(|c| c as f32),
            static_layer: Some(self.grid_layer.clone()),
            shapes: self.draw(&sim.world),
            texts: Vec::new(),
        };
        if let Some(corner) = self.look.legend {
            self.legend(&sim.world, corner, &mut canvas);
        }
        let bg = self.palette.background;
        FrameData { background: crate::frame::Background { top: bg, bottom: bg }, ..self.stage.frame(frame, Vec::new(), Some(canvas)) }
    }
}

impl FlockPainter {
    /// A legend of the states' colours in `corner`: a dot, the state and how many agents are in
    /// it, on a card of the node's colour.
    fn legend(&self, w: &World, corner: crate::frame::Corner, canvas: &mut Canvas2d) {
        let p = &self.palette;
        let counts = w.state_counts();
        let rows = [(State::Seek, "seeking"), (State::Work, "working"), (State::Curious, "curious")];
        let entries: Vec<([f32; 4], String)> =
            rows.iter().map(|(s, name)| (rgba(p.of_state(*s), 1.0), format!("{name} {}", counts[*s as usize]))).collect();
        crate::frame::legend(canvas, corner, &entries, rgba(p.node_fill, 0.88), rgba(p.node_ring, 1.0));
    }

    fn draw(&self, w: &World) -> Vec<Shape2d> {
        let p = &self.palette;
        let shown_trail = if self.look.show_trails { w.trail_len } else { 0 };
        let mut shapes = Vec::with_capacity(w.edges.len() + w.agents.len() * (shown_trail + 3) + w.nodes.len() * 3);
        let t = w.time() as f32;
        for &[a, b] in &w.edges {
            let (a, b) = (w.nodes[a as usize], w.nodes[b as usize]);
            shapes.push(Shape2d::Line { a, b, width: 1.2, color_a: rgba(p.edge, 0.45), color_b: rgba(p.edge, 0.45), dash: None });
        }
        for pk in &w.packets {
            let (a, b) = (w.nodes[pk.from as usize], w.nodes[pk.to as usize]);
            let c = [a[0] + (b[0] - a[0]) * pk.progress, a[1] + (b[1] - a[1]) * pk.progress];
            shapes.push(Shape2d::Circle { center: c, radius: 7.0, color: rgba(p.work, 0.22) });
            shapes.push(Shape2d::Circle { center: c, radius: 3.0, color: rgba(p.work, 1.0) });
        }
        for pulse in &w.pulses {
            let u = pulse.age / PULSE_SECONDS;
            shapes.push(Shape2d::Arc {
                center: w.nodes[pulse.node as usize],
                radius: NODE_RADIUS + 4.0 + 30.0 * u,
                width: 2.5 * (1.0 - u) + 0.5,
                start: 0.0,
                sweep: std::f32::consts::TAU,
                color: rgba(p.work, 0.8 * (1.0 - u)),
            });
        }
        // Progress rings: the furthest worker at each node.
        let mut progress = vec![0.0f32; w.nodes.len()];
        for (i, a) in w.agents.iter().enumerate() {
            if let Some(pr) = w.progress(i) {
                let slot = &mut progress[a.target as usize];
                *slot = slot.max(pr);
            }
        }
        for (k, &n) in w.nodes.iter().enumerate() {
            shapes.push(Shape2d::Circle { center: n, radius: NODE_RADIUS, color: rgba(p.node_fill, 1.0) });
            shapes.push(Shape2d::Arc {
                center: n,
                radius: NODE_RADIUS,
                width: 2.0,
                start: 0.0,
                sweep: std::f32::consts::TAU,
                color: rgba(p.node_ring, 1.0),
            });
            if progress[k] > 0.0 {
                shapes.push(Shape2d::Arc {
                    center: n,
                    radius: NODE_RADIUS + 6.0,
                    width: 3.0,
                    start: -std::f32::consts::FRAC_PI_2,
                    sweep: progress[k] * std::f32::consts::TAU,
                    color: rgba(p.work, 0.95),
                });
            }
        }
        let animated = !self.reduced_motion;
        if animated && self.look.show_paths {
            for a in w.agents.iter().filter(|a| a.state == State::Seek) {
                let goal = w.nodes.get(a.target as usize).copied().unwrap_or(a.pos);
                let c = rgba(p.seek, 0.3);
                shapes.push(Shape2d::Line {
                    a: a.pos,
                    b: goal,
                    width: PATH_WIDTH,
                    color_a: c,
                    color_b: c,
                    dash: Some(Dash { on: 5.0, off: 6.0, phase: -24.0 * t }),
                });
            }
        }
        if animated && self.look.show_trails && w.trail_count > 1 {
            for (i, a) in w.agents.iter().enumerate() {
                let c = p.of_state(a.state);
                let n = w.trail_count;
                let pts: Vec<[f32; 2]> = w.trail_of(i).collect();
                for k in 1..n {
                    let (a0, a1) = ((k - 1) as f32 / (n - 1) as f32, k as f32 / (n - 1) as f32);
                    shapes.push(Shape2d::Line {
                        a: pts[k - 1],
                        b: pts[k],
                        width: TRAIL_WIDTH,
                        color_a: rgba(c, 0.45 * a0),
                        color_b: rgba(c, 0.45 * a1),
                        dash: None,
                    });
                }
            }
        }
        for a in &w.agents {
            shapes.push(Shape2d::Circle { center: a.pos, radius: AGENT_RADIUS, color: rgba(p.of_state(a.state), 1.0) });
        }
        if animated {
            for s in &w.shocks {
                let u = s.age / SHOCK_SECONDS;
                let ease = 1.0 - (1.0 - u) * (1.0 - u);
                shapes.push(Shape2d::Arc {
                    center: s.pos,
                    radius: 6.0 + w.params.shock_radius * ease,
                    width: 3.0 * (1.0 - u) + 0.5,
                    start: 0.0,
                    sweep: std::f32::consts::TAU,
                    color: rgba(p.cursor, 0.55 * (1.0 - u)),
                });
            }
            if w.cursor.alive {
                self.cursor(&mut shapes, w, p);
            }
        }
        shapes
    }
}

impl FlockPainter {
    /// The live cursor: its lure ring, a ring at the smoothed position and a dot at the raw one;
    /// drawn to be seen (`cursor_look = "visible"`), the lure ring is three times as strong and
    /// twice as wide, and the cursor a larger ring and dot on a halo of the background's colour,
    /// clear on either theme and over agents.
    fn cursor(&self, shapes: &mut Vec<Shape2d>, w: &World, p: &Palette) {
        let ring = |center: [f32; 2], radius: f32, width: f32, color: [f32; 4]| Shape2d::Arc {
            center,
            radius,
            width,
            start: 0.0,
            sweep: std::f32::consts::TAU,
            color,
        };
        let (c, raw) = (w.cursor.smooth, w.cursor.raw);
        let lure = w.params.lure_radius;
        if self.look.visible_cursor {
            shapes.push(ring(c, lure, 2.0, rgba(p.curious, 0.5)));
            shapes.push(ring(c, 11.0, 7.0, rgba(p.background, 0.85)));
            shapes.push(ring(c, 11.0, 3.0, rgba(p.cursor, 1.0)));
            shapes.push(Shape2d::Circle { center: raw, radius: 5.5, color: rgba(p.background, 0.85) });
            shapes.push(Shape2d::Circle { center: raw, radius: 3.5, color: rgba(p.curious, 1.0) });
        } else {
            shapes.push(ring(c, lure, 1.0, rgba(p.curious, 0.16)));
            shapes.push(ring(c, 8.0, 2.0, rgba(p.cursor, 0.9)));
            shapes.push(Shape2d::Circle { center: raw, radius: 2.0, color: rgba(p.cursor, 0.9) });
        }
    }
}

/// Reduced motion: every agent placed in orbit around its target node, at rest.
fn settle(w: &mut World) {
    let r = w.params.orbit_radius;
    let nodes = w.nodes.clone();
    for (i, a) in w.agents.iter_mut().enumerate() {
        let n = nodes.get(a.target as usize).copied().unwrap_or(a.pos);
        let ang = i as f32 * 2.399_963; // golden angle: workers at one node spread evenly
        a.pos = [n[0] + r * portable::cos(ang), n[1] + r * portable::sin(ang)];
        a.state = State::Work;
        a.duration = 1.0;
        a.timer = 0.0;
    }
}

/// The background dot grid: static, drawn once by the renderer and reused.
fn dot_grid(canvas: [f32; 2], color: [f32; 3]) -> StaticLayer {
    let mut shapes = Vec::new();
    let (cols, rows) = ((canvas[0] / DOT_SPACING) as i32, (canvas[1] / DOT_SPACING) as i32);
    let off = [(canvas[0] - cols as f32 * DOT_SPACING) / 2.0, (canvas[1] - rows as f32 * DOT_SPACING) / 2.0];
    for y in 0..=rows {
        for x in 0..=cols {
            shapes.push(Shape2d::Circle {
                center: [off[0] + x as f32 * DOT_SPACING, off[1] + y as f32 * DOT_SPACING],
                radius: DOT_RADIUS,
                color: rgba(color, 1.0),
            });
        }
    }
    let mut h = Fnv::new();
    for s in &shapes {
        s.hash_into(&mut h);
    }
    StaticLayer { key: h.finish(), shapes: Arc::new(shapes) }
}

impl Simulation for FlockSim {
    fn advance(&mut self, frame: u32) {
        self.frame = frame;
        if !self.spec.reduced_motion {
            self.world.advance_to(self.timing.time_of(frame));
        }
        if self.fault.is_none()
            && let Some(i) = self
                .world
                .agents
                .iter()
                .position(|a| !(a.pos[0].is_finite() && a.pos[1].is_finite() && a.vel[0].is_finite() && a.vel[1].is_finite()))
        {
            self.fault = Some(SimFault { frame, what: format!("agent {i} has a non-finite position or velocity") });
        }
    }

    fn fault(&self) -> Option<SimFault> {
        self.fault.clone()
    }

    fn snapshot(&self) -> Option<Vec<u8>> {
        if self.spec.reduced_motion {
            return None; // a still flock never steps: nothing to replay
        }
        let mut w = crate::sim::snapshot::Writer::new();
        w.u32(self.frame);
        self.world.snapshot(&mut w);
        Some(w.finish())
    }

    fn restore(&mut self, frame: u32, bytes: &[u8]) -> bool {
        let mut r = crate::sim::snapshot::Reader::new(bytes);
        if r.u32() != Some(frame) || self.fault.is_some() || !self.world.restore(&mut r, self.timing.time_of(frame)) {
            return false;
        }
        self.frame = frame;
        true
    }

    fn digest(&self) -> StateDigest {
        let w = &self.world;
        let mut h = Fnv::new();
        for a in &w.agents {
            h.f32s(&a.pos);
            h.f32s(&a.vel);
            h.f32s(&[a.timer, a.duration, a.cooldown, a.orbit_angle]);
            h.bytes(&[a.state as u8]);
            h.bytes(&a.target.to_le_bytes());
        }
        let counts = w.state_counts();
        h.bytes(&w.steps().to_le_bytes());
        // what is in flight: each item tagged, none when there are none (a flock between
        // deliveries keeps the hash it had before these were counted)
        for p in &w.packets {
            h.bytes(b"p");
            h.bytes(&p.from.to_le_bytes());
            h.bytes(&p.to.to_le_bytes());
            h.f32s(&[p.progress, p.speed]);
        }
        for p in &w.pulses {
            h.bytes(b"u");
            h.bytes(&p.node.to_le_bytes());
            h.f32s(&[p.age]);
        }
        for s in &w.shocks {
            h.bytes(b"s");
            h.f32s(&s.pos);
            h.f32s(&[s.age]);
        }
        // the agents' positions packed (one pass over them; the spacing reads them several times)
        let mut speed = 0.0;
        let xy: Vec<[f32; 2]> = w
            .agents
            .iter()
            .map(|a| {
                speed += ((a.vel[0] * a.vel[0] + a.vel[1] * a.vel[1]) as f64).sqrt();
                a.pos
            })
            .collect();
        let speed = if xy.is_empty() { 0.0 } else { speed / xy.len() as f64 };
        StateDigest {
            hash: h.finish(),
            facts: vec![
                ("frame".into(), self.frame.to_string()),
                ("agents".into(), w.agents.len().to_string()),
                ("seek".into(), counts[0].to_string()),
                ("work".into(), counts[1].to_string()),
                ("curious".into(), counts[2].to_string()),
                ("packets".into(), w.packets.len().to_string()),
                ("steps".into(), w.steps().to_string()),
                ("mean_speed".into(), format!("{:.2}", speed)),
                ("mean_spacing".into(), format!("{:.2}", mean_spacing(&xy))),
            ],
        }
    }
}

/// Agents the spacing fact measures: all of a flock this size or smaller, an even sample of a
/// larger one (its cost stays a small share of a frame's).
const SPACING_SAMPLE: usize = 4096;

/// The mean distance from an agent to its nearest neighbour, canvas units (0 with fewer than two
/// agents): over every agent up to [`SPACING_SAMPLE`], over an even sample of that many beyond.
/// Exact per agent, at a cost near one pass over the agents: cells of about four agents of an even
/// spread, only those around a measured agent filled; a neighbour within a cell's side lies in
/// the nine around it, and an agent with none that near is measured against every agent (or,
/// when more than 64 are, through the neighbour grid's exact query). `xy`: the agents' positions.
fn mean_spacing(xy: &[[f32; 2]]) -> f64 {
    let n = xy.len();
    if n < 2 {
        return 0.0;
    }
    let pos = |i: usize| xy[i];
    let measured: Vec<usize> = (0..n.min(SPACING_SAMPLE)).map(|s| s * n / n.min(SPACING_SAMPLE)).collect();
    let (lo, hi) = xy.iter().fold(([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]), |(lo, hi), p| {
        ([lo[0].min(p[0]), lo[1].min(p[1])], [hi[0].max(p[0]), hi[1].max(p[1])])
    });
    let (width, height) = ((hi[0] - lo[0]).max(1e-3), (hi[1] - lo[1]).max(1e-3));
    let most = (4 * n + 65_536) as f32;
    let mut side = (4.0 * width * height / n as f32).sqrt().max(1e-6);
    while (width / side + 1.0) * (height / side + 1.0) > most {
        side *= 1.5;
    }
    let cols = (width / side) as usize + 1;
    let rows = (height / side) as usize + 1;
    let per = 1.0 / side;
    let cell = |p: [f32; 2]| (((p[0] - lo[0]) * per) as usize).min(cols - 1) + (((p[1] - lo[1]) * per) as usize).min(rows - 1) * cols;
    // the nine cells around each measured agent get a bucket; every agent in one is put in it
    const NONE: u32 = u32::MAX;
    let mut bucket = vec![NONE; cols * rows];
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    let around = |c: usize| {
        let (x, y) = ((c % cols) as i64, (c / cols) as i64);
        (-1..=1)
            .flat_map(move |dy| (-1..=1).map(move |dx| (x + dx, y + dy)))
            .filter(move |&(x, y)| x >= 0 && y >= 0 && (x as usize) < cols && (y as usize) < rows)
            .map(move |(x, y)| x as usize + y as usize * cols)
    };
    for &i in &measured {
        for c in around(cell(pos(i))) {
            if bucket[c] == NONE {
                bucket[c] = buckets.len() as u32;
                buckets.push(Vec::new());
            }
        }
    }
    for (j, &p) in xy.iter().enumerate() {
        if let Some(b) = buckets.get_mut(bucket[cell(p)] as usize) {
            b.push(j as u32);
        }
    }
    let d2 = |i: usize, j: usize| {
        let (a, b) = (pos(i), pos(j));
        (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1])
    };
    let mut nearest: Vec<f32> = measured
        .iter()
        .map(|&i| {
            let near = around(cell(pos(i))).flat_map(|c| &buckets[bucket[c] as usize]);
            near.filter(|&&j| j as usize != i).map(|&j| d2(i, j as usize)).fold(f32::INFINITY, f32::min)
        })
        .collect();
    // beyond a cell's side the nine cells may miss a nearer agent (a hundredth less: rounding at
    // a cell's edge moves no agent that much nearer)
    let sure = 0.99 * side;
    let far: Vec<usize> = (0..measured.len()).filter(|&k| nearest[k] > sure * sure).collect();
    if far.len() <= 64 {
        for k in far {
            let i = measured[k];
            nearest[k] = (0..n).filter(|&j| j != i).map(|j| d2(i, j)).fold(f32::INFINITY, f32::min);
        }
    } else {
        let (xs, ys): (Vec<f32>, Vec<f32>) = xy.iter().map(|p| (p[0], p[1])).unzip();
        let reach = (portable::hypot(width, height) * 1.01).max(1e-3);
        let mut grid = grid::NeighbourGrid::default();
        grid.build(&xs, &ys, reach, 16);
        let mut found = grid::Nearest::default();
        for k in far {
            let i = measured[k];
            grid.nearest(i, xs[i], ys[i], reach, 1, &mut found);
            nearest[k] = found.iter().next().map_or(0.0, |(_, d2)| d2);
        }
    }
    nearest.iter().map(|&d2| (d2 as f64).sqrt()).sum::<f64>() / measured.len() as f64
}
