//! The rules of a roll, for one set of dice thrown together (a [`Roller`]): throwing them from
//! the seeded stream, settling (every die, moving as a body, slower than 0.06 m/s for 0.35 s),
//! reading the top face of each die from its rotation, nudging cocked dice (at most six times),
//! contacts between its dice (see [`super::contact`]), and a scripted hand that holds one
//! particle. The particles themselves live in the
//! [`Table`](super::table::Table)'s packs, which step every roller's dice together.
//!
//! The seed's nudge (mostly upward, a random direction mixed in) could not free a die leaning on
//! the fence or on another die: 18 of its 1,000 rolls ended cocked. Ours pushes toward the arena
//! centre and away from the dice around it, lifts, and tips the die over its low edge, hard enough
//! to topple it; a die still cocked after that is wedged among others, and later nudges re-roll it
//! onto the freest spot of the table.
//!
//! Stillness is judged on each die as a body (its centre's velocity and its spin): a jelly die
//! leaning on another can keep one particle quivering by a millimetre a substep, invisible, while
//! the die itself does not move.

use super::math::{M3, V3, add, cross, norm, scale, sub};
use super::model::{PARTICLES, SIZE, W_INV};
use super::orientation::{CUBE_ROTATIONS, LATTICE_MAPS, mat_mul, top_face};
use super::pack::Pack;
use super::rigid::{add_rigid_velocity, set_rigid_velocity};
use super::throw::{self, random_horizontal};
use super::world::{GRAVITY, STEP, arena_radius};
use crate::portable;
use crate::sim::rng::Rng;

/// A die is still when every point of it, moving as a body, is slower than this (m/s) …
pub const SETTLE_SPEED: f64 = 0.06;
/// … for this long (s).
pub const SETTLE_TIME: f64 = 0.35;
/// Below this "up" component the die is cocked: cos 30.7°, the seed's threshold.
pub const COCKED: f64 = 0.86;
pub const MAX_NUDGES: u32 = 6;
/// A roll still moving after this long is read as it lies (reported as unsettled).
pub const MAX_ROLL_SECONDS: f64 = 30.0;
const HALF: f64 = SIZE / 2.0;

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

/// How fast each die of a roller moved in a step: its fastest particle at the step's start
/// (`before`) and end (`after`), and how fast it moves as a body at the end (`body`).
#[derive(Clone, Copy)]
pub(super) struct Speeds<'a> {
    pub before: &'a [f64],
    pub after: &'a [f64],
    pub body: &'a [f64],
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
    /// Dice held still where they were put (each particle where it was), until woken.
    asleep: Vec<Option<Box<[V3; PARTICLES]>>>,
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
            asleep: vec![None; n],
        }
    }

    /// Holds die `i` still where it lies until it is thrown, nudged, grabbed or touched by
    /// another die.
    pub(super) fn put_to_sleep(&mut self, packs: &[Pack], i: usize) {
        let s = self.slots[i];
        self.asleep[i] = Some(Box::new(std::array::from_fn(|p| packs[s.pack].x_of(s.lane, p))));
    }

    /// Lets die `i` move again.
    fn wake(&mut self, packs: &mut [Pack], i: usize) {
        if self.asleep[i].take().is_some() {
            let s = self.slots[i];
            for w in packs[s.pack].w.iter_mut() {
                w[s.lane] = W_INV;
            }
        }
    }

    /// The sleeping dice and where their particles are held.
    pub(super) fn sleepers(&self) -> impl Iterator<Item = (usize, &[V3; PARTICLES])> {
        self.asleep.iter().enumerate().filter_map(|(i, a)| a.as_deref().map(|x| (i, x)))
    }

    /// Throws every die (see [`throw::draw`]) and starts a roll.
    pub(super) fn throw(&mut self, packs: &mut [Pack]) {
        let n = self.slots.len();
        for i in 0..n {
            self.wake(packs, i);
        }
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
        self.wake(packs, die);
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

    /// The rules after one step: `speeds` says how fast each die moved, `fence` which dice
    /// touched the fence during it.
    pub(super) fn after_step(&mut self, packs: &mut [Pack], speeds: Speeds, fence: &[bool]) {
        self.roll_steps += 1;
        for (touched, &now) in self.fence_touched.iter_mut().zip(fence) {
            *touched |= now;
        }
        // a settled die jolted hard (hit by another, knocked) no longer shows what was read
        if self.phase == Phase::Settled && speeds.after.iter().zip(speeds.before).any(|(&now, &b)| now > b + JOLT) {
            self.stale = true;
        }
        if self.grab.is_some() {
            self.quiet_for = 0.0;
            return;
        }
        let fastest = speeds.body.iter().copied().fold(0.0, f64::max);
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

    /// Frees cocked die `i`. The first nudge of a roll pushes it away from the fence (toward the
    /// centre) and from every die crowding it, up, and tips it over the edge it leans on; a die
    /// that this did not free is wedged, and later nudges re-roll it: a hop, spinning, onto the
    /// freest spot of the table.
    pub(super) fn nudge(&mut self, packs: &mut [Pack], i: usize) {
        self.wake(packs, i);
        if self.nudges > 0 {
            return self.hop(packs, i);
        }
        let si = self.slots[i];
        let c = packs[si.pack].centroid[si.lane];
        let mut away = [-c[0], 0.0, -c[2]];
        for (j, s) in self.slots.iter().enumerate() {
            if j != i {
                let d = sub(c, packs[s.pack].centroid[s.lane]);
                let dist = norm([d[0], 0.0, d[2]]);
                if dist < 2.0 * SIZE {
                    away = add(away, scale([d[0], 0.0, d[2]], 2.0 / dist.max(1e-6)));
                }
            }
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

    /// Re-rolls die `i` where the table is freest: up at 5 m/s (its bottom clears a neighbour's
    /// top), landing on the spot of the table farthest from every other die, spinning at 6–10
    /// rad/s about a random horizontal axis.
    fn hop(&mut self, packs: &mut [Pack], i: usize) {
        let si = self.slots[i];
        let c = packs[si.pack].centroid[si.lane];
        let others: Vec<V3> =
            (0..self.slots.len()).filter(|&j| j != i).map(|j| packs[self.slots[j].pack].centroid[self.slots[j].lane]).collect();
        // a landing centre 0.8 m inside the fence clears it however the die lands turned
        let target = freest_spot(&others, arena_radius(self.slots.len()) - 0.8);
        let vy = 5.0;
        // up and back down to resting height (half a die above the table)
        let drop = (c[1] - HALF).max(0.0);
        let flight = (vy + (vy * vy + 2.0 * GRAVITY * drop).sqrt()) / GRAVITY;
        let lin = [(target[0] - c[0]) / flight, vy, (target[2] - c[2]) / flight];
        let spin = scale(random_horizontal(&mut self.rng), 6.0 + 4.0 * self.rng.unit());
        set_rigid_velocity(&mut packs[si.pack], si.lane, lin, spin);
    }

    /// Die–die contact between this roller's dice (see [`super::contact`]).
    pub(super) fn collide_dice(&mut self, packs: &mut [Pack]) {
        super::contact::collide(packs, &self.slots, &mut self.die_touched);
        // a sleeping die wakes when another die touches it
        for i in 0..self.slots.len() {
            if self.die_touched[i] && self.asleep[i].is_some() {
                self.wake(packs, i);
            }
        }
    }
}

/// Of the points 0.2 m apart within `reach` of the centre, the one whose nearest die centre
/// (`others`) is farthest; the first such point on a tie.
fn freest_spot(others: &[V3], reach: f64) -> V3 {
    const STEP: f64 = 0.2;
    let cells = (reach / STEP) as i32;
    let mut best = (f64::NEG_INFINITY, [0.0; 3]);
    for gz in -cells..=cells {
        for gx in -cells..=cells {
            let p = [gx as f64 * STEP, 0.0, gz as f64 * STEP];
            if p[0] * p[0] + p[2] * p[2] > reach * reach {
                continue;
            }
            let room = others.iter().map(|o| portable::powi(o[0] - p[0], 2) + portable::powi(o[2] - p[2], 2)).fold(f64::INFINITY, f64::min);
            if room > best.0 {
                best = (room, p);
            }
        }
    }
    best.1
}

/// A roller's state in a snapshot (see `super::snapshot`).
impl Roller {
    pub(super) fn save(&self, w: &mut crate::sim::snapshot::Writer) {
        use super::snapshot::*;
        w.count(self.slots.len());
        for &f in &self.frames {
            w.u32(f as u32);
        }
        w.u32(self.phase as u32).u64(self.roll_steps);
        put_opt_f64(w, self.first_settle);
        w.f64(self.quiet_for).u32(self.nudges).u32(self.total_nudges);
        put_readings(w, &self.readings);
        w.bool(self.stale);
        put_grab(w, self.grab);
        put_bools(w, &self.fence_touched);
        put_bools(w, &self.die_touched);
        put_outcome(w, self.outcome.as_ref());
        w.u64(self.rng.state());
        w.bool(self.retired);
        for a in &self.asleep {
            put_particles(w, a.as_deref());
        }
    }

    /// This roller with the state a snapshot holds; `None` when it is not this roller's.
    pub(super) fn read_saved(&self, r: &mut crate::sim::snapshot::Reader) -> Option<Roller> {
        use super::snapshot::*;
        let n = self.slots.len();
        if r.count(0)? != n {
            return None;
        }
        let mut o = self.clone();
        o.frames = (0..n)
            .map(|_| r.u32().and_then(|f| u8::try_from(f).ok()).filter(|&f| (f as usize) < CUBE_ROTATIONS.len()))
            .collect::<Option<_>>()?;
        o.phase = [Phase::Idle, Phase::Rolling, Phase::Settled].get(r.u32()? as usize).copied()?;
        o.roll_steps = r.u64()?;
        o.first_settle = get_opt_f64(r)?;
        (o.quiet_for, o.nudges, o.total_nudges) = (r.f64()?, r.u32()?, r.u32()?);
        o.readings = get_readings(r)?;
        o.stale = r.bool()?;
        o.grab = get_grab(r, n)?;
        (o.fence_touched, o.die_touched) = (get_bools(r)?, get_bools(r)?);
        o.outcome = get_outcome(r)?;
        o.rng = Rng::new(r.u64()?);
        o.retired = r.bool()?;
        o.asleep = (0..n).map(|_| get_particles(r)).collect::<Option<_>>()?;
        Some(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_freest_spot_is_farthest_from_every_die() {
        // dice along the x axis and one at +z: the room is toward −z, as far out as allowed
        let others = [[-1.0, 0.5, 0.0], [0.0, 0.5, 0.0], [1.0, 0.5, 0.0], [0.0, 0.5, 1.5]];
        let p = freest_spot(&others, 2.2);
        assert!(p[0] * p[0] + p[2] * p[2] <= 2.2 * 2.2 + 1e-9, "{p:?} outside the reach");
        assert!(p[2] < -1.5, "{p:?}");
        let room = |q: V3| others.iter().map(|o| portable::hypot(o[0] - q[0], o[2] - q[2])).fold(f64::INFINITY, f64::min);
        // no grid point has more room
        for gz in -11..=11 {
            for gx in -11..=11 {
                let q = [gx as f64 * 0.2, 0.0, gz as f64 * 0.2];
                if q[0] * q[0] + q[2] * q[2] <= 2.2 * 2.2 {
                    assert!(room(q) <= room(p) + 1e-12, "{q:?} has more room than {p:?}");
                }
            }
        }
    }
}
