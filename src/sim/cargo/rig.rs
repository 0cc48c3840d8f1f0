//! The jige's hierarchy and the springs' input. The frame sways about its contact point with the
//! back; the package root sits on its prongs; each load has its pivot at its base on its support
//! (the root, or an earlier load's pivot: the seed's Top rides on Middle). A load's input is the
//! acceleration of its base contact point, seen in its base pose's axes with the sign flipped,
//! plus gravity's change of direction against the authored pose: fore-aft drives pitch,
//! sideways roll, vertical lift.

use glam::{DMat3, DVec3};

use super::route::Frame;
use super::spring::{Dof, Law, Region};
use super::{CargoSim, State};
use crate::scene::cargo::{CargoSpec, EventKind, Integrator};

const GRAVITY: DVec3 = DVec3::new(0.0, -9.81, 0.0);
/// The package root in the frame's axes, from the frame's contact point with the back.
pub const ROOT: DVec3 = DVec3::new(-0.29, -0.42, 0.0);
/// Spacing of the samples the exact input's derivatives are taken from, seconds.
const DELTA: f64 = 1e-3;

/// The frame's tilt: pitch (+: top toward forward) and roll (+: top toward the right), degrees.
pub fn tilt(pitch: f64, roll: f64) -> DMat3 {
    DMat3::from_rotation_z(-pitch.to_radians()) * DMat3::from_rotation_x(roll.to_radians())
}

#[derive(Clone, Debug)]
pub struct Rig {
    /// Each load's support (`None`: the root) and its pivot in the support's axes.
    pub supports: Vec<(Option<usize>, DVec3)>,
    /// Each load's base height above the root at rest.
    pub rest_height: Vec<f64>,
}

/// Every part's placement at one moment.
#[derive(Clone, Debug)]
pub struct Poses {
    /// The jige before its sway, and its authored axes (its rest: gravity against these is 0).
    pub jige: Frame,
    pub authored: DMat3,
    pub frame: Frame,
    pub root: Frame,
    /// Each load's base contact pose (its support's motion, not its own) and its posed frame.
    pub bases: Vec<Frame>,
    pub loads: Vec<Frame>,
}

impl Rig {
    pub fn new(spec: &CargoSpec) -> Self {
        let mut rest_height = Vec::new();
        let mut h = 0.0;
        for l in &spec.links {
            rest_height.push(h);
            h += l.size[1];
        }
        let supports = spec
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let below = l.support.map_or(0.0, |k| rest_height[k]);
                (l.support, DVec3::new(0.0, rest_height[i] - below, 0.0))
            })
            .collect();
        Rig { supports, rest_height }
    }

    /// The placements for a jige pose and a spring state, the sway scaled by `weight`.
    pub fn poses(&self, jige: Frame, authored: DMat3, state: &State, weight: f64) -> Poses {
        let [p, r] = state.frame;
        let frame = Frame { origin: jige.origin, rot: jige.rot * tilt(p.x * weight, r.x * weight) };
        let root = frame.then(&Frame { origin: ROOT, rot: DMat3::IDENTITY });
        let mut bases: Vec<Frame> = Vec::with_capacity(self.supports.len());
        let mut loads: Vec<Frame> = Vec::with_capacity(self.supports.len());
        for (i, &(support, pivot)) in self.supports.iter().enumerate() {
            let on = support.map_or(root, |k| loads[k]);
            let base = on.then(&Frame { origin: pivot, rot: DMat3::IDENTITY });
            let [lp, lr, ll] = state.links[i];
            let own = Frame { origin: DVec3::new(0.0, 0.0, 0.0), rot: tilt(lp.x * weight, lr.x * weight) };
            let posed = base.then(&own).then(&Frame { origin: DVec3::Y * (0.01 * ll.x * weight), rot: DMat3::IDENTITY });
            bases.push(base);
            loads.push(posed);
        }
        Poses { jige, authored, frame, root, bases, loads }
    }
}

/// Each spring's target and the equation it follows over the coming step.
#[derive(Clone, Debug, PartialEq)]
pub struct Targets {
    pub frame: [(f64, Region); 2],
    pub links: Vec<[(f64, Region); 3]>,
    pub frame_laws: [Law; 2],
    pub link_laws: Vec<[Law; 3]>,
}

impl Targets {
    pub fn zero(n: usize) -> Self {
        let rest = (0.0, Region { k: 1.0, e: 0.0, c: 0.0, walled: false });
        let law = Law { omega: 1.0, zeta: 1.0, lo: -1.0, hi: 1.0, wall: [0.0, 0.0], floor: false };
        Targets { frame: [rest; 2], links: vec![[rest; 3]; n], frame_laws: [law; 2], link_laws: vec![[law; 3]; n] }
    }

    pub fn regions(&self) -> impl Iterator<Item = &Region> {
        self.frame.iter().chain(self.links.iter().flatten()).map(|(_, r)| r)
    }
}

/// The constants in force at `t`: heaviness from the fill ratio scales frequency, gains and
/// damping. Returns the frame's laws, each load's laws and each load's gains.
pub fn laws(spec: &CargoSpec, t: f64, duration: f64) -> ([Law; 2], Vec<[Law; 3]>, Vec<[f64; 3]>) {
    let fill = spec
        .events
        .iter()
        .rev()
        .find_map(|e| match e.kind {
            EventKind::Load { fill: Some(f), .. } if e.at <= t => Some(f),
            _ => None,
        })
        .unwrap_or_else(|| spec.fill.scalar_at(t, duration));
    let [light, heavy] = spec.light_heavy;
    let h = ((fill - light) / (heavy - light)).clamp(0.0, 1.0);
    let m = |k: usize| 1.0 + (spec.heavy[k] - 1.0) * h;
    let wall = spec.wall;
    let law = |hz: f64, zeta: f64, lo: f64, hi: f64, floor: bool| Law {
        omega: std::f64::consts::TAU * hz * m(0),
        zeta: zeta * m(2),
        lo,
        hi,
        wall,
        floor,
    };
    let f = &spec.frame;
    let frame = [law(f.frequency, f.damping, -f.max_angle, f.max_angle, false); 2];
    let links = spec
        .links
        .iter()
        .map(|l| {
            [
                law(l.frequency, l.damping, l.pitch[0], l.pitch[1], false),
                law(l.frequency, l.damping, -l.roll, l.roll, false),
                law(l.frequency, l.damping, 0.0, l.lift, true),
            ]
        })
        .collect();
    let gains = spec.links.iter().map(|l| l.gain.map(|g| g * m(1))).collect();
    (frame, links, gains)
}

/// The input felt at a contact point with axes `axes`: acceleration against them, sign flipped,
/// plus gravity's change of direction against the authored axes.
pub(super) fn felt(axes: DMat3, authored: DMat3, accel: DVec3) -> DVec3 {
    axes.transpose() * (GRAVITY - accel) - authored.transpose() * GRAVITY
}

/// Clamps an acceleration to `max`, counting it.
fn clamp_accel(a: DVec3, max: f64, clamps: &mut u64) -> DVec3 {
    let n = a.length();
    if n > max {
        *clamps += 1;
        a * (max / n)
    } else {
        a
    }
}

/// A spring's angular velocity and acceleration (pitch, roll in °/s, °/s²) as vectors in `axes`,
/// rad/s and rad/s².
fn spin(axes: DMat3, pitch: f64, roll: f64) -> DVec3 {
    axes * DVec3::new(roll.to_radians(), 0.0, -pitch.to_radians())
}

/// Acceleration of a point `r` from a rotating part's pivot, from the part's own motion.
fn swing(w: DVec3, alpha: DVec3, r: DVec3) -> DVec3 {
    alpha.cross(r) + w.cross(w.cross(r))
}

/// The targets and equations at grid time `g` for the exact integrator: the support's motion
/// differentiated on samples `DELTA` apart (one-sided across a teleport, so a jump is no input),
/// plus the acceleration the springs above the point add by their own motion.
pub fn exact_targets(sim: &mut CargoSim, g: f64) -> Targets {
    let spec = &sim.spec;
    let duration = sim.timing().duration();
    let w = sim.sway_weight(g);
    // the samples, and which of them is `g` itself
    let (times, at) = if sim.script.teleport_between(g - DELTA, g) {
        ([g, g + DELTA, g + 2.0 * DELTA], 0)
    } else if sim.script.teleport_between(g, g + DELTA) {
        ([g - 2.0 * DELTA, g - DELTA, g], 2)
    } else {
        ([g - DELTA, g, g + DELTA], 1)
    };
    let poses = times.map(|t| {
        let (jige, authored) = sim.script.jige(t);
        sim.rig.poses(jige, authored, &sim.state, w)
    });
    let second = |f: &dyn Fn(&Poses) -> DVec3| (f(&poses[0]) - 2.0 * f(&poses[1]) + f(&poses[2])) / (DELTA * DELTA);
    let now = &poses[at];
    let scale = sim.script.input_scale(g, spec.reduced_input);
    let moving = matches!(sim.script.hold(g), super::route::Hold::Moving { .. });
    let (frame_laws, link_laws, gains) = laws(spec, g, duration);
    let clamps = &mut sim.counters.accel_clamps;

    let a_back = clamp_accel(second(&|p: &Poses| p.jige.origin), spec.max_accel, clamps);
    let u = felt(now.jige.rot, now.authored, a_back) * if moving { 0.0 } else { scale };
    let f = &spec.frame;
    let frame: [(f64, Region); 2] = std::array::from_fn(|k| {
        let target = frame_laws[k].clamp(f.gain[k] * if k == 0 { u.x } else { u.z });
        let d = sim.state.frame[k];
        (target, frame_laws[k].region(d.x, d.v, target))
    });
    let rate = |d: &[Dof], r: &[(f64, Region)]| (d[0].v, d[1].v, d[0].accel(&r[0].1), d[1].accel(&r[1].1));
    let (fp, fr, fpa, fra) = rate(&sim.state.frame, &frame);
    let (w_frame, a_frame) = (spin(now.jige.rot, fp, fr), spin(now.jige.rot, fpa, fra));

    let mut links: Vec<[(f64, Region); 3]> = Vec::with_capacity(sim.state.links.len());
    for (i, &(support, _)) in sim.rig.supports.iter().enumerate() {
        let p = now.bases[i].origin;
        let mut a = second(&|q: &Poses| q.bases[i].origin) + swing(w_frame, a_frame, p - now.jige.origin);
        let mut up = support;
        while let Some(k) = up {
            let (lp, lr, lpa, lra) = rate(&sim.state.links[k], &links[k]);
            let axes = now.bases[k].rot;
            let lift_accel = sim.state.links[k][2].accel(&links[k][2].1) * 0.01;
            a += swing(spin(axes, lp, lr), spin(axes, lpa, lra), p - now.bases[k].origin) + now.loads[k].rot.y_axis * lift_accel;
            up = sim.rig.supports[k].0;
        }
        let a = clamp_accel(a, spec.max_accel, clamps);
        let u = felt(now.bases[i].rot, now.authored, a) * scale;
        let raw = [u.x, u.z, u.y];
        links.push(std::array::from_fn(|k| {
            let target = link_laws[i][k].clamp(gains[i][k] * raw[k]);
            let d = sim.state.links[i][k];
            (target, link_laws[i][k].region(d.x, d.v, target))
        }));
    }
    Targets { frame, links, frame_laws, link_laws }
}

/// Moves every spring `dt` along its frozen equation.
pub fn step_exact(state: &mut State, targets: &Targets, dt: f64) {
    for ((d, (_, r)), law) in state.frame.iter_mut().zip(&targets.frame).zip(&targets.frame_laws) {
        d.exact(r, dt, law);
    }
    for ((l, t), laws) in state.links.iter_mut().zip(&targets.links).zip(&targets.link_laws) {
        for ((d, (_, r)), law) in l.iter_mut().zip(t).zip(laws) {
            d.exact(r, dt, law);
        }
    }
}

/// The seed's input: velocity and acceleration of `p` by differences across the game frame of
/// `dt`, movement faster than `teleport_speed` excluded, acceleration clamped.
fn differenced(sim: &mut CargoSim, slot: usize, p: DVec3, dt: f64) -> DVec3 {
    let spec = &sim.spec;
    let (a, next) = match sim.history[slot] {
        None => (DVec3::ZERO, (p, DVec3::ZERO)),
        Some((p0, v0)) => {
            let v = (p - p0) / dt;
            if v.length() > spec.teleport_speed {
                // every contact point jumps with the carrier: one teleport, counted once
                sim.counters.teleports_ignored += (slot == 0) as u64;
                (DVec3::ZERO, (p, v0))
            } else {
                ((v - v0) / dt, (p, v))
            }
        }
    };
    sim.history[slot] = Some(next);
    clamp_accel(a, spec.max_accel, &mut sim.counters.accel_clamps)
}

/// How a game frame of `dt` is cut into steps: their count and length.
fn substeps(integrator: Integrator, dt: f64, hz: f64, cap: u32) -> (u32, f64) {
    let n = (dt * hz - 1e-9).ceil().max(1.0);
    match integrator {
        Integrator::EulerSplit => {
            let n = n.min(4.0);
            (n as u32, dt / n)
        }
        Integrator::EulerCapped => {
            let n = n.min(cap as f64);
            (n as u32, (dt / n).min(1.0 / hz))
        }
        Integrator::Exact => (n as u32, dt / n),
    }
}

/// How far past its limits `d` is, as a fraction of the range between them.
fn past(d: &Dof, law: &Law) -> f64 {
    (d.x - law.hi).max(law.lo - d.x).max(0.0) / (law.hi - law.lo).max(1e-12)
}

/// Records the furthest excursion past a limit and the frame's largest angle after a step.
pub fn track_excursion(state: &State, targets: &Targets, counters: &mut super::Counters) {
    for (l, laws) in state.links.iter().zip(&targets.link_laws) {
        for (d, law) in l.iter().zip(laws) {
            counters.beyond = counters.beyond.max(past(d, law));
        }
    }
    counters.frame_peak = state.frame.iter().fold(counters.frame_peak, |m, d| m.max(d.x.abs()));
}

/// One spring's bookkeeping while it is stepped: wall entries, and whether it is a load's.
struct Watch<'a> {
    walls: &'a mut u64,
    outside: &'a mut bool,
    beyond: Option<&'a mut f64>,
}

/// Steps one spring `n` times by `h` toward `target`, counting its entries into a wall region.
fn run(d: &mut Dof, law: &Law, target: f64, n: u32, h: f64, exact: bool, watch: Watch) -> Region {
    let mut region = law.region(d.x, d.v, target);
    let mut beyond = watch.beyond;
    for _ in 0..n {
        region = law.region(d.x, d.v, target);
        *watch.walls += (region.walled && !*watch.outside) as u64;
        *watch.outside = region.walled;
        if exact {
            d.exact(&region, h, law)
        } else {
            d.semi_implicit(&region, h, law)
        }
        if let Some(b) = beyond.as_deref_mut() {
            *b = b.max(past(d, law));
        }
    }
    region
}

/// One game frame fed by finite differences (the seed's update order): the frame's sway first —
/// for the seed's integrators in a single step of the whole frame, as the post describes — then
/// each load from its support's new pose.
pub fn difference_tick(sim: &mut CargoSim, start: f64, end: f64) {
    let dt = end - start;
    let spec = &sim.spec;
    let duration = sim.timing().duration();
    let w = sim.sway_weight(end);
    let (jige, authored) = sim.script.jige(end);
    let scale = sim.script.input_scale(end, spec.reduced_input);
    let moving = matches!(sim.script.hold(end), super::route::Hold::Moving { .. });
    let (frame_laws, link_laws, gains) = laws(spec, end, duration);
    let exact = spec.integrator == Integrator::Exact;
    let (n, h) = substeps(spec.integrator, dt, spec.substep_hz, spec.max_substeps);
    let (frame_gain, hz, loads) = (spec.frame.gain, spec.substep_hz, spec.links.len());
    sim.counters.dropped += (dt - n as f64 * h).max(0.0);

    let a = differenced(sim, 0, jige.origin, dt);
    let u = felt(jige.rot, authored, a) * if moving { 0.0 } else { scale };
    let mut targets = Targets::zero(loads);
    targets.frame_laws = frame_laws;
    targets.link_laws = link_laws.clone();
    for (k, law) in frame_laws.iter().enumerate() {
        let target = law.clamp(frame_gain[k] * if k == 0 { u.x } else { u.z });
        let d = &mut sim.state.frame[k];
        let watch = Watch { walls: &mut sim.counters.wall_entries, outside: &mut sim.outside[k], beyond: None };
        let region = if exact {
            let (fn_, fh) = substeps(Integrator::Exact, dt, hz, 0);
            run(d, law, target, fn_, fh, true, watch)
        } else {
            // one step of the whole frame, held at 1.1 × the largest angle
            let r = run(d, law, target, 1, dt, false, watch);
            let hard = 1.1 * law.hi;
            if d.x.abs() > hard {
                d.x = d.x.clamp(-hard, hard);
                d.v = 0.0;
            }
            r
        };
        sim.counters.frame_peak = sim.counters.frame_peak.max(d.x.abs());
        targets.frame[k] = (target, region);
    }
    for i in 0..loads {
        let poses = sim.rig.poses(jige, authored, &sim.state, w);
        let a = differenced(sim, i + 1, poses.bases[i].origin, dt);
        let u = felt(poses.bases[i].rot, authored, a) * scale;
        let raw = [u.x, u.z, u.y];
        for k in 0..3 {
            let law = &link_laws[i][k];
            let target = law.clamp(gains[i][k] * raw[k]);
            let c = &mut sim.counters;
            let watch = Watch { walls: &mut c.wall_entries, outside: &mut sim.outside[2 + 3 * i + k], beyond: Some(&mut c.beyond) };
            let region = run(&mut sim.state.links[i][k], law, target, n, h, exact, watch);
            targets.links[i][k] = (target, region);
        }
    }
    sim.targets = targets;
}
