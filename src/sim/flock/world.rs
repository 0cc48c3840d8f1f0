//! The flock's state and its fixed-step update: agents (seek → work → seek, curious around a live
//! cursor), the node graph, pulses, packets, shockwaves, the smoothed cursor and trails. Each agent
//! draws from its own random stream and reads only a snapshot of positions, so agents update in
//! parallel and the state is bit-identical on any thread count.

use crate::portable;
use rayon::prelude::*;

use super::grid::{Nearest, NeighbourGrid};
use super::steer;
use crate::scene::flock::FlockSpec;
use crate::sim::FixedClock;
use crate::sim::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum State {
    Seek,
    Work,
    Curious,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Agent {
    pub pos: [f32; 2],
    pub vel: [f32; 2],
    pub state: State,
    pub target: u32,
    /// Seconds in the current work or curious spell, and how long it lasts.
    pub timer: f32,
    pub duration: f32,
    /// Seconds before the cursor can lure this agent again.
    pub cooldown: f32,
    pub orbit_angle: f32,
    /// +1 or −1: which way this agent circles.
    pub orbit_dir: f32,
    pub wander_phase: f32,
    pub rng: Rng,
}

/// Something an agent did this step that the world records.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// Finished work at `node`, sending a packet to `to` (when the node has edges).
    Completed { node: u32, to: Option<u32> },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pulse {
    pub node: u32,
    pub age: f32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub from: u32,
    pub to: u32,
    /// 0 at `from`, 1 at `to`.
    pub progress: f32,
    pub speed: f32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shock {
    pub pos: [f32; 2],
    pub age: f32,
}

/// The scripted cursor, as the agents see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cursor {
    pub raw: [f32; 2],
    pub smooth: [f32; 2],
    pub last_move: f64,
    pub alive: bool,
}

/// How long pulses and shock rings stay visible.
pub const PULSE_SECONDS: f32 = 0.9;
pub const SHOCK_SECONDS: f32 = 0.8;

/// Constants of one flock, in f32 for the update.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub max_speed: f32,
    pub arrive: f32,
    pub reactivity: f32,
    pub wander: f32,
    pub orbit_radius: f32,
    pub work_time: [f32; 2],
    pub curious_time: [f32; 2],
    pub lure_radius: f32,
    pub lure_rate: f32,
    pub cooldown: f32,
    pub sep_radius: f32,
    pub sep_strength: f32,
    /// Separation heeds at most this many nearest agents within `sep_radius`.
    pub neighbours: usize,
    pub shock_radius: f32,
    pub shock_strength: f32,
}

impl Params {
    pub fn of(s: &FlockSpec) -> Self {
        let f = |v: f64| v as f32;
        Params {
            max_speed: f(s.max_speed),
            arrive: f(s.arrive_radius),
            reactivity: f(s.reactivity),
            wander: f(s.wander),
            orbit_radius: f(s.orbit_radius),
            work_time: s.work_time.map(f),
            curious_time: s.curious_time.map(f),
            lure_radius: f(s.lure_radius),
            lure_rate: f(s.lure_rate),
            cooldown: f(s.cooldown),
            sep_radius: f(s.separation_radius),
            sep_strength: f(s.separation_strength),
            neighbours: s.neighbours as usize,
            shock_radius: f(s.shock_radius),
            shock_strength: f(s.shock_strength),
        }
    }

    /// Angular speed of an orbit (half the cruising speed along the circle).
    fn orbit_rate(&self, radius: f32) -> f32 {
        0.45 * self.max_speed / radius.max(1.0)
    }
}

/// Everything the update reads besides the agent itself.
pub struct Shared<'a> {
    pub params: &'a Params,
    pub nodes: &'a [[f32; 2]],
    pub adjacency: &'a [Vec<u32>],
    pub cursor: Cursor,
    pub shocks: &'a [[f32; 2]],
    /// Each agent's separation push this step (velocity change), in the grid's cell order.
    pub separation: &'a [[f32; 2]],
    /// Each agent's place in that order.
    pub slots: &'a [u32],
    pub dt: f32,
}

fn uniform(rng: &mut Rng, range: [f32; 2]) -> f32 {
    range[0] + (range[1] - range[0]) * rng.unit() as f32
}

/// A random node other than `current` (the only node, when there is one).
fn other_node(rng: &mut Rng, count: usize, current: u32) -> u32 {
    if count <= 1 {
        return 0;
    }
    let k = rng.below(count as u64 - 1) as u32;
    if k >= current { k + 1 } else { k }
}

/// One fixed step of one agent. `i` is its index in the snapshot.
pub fn update_agent(i: usize, a: &mut Agent, s: &Shared<'_>) -> Option<Event> {
    let p = s.params;
    let dt = s.dt;
    a.cooldown = (a.cooldown - dt).max(0.0);
    let mut event = None;

    // Shockwaves: a radial impulse with quadratic falloff; work and curiosity are abandoned.
    for &c in s.shocks {
        let (dx, dy) = (a.pos[0] - c[0], a.pos[1] - c[1]);
        let d = (dx * dx + dy * dy).sqrt();
        if d < p.shock_radius {
            let f = portable::powi(1.0 - d / p.shock_radius, 2) * p.shock_strength;
            let (nx, ny) = if d > 1e-6 { (dx / d, dy / d) } else { (a.orbit_dir, 0.0) };
            a.vel = [a.vel[0] + nx * f, a.vel[1] + ny * f];
            if a.state != State::Seek {
                a.state = State::Seek;
            }
            a.cooldown = a.cooldown.max(p.cooldown);
        }
    }

    // The lure of a live cursor.
    if s.cursor.alive && a.state != State::Curious && a.cooldown <= 0.0 {
        let (dx, dy) = (a.pos[0] - s.cursor.smooth[0], a.pos[1] - s.cursor.smooth[1]);
        if dx * dx + dy * dy < p.lure_radius * p.lure_radius && (a.rng.unit() as f32) < 1.0 - portable::exp(-p.lure_rate * dt) {
            a.state = State::Curious;
            a.timer = 0.0;
            a.duration = uniform(&mut a.rng, p.curious_time);
            a.orbit_angle = portable::atan2(dy, dx);
        }
    }

    let node = s.nodes.get(a.target as usize).copied().unwrap_or([0.0, 0.0]);
    let orbit = |a: &mut Agent, centre: [f32; 2], radius: f32| {
        a.orbit_angle += a.orbit_dir * p.orbit_rate(radius) * dt;
        let goal = [centre[0] + radius * portable::cos(a.orbit_angle), centre[1] + radius * portable::sin(a.orbit_angle)];
        steer::steer_to(a.pos, a.vel, goal, p.max_speed, radius, p.reactivity, dt)
    };
    a.vel = match a.state {
        State::Seek => {
            let (dx, dy) = (a.pos[0] - node[0], a.pos[1] - node[1]);
            if dx * dx + dy * dy < portable::powi(1.25 * p.orbit_radius, 2) {
                a.state = State::Work;
                a.timer = 0.0;
                a.duration = uniform(&mut a.rng, p.work_time);
                a.orbit_angle = portable::atan2(dy, dx);
                orbit(a, node, p.orbit_radius)
            } else {
                steer::steer_to(a.pos, a.vel, node, p.max_speed, p.arrive, p.reactivity, dt)
            }
        }
        State::Work => {
            a.timer += dt;
            if a.timer >= a.duration {
                let links = s.adjacency.get(a.target as usize).map_or(&[][..], |v| v.as_slice());
                let to = (!links.is_empty()).then(|| links[a.rng.below(links.len() as u64) as usize]);
                event = Some(Event::Completed { node: a.target, to });
                a.target = other_node(&mut a.rng, s.nodes.len(), a.target);
                a.state = State::Seek;
                a.vel
            } else {
                orbit(a, node, p.orbit_radius)
            }
        }
        State::Curious => {
            a.timer += dt;
            if a.timer >= a.duration || !s.cursor.alive {
                a.state = State::Seek; // back to its task, target unchanged
                a.cooldown = p.cooldown;
                a.vel
            } else {
                orbit(a, s.cursor.smooth, 0.3 * p.lure_radius)
            }
        }
    };

    a.wander_phase += dt;
    a.vel = steer::wander(a.vel, a.wander_phase, p.wander, dt);
    let push = s.separation[s.slots[i] as usize];
    a.vel = [a.vel[0] + push[0], a.vel[1] + push[1]];
    a.vel = steer::clamp_speed(a.vel, 3.0 * p.max_speed);
    a.pos = [a.pos[0] + a.vel[0] * dt, a.pos[1] + a.vel[1] * dt];
    event
}

/// Agents per parallel task.
const CHUNK: usize = 2048;

/// The separation push (velocity change over one step of `dt`) of every agent at `xs`/`ys`, into
/// `out` in the grid's cell order (agent i's at `grid.slots()[i]`): away from each of its
/// `neighbours` nearest within `sep_radius`, nearest first (a fixed order, so the sum is the same
/// on every run and thread count). Taken in cell order, neighbouring queries read neighbouring
/// memory.
pub fn separations(grid: &NeighbourGrid, xs: &[f32], ys: &[f32], p: &Params, dt: f32, out: &mut Vec<[f32; 2]>) {
    out.clear();
    out.resize(xs.len(), [0.0; 2]);
    if p.sep_radius <= 0.0 || p.sep_strength <= 0.0 {
        return;
    }
    let order = grid.order();
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, pushes)| {
        let mut nearest = Nearest::default();
        for (push, &i) in pushes.iter_mut().zip(&order[c * CHUNK..]) {
            let i = i as usize;
            let fallback = if i.is_multiple_of(2) { [1.0, 0.0] } else { [-1.0, 0.0] };
            grid.nearest(i, xs[i], ys[i], p.sep_radius, p.neighbours, &mut nearest);
            for (j, d2) in nearest.iter() {
                let (dx, dy) = (xs[i] - xs[j], ys[i] - ys[j]);
                let f = steer::separation(dx, dy, d2, p.sep_radius, p.sep_strength, dt, fallback);
                *push = [push[0] + f[0], push[1] + f[1]];
            }
        }
    });
}

/// The whole flock.
pub struct World {
    pub params: Params,
    pub nodes: Vec<[f32; 2]>,
    pub edges: Vec<[u32; 2]>,
    pub adjacency: Vec<Vec<u32>>,
    pub agents: Vec<Agent>,
    pub pulses: Vec<Pulse>,
    pub packets: Vec<Packet>,
    pub shocks: Vec<Shock>,
    pub cursor: Cursor,
    cursor_keys: Vec<[f64; 3]>,
    /// A reader's recorded pointer: held from key to key; from its first key on, the cursor.
    pointer_keys: Vec<[f64; 3]>,
    clicks: Vec<(f64, Option<[f64; 2]>)>,
    cursor_alive_s: f64,
    cursor_smoothing: f64,
    packet_speed: f32,
    /// Trail ring, time-major: `trail[k * agents + i]` for slot k, newest at `head - 1`.
    pub trail: Vec<[f32; 2]>,
    pub trail_len: usize,
    pub trail_head: usize,
    pub trail_count: usize,
    /// `step_hz` steps a second.
    pub clock: FixedClock,
    grid: NeighbourGrid,
    xs: Vec<f32>,
    ys: Vec<f32>,
    separation: Vec<[f32; 2]>,
    events: Vec<Option<Event>>,
}

impl World {
    /// How many agents are in each [`State`], in its order (seek, work, curious).
    pub fn state_counts(&self) -> [usize; 3] {
        let mut counts = [0usize; 3];
        for a in &self.agents {
            counts[a.state as usize] += 1;
        }
        counts
    }

    pub fn new(spec: &FlockSpec, nodes: Vec<[f32; 2]>, edges: Vec<[u32; 2]>, agent_count: usize, seed: u64) -> Self {
        let mut adjacency = vec![Vec::new(); nodes.len()];
        for &[a, b] in &edges {
            adjacency[a as usize].push(b);
            adjacency[b as usize].push(a);
        }
        let mut spawn = Rng::stream(seed, "flock.agents");
        let canvas = spec.canvas.map(|c| c as f32);
        let agents = (0..agent_count)
            .map(|i| {
                let mut rng = Rng::new(spawn.next_u64() ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let pos = [canvas[0] * (0.05 + 0.9 * rng.unit() as f32), canvas[1] * (0.05 + 0.9 * rng.unit() as f32)];
                let target = if nodes.is_empty() { 0 } else { rng.below(nodes.len() as u64) as u32 };
                let orbit_dir = if rng.unit() < 0.5 { -1.0 } else { 1.0 };
                let wander_phase = (rng.unit() * std::f64::consts::TAU) as f32;
                Agent {
                    pos,
                    vel: [0.0; 2],
                    state: State::Seek,
                    target,
                    timer: 0.0,
                    duration: 0.0,
                    cooldown: 0.0,
                    orbit_angle: 0.0,
                    orbit_dir,
                    wander_phase,
                    rng,
                }
            })
            .collect::<Vec<_>>();
        // history like any other: drawn or not is the painter's business
        let trail_len = spec.trail as usize;
        let start = spec.cursor.first().map_or([0.0; 2], |k| [k[1] as f32, k[2] as f32]);
        let mut w = World {
            params: Params::of(spec),
            nodes,
            edges,
            adjacency,
            trail: (0..trail_len).flat_map(|_| agents.iter().map(|a| a.pos)).collect(),
            agents,
            pulses: Vec::new(),
            packets: Vec::new(),
            shocks: Vec::new(),
            cursor: Cursor { raw: start, smooth: start, last_move: f64::NEG_INFINITY, alive: false },
            cursor_keys: spec.cursor.clone(),
            pointer_keys: spec.pointer.clone(),
            clicks: spec.clicks.clone(),
            cursor_alive_s: spec.cursor_alive,
            cursor_smoothing: spec.cursor_smoothing,
            packet_speed: spec.packet_speed as f32,
            trail_len,
            trail_head: 0,
            trail_count: 0,
            clock: FixedClock::new(spec.step_hz as f64),
            grid: NeighbourGrid::default(),
            xs: Vec::new(),
            ys: Vec::new(),
            separation: Vec::new(),
            events: Vec::new(),
        };
        w.record_trail();
        w
    }

    /// The cursor at `t`: the reader's recorded pointer from its first key on, else the scripted
    /// cursor (linear between keyframes).
    pub fn cursor_at(&self, t: f64) -> Option<[f32; 2]> {
        // the reader's pointer takes over from its first key: held, never interpolated, so a key
        // added later changes nothing before its time (a take recorded live replays exactly)
        if self.pointer_keys.first().is_some_and(|first| t >= first[0]) {
            let p = self.pointer_keys[self.pointer_keys.partition_point(|key| key[0] <= t) - 1];
            return Some([p[1] as f32, p[2] as f32]);
        }
        let k = &self.cursor_keys;
        let first = k.first()?;
        let i = k.partition_point(|key| key[0] <= t);
        let p = if i == 0 {
            [first[1], first[2]]
        } else if i == k.len() {
            [k[i - 1][1], k[i - 1][2]]
        } else {
            let (a, b) = (k[i - 1], k[i]);
            let u = (t - a[0]) / (b[0] - a[0]);
            [a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u]
        };
        Some(p.map(|c| c as f32))
    }

    /// Seconds simulated.
    pub fn time(&self) -> f64 {
        self.clock.time()
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.clock.steps()
    }

    /// Seconds a step lasts.
    pub fn dt(&self) -> f64 {
        self.clock.step_seconds()
    }

    /// One fixed step.
    pub fn step(&mut self) {
        let dt = self.dt() as f32;
        let t1 = self.clock.time_of(self.clock.steps() + 1);
        if let Some(raw) = self.cursor_at(t1) {
            if raw != self.cursor.raw {
                self.cursor.last_move = t1;
            }
            self.cursor.raw = raw;
            let k = (self.cursor_smoothing as f32 * dt).min(1.0);
            self.cursor.smooth = [
                self.cursor.smooth[0] + (raw[0] - self.cursor.smooth[0]) * k,
                self.cursor.smooth[1] + (raw[1] - self.cursor.smooth[1]) * k,
            ];
            self.cursor.alive = t1 - self.cursor.last_move <= self.cursor_alive_s;
        }
        let mut new_shocks = Vec::new();
        for &(t, at) in &self.clicks {
            if t > self.time() && t <= t1 {
                let pos = match at {
                    Some(p) => p.map(|c| c as f32),
                    None => self.cursor_at(t).unwrap_or(self.cursor.raw),
                };
                new_shocks.push(pos);
            }
        }

        self.xs.clear();
        self.ys.clear();
        self.xs.extend(self.agents.iter().map(|a| a.pos[0]));
        self.ys.extend(self.agents.iter().map(|a| a.pos[1]));
        self.grid.build(&self.xs, &self.ys, self.params.sep_radius.max(1e-3), self.params.neighbours);
        separations(&self.grid, &self.xs, &self.ys, &self.params, dt, &mut self.separation);
        self.events.clear();
        self.events.resize(self.agents.len(), None);
        let shared = Shared {
            params: &self.params,
            nodes: &self.nodes,
            adjacency: &self.adjacency,
            cursor: self.cursor,
            shocks: &new_shocks,
            separation: &self.separation,
            slots: self.grid.slots(),
            dt,
        };
        self.agents.par_chunks_mut(CHUNK).zip(self.events.par_chunks_mut(CHUNK)).enumerate().for_each(|(c, (agents, events))| {
            for (k, (a, e)) in agents.iter_mut().zip(events.iter_mut()).enumerate() {
                *e = update_agent(c * CHUNK + k, a, &shared);
            }
        });

        for p in &mut self.pulses {
            p.age += dt;
        }
        self.pulses.retain(|p| p.age < PULSE_SECONDS);
        let mut arrived = Vec::new();
        for p in &mut self.packets {
            p.progress += p.speed * dt;
            if p.progress >= 1.0 {
                arrived.push(p.to);
            }
        }
        self.packets.retain(|p| p.progress < 1.0);
        for s in &mut self.shocks {
            s.age += dt;
        }
        self.shocks.retain(|s| s.age < SHOCK_SECONDS);
        self.shocks.extend(new_shocks.iter().map(|&pos| Shock { pos, age: 0.0 }));
        for e in self.events.iter().flatten() {
            let Event::Completed { node, to } = *e;
            self.pulses.push(Pulse { node, age: 0.0 });
            if let Some(to) = to {
                let (a, b) = (self.nodes[node as usize], self.nodes[to as usize]);
                let len = (portable::powi(b[0] - a[0], 2) + portable::powi(b[1] - a[1], 2)).sqrt().max(1.0);
                self.packets.push(Packet { from: node, to, progress: 0.0, speed: self.packet_speed / len });
            }
        }
        // a packet lights its destination briefly
        self.pulses.extend(arrived.into_iter().map(|node| Pulse { node, age: 0.5 * PULSE_SECONDS }));
        self.clock.tick();
        self.record_trail();
    }

    fn record_trail(&mut self) {
        if self.trail_len == 0 {
            return;
        }
        let (len, head, n) = (self.trail_len, self.trail_head, self.agents.len());
        for (slot, a) in self.trail[head * n..(head + 1) * n].iter_mut().zip(&self.agents) {
            *slot = a.pos;
        }
        self.trail_head = (head + 1) % len;
        self.trail_count = (self.trail_count + 1).min(len);
    }

    /// Agent `i`'s trail, oldest first.
    pub fn trail_of(&self, i: usize) -> impl Iterator<Item = [f32; 2]> + '_ {
        let (len, n) = (self.trail_len, self.agents.len());
        let start = (self.trail_head + len - self.trail_count) % len.max(1);
        (0..self.trail_count).map(move |k| self.trail[((start + k) % len) * n + i])
    }

    /// Steps until the clock reaches `t` (never backwards).
    pub fn advance_to(&mut self, t: f64) {
        while self.clock.is_behind(t) {
            self.step();
        }
    }

    /// How far agent `i` is into its work (0..1), when it works.
    pub fn progress(&self, i: usize) -> Option<f32> {
        let a = &self.agents[i];
        (a.state == State::Work).then(|| (a.timer / a.duration.max(1e-6)).clamp(0.0, 1.0))
    }
}
