//! The carrier's scripted motion as a pure function of time: legs of a route with smooth starts
//! and stops (speed follows a smoothstep, so acceleration is continuous and peaks at `accel`),
//! turns on the spot, teleports, a ground with a smoothed ramp, and a procedural gait (a bob once
//! a step, a sway once a stride, a lean with acceleration and slope). From it come the pose of the
//! back and of the jige, whether worn, standing on the ground, or being picked up or put down.

use crate::portable;
use glam::{DMat3, DQuat, DVec3};

use crate::scene::cargo::{CargoSpec, EventKind, GroundSpec, Leg, Mode, RouteSpec};
use crate::scene::values::smoothstep;

/// Height of the hips above the feet, and of the back's contact point above the hips (metres).
pub const HIP: f64 = 0.95;
const BACK_UP: f64 = 0.36;
/// How far the jige's contact point sits behind the torso's centre line.
const BACK_BEHIND: f64 = 0.17;
/// The jige's feet below its contact point with the back, and its backward tilt when propped.
pub const FEET: f64 = 0.85;
const PROP_TILT: f64 = 12.0;

#[derive(Clone, Copy, Debug)]
enum SegKind {
    /// Along `dir` from `from`: peak speed `v`, ramps of `ramp` seconds, length `len`.
    Move {
        from: [f64; 2],
        dir: [f64; 2],
        len: f64,
        v: f64,
        ramp: f64,
        heading: f64,
    },
    Turn {
        at: [f64; 2],
        from: f64,
        to: f64,
    },
    Stand {
        at: [f64; 2],
        heading: f64,
    },
}

#[derive(Clone, Copy, Debug)]
struct Seg {
    t0: f64,
    t1: f64,
    /// Distance walked before the segment.
    s0: f64,
    kind: SegKind,
}

/// Where the carrier is at one moment.
#[derive(Clone, Copy, Debug, Default)]
pub struct Place {
    pub pos: [f64; 2],
    pub heading: f64,
    pub speed: f64,
    /// Along the heading, m/s².
    pub accel: f64,
    /// Distance walked so far (drives the gait's phase).
    pub walked: f64,
}

#[derive(Clone, Debug)]
pub struct Route {
    segs: Vec<Seg>,
    /// Times of the teleports (the motion is not differentiable there).
    pub teleports: Vec<f64>,
    cruise: f64,
}

/// ∫₀ᵘ smoothstep = u³ − u⁴/2.
fn smooth_integral(u: f64) -> f64 {
    u * u * u - 0.5 * u * u * u * u
}

/// Smootherstep 6u⁵ − 15u⁴ + 10u³: the speed ramp of a start or stop, so that acceleration and
/// its rate both start and end at zero (the body's lean follows acceleration; a kink there
/// would be an impulse in the back's acceleration).
fn smoother(u: f64) -> f64 {
    u * u * u * (10.0 + u * (-15.0 + 6.0 * u))
}

/// ∫₀ᵘ smootherstep = u⁶ − 3u⁵ + 2.5u⁴.
fn smoother_integral(u: f64) -> f64 {
    u * u * u * u * (2.5 + u * (-3.0 + u))
}

/// Peak of smootherstep's slope (at u = ½).
const SMOOTHER_PEAK: f64 = 1.875;

/// A route being laid out, segment by segment, and where it has got to.
struct Plan {
    segs: Vec<Seg>,
    teleports: Vec<f64>,
    t: f64,
    s: f64,
    at: [f64; 2],
    heading: f64,
    accel: f64,
}

impl Plan {
    fn stand(&mut self, d: f64) {
        self.segs.push(Seg { t0: self.t, t1: self.t + d, s0: self.s, kind: SegKind::Stand { at: self.at, heading: self.heading } });
        self.t += d;
    }

    /// Turns the short way round, on the spot, then walks to `to` starting and stopping at rest.
    fn walk(&mut self, to: [f64; 2], cruise: f64) {
        let d = [to[0] - self.at[0], to[1] - self.at[1]];
        let len = portable::hypot(d[0], d[1]);
        if len < 1e-3 {
            // already there (a drag to where the carrier stands): nothing to walk
            return;
        }
        let dir = [d[0] / len, d[1] / len];
        let want = portable::atan2(dir[1], dir[0]);
        let mut turn = (want - self.heading).rem_euclid(std::f64::consts::TAU);
        if turn > std::f64::consts::PI {
            turn -= std::f64::consts::TAU;
        }
        if turn.abs() > 1e-6 {
            let dur = 0.4 + 0.8 * turn.abs() / std::f64::consts::PI;
            let kind = SegKind::Turn { at: self.at, from: self.heading, to: self.heading + turn };
            self.segs.push(Seg { t0: self.t, t1: self.t + dur, s0: self.s, kind });
            self.t += dur;
        }
        self.heading += turn;
        let mut v = cruise;
        let mut ramp = SMOOTHER_PEAK * v / self.accel;
        if v * ramp > len {
            v = (len * self.accel / SMOOTHER_PEAK).sqrt();
            ramp = SMOOTHER_PEAK * v / self.accel;
        }
        let dur = 2.0 * ramp + (len - v * ramp) / v;
        let kind = SegKind::Move { from: self.at, dir, len, v, ramp, heading: self.heading };
        self.segs.push(Seg { t0: self.t, t1: self.t + dur, s0: self.s, kind });
        self.t += dur;
        self.s += len;
        self.at = to;
    }

    /// Standing from here on.
    fn end(&mut self) {
        self.segs.push(Seg { t0: self.t, t1: f64::INFINITY, s0: self.s, kind: SegKind::Stand { at: self.at, heading: self.heading } });
    }

    /// A hand takes the carrier over at `t`: what it does then is brought to rest without a jump
    /// in its acceleration (walking at cruise speed, it stops from there over a stop's ramp; a
    /// start, a stop or a turn under way is finished first), and everything planned after that
    /// is dropped. The plan then continues from where and when the carrier stands.
    fn take_over(&mut self, t: f64) {
        let i = self.segs.partition_point(|s| s.t1 <= t).min(self.segs.len() - 1);
        self.segs.truncate(i + 1);
        let seg = &mut self.segs[i];
        let tau = (t - seg.t0).max(0.0);
        let (at, heading, walked) = match &mut seg.kind {
            SegKind::Stand { at, heading } => {
                seg.t1 = seg.t0 + tau;
                (*at, *heading, 0.0)
            }
            SegKind::Turn { at, to, .. } => (*at, *to, 0.0),
            SegKind::Move { from, dir, len, v, ramp, heading } => {
                let dur = seg.t1 - seg.t0;
                // cruising from `ramp` to `dur − ramp`: the stop's ramp begins when the hand
                // takes over, or when the start's ramp ends
                let cruise_end = dur - *ramp;
                if cruise_end > *ramp && tau < cruise_end {
                    let from_here = tau.max(*ramp);
                    *len = *v * from_here;
                    seg.t1 = seg.t0 + from_here + *ramp;
                }
                ([from[0] + dir[0] * *len, from[1] + dir[1] * *len], *heading, *len)
            }
        };
        self.t = seg.t1;
        self.s = seg.s0 + walked;
        self.at = at;
        self.heading = heading;
        let until = self.t;
        self.teleports.retain(|&tp| tp <= until);
    }
}

impl Route {
    pub fn new(spec: &RouteSpec) -> Self {
        let mut plan = Plan {
            segs: Vec::new(),
            teleports: Vec::new(),
            t: 0.0,
            s: 0.0,
            at: spec.start,
            heading: spec.heading.to_radians(),
            accel: spec.accel,
        };
        for leg in &spec.legs {
            match *leg {
                Leg::Wait(d) => plan.stand(d),
                Leg::Teleport(to) => {
                    plan.teleports.push(plan.t);
                    plan.at = to;
                }
                Leg::To { to, cruise } => plan.walk(to, cruise),
            }
        }
        plan.end();
        for drag in &spec.drags {
            plan.take_over(drag.at);
            plan.walk(drag.to, spec.cruise);
            plan.end();
        }
        Route { segs: plan.segs, teleports: plan.teleports, cruise: spec.cruise }
    }

    /// The carrier at time `t` (before the first leg it stands at the start).
    pub fn at(&self, t: f64) -> Place {
        let i = self.segs.partition_point(|s| s.t1 <= t).min(self.segs.len() - 1);
        let seg = self.segs[i];
        let tau = (t - seg.t0).max(0.0);
        match seg.kind {
            SegKind::Stand { at, heading } => Place { pos: at, heading, speed: 0.0, accel: 0.0, walked: seg.s0 },
            SegKind::Turn { at, from, to } => {
                let u = tau / (seg.t1 - seg.t0);
                Place { pos: at, heading: from + (to - from) * smoothstep(0.0, 1.0, u), speed: 0.0, accel: 0.0, walked: seg.s0 }
            }
            SegKind::Move { from, dir, len, v, ramp, heading } => {
                let dur = seg.t1 - seg.t0;
                let slope = |u: f64| 30.0 * u * u * (1.0 - u) * (1.0 - u);
                let (dist, speed, accel) = if tau < ramp {
                    let u = tau / ramp;
                    (v * ramp * smoother_integral(u), v * smoother(u), v / ramp * slope(u))
                } else if tau > dur - ramp {
                    let u = ((dur - tau) / ramp).max(0.0);
                    (len - v * ramp * smoother_integral(u), v * smoother(u), -v / ramp * slope(u))
                } else {
                    (v * ramp * 0.5 + v * (tau - ramp), v, 0.0)
                };
                let dist = dist.min(len);
                Place { pos: [from[0] + dir[0] * dist, from[1] + dir[1] * dist], heading, speed, accel, walked: seg.s0 + dist }
            }
        }
    }

    pub fn cruise(&self) -> f64 {
        self.cruise
    }
}

/// Where the carrier's hips are at time `t` (metres), on `route` over `ground`: where a reader's
/// hand takes it in the web player.
pub fn hips_at(route: &RouteSpec, ground: &GroundSpec, t: f64) -> [f64; 3] {
    let place = Route::new(route).at(t);
    [place.pos[0], ground_height(ground, place.pos[0]) + HIP, place.pos[1]]
}

/// Ground height at (x, z): flat, or a ramp along +x whose slope eases in and out along a
/// smoothstep over 2b at each end, so height has a continuous curvature (a walker's vertical
/// acceleration and its lean into the slope have no jumps).
pub fn ground_height(ground: &GroundSpec, x: f64) -> f64 {
    let Some(r) = ground.ramp else { return 0.0 };
    let m = r.rise / (r.to - r.from);
    let b = (0.25 * (r.to - r.from)).min(0.6);
    if x <= r.from - b {
        0.0
    } else if x < r.from + b {
        m * 2.0 * b * smooth_integral((x - r.from + b) / (2.0 * b))
    } else if x <= r.to - b {
        m * (x - r.from)
    } else if x < r.to + b {
        r.rise - m * 2.0 * b * smooth_integral((r.to + b - x) / (2.0 * b))
    } else {
        r.rise
    }
}

/// The ground's slope along +x at `x`.
fn ground_slope(ground: &GroundSpec, x: f64) -> f64 {
    let e = 1e-4;
    (ground_height(ground, x + e) - ground_height(ground, x - e)) / (2.0 * e)
}

/// A rigid placement: origin and axes (columns: forward, up, right).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub origin: DVec3,
    pub rot: DMat3,
}

impl Frame {
    pub fn point(&self, local: DVec3) -> DVec3 {
        self.origin + self.rot * local
    }

    pub fn then(&self, local: &Frame) -> Frame {
        Frame { origin: self.point(local.origin), rot: self.rot * local.rot }
    }

    pub fn matrix(&self) -> [[f32; 4]; 4] {
        let c = |v: DVec3| [v.x as f32, v.y as f32, v.z as f32, 0.0];
        let o = self.origin;
        [c(self.rot.x_axis), c(self.rot.y_axis), c(self.rot.z_axis), [o.x as f32, o.y as f32, o.z as f32, 1.0]]
    }
}

/// Axes for a heading (radians from +x toward +z) leaned forward by `lean` radians: the up axis
/// tips toward forward.
pub fn axes(heading: f64, lean: f64) -> DMat3 {
    let f = DVec3::new(portable::cos(heading), 0.0, portable::sin(heading));
    let up = DVec3::Y;
    let right = f.cross(up);
    let (s, c) = portable::sin_cos(lean);
    DMat3::from_cols(f * c - up * s, up * c + f * s, right)
}

/// The carrier's body at one moment, for the physics (its back) and for drawing (legs, torso).
#[derive(Clone, Copy, Debug)]
pub struct Body {
    pub feet: DVec3,
    pub heading: f64,
    /// Forward lean, radians.
    pub lean: f64,
    /// Gait phase in steps, and how much of the gait shows (0 standing … 1 at cruise).
    pub phase: f64,
    pub stride: f64,
    pub hips: DVec3,
}

impl Body {
    pub fn axes(&self) -> DMat3 {
        axes(self.heading, self.lean)
    }

    /// The point where the jige rests on the back, with the torso's axes.
    pub fn back(&self) -> Frame {
        let rot = self.axes();
        Frame { origin: self.hips + rot.y_axis * BACK_UP - rot.x_axis * BACK_BEHIND, rot }
    }
}

/// The whole scripted world: route, ground, gait and the jige's mode over time.
#[derive(Clone, Debug)]
pub struct Script {
    pub route: Route,
    pub ground: GroundSpec,
    gait: crate::scene::cargo::GaitSpec,
    /// (time, becomes ground?) of every put-down and pick-up, in order.
    swaps: Vec<(f64, bool)>,
    start_ground: bool,
    transition: f64,
    /// (start, end) of every reduced-input window (actions).
    actions: Vec<(f64, f64)>,
    /// A scripted support replacing the worn jige's pose (the seed's unit tests move the support
    /// directly: steps, alternating jumps).
    pub support: Option<fn(f64) -> Frame>,
}

/// How the jige is held at one moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Hold {
    Back,
    Ground,
    /// Between the two: `to_ground` and how far along (0..1).
    Moving {
        to_ground: bool,
        u: f64,
    },
}

impl Script {
    pub fn new(spec: &CargoSpec) -> Self {
        let mut swaps = Vec::new();
        let mut actions = Vec::new();
        for e in &spec.events {
            match e.kind {
                EventKind::PutDown => swaps.push((e.at, true)),
                EventKind::PickUp => swaps.push((e.at, false)),
                EventKind::Action { duration } => actions.push((e.at, e.at + duration)),
                _ => {}
            }
        }
        Script {
            route: Route::new(&spec.route),
            ground: spec.ground.clone(),
            gait: spec.route.gait.clone(),
            swaps,
            start_ground: spec.mode == Mode::Ground,
            transition: spec.transition,
            actions,
            support: None,
        }
    }

    /// The carrier's body at `t`.
    pub fn body(&self, t: f64) -> Body {
        let p = self.route.at(t);
        let g = &self.gait;
        let stride = (p.speed / self.route.cruise()).min(1.0);
        let step_len = self.route.cruise() / g.step_hz;
        let phase = p.walked / step_len;
        let h = ground_height(&self.ground, p.pos[0]);
        let slope = ground_slope(&self.ground, p.pos[0]) * portable::cos(p.heading);
        let lean = (g.lean * p.accel).to_radians() + 0.5 * portable::atan(slope);
        let bob = g.bob * stride * portable::cos(std::f64::consts::TAU * phase) + 0.004 * portable::sin(std::f64::consts::TAU * 0.25 * t);
        let sway = g.sway * stride * portable::sin(std::f64::consts::PI * phase);
        let feet = DVec3::new(p.pos[0], h, p.pos[1]);
        let right = DVec3::new(-portable::sin(p.heading), 0.0, portable::cos(p.heading));
        let hips = feet + DVec3::Y * (HIP + bob) + right * sway;
        Body { feet, heading: p.heading, lean, phase, stride, hips }
    }

    /// How the jige is held at `t`.
    pub fn hold(&self, t: f64) -> Hold {
        let mut ground = self.start_ground;
        for &(at, to_ground) in &self.swaps {
            if t < at {
                break;
            }
            if t < at + self.transition {
                return Hold::Moving { to_ground, u: (t - at) / self.transition };
            }
            ground = to_ground;
        }
        if ground { Hold::Ground } else { Hold::Back }
    }

    /// When the jige came to stand on the ground for its current stay (the end of the put-down,
    /// or 0 when the scene starts with it there); `None` unless it is on the ground at `t`.
    pub fn grounded_since(&self, t: f64) -> Option<f64> {
        if self.hold(t) != Hold::Ground {
            return None;
        }
        Some(self.swaps.iter().rev().find(|s| s.0 <= t && s.1).map_or(0.0, |s| s.0 + self.transition))
    }

    /// The time the jige was last set down or picked up (its ground spot is the carrier's then).
    fn last_swap(&self, t: f64) -> f64 {
        self.swaps.iter().rev().find(|s| s.0 <= t && s.1).map_or(0.0, |s| s.0)
    }

    /// Where the jige stands when on the ground: behind where the carrier was when it set it
    /// down, feet on the ground, tilted back onto its prop.
    fn ground_frame(&self, t: f64) -> Frame {
        let b = self.body(self.last_swap(t));
        let back = Frame { origin: b.feet, rot: axes(b.heading, 0.0) };
        let rot = axes(b.heading, -PROP_TILT.to_radians());
        let spot = back.point(DVec3::new(-0.45, 0.0, 0.0));
        let spot = DVec3::new(spot.x, ground_height(&self.ground, spot.x), spot.z);
        Frame { origin: spot + rot.y_axis * FEET, rot }
    }

    /// The jige's contact point and axes at `t` (before its own sway), and its authored axes
    /// there: the pose the springs take as rest, so that gravity relative to it is not an input.
    pub fn jige(&self, t: f64) -> (Frame, DMat3) {
        if let Some(f) = self.support {
            return (f(t), DMat3::IDENTITY);
        }
        let worn = || {
            let b = self.body(t);
            (b.back(), axes(b.heading, 0.0))
        };
        match self.hold(t) {
            Hold::Back => worn(),
            Hold::Ground => {
                let g = self.ground_frame(t);
                (g, g.rot)
            }
            Hold::Moving { to_ground, u } => {
                let (back, upright) = worn();
                let ground = self.ground_frame(t);
                let w = smoothstep(0.0, 1.0, if to_ground { u } else { 1.0 - u });
                let q = DQuat::from_mat3(&back.rot).slerp(DQuat::from_mat3(&ground.rot), w);
                let authored = DQuat::from_mat3(&upright).slerp(DQuat::from_mat3(&ground.rot), w);
                (Frame { origin: back.origin.lerp(ground.origin, w), rot: DMat3::from_quat(q) }, DMat3::from_quat(authored))
            }
        }
    }

    /// The input scale at `t`: reduced during actions and while the jige is being moved.
    pub fn input_scale(&self, t: f64, reduced: f64) -> f64 {
        let acting = self.actions.iter().any(|&(a, b)| t >= a && t < b);
        if acting || matches!(self.hold(t), Hold::Moving { .. }) { reduced } else { 1.0 }
    }

    /// Whether a teleport happens in (a, b].
    pub fn teleport_between(&self, a: f64, b: f64) -> bool {
        self.route.teleports.iter().any(|&t| t > a && t <= b)
    }
}
