//! The rules of a roll, for one set of dice thrown together (a [`Roller`]): throwing them from
//! the seeded stream, settling (every particle slower than 0.06 m/s for 0.35 s), reading the top
//! face of each die from its rotation, nudging cocked dice (at most three times), contacts between
//! its dice, and a scripted hand that holds one particle. The particles themselves live in the
//! [`Table`](super::table::Table)'s packs, which step every roller's dice together.
//!
//! The seed's nudge (mostly upward, a random direction mixed in) could not free a die leaning on
//! the fence or on another die: 18 of its 1,000 rolls ended cocked. Ours pushes toward the arena
//! centre and away from the nearest die, lifts, and tips the die over its low edge, hard enough to
//! topple it.

use super::math::{M3, V3, add, cross, dot, mat_t_vec, mat_vec, norm, scale, sub};
use super::model::{PARTICLES, SIZE, W_INV};
use super::orientation::{CUBE_ROTATIONS, LATTICE_MAPS, mat_mul, top_face};
use super::pack::Pack;
use super::rigid::{add_rigid_velocity, set_rigid_velocity};
use super::table::{GRAVITY, STEP};
use super::throw::{self, random_horizontal};
use crate::sim::rng::Rng;

/// A die is still when every particle is slower than this (m/s) …
pub const SETTLE_SPEED: f64 = 0.06;
/// … for this long (s).
pub const SETTLE_TIME: f64 = 0.35;
/// Below this "up" component the die is cocked: cos 30.7°, the seed's threshold.
pub const COCKED: f64 = 0.86;
pub const MAX_NUDGES: u32 = 3;
/// A roll still moving after this long is read as it lies (reported as unsettled).
pub const MAX_ROLL_SECONDS: f64 = 30.0;
const HALF: f64 = SIZE / 2.0;

/// Inverse moment of inertia of a die about its centre: 64 particles of 1/64 on the 4 × 4 × 4
/// lattice give I = 2·mean(x²) = 5/18 about every axis.
const DIE_INV_INERTIA: f64 = 18.0 / 5.0;
/// Squared radius of the sphere around a die's best-fit box (half its diagonal), with a margin of
/// 1e-9 for rounding.
const CIRCUMSPHERE2: f64 = 3.0 * HALF * HALF * (1.0 + 1e-9);
/// A settled die whose fastest particle gains this much speed (m/s) in one step was hit.
const JOLT: f64 = 1.0;

/// Where a roller's roll stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Before the first throw.
    Idle,
    Rolling,
    /// All still; results read (possibly cocked, after the nudges ran out).
    Settled,
}

/// What one die shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    pub value: u8,
    pub confidence: f64,
}

/// A grab in progress: particle `particle` of die `die` follows `target`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grab {
    pub die: usize,
    pub particle: usize,
    pub target: V3,
}

/// Where a die lives: pack and lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub pack: usize,
    pub lane: usize,
}

/// How a roll ended.
#[derive(Clone, Debug, PartialEq)]
pub struct RollOutcome {
    pub readings: Vec<Reading>,
    /// Throw to the first moment every die was still (before any nudge), seconds: what the seed
    /// measured as settle time.
    pub first_settle_s: f64,
    /// Throw to the final reading, seconds.
    pub settle_s: f64,
    pub nudges: u32,
    /// Dice that touched the fence during the roll.
    pub fence_contacts: u32,
    /// Which dice touched another die during the roll.
    pub die_contacts: Vec<bool>,
    /// False when the roll hit [`MAX_ROLL_SECONDS`] still moving.
    pub settled: bool,
}

/// A set of dice thrown together, again and again: where they live in the table's packs, the
/// random stream that throws them, and where their roll stands.
#[derive(Clone, Debug, PartialEq)]
pub struct Roller {
    slots: Vec<Slot>,
    /// Per die, which of the 24 cube rotations turns the pips' frame into the particle lattice's
    /// (see [`CUBE_ROTATIONS`]).
    frames: Vec<u8>,
    phase: Phase,
    /// Steps since the throw (or since the dice were taken as placed): roll times count steps,
    /// so they do not depend on when the roll began.
    roll_steps: u64,
    first_settle: Option<f64>,
    quiet_for: f64,
    /// Nudges in the current roll, and in all rolls.
    nudges: u32,
    total_nudges: u32,
    readings: Vec<Reading>,
    /// Results no longer match what the dice show (grabbed, or hit hard while not rolling).
    stale: bool,
    grab: Option<Grab>,
    fence_touched: Vec<bool>,
    /// Dice that touched another die during the current roll.
    die_touched: Vec<bool>,
    /// The last finished roll, once the roller has settled.
    outcome: Option<RollOutcome>,
    rng: Rng,
    /// Done for good: its dice rest inert and the table no longer steps them.
    retired: bool,
}

/// What anyone may read of a roller.
impl Roller {
    /// Where each die lives in the table's packs.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// What each die showed when last read.
    pub fn readings(&self) -> &[Reading] {
        &self.readings
    }

    /// Whether the readings no longer match what the dice show.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    pub fn grab(&self) -> Option<Grab> {
        self.grab
    }

    /// The last finished roll, once settled.
    pub fn outcome(&self) -> Option<&RollOutcome> {
        self.outcome.as_ref()
    }

    /// Nudges in the current roll.
    pub fn nudges(&self) -> u32 {
        self.nudges
    }

    /// Nudges in every roll so far.
    pub fn total_nudges(&self) -> u32 {
        self.total_nudges
    }

    pub fn is_retired(&self) -> bool {
        self.retired
    }

    /// Time since the throw.
    pub fn roll_seconds(&self) -> f64 {
        self.roll_steps as f64 * STEP
    }

    /// The lattice particle at pip-frame lattice point `p` of die `i`.
    pub fn particle_at(&self, i: usize, p: usize) -> usize {
        LATTICE_MAPS[self.frames[i] as usize][p] as usize
    }

    /// Orientation of die `i`'s pips: the lattice's rotation R times the die's frame.
    pub fn pip_rotation(&self, packs: &[Pack], i: usize) -> M3 {
        let s = self.slots[i];
        mat_mul(&packs[s.pack].r[s.lane], &CUBE_ROTATIONS[self.frames[i] as usize])
    }
}

/// The rules, driven by the table.
impl Roller {
    /// A roller before its first throw.
    pub(super) fn fresh(slots: Vec<Slot>, rng: Rng) -> Self {
        let n = slots.len();
        Roller {
            slots,
            frames: vec![0; n],
            phase: Phase::Idle,
            roll_steps: 0,
            first_settle: None,
            quiet_for: 0.0,
            nudges: 0,
            total_nudges: 0,
            readings: vec![Reading { value: 1, confidence: 1.0 }; n],
            stale: true,
            grab: None,
            fence_touched: vec![false; n],
            die_touched: vec![false; n],
            outcome: None,
            rng,
            retired: false,
        }
    }

    /// Throws every die (see [`throw::draw`]) and starts a roll.
    pub(super) fn throw(&mut self, packs: &mut [Pack]) {
        let n = self.slots.len();
        for i in 0..n {
            let t = throw::draw(&mut self.rng, i, n, GRAVITY);
            self.frames[i] = t.frame;
            let s = self.slots[i];
            let pk = &mut packs[s.pack];
            pk.place(s.lane, t.start, t.rotation);
            set_rigid_velocity(pk, s.lane, t.linear, t.angular);
        }
        self.release_grab(packs);
        self.roll_from_here();
    }

    /// Starts a roll from wherever the dice are, without throwing them: they are read, and nudged
    /// if cocked, once they have come to rest.
    pub(super) fn roll_from_here(&mut self) {
        let n = self.slots.len();
        self.phase = Phase::Rolling;
        self.roll_steps = 0;
        self.first_settle = None;
        self.quiet_for = 0.0;
        self.nudges = 0;
        self.stale = true;
        self.outcome = None;
        self.fence_touched = vec![false; n];
        self.die_touched = vec![false; n];
    }

    /// Takes the dice as lying where they were placed: read now (`read_now`), or once they have
    /// come to rest (dice placed in the air, say).
    pub(super) fn settle_in_place(&mut self, packs: &[Pack], read_now: bool) {
        self.phase = Phase::Settled;
        self.roll_steps = 0;
        self.quiet_for = 0.0;
        if read_now {
            self.read(packs);
        } else {
            self.stale = true;
        }
    }

    /// Puts the dice out of the way, inert, for good.
    pub(super) fn retire(&mut self, packs: &mut [Pack]) {
        self.release_grab(packs);
        self.retired = true;
        for s in &self.slots {
            let pk = &mut packs[s.pack];
            pk.place(s.lane, [0.0, -100.0 - 4.0 * s.lane as f64, 0.0], [0.0, 0.0, 0.0, 1.0]);
            pk.gravity[s.lane] = 0.0;
        }
    }

    /// A hand takes particle `particle` of die `die` where it is.
    pub(super) fn take_hold(&mut self, packs: &mut [Pack], die: usize, particle: usize) {
        self.release_grab(packs);
        let s = self.slots[die];
        let target = packs[s.pack].x_of(s.lane, particle);
        self.grab = Some(Grab { die, particle, target });
        self.stale = true;
    }

    /// Moves the held particle's target.
    pub(super) fn drag(&mut self, target: V3) {
        if let Some(g) = &mut self.grab {
            g.target = target;
        }
    }

    /// Lets go of the held particle, if any.
    pub(super) fn release_grab(&mut self, packs: &mut [Pack]) {
        if let Some(g) = self.grab.take() {
            let s = self.slots[g.die];
            packs[s.pack].w[g.particle][s.lane] = W_INV;
        }
    }

    /// The rules after one step: `speeds_before` and `speeds` are each die's fastest particle at
    /// the step's start and end, `fence` which dice touched the fence during it.
    pub(super) fn after_step(&mut self, packs: &mut [Pack], speeds_before: &[f64], speeds: &[f64], fence: &[bool]) {
        self.roll_steps += 1;
        for (touched, &now) in self.fence_touched.iter_mut().zip(fence) {
            *touched |= now;
        }
        // a settled die jolted hard (hit by another, knocked) no longer shows what was read
        if self.phase == Phase::Settled && speeds.iter().zip(speeds_before).any(|(&now, &b)| now > b + JOLT) {
            self.stale = true;
        }
        if self.grab.is_some() {
            self.quiet_for = 0.0;
            return;
        }
        let fastest = speeds.iter().copied().fold(0.0, f64::max);
        if fastest < SETTLE_SPEED {
            self.quiet_for += STEP;
        } else {
            self.quiet_for = 0.0;
            if self.phase == Phase::Settled && self.stale {
                self.phase = Phase::Rolling;
            }
        }
        let timed_out = self.phase == Phase::Rolling && self.roll_seconds() >= MAX_ROLL_SECONDS;
        if self.phase == Phase::Rolling && (self.quiet_for >= SETTLE_TIME || timed_out) {
            self.on_settled(packs, !timed_out);
        }
        if self.phase == Phase::Settled && self.stale && self.quiet_for >= SETTLE_TIME {
            self.read(packs);
        }
    }

    fn read(&mut self, packs: &[Pack]) {
        self.readings = (0..self.slots.len())
            .map(|i| top_face(&self.pip_rotation(packs, i)))
            .map(|(value, confidence)| Reading { value, confidence })
            .collect();
        self.stale = false;
    }

    fn on_settled(&mut self, packs: &mut [Pack], settled: bool) {
        let first = *self.first_settle.get_or_insert(self.roll_seconds());
        self.read(packs);
        let cocked: Vec<usize> = (0..self.slots.len()).filter(|&i| self.readings[i].confidence < COCKED).collect();
        if settled && !cocked.is_empty() && self.nudges < MAX_NUDGES {
            for i in cocked {
                self.nudge(packs, i);
            }
            self.nudges += 1;
            self.total_nudges += 1;
            self.quiet_for = 0.0;
            self.stale = true;
            return;
        }
        self.phase = Phase::Settled;
        self.outcome = Some(RollOutcome {
            readings: self.readings.clone(),
            first_settle_s: first,
            settle_s: self.roll_seconds(),
            nudges: self.nudges,
            fence_contacts: self.fence_touched.iter().filter(|&&t| t).count() as u32,
            die_contacts: self.die_touched.clone(),
            settled,
        });
    }

    /// Frees cocked die `i`: away from the fence (toward the centre) and from its nearest
    /// neighbour, up, and tipped over the edge it leans on.
    pub(super) fn nudge(&mut self, packs: &mut [Pack], i: usize) {
        let si = self.slots[i];
        let c = packs[si.pack].centroid[si.lane];
        let mut away = [-c[0], 0.0, -c[2]];
        let mut nearest = (f64::INFINITY, [0.0; 3]);
        for (j, s) in self.slots.iter().enumerate() {
            if j != i {
                let d = sub(c, packs[s.pack].centroid[s.lane]);
                let dist = norm([d[0], 0.0, d[2]]);
                if dist < nearest.0 {
                    nearest = (dist, [d[0], 0.0, d[2]]);
                }
            }
        }
        if nearest.0 < 2.0 * SIZE {
            away = add(away, scale(nearest.1, 2.0 / nearest.0.max(1e-6)));
        }
        let len = norm(away);
        let dir = if len > 1e-6 { scale(away, 1.0 / len) } else { random_horizontal(&mut self.rng) };
        // tip about the horizontal axis that turns the most-upward face toward vertical
        let r = &packs[si.pack].r[si.lane];
        let up_axis = (0..3).max_by(|&a, &b| r[1][a].abs().total_cmp(&r[1][b].abs())).unwrap_or(1);
        let axis_world = [r[0][up_axis], r[1][up_axis], r[2][up_axis]];
        let sign = if axis_world[1] >= 0.0 { 1.0 } else { -1.0 };
        let tilt = cross(scale(axis_world, sign), [0.0, 1.0, 0.0]);
        let tl = norm(tilt);
        let spin = if tl > 1e-6 { scale(tilt, 5.0 / tl) } else { scale(cross(dir, [0.0, 1.0, 0.0]), 5.0) };
        let jitter = 0.8 + 0.4 * self.rng.unit();
        let lin = add(scale(dir, 1.4 * jitter), [0.0, 2.6 * jitter, 0.0]);
        add_rigid_velocity(&mut packs[si.pack], si.lane, lin, spin);
    }

    /// Die–die contact: every particle of one die inside another die's best-fit box is pushed out
    /// through the nearest face, and the other die, taken as a rigid body at that moment (mass 1,
    /// the lattice's inertia), takes the equal and opposite push at the contact point: a shift
    /// and a turn, so momentum and angular momentum are both kept.
    pub(super) fn collide_dice(&mut self, packs: &mut [Pack]) {
        let n = self.slots.len();
        for a in 0..n {
            for b in 0..n {
                if a == b {
                    continue;
                }
                let (sa, sb) = (self.slots[a], self.slots[b]);
                let (cb, rb) = (packs[sb.pack].centroid[sb.lane], packs[sb.pack].r[sb.lane]);
                // bounding spheres (half diagonal, plus stretch room)
                if norm(sub(packs[sa.pack].centroid[sa.lane], cb)) > 2.2 * SIZE {
                    continue;
                }
                let (mut shift, mut turn) = ([0.0; 3], [0.0; 3]);
                let pa = &mut packs[sa.pack];
                // Outside b's circumscribed sphere means outside its box (the margin covers the
                // rounding of R's orthonormality). The particles inside it, found first without
                // a branch each: a particle's test reads only its own position, which only its
                // own push below changes.
                let mut inside = 0u64;
                for p in 0..PARTICLES {
                    let rel = sub(pa.x_of(sa.lane, p), cb);
                    inside |= ((dot(rel, rel) <= CIRCUMSPHERE2) as u64) << p;
                }
                while inside != 0 {
                    let p = inside.trailing_zeros() as usize;
                    inside &= inside - 1;
                    let wp = pa.w[p][sa.lane];
                    if wp == 0.0 {
                        continue;
                    }
                    let x = pa.x_of(sa.lane, p);
                    let rel = sub(x, cb);
                    let local = mat_t_vec(&rb, rel);
                    let depth: [f64; 3] = std::array::from_fn(|k| HALF - local[k].abs());
                    if depth.iter().any(|&d| d <= 0.0) {
                        continue;
                    }
                    let k = (0..3).min_by(|&i, &j| depth[i].total_cmp(&depth[j])).unwrap_or(0);
                    let mut n_local = [0.0; 3];
                    n_local[k] = if local[k] >= 0.0 { 1.0 } else { -1.0 };
                    let normal = mat_vec(&rb, n_local);
                    // contact point on b's surface, and b's inverse mass there along the normal
                    let contact = add(x, scale(normal, depth[k]));
                    let arm = cross(sub(contact, cb), normal);
                    let wb = 1.0 + DIE_INV_INERTIA * dot(arm, arm);
                    let lambda = depth[k] / (wp + wb);
                    pa.set_x(sa.lane, p, add(x, scale(normal, lambda * wp)));
                    shift = sub(shift, scale(normal, lambda));
                    turn = sub(turn, scale(arm, lambda * DIE_INV_INERTIA));
                }
                if shift != [0.0; 3] {
                    self.die_touched[a] = true;
                    self.die_touched[b] = true;
                    let pb = &mut packs[sb.pack];
                    for p in 0..PARTICLES {
                        if pb.w[p][sb.lane] > 0.0 {
                            let x = pb.x_of(sb.lane, p);
                            pb.set_x(sb.lane, p, add(x, add(shift, cross(turn, sub(x, cb)))));
                        }
                    }
                }
            }
        }
    }
}
