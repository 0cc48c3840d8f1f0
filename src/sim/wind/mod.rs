//! The `wind` scene kind (seed 003): grass and trees in a gusting wind field. The field is a pure
//! function of place and time ([`field`]); the state is what has history — pressed blades'
//! recovery springs and the trees' inertial lean — stepped on a fixed clock whose steps land on
//! the frames. Blades and leaves are drawn as instanced batches ([`draw`]); the camera, level of
//! detail and culling change only what is drawn, never the state.

pub mod blade;
pub mod draw;
pub mod field;
pub mod grass;
mod snapshot;
pub mod spring;
#[cfg(test)]
mod tests;
pub mod trees;

pub use draw::WindPainter;

use crate::frame::{Fnv, Motion};
use crate::portable;
use crate::scene::Timing;
use crate::scene::wind::{PresserSpec, WindSpec};
use crate::sim::{FixedClock, KindSimulation, SimFault, SimInputs, Simulation, StateDigest};
use field::{WindField, WindGrid};
use grass::Meadow;
use trees::Grove;

pub struct WindSim {
    spec: WindSpec,
    timing: Timing,
    field: WindField,
    grid: WindGrid,
    meadow: Meadow,
    grove: Grove,
    /// A whole number of steps per frame.
    clock: FixedClock,
    /// The time the blades and trees were last posed at.
    posed: Option<f64>,
    fault: Option<SimFault>,
}

impl KindSimulation for WindSim {
    type Spec = WindSpec;
    type Painter = WindPainter;

    fn new(inputs: &SimInputs<WindSpec>, _: crate::sim::Builder) -> Self {
        let (spec, seed, timing) = (inputs.spec, inputs.seed, inputs.timing);
        let field = WindField::new(spec, seed, timing.duration());
        let meadow = Meadow::new(&spec.grass, seed);
        let mut grove = Grove::new(&spec.trees, seed);
        grove.settle(&field, 0.0);
        let grid = match meadow.extent() {
            Some((lo, hi)) => WindGrid::over([lo[0] - 1.0, lo[1] - 1.0], [hi[0] + 1.0, hi[1] + 1.0], field.feature_size().min(1.0)),
            None => WindGrid::default(),
        };
        let fps = timing.fps;
        let per_frame = spec.step_hz.div_ceil(fps).max(1);
        WindSim {
            spec: spec.clone(),
            timing,
            field,
            grid,
            meadow,
            grove,
            clock: FixedClock::new(fps as f64 * per_frame as f64),
            posed: None,
            fault: None,
        }
    }
}

/// Where a walker or vehicle is at `t` (Hermite through its keyframes with time-based tangents)
/// and how fast it moves; `None` before its first key and after its last (a single key: it stands
/// there from that time on).
pub fn presser_at(p: &PresserSpec, t: f64) -> Option<([f64; 2], [f64; 2])> {
    let keys = &p.path;
    let first = keys.first()?;
    if keys.len() == 1 {
        return (t >= first[0]).then_some(([first[1], first[2]], [0.0; 2]));
    }
    let last = keys[keys.len() - 1];
    if t < first[0] || t > last[0] {
        return None;
    }
    let i = keys.partition_point(|k| k[0] <= t).clamp(1, keys.len() - 1) - 1;
    let (a, b) = (keys[i], keys[i + 1]);
    let tangent = |j: usize| {
        let (lo, hi) = (j.saturating_sub(1), (j + 1).min(keys.len() - 1));
        let dt = keys[hi][0] - keys[lo][0];
        [(keys[hi][1] - keys[lo][1]) / dt, (keys[hi][2] - keys[lo][2]) / dt]
    };
    let (ma, mb) = (tangent(i), tangent(i + 1));
    let span = b[0] - a[0];
    let s = (t - a[0]) / span;
    let (s2, s3) = (s * s, s * s * s);
    let (h00, h10, h01, h11) = (2.0 * s3 - 3.0 * s2 + 1.0, s3 - 2.0 * s2 + s, -2.0 * s3 + 3.0 * s2, s3 - s2);
    let (d00, d10, d01, d11) = (6.0 * s2 - 6.0 * s, 3.0 * s2 - 4.0 * s + 1.0, -6.0 * s2 + 6.0 * s, 3.0 * s2 - 2.0 * s);
    let pos = std::array::from_fn(|k| h00 * a[k + 1] + h10 * span * ma[k] + h01 * b[k + 1] + h11 * span * mb[k]);
    let vel = std::array::from_fn(|k| (d00 * a[k + 1] + d01 * b[k + 1]) / span + d10 * ma[k] + d11 * mb[k]);
    Some((pos, vel))
}

impl WindSim {
    /// Seconds of simulated time so far.
    pub fn time(&self) -> f64 {
        self.clock.time()
    }

    /// Seconds per fixed step.
    pub fn step_seconds(&self) -> f64 {
        self.clock.step_seconds()
    }

    pub fn field(&self) -> &WindField {
        &self.field
    }

    pub fn meadow(&self) -> &Meadow {
        &self.meadow
    }

    pub fn grove(&self) -> &Grove {
        &self.grove
    }

    /// One fixed step: springs move, walkers press.
    fn step(&mut self) {
        let t = self.time();
        let dt = self.clock.step_seconds();
        self.grove.step(&self.field, t, dt);
        let end = self.clock.time_of(self.clock.steps() + 1);
        let pressing: Vec<(&PresserSpec, [f64; 2], [f64; 2])> =
            self.spec.pressers.iter().filter_map(|p| presser_at(p, end).map(|(pos, vel)| (p, pos, vel))).collect();
        self.meadow.step(&pressing, dt);
        self.clock.tick();
        self.posed = None;
    }

    /// Steps the clock to `time` (the last step at or before it) and poses every blade and tree
    /// there: the work of one simulation step of the whole field.
    pub fn advance_to(&mut self, time: f64) {
        while self.clock.is_behind(time) {
            self.step();
        }
        let t = self.time();
        if self.posed == Some(t) {
            return;
        }
        if !self.meadow.is_empty() {
            let moment = self.field.moment(t);
            self.grid.sample(|x, z| moment.wind(x, z));
            if let Some(i) = self.meadow.shape(&self.field, &self.grid, t) {
                let frame = self.timing.frame_at(t);
                self.fault.get_or_insert(SimFault { frame, what: format!("grass blade {i} has a non-finite shape") });
            }
        }
        self.grove.pose(&self.field, t);
        self.posed = Some(t);
    }

    /// The motion records of every blade at the last pose.
    pub fn blades(&self) -> &[Motion] {
        &self.meadow.motion
    }
}

/// A hash over 64-bit words (the digest covers every blade each frame, so it goes a word at a
/// time rather than FNV's byte at a time).
fn hash_words(h: &mut u64, words: &[u64]) {
    for &w in words {
        *h = (*h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(23);
    }
}

/// The same over 32-bit words, paired.
fn hash_u32s(h: &mut u64, words: &[u32]) {
    for pair in words.chunks(2) {
        let hi = pair.get(1).copied().unwrap_or(0) as u64;
        hash_words(h, &[pair[0] as u64 | hi << 32]);
    }
}

impl Simulation for WindSim {
    fn advance(&mut self, frame: u32) {
        let t = self.timing.time_of(frame);
        self.advance_to(t);
        if self.fault.is_none()
            && let Some(i) = self.grove.trees.iter().position(|t| !(t.bend.iter().chain(&t.rate).all(|v| v.is_finite())))
        {
            self.fault = Some(SimFault { frame, what: format!("tree {i}'s lean is not finite") });
        }
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
        h.bytes(&self.time().to_bits().to_le_bytes());
        let mut words = h.finish();
        hash_u32s(&mut words, bytemuck::cast_slice(&self.meadow.motion));
        let mut max_flat = 0.0f64;
        for (&i, p) in &self.meadow.pressed {
            hash_words(
                &mut words,
                &[i as u64, p.s.to_bits(), p.v.to_bits(), p.dir[0].to_bits() as u64 | (p.dir[1].to_bits() as u64) << 32],
            );
            max_flat = max_flat.max(p.s);
        }
        let mut max_top = 0.0f64;
        for t in &self.grove.trees {
            hash_words(&mut words, &[t.bend[0].to_bits(), t.bend[1].to_bits(), t.rate[0].to_bits(), t.rate[1].to_bits()]);
            let (d, k, _) = t.shown;
            hash_words(&mut words, &[d[0].to_bits(), d[1].to_bits(), k.to_bits()]);
            max_top = max_top.max(portable::hypot(d[0], d[1]));
        }
        StateDigest {
            hash: words,
            facts: vec![
                ("time".into(), format!("{:.3}", self.time())),
                ("blades".into(), self.meadow.len().to_string()),
                ("pressed".into(), self.meadow.pressed.len().to_string()),
                ("max_flatten".into(), format!("{max_flat:.3}")),
                ("max_wind".into(), format!("{:.2}", self.grid.max_speed())),
                ("trees".into(), self.grove.trees.len().to_string()),
                ("max_tree_lean".into(), format!("{max_top:.3}")),
            ],
        }
    }
}
