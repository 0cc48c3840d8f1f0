//! The `cargo` scene kind (seed 001): a carrier walks a scripted route with a jige on its back; the
//! jige's frame sways and its three stacked loads tilt and lift against the support's acceleration,
//! sway and settle, jolt when loaded, and straps skinned to them follow.
//!
//! The game the seed describes is emulated by a clock of game frames (`game_hz`, with hitches:
//! runs of long frames); frames show the state at the last game frame. Three integrators:
//! `exact` steps every spring in closed form on a fixed clock with the support's exact
//! acceleration (frame-length independent, stable for any frame), `euler_capped` and `euler_split` are the
//! post's semi-implicit Euler after and before its long-frame fix, fed by finite differences of
//! positions across game frames ([`rig`]).

pub mod draw;
pub mod probe;
pub mod rig;
pub mod route;
mod snapshot;
pub mod spring;
pub mod straps;
#[cfg(test)]
mod tests;

pub use draw::CargoPainter;

use crate::frame::Fnv;
use crate::scene::Timing;
use crate::scene::cargo::{CargoSpec, EventKind, Integrator};
use crate::sim::rng::Rng;
use crate::sim::{FixedClock, KindSimulation, SimFault, SimInputs, Simulation, StateDigest};
use rig::{Rig, Targets};
use route::{Hold, Script};
use spring::Dof;

/// What the springs are doing now: the frame's (pitch, roll) and each load's (pitch, roll, lift),
/// in degrees and centimetres.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub frame: [Dof; 2],
    pub links: Vec<[Dof; 3]>,
}

impl State {
    fn dofs(&self) -> impl Iterator<Item = &Dof> {
        self.frame.iter().chain(self.links.iter().flatten())
    }

    fn zero(&mut self) {
        self.frame = Default::default();
        self.links.iter_mut().for_each(|l| *l = Default::default());
    }
}

/// Counts for the digest and the tests.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counters {
    pub wall_entries: u64,
    pub teleports_ignored: u64,
    pub accel_clamps: u64,
    /// Seconds of game time the springs did not integrate (the seed's cap on substeps).
    pub dropped: f64,
    pub resets: u64,
    /// Largest |pitch| each load reached, degrees.
    pub peak_pitch: Vec<f64>,
    /// The furthest any load went past one of its limits after any step, as a fraction of that
    /// limit's range, and the frame's largest angle (degrees).
    pub beyond: f64,
    pub frame_peak: f64,
}

/// One game frame's values, for the strip chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub t: f64,
    /// Per load: (pitch, roll, lift) and their targets.
    pub links: Vec<([f64; 3], [f64; 3])>,
}

/// The emulated game clock: frames of 1/`game_hz`, and hitches.
#[derive(Clone, Debug)]
struct Clock {
    base: f64,
    n: u64,
    hz: f64,
    /// Long frames still to come, and their length.
    hitch: (u32, f64),
    hitches: Vec<(f64, f64, u32)>,
}

impl Clock {
    fn now(&self) -> f64 {
        self.base + self.n as f64 / self.hz
    }

    /// The end of the next game frame (without taking it).
    fn next(&self) -> (f64, bool) {
        let now = self.now();
        if self.hitch.0 > 0 {
            return (now + self.hitch.1, true);
        }
        if let Some(&(_, dt, _)) = self.hitches.first().filter(|h| h.0 <= now + 1e-9) {
            return (now + dt, true);
        }
        (self.base + (self.n + 1) as f64 / self.hz, false)
    }

    fn take(&mut self) {
        let now = self.now();
        if self.hitch.0 == 0
            && let Some(&(at, dt, count)) = self.hitches.first()
            && at <= now + 1e-9
        {
            self.hitches.remove(0);
            self.hitch = (count, dt);
        }
        if self.hitch.0 > 0 {
            self.base = now + self.hitch.1;
            self.n = 0;
            self.hitch.0 -= 1;
        } else {
            self.n += 1;
        }
    }
}

pub struct CargoSim {
    spec: CargoSpec,
    seed: u64,
    timing: Timing,
    script: Script,
    rig: Rig,
    state: State,
    clock: Clock,
    /// Simulated time (the exact integrator may be ahead of the last game frame's start).
    now: f64,
    /// Exact integrator: the grid interval being integrated and the equations frozen at its start.
    frozen: Option<(u64, Targets, State)>,
    /// Whether each spring (the frame's two, then each load's three) was outside a limit at its
    /// last step, to count wall entries.
    outside: Vec<bool>,
    /// Difference input: previous positions and velocities of the frame's and the loads'
    /// contact points.
    history: Vec<Option<(glam::DVec3, glam::DVec3)>>,
    /// Events applied so far.
    applied: usize,
    /// Ground jige: its springs run until this time (then fade and reset).
    awake_until: f64,
    asleep: bool,
    /// The latest targets (for the chart and the digest).
    targets: Targets,
    pub counters: Counters,
    pub samples: Vec<Sample>,
    /// The game frame the state belongs to.
    shown: f64,
    /// The last frame described (a snapshot names it).
    described: u32,
    fault: Option<SimFault>,
}

impl KindSimulation for CargoSim {
    type Spec = CargoSpec;
    type Painter = CargoPainter;

    fn new(inputs: &SimInputs<CargoSpec>, _: crate::sim::Builder) -> Self {
        CargoSim::of(inputs.seed, inputs.timing, inputs.spec)
    }
}

impl CargoSim {
    /// The simulation of a scene with `seed` and `timing` played with `spec` (the probe plays
    /// variants of a scene's).
    pub fn of(seed: u64, timing: Timing, spec: &CargoSpec) -> Self {
        let script = Script::new(spec);
        let rig = Rig::new(spec);
        let hitches = hitches_of(spec);
        let n = spec.links.len();
        CargoSim {
            spec: spec.clone(),
            seed,
            timing,
            script,
            rig,
            state: State { frame: Default::default(), links: vec![Default::default(); n] },
            clock: Clock { base: 0.0, n: 0, hz: spec.game_hz, hitch: (0, 0.0), hitches },
            now: 0.0,
            frozen: None,
            history: vec![None; n + 1],
            outside: vec![false; 2 + 3 * n],
            applied: 0,
            awake_until: f64::NEG_INFINITY,
            asleep: false,
            targets: Targets::zero(n),
            counters: Counters { peak_pitch: vec![0.0; n], ..Default::default() },
            samples: Vec::new(),
            shown: 0.0,
            described: 0,
            fault: None,
        }
    }
}

impl CargoSim {
    pub fn spec(&self) -> &CargoSpec {
        &self.spec
    }

    pub fn timing(&self) -> Timing {
        self.timing
    }

    /// Seconds of history kept for the strip chart (0: none), half a second beyond what it shows.
    fn keep(&self) -> f64 {
        self.spec.history.map_or(0.0, |s| s + 0.5)
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    pub fn script(&self) -> &Script {
        &self.script
    }

    pub fn rig(&self) -> &Rig {
        &self.rig
    }

    /// The time of the game frame whose state is shown.
    pub fn shown_time(&self) -> f64 {
        self.shown
    }

    /// Until when a ground jige's springs run at full weight: `ground_reset` after the last load
    /// or after it came to stand on the ground, whichever is later.
    fn awake_until(&self, t: f64) -> f64 {
        let landed = self.script.grounded_since(t).map_or(f64::NEG_INFINITY, |s| s + self.spec.ground_reset);
        self.awake_until.max(landed)
    }

    /// The fade of a ground jige's sway at `t` as if it stood on the ground: 1 until its timer
    /// ends, then down to 0 over `reset_fade` (at once with the seed's 0).
    fn fade(&self, t: f64) -> f64 {
        let until = self.awake_until(t);
        if t < until {
            return 1.0;
        }
        let fade = self.spec.reset_fade;
        if fade <= 0.0 {
            return 0.0;
        }
        let u = ((t - until) / fade).clamp(0.0, 1.0);
        1.0 - u * u * (3.0 - 2.0 * u)
    }

    /// How much of the springs' sway shows at `t`: a ground jige's fades out after its timer.
    pub fn sway_weight(&self, t: f64) -> f64 {
        if self.script.hold(t) != Hold::Ground { 1.0 } else { self.fade(t) }
    }

    /// Whether the springs run at `t` (a ground jige's only after a load, until its reset).
    fn awake(&self, t: f64) -> bool {
        self.script.hold(t) != Hold::Ground || t < self.awake_until(t) + self.spec.reset_fade
    }

    /// Makes the sway shown now the state itself, before something would show it at full weight
    /// again (a load or a pick-up during the fade): no jump back up.
    fn bake_fade(&mut self, t: f64) {
        let w = self.sway_weight(t);
        if w < 1.0 {
            for d in self.state.frame.iter_mut().chain(self.state.links.iter_mut().flatten()) {
                d.x *= w;
                d.v *= w;
            }
        }
    }

    /// Applies the events due at or before `t`: loads (impulses, the ground jige's timer) and
    /// pick-ups (the fade made part of the state).
    fn apply_events(&mut self, t: f64) {
        while let Some(e) = self.spec.events.get(self.applied).filter(|e| e.at <= t + 1e-9) {
            let at = e.at;
            match e.kind {
                EventKind::Load { impulse, .. } => {
                    self.bake_fade(at);
                    let n = self.state.links.len();
                    let sign = if Rng::stream(self.seed ^ self.applied as u64, "cargo-impulse").unit() < 0.5 { -1.0 } else { 1.0 };
                    self.state.frame[0].v += self.spec.frame.impulse;
                    for (i, l) in self.state.links.iter_mut().enumerate() {
                        // a load not put on yet does not jolt
                        if draw::arrival(&self.spec, i).is_some_and(|first| first > at) {
                            continue;
                        }
                        let share = if n > 1 { 0.5 + 0.5 * i as f64 / (n - 1) as f64 } else { 1.0 };
                        l[0].v += impulse[0] * share;
                        l[1].v += impulse[1] * share * sign;
                        l[2].v += impulse[2] * 100.0;
                    }
                    if self.script.hold(at) == Hold::Ground {
                        self.awake_until = at + self.spec.ground_reset;
                    }
                }
                EventKind::PickUp => self.bake_fade(at - 1e-9),
                _ => {}
            }
            self.applied += 1;
        }
    }

    /// The ground jige's reset: once its timer and fade are over, the springs return to rest and
    /// forget their history; they wake with the next load or when the jige is picked up.
    fn maybe_sleep(&mut self, t: f64) {
        let awake = self.awake(t);
        if !self.asleep && !awake {
            self.state.zero();
            self.history.iter_mut().for_each(|h| *h = None);
            self.counters.resets += 1;
        }
        self.asleep = !awake;
    }

    /// Takes one game frame.
    fn tick(&mut self) {
        let (end, _) = self.clock.next();
        self.clock.take();
        match self.spec.integrator {
            Integrator::Exact if self.spec.input == crate::scene::cargo::Input::Exact => self.integrate_exact(end),
            _ => {
                let start = self.now;
                self.maybe_sleep(end);
                if self.awake(end) {
                    rig::difference_tick(self, start, end);
                } else {
                    // a sleeping ground jige does not move: its history starts afresh on waking
                    self.history.iter_mut().for_each(|h| *h = None);
                }
                // the game sees what happened during a frame at its end
                self.apply_events(end);
                self.now = end;
            }
        }
        self.shown = end;
        self.record(end);
    }

    /// The exact integrator up to `end`: closed-form steps on the fixed grid of 1/`substep_hz`,
    /// the equations of each grid interval frozen at its start. A game frame that ends inside an
    /// interval is shown by solving from the interval's start, so where the game frames fall
    /// changes nothing (not even the lift's floor, which is applied at the end of each solve).
    fn integrate_exact(&mut self, end: f64) {
        let grid = FixedClock::new(self.spec.substep_hz);
        let h = grid.step_seconds();
        while self.now < end - 1e-12 {
            let k = grid.steps_at(self.now);
            let g = grid.time_of(k);
            if self.frozen.as_ref().map(|f| f.0) != Some(k) {
                self.apply_events(g);
                self.maybe_sleep(g);
                if k > 0 && self.script.teleport_between(g - h, g) {
                    self.counters.teleports_ignored += 1;
                }
                let targets = if self.awake(g) { rig::exact_targets(self, g) } else { Targets::zero(self.state.links.len()) };
                self.count_walls(&targets);
                if self.awake(g) {
                    // what the chart and the digest show: the last targets the springs followed
                    self.targets = targets.clone();
                }
                self.frozen = Some((k, targets, self.state.clone()));
            }
            let next = grid.time_of(k + 1);
            // a game frame ending within a hair of the grid point ends on it
            let (stop, span) = if end >= next - 1e-9 { (next, h) } else { (end, end - g) };
            let (_, targets, start) = self.frozen.as_ref().expect("frozen");
            let mut state = start.clone();
            if self.awake(g) {
                rig::step_exact(&mut state, targets, span);
            }
            self.state = state;
            self.now = stop;
            if stop == next {
                let targets = &self.frozen.as_ref().expect("frozen").1;
                rig::track_excursion(&self.state, targets, &mut self.counters);
            }
        }
    }

    /// Counts the springs that enter a wall region now.
    fn count_walls(&mut self, t: &Targets) {
        for (outside, r) in self.outside.iter_mut().zip(t.regions()) {
            self.counters.wall_entries += (r.walled && !*outside) as u64;
            *outside = r.walled;
        }
    }

    fn record(&mut self, t: f64) {
        for (i, l) in self.state.links.iter().enumerate() {
            self.counters.peak_pitch[i] = self.counters.peak_pitch[i].max(l[0].x.abs());
        }
        let keep = self.keep();
        if keep > 0.0 {
            let w = self.sway_weight(t);
            let links = self
                .state
                .links
                .iter()
                .zip(&self.targets.links)
                .map(|(l, tg)| ([l[0].x * w, l[1].x * w, l[2].x * w], tg.map(|(v, _)| v)))
                .collect();
            self.samples.push(Sample { t, links });
            let cut = self.samples.partition_point(|s| s.t < t - keep);
            self.samples.drain(..cut);
        }
        if self.fault.is_none()
            && let Some(i) = self.state.dofs().position(|d| !(d.x.is_finite() && d.v.is_finite()))
        {
            let what = match i {
                0 | 1 => format!("the frame's {} is not finite", ["pitch", "roll"][i]),
                _ => {
                    format!("load \"{}\"'s {} is not finite", self.spec.links[(i - 2) / 3].name, ["pitch", "roll", "lift"][(i - 2) % 3])
                }
            };
            self.fault = Some(SimFault { frame: self.timing.frame_at(t), what });
        }
    }

    /// The scene's game clock from the start to time `t`, as [`CargoSim::advance_to`] takes its
    /// frames (without the springs): the end of the last frame taken, and the clock after it.
    fn clock_at(&self, t: f64) -> (f64, Clock) {
        let mut clock = Clock { base: 0.0, n: 0, hz: self.spec.game_hz, hitch: (0, 0.0), hitches: hitches_of(&self.spec) };
        let mut shown = 0.0;
        while clock.next().0 <= t + 1e-9 {
            shown = clock.next().0;
            clock.take();
        }
        (shown, clock)
    }

    /// Runs game frames up to time `t` (the last one ending at or before it).
    pub fn advance_to(&mut self, t: f64) {
        while self.clock.next().0 <= t + 1e-9 {
            self.tick();
            if self.fault.is_some() {
                break;
            }
        }
    }
}

/// The hitches of a scene's game clock: (start, frame length, count), in time order.
fn hitches_of(spec: &CargoSpec) -> Vec<(f64, f64, u32)> {
    spec.events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Hitch { dt, count } => Some((e.at, dt, count)),
            _ => None,
        })
        .collect()
}

impl Simulation for CargoSim {
    fn advance(&mut self, frame: u32) {
        let t = self.timing.time_of(frame);
        self.advance_to(t);
        self.described = frame;
    }

    fn fault(&self) -> Option<SimFault> {
        self.fault.clone()
    }

    fn snapshot(&self) -> Option<Vec<u8>> {
        // a broken state is not worth carrying on from
        self.fault.is_none().then(|| self.save())
    }

    fn restore(&mut self, frame: u32, bytes: &[u8]) -> bool {
        self.fault.is_none() && self.load(frame, bytes)
    }

    fn digest(&self) -> StateDigest {
        let mut h = Fnv::new();
        h.bytes(&self.shown.to_bits().to_le_bytes());
        for d in self.state.dofs() {
            h.bytes(&d.x.to_bits().to_le_bytes());
            h.bytes(&d.v.to_bits().to_le_bytes());
        }
        let w = self.sway_weight(self.shown);
        let mut facts = vec![
            ("time".to_string(), format!("{:.3}", self.shown)),
            (
                "mode".to_string(),
                match self.script.hold(self.shown) {
                    Hold::Back => "back",
                    Hold::Ground => "ground",
                    Hold::Moving { .. } => "moving",
                }
                .to_string(),
            ),
            ("frame_pitch".to_string(), format!("{:.3}", self.state.frame[0].x * w)),
        ];
        for (spec, l) in self.spec.links.iter().zip(&self.state.links) {
            for (k, unit) in [("pitch", 1.0), ("roll", 1.0), ("lift", 1.0)].iter().enumerate().map(|(i, (n, u))| ((i, *n), *u)) {
                facts.push((format!("{}_{}", spec.name, k.1), format!("{:.3}", l[k.0].x * w * unit)));
            }
        }
        let c = &self.counters;
        let peak = c.peak_pitch.iter().cloned().fold(0.0, f64::max);
        facts.extend([
            ("peak_pitch".to_string(), format!("{peak:.3}")),
            ("wall_entries".to_string(), c.wall_entries.to_string()),
            ("teleports_ignored".to_string(), c.teleports_ignored.to_string()),
            ("accel_clamps".to_string(), c.accel_clamps.to_string()),
            ("dropped".to_string(), format!("{:.3}", c.dropped)),
        ]);
        StateDigest { hash: h.finish(), facts }
    }
}
