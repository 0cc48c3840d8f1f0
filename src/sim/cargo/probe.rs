//! `simreel cargo probe`: the seed's checks measured on a scene's constants, beside the theory.
//! Each load's pitch answers a step of the target (overshoot, first peak, damped period, 2 %
//! settling) with the exact integrator and with the seed's semi-implicit Euler at 120 and 30 Hz;
//! the seed's `LongFramesDoNotDiverge` (60 game frames of 1/3 s, the support jumping back and
//! forth) runs through each integrator; a 1 s hitch shows how much time each one drops.

use crate::portable;
use glam::{DMat3, DVec3};

use super::route::Frame;
use super::spring::{Dof, Law, overshoot_and_peak};
use super::{CargoSim, rig};
use crate::scene::Scene;
use crate::scene::cargo::{CargoSpec, EventKind, EventSpec, Input, Integrator};

/// A step response, measured or predicted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Response {
    /// Overshoot as a fraction of the step.
    pub overshoot: f64,
    /// Time of the first peak, and between the first two downward zero crossings of the error.
    pub peak: f64,
    pub period: f64,
    /// Last time the error is outside 2 % of the step.
    pub settle: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkProbe {
    pub name: String,
    /// Natural frequency (Hz) and damping ratio after heaviness.
    pub hz: f64,
    pub zeta: f64,
    pub theory: Response,
    pub exact: Response,
    pub euler_120: Response,
    pub euler_30: Response,
}

/// One integrator through the seed's long-frame test: the furthest any load went past a limit
/// (as a fraction of that limit's range), the frame's largest angle, and whether all stayed finite.
#[derive(Clone, Debug, PartialEq)]
pub struct LongFrames {
    pub integrator: &'static str,
    pub jump: f64,
    pub beyond: f64,
    pub frame: f64,
    pub finite: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub heaviness_fill: f64,
    pub links: Vec<LinkProbe>,
    pub long_frames: Vec<LongFrames>,
    /// Seconds of a 1 s hitch each integrator drops.
    pub dropped: Vec<(&'static str, f64)>,
}

/// The step response of `law` toward `target` in steps of `h`.
pub fn respond(law: &Law, target: f64, h: f64, exact: bool) -> Response {
    let free = Law { lo: -1e12, hi: 1e12, floor: false, ..*law };
    let mut d = Dof::default();
    let (mut peak, mut at, mut settle) = (f64::NEG_INFINITY, 0.0, 0.0);
    let mut crossings: Vec<f64> = Vec::new();
    let steps = (12.0 / (law.zeta.max(0.05) * law.omega) / h).ceil() as u32 + 1;
    for k in 1..=steps {
        let before = d.x / target - 1.0;
        let r = free.region(d.x, d.v, target);
        if exact {
            d.exact(&r, h, &free)
        } else {
            d.semi_implicit(&r, h, &free)
        }
        let e = d.x / target - 1.0;
        let t = k as f64 * h;
        if e > peak {
            peak = e;
            at = t;
        }
        if before < 0.0 && e >= 0.0 {
            crossings.push(t - h * e / (e - before));
        }
        if e.abs() > 0.02 {
            settle = t;
        }
    }
    let period = if crossings.len() >= 2 { crossings[1] - crossings[0] } else { f64::NAN };
    Response { overshoot: peak.max(0.0), peak: at, period, settle }
}

/// The theory for an under-damped spring (NaN times for ζ ≥ 1, which neither overshoots nor
/// swings).
pub fn theory(law: &Law) -> Response {
    if law.zeta >= 1.0 {
        return Response { overshoot: 0.0, peak: f64::NAN, period: f64::NAN, settle: f64::NAN };
    }
    let hz = law.omega / std::f64::consts::TAU;
    let (overshoot, peak) = overshoot_and_peak(hz, law.zeta);
    let wd = law.omega * (1.0 - law.zeta * law.zeta).sqrt();
    // the last 2 % crossing of the envelope e^(−ζωt)/√(1−ζ²) bounds the settle from above
    let settle = portable::ln(0.02 * (1.0 - law.zeta * law.zeta).sqrt()) / (-law.zeta * law.omega);
    Response { overshoot, peak, period: std::f64::consts::TAU / wd, settle }
}

/// The support of the seed's long-frame test: it swings `jump` metres along x and back with a
/// period of two game frames, (1 − cos 3πt)/2 — at the frames' ends it is at one end or the
/// other, as in the seed's test, so finite differences see jumps of `jump` every 1/3 s (9 m/s²
/// for 0.5 m, 54 m/s² for 3 m); in between it moves smoothly, which is what the exact input sees.
fn alternating(jump: f64) -> fn(f64) -> Frame {
    fn swing(t: f64, jump: f64) -> Frame {
        let x = jump * 0.5 * (1.0 - portable::cos(3.0 * std::f64::consts::PI * t));
        Frame { origin: DVec3::new(x, 1.3, 0.0), rot: DMat3::IDENTITY }
    }
    fn half(t: f64) -> Frame {
        swing(t, 0.5)
    }
    fn three(t: f64) -> Frame {
        swing(t, 3.0)
    }
    if jump < 1.0 { half } else { three }
}

/// `spec` worn on the back with only `events`, stepped as asked.
fn with(spec: &CargoSpec, integrator: Integrator, input: Input, events: Vec<EventSpec>) -> CargoSpec {
    CargoSpec { integrator, input, events, history: None, mode: crate::scene::cargo::Mode::Back, ..spec.clone() }
}

/// The seed's `LongFramesDoNotDiverge` through one integrator, the support jumping `jump` metres.
pub fn long_frames(scene: &Scene, spec: &CargoSpec, integrator: Integrator, input: Input, jump: f64) -> LongFrames {
    let hitch = EventSpec { at: 0.0, kind: EventKind::Hitch { dt: 1.0 / 3.0, count: 60 } };
    let spec = with(spec, integrator, input, vec![hitch]);
    let mut sim = CargoSim::of(scene.sim.seed, scene.sim.timing, &spec);
    sim.script.support = Some(alternating(jump));
    let mut finite = true;
    for k in 1..=60 {
        sim.advance_to(k as f64 / 3.0 + 1e-6);
        finite &= sim.state.dofs().all(|d| d.x.is_finite() && d.v.is_finite());
    }
    // the excursions are tracked after every step, not only at the game frames' ends
    let (beyond, frame) = (sim.counters.beyond, sim.counters.frame_peak);
    let name = match (integrator, input) {
        (Integrator::Exact, Input::Exact) => "exact",
        (Integrator::Exact, Input::Difference) => "exact, difference input",
        (Integrator::EulerCapped, _) => "euler_capped",
        (Integrator::EulerSplit, _) => "euler_split",
    };
    LongFrames { integrator: name, jump, beyond, frame, finite }
}

/// Everything above for a scene's cargo constants at fill ratio `fill` (default: the scene's at 0).
pub fn probe(scene: &Scene, spec: &CargoSpec, fill: Option<f64>) -> Probe {
    let duration = scene.sim.timing.duration();
    let fill = fill.unwrap_or_else(|| spec.fill.scalar_at(0.0, duration));
    let spec = CargoSpec { fill: crate::scene::values::Animated::Constant([fill]), events: Vec::new(), ..spec.clone() };
    let (_, laws, gains) = rig::laws(&spec, 0.0, duration);
    let links = spec
        .links
        .iter()
        .zip(&laws)
        .zip(&gains)
        .map(|((l, law), gain)| {
            let pitch = law[0];
            let target = pitch.clamp(-gain[0]).min(-1e-3);
            LinkProbe {
                name: l.name.clone(),
                hz: pitch.omega / std::f64::consts::TAU,
                zeta: pitch.zeta,
                theory: theory(&pitch),
                exact: respond(&pitch, target, 1.0 / 120.0, true),
                euler_120: respond(&pitch, target, 1.0 / 120.0, false),
                euler_30: respond(&pitch, target, 1.0 / 30.0, false),
            }
        })
        .collect();
    let mut long = Vec::new();
    for jump in [0.5, 3.0] {
        for (i, input) in [
            (Integrator::Exact, Input::Exact),
            (Integrator::Exact, Input::Difference),
            (Integrator::EulerCapped, Input::Difference),
            (Integrator::EulerSplit, Input::Difference),
        ] {
            long.push(long_frames(scene, &spec, i, input, jump));
        }
    }
    let dropped = [
        ("exact", Integrator::Exact, Input::Exact),
        ("euler_capped", Integrator::EulerCapped, Input::Difference),
        ("euler_split", Integrator::EulerSplit, Input::Difference),
    ]
    .into_iter()
    .map(|(name, i, input)| {
        let hitch = EventSpec { at: 1.0, kind: EventKind::Hitch { dt: 1.0, count: 1 } };
        let mut sim = CargoSim::of(scene.sim.seed, scene.sim.timing, &with(&spec, i, input, vec![hitch]));
        sim.advance_to(2.0 + 1e-6);
        (name, sim.counters.dropped)
    })
    .collect();
    Probe { heaviness_fill: fill, links, long_frames: long, dropped }
}

impl Probe {
    /// The report as a table.
    pub fn table(&self) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "step response of each load's pitch at fill {:.2} (overshoot %, first peak s, damped period s, 2 % settle s)",
            self.heaviness_fill
        );
        let _ = writeln!(
            o,
            "{:<8} {:>7} {:>5}  {:<26} {:<26} {:<26} {:<26}",
            "load", "Hz", "ζ", "theory", "exact @120 Hz", "Euler @120 Hz", "Euler @30 Hz"
        );
        let t = |v: f64| if v.is_finite() { format!("{v:6.3}") } else { "   n/a".to_string() };
        let cell = |r: &Response| format!("{:5.1} {} {} {}", 100.0 * r.overshoot, t(r.peak), t(r.period), t(r.settle));
        for l in &self.links {
            let _ = writeln!(
                o,
                "{:<8} {:>7.3} {:>5.3}  {:<26} {:<26} {:<26} {:<26}",
                l.name,
                l.hz,
                l.zeta,
                cell(&l.theory),
                cell(&l.exact),
                cell(&l.euler_120),
                cell(&l.euler_30)
            );
        }
        let _ = writeln!(o, "\nLongFramesDoNotDiverge: 60 game frames of 1/3 s, the support jumping back and forth");
        let _ = writeln!(o, "{:<26} {:>6} {:>22} {:>12} {:>7}", "integrator", "jump", "furthest past a limit", "frame max", "finite");
        for l in &self.long_frames {
            let past = if l.beyond < 100.0 { format!("{:.1}%", 100.0 * l.beyond) } else { format!("diverged ({:.1e} ranges)", l.beyond) };
            let _ = writeln!(o, "{:<26} {:>4.1} m {:>22} {:>11.2}° {:>7}", l.integrator, l.jump, past, l.frame, l.finite);
        }
        let _ = writeln!(o, "\ntime dropped from a 1 s hitch:");
        for (name, d) in &self.dropped {
            let _ = writeln!(o, "  {name:<12} {d:.4} s");
        }
        o
    }

    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        let resp =
            |r: &Response| serde_json::json!({ "overshoot": r.overshoot, "peak_s": r.peak, "period_s": r.period, "settle_s": r.settle });
        serde_json::json!({
            "fill": self.heaviness_fill,
            "links": self.links.iter().map(|l| serde_json::json!({
                "name": l.name, "hz": l.hz, "zeta": l.zeta,
                "theory": resp(&l.theory), "exact_120": resp(&l.exact), "euler_120": resp(&l.euler_120), "euler_30": resp(&l.euler_30),
            })).collect::<Vec<_>>(),
            "long_frames": self.long_frames.iter().map(|l| serde_json::json!({
                "integrator": l.integrator, "jump_m": l.jump, "beyond_limit": l.beyond, "frame_deg": l.frame, "finite": l.finite,
            })).collect::<Vec<_>>(),
            "dropped_of_1s_hitch": self.dropped.iter().map(|(n, d)| serde_json::json!({ "integrator": n, "seconds": d })).collect::<Vec<_>>(),
        })
        .to_string()
    }
}
