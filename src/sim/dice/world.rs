//! The dice table: jelly dice on a floor inside an invisible circular fence, stepped at a fixed
//! 1/120 s in 6 substeps; throws drawn from the seeded RNG (only the throw: the result is read from
//! the physics); settling (every particle slower than 0.06 for 0.35 s); the top face read from each
//! die's rotation; cocked dice nudged, at most three times.
//!
//! The seed's nudge (mostly upward, a random direction mixed in) could not free a die leaning on
//! the fence or on another die: 18 of its 1,000 rolls ended cocked. Ours pushes toward the arena
//! centre and away from the nearest die, lifts, and tips the die over its low edge, hard enough to
//! topple it.
//!
//! A [`Table`] holds the dice of one or more independent [`World`]s in [`Pack`]s of four lanes;
//! the worlds share nothing but the packs' arithmetic, so a world's dice move exactly as they would
//! alone. A scene is one world; `simreel dice stats` packs several seeds side by side.

use super::math::{M3, Quat, V3, add, cross, dot, invert3, mat_t_vec, mat_vec, norm, scale, sub};
use super::model::{PARTICLES, SIZE, W_INV};
use super::pack::{LANES, Pack, edge_compliance};
use crate::sim::rng::Rng;
use std::sync::LazyLock;

/// Fixed step, and substeps per step (small-step XPBD).
pub const STEP: f64 = 1.0 / 120.0;
pub const SUBSTEPS: usize = 6;
/// Radius of the invisible fence that keeps dice in frame.
pub const ARENA_R: f64 = 3.0;
pub const GRAVITY: f64 = 9.81;
/// A die is still when every particle is slower than this …
pub const SETTLE_SPEED: f64 = 0.06;
/// … for this long.
pub const SETTLE_TIME: f64 = 0.35;
/// Below this "up" component the die is cocked: cos 30.7°, the seed's threshold.
pub const COCKED: f64 = 0.86;
pub const MAX_NUDGES: u32 = 3;
/// A roll still moving after this long is read as it lies (reported as unsettled).
pub const MAX_ROLL_SECONDS: f64 = 30.0;
/// Jelly damping rate (1/s): wobble and rebound decay with a time constant of 1/6 s.
pub const WOBBLE_DAMPING: f64 = 6.0;
/// Rolling resistance (1/s) of a die touching the floor: its horizontal drift and its spin decay.
pub const FLOOR_DRIFT_DAMPING: f64 = 1.5;
pub const FLOOR_SPIN_DAMPING: f64 = 2.5;
/// Floor friction: particles touching the floor keep still while the sideways slip is under this
/// share of the penetration (static), and lose this share of it otherwise (kinetic).
const STATIC_FRICTION: f64 = 0.9;
const KINETIC_FRICTION: f64 = 0.6;
const HALF: f64 = SIZE / 2.0;
/// The 24 rotations of a cube (signed permutation matrices with determinant +1).
///
/// A die's particle lattice is not perfectly symmetric (five tetrahedra per cell cannot be split
/// symmetrically under the cube's inversion), and in a 6,000-die study that anisotropy made the
/// lattice's +X/+Y/+Z faces come up 51.9% of the time. So every throw also draws which rotation
/// relates the pips to the lattice: whatever the lattice favours, it no longer favours a number.
pub static CUBE_ROTATIONS: LazyLock<Vec<M3>> = LazyLock::new(|| {
    let mut out = Vec::new();
    for perm in [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [2, 1, 0], [1, 0, 2]] {
        for signs in 0..8 {
            let mut m = [[0.0; 3]; 3];
            for (col, &row) in perm.iter().enumerate() {
                m[row][col] = if signs >> col & 1 == 1 { -1.0 } else { 1.0 };
            }
            if det3(&m) > 0.0 {
                out.push(m);
            }
        }
    }
    out
});

/// For each cube rotation S, the lattice particle under each pip-frame lattice point p: the point
/// S·(p − centre) + centre.
static LATTICE_MAPS: LazyLock<Vec<[u8; PARTICLES]>> = LazyLock::new(|| {
    CUBE_ROTATIONS
        .iter()
        .map(|m| {
            std::array::from_fn(|p| {
                let c = [(p % 4) as f64 - 1.5, ((p / 4) % 4) as f64 - 1.5, (p / 16) as f64 - 1.5];
                let l = mat_vec(m, c).map(|v| (v + 1.5).round() as usize);
                super::model::index(l[0], l[1], l[2]) as u8
            })
        })
        .collect()
});

fn det3(m: &M3) -> f64 {
    dot(m[0], cross(m[1], m[2]))
}

fn mat_mul(a: &M3, b: &M3) -> M3 {
    std::array::from_fn(|i| std::array::from_fn(|j| a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j]))
}

/// Inverse moment of inertia of a die about its centre: 64 particles of 1/64 on the 4 × 4 × 4
/// lattice give I = 2·mean(x²) = 5/18 about every axis.
const DIE_INV_INERTIA: f64 = 18.0 / 5.0;
/// Squared radius of the sphere around a die's best-fit box (half its diagonal), with a margin of
/// 1e-9 for rounding.
const CIRCUMSPHERE2: f64 = 3.0 * HALF * HALF * (1.0 + 1e-9);
/// A settled die whose fastest particle gains this much speed (m/s) in one step was hit.
const JOLT: f64 = 1.0;

/// Face values for +X, −X, +Y, −Y, +Z, −Z (opposite faces sum to 7).
pub const FACE_VALUE: [u8; 6] = [3, 4, 1, 6, 2, 5];

/// The face that points up and how squarely: the seed's `topFace`. `r` is row-major with the die's
/// local axes as columns, so `r[1][a]` is how far local axis `a` points up.
pub fn top_face(r: &M3) -> (u8, f64) {
    let (mut best, mut face) = (-2.0, 2);
    for (a, &up) in r[1].iter().enumerate() {
        if up > best {
            best = up;
            face = 2 * a;
        }
        if -up > best {
            best = -up;
            face = 2 * a + 1;
        }
    }
    (FACE_VALUE[face], best)
}

/// Where a world's roll stands.
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

/// One game: its dice (slots in the table's packs), its random stream and its roll state.
#[derive(Clone, Debug, PartialEq)]
pub struct World {
    pub slots: Vec<Slot>,
    /// Per die, which of the 24 cube rotations turns the pips' frame into the particle lattice's
    /// (see [`CUBE_ROTATIONS`]).
    pub frames: Vec<u8>,
    pub phase: Phase,
    /// Steps since the throw (or since the dice were taken as placed): roll times count steps,
    /// so they do not depend on when the roll began.
    pub roll_steps: u64,
    pub first_settle: Option<f64>,
    pub quiet_for: f64,
    pub nudges: u32,
    pub total_nudges: u32,
    pub readings: Vec<Reading>,
    /// Results no longer match what the dice show (grabbed, or hit hard while not rolling).
    pub stale: bool,
    pub grab: Option<Grab>,
    pub fence_touched: Vec<bool>,
    /// Dice that touched another die during the current roll.
    pub die_touched: Vec<bool>,
    /// The last finished roll, once the world has settled.
    pub outcome: Option<RollOutcome>,
    pub rng: Rng,
    /// Done for good: its dice rest inert and the step skips it (see [`Table::retire`]).
    pub retired: bool,
}

/// Packs of dice and the worlds they belong to, stepped together.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub packs: Vec<Pack>,
    pub worlds: Vec<World>,
    pub time: f64,
    pub steps: u64,
    /// Step two halves of the packs on two threads (see [`crate::sim::duo`]); never changes a
    /// result. Off for tables that already run side by side on every core (`dice stats`).
    pub two_threads: bool,
}

impl Table {
    /// Worlds given as (firmness per die, random stream); their dice take consecutive lanes.
    pub fn new(worlds: Vec<(Vec<f64>, Rng)>) -> Self {
        let total: usize = worlds.iter().map(|w| w.0.len()).sum();
        let mut packs = vec![Pack::default(); total.div_ceil(LANES)];
        let mut next = 0;
        let worlds = worlds
            .into_iter()
            .map(|(firmness, rng)| {
                let n = firmness.len();
                let slots: Vec<Slot> = (0..n).map(|i| Slot { pack: (next + i) / LANES, lane: (next + i) % LANES }).collect();
                next += n;

                for (i, s) in slots.iter().enumerate() {
                    let pk = &mut packs[s.pack];
                    pk.edge_compliance[s.lane] = edge_compliance(firmness[i]);
                    pk.gravity[s.lane] = GRAVITY;
                    // at rest in a row until the first throw
                    let x = (i as f64 - (n as f64 - 1.0) / 2.0) * 1.4;
                    pk.place(s.lane, [x, HALF, 0.0], [0.0, 0.0, 0.0, 1.0]);
                }
                World::fresh(slots, rng)
            })
            .collect();
        Table { packs, worlds, time: 0.0, steps: 0, two_threads: true }
    }

    /// Retires world `w`: its dice are put out of the way, inert, and no longer stepped; a pack
    /// whose dice are all idle or retired is skipped. (`dice stats` retires a seed's world once
    /// its rolls are done, while other seeds still roll.)
    pub fn retire(&mut self, w: usize) {
        let world = &mut self.worlds[w];
        world.release_grab(&mut self.packs);
        world.retired = true;
        for s in &world.slots {
            let pk = &mut self.packs[s.pack];
            pk.place(s.lane, [0.0, -100.0 - 4.0 * s.lane as f64, 0.0], [0.0, 0.0, 0.0, 1.0]);
            pk.gravity[s.lane] = 0.0;
        }
    }

    /// Gives world `w`'s dice to a new game with random stream `rng`, as if it had just been
    /// made (its next throw is that stream's first); its dice keep their firmness (which lives
    /// in the packs).
    pub fn reseed(&mut self, w: usize, rng: Rng) {
        let old = &mut self.worlds[w];
        old.release_grab(&mut self.packs);
        let world = World::fresh(old.slots.clone(), rng);
        for s in &world.slots {
            self.packs[s.pack].gravity[s.lane] = GRAVITY;
        }
        self.worlds[w] = world;
    }

    /// A table with one world.
    pub fn single(firmness: &[f64], rng: Rng) -> Self {
        Table::new(vec![(firmness.to_vec(), rng)])
    }

    /// Throws every die of world `w`: the only use of its random stream. Upward speed 6 + 2u, spin
    /// about a random axis at 7 + 8u rad/s, flying toward a random target on the table.
    pub fn throw(&mut self, w: usize) {
        let world = &mut self.worlds[w];
        let n = world.slots.len();
        for i in 0..n {
            let rng = &mut world.rng;
            let ang = (i as f64 + 0.5) / n as f64 * std::f64::consts::TAU + rng.unit() * 0.6;
            let start = [1.3 * ang.cos(), 1.8 + 0.4 * rng.unit(), 1.3 * ang.sin()];
            let q = random_rotation(rng);
            let vy = 6.0 + 2.0 * rng.unit();
            let ta = rng.unit() * std::f64::consts::TAU;
            let tr = 1.6 * rng.unit().sqrt();
            let target = [tr * ta.cos(), 0.0, tr * ta.sin()];
            let flight = 2.0 * vy / GRAVITY;
            let lin = [(target[0] - start[0]) / flight, vy, (target[2] - start[2]) / flight];
            let axis = random_unit(rng);
            let spin = 7.0 + 8.0 * rng.unit();
            world.frames[i] = rng.below(24) as u8;
            let s = world.slots[i];
            let pk = &mut self.packs[s.pack];
            pk.place(s.lane, start, q);
            set_rigid_velocity(pk, s.lane, lin, scale(axis, spin));
        }
        world.release_grab(&mut self.packs);
        world.phase = Phase::Rolling;
        world.roll_steps = 0;
        world.first_settle = None;
        world.quiet_for = 0.0;
        world.nudges = 0;
        world.stale = true;
        world.outcome = None;
        world.fence_touched = vec![false; n];
        world.die_touched = vec![false; n];
    }

    /// Takes world `w`'s dice as lying where they were placed, before any throw: read now
    /// (`read_now`), or once they have come to rest (dice placed in the air, say).
    pub fn settle_in_place(&mut self, w: usize, read_now: bool) {
        let world = &mut self.worlds[w];
        world.phase = Phase::Settled;
        world.roll_steps = 0;
        world.quiet_for = 0.0;
        if read_now {
            world.read(&self.packs);
        } else {
            world.stale = true;
        }
    }

    /// Grabs particle `particle` of die `die` in world `w`; it then follows `target` (updated with
    /// [`Table::drag`]) until [`Table::release`].
    pub fn grab(&mut self, w: usize, die: usize, particle: usize) {
        let world = &mut self.worlds[w];
        world.release_grab(&mut self.packs);
        let s = world.slots[die];
        let target = self.packs[s.pack].x_of(s.lane, particle);
        world.grab = Some(Grab { die, particle, target });
        world.stale = true;
    }

    pub fn drag(&mut self, w: usize, target: V3) {
        if let Some(g) = &mut self.worlds[w].grab {
            g.target = target;
        }
    }

    pub fn release(&mut self, w: usize) {
        self.worlds[w].release_grab(&mut self.packs);
    }

    /// Positions of die `die` of world `w`, indexed in the pips' frame (lattice point i + 4j + 16k
    /// along the die's face axes): the control points of its Bézier volume.
    pub fn particles(&self, w: usize, die: usize) -> [V3; PARTICLES] {
        let world = &self.worlds[w];
        let s = world.slots[die];
        std::array::from_fn(|p| self.packs[s.pack].x_of(s.lane, world.particle_at(die, p)))
    }

    /// Orientation of the die's pips and its centre.
    pub fn pose(&self, w: usize, die: usize) -> (M3, V3) {
        let world = &self.worlds[w];
        let s = world.slots[die];
        (world.pip_rotation(&self.packs, die), self.packs[s.pack].centroid[s.lane])
    }

    /// One fixed step (1/120 s) of every world.
    ///
    /// Per substep: grabbed particles pinned, each pack's constraints solved, dice pushed apart
    /// (the only work that crosses packs), then per pack the floor and fence, the stretch limits
    /// (see below) and the velocities. After the last substep, each die's damping. The per-pack
    /// work of one substep's end and the next one's start runs as one job per pack, split over
    /// two threads when the table has more than one pack.
    pub fn step(&mut self) {
        let h = STEP / SUBSTEPS as f64;
        let n = self.packs.len();
        let mut jobs: Vec<PackJob> = (0..n).map(|_| PackJob::default()).collect();
        for s in self.worlds.iter().filter(|w| !w.retired).flat_map(|w| &w.slots) {
            jobs[s.pack].live[s.lane] = true;
        }
        for w in &self.worlds {
            if let Some(g) = w.grab {
                let s = w.slots[g.die];
                jobs[s.pack].pins.push((s.lane, g.particle, g.target));
            }
        }
        let parallel = self.two_threads && n > 1 && rayon::current_num_threads() > 1;
        for sub in 0..=SUBSTEPS {
            for_each_pack(parallel, &mut self.packs, &mut jobs, |pk, job| job.run(pk, sub, h));
            if sub < SUBSTEPS {
                for w in self.worlds.iter_mut().filter(|w| !w.retired) {
                    w.collide_dice(&mut self.packs);
                }
            }
        }
        self.time += STEP;
        self.steps += 1;
        for w in self.worlds.iter_mut().filter(|w| !w.retired) {
            let before: Vec<f64> = w.slots.iter().map(|s| jobs[s.pack].speeds_before[s.lane]).collect();
            let after: Vec<f64> = w.slots.iter().map(|s| jobs[s.pack].speeds[s.lane]).collect();
            for (i, s) in w.slots.iter().enumerate() {
                w.fence_touched[i] |= jobs[s.pack].fence[s.lane];
            }
            w.after_step(&mut self.packs, &before, &after);
        }
    }
}

/// One pack's share of a step: which lanes hold dice, the grabbed particles to pin, and what the
/// substeps found. (Aligned to its own cache lines: two threads write neighbouring jobs.)
#[derive(Default)]
#[repr(align(128))]
struct PackJob {
    live: [bool; LANES],
    /// (lane, particle, target)
    pins: Vec<(usize, usize, V3)>,
    floor: [bool; LANES],
    fence: [bool; LANES],
    /// Fastest particle of each die at the start and at the end of the step.
    speeds_before: [f64; LANES],
    speeds: [f64; LANES],
}

impl PackJob {
    /// The end of substep `sub − 1` (contacts with floor and fence, limits, velocities; after the
    /// last one, damping) and the start of substep `sub` (pins, constraint solve).
    fn run(&mut self, pk: &mut Pack, sub: usize, h: f64) {
        if self.live == [false; LANES] {
            return; // nothing but idle and retired dice
        }
        if sub == 0 {
            self.speeds_before = max_speeds(pk);
        }
        if sub > 0 {
            floor_and_fence(pk, &self.live, &mut self.floor, &mut self.fence);
            // The hard stretch limits, once more after the contacts: every substep while a hand
            // drags a die of the pack (the violent case), else at the end of the step, where
            // they are what anyone sees (in 1,000 rolls they never came into play).
            if !self.pins.is_empty() || sub == SUBSTEPS {
                pk.enforce_limits();
            }
        }
        if sub < SUBSTEPS {
            // the velocities of substep sub − 1 come from positions before the pins move them
            if sub > 0 && !self.pins.is_empty() {
                pk.update_velocities(h);
            }
            for &(lane, particle, target) in &self.pins {
                pk.w[particle][lane] = 0.0;
                pk.set_x(lane, particle, target);
            }
            if sub > 0 && self.pins.is_empty() {
                pk.velocities_and_solve(h)
            } else {
                pk.solve(h)
            }
            return;
        }
        pk.update_velocities(h);
        let share = |rate: f64| 1.0 - (-rate * STEP).exp();
        let (wobble, drift, spin) = (share(WOBBLE_DAMPING), share(FLOOR_DRIFT_DAMPING), share(FLOOR_SPIN_DAMPING));
        let on_floor = |rate: f64| self.floor.map(|f| if f { rate } else { 0.0 });
        damp_lanes(pk, &self.live, wobble, on_floor(drift), on_floor(spin));
        self.speeds = max_speeds(pk);
    }
}

/// `f` on every pack with its job: the first half of the packs on this thread and the second
/// on the helper thread when `parallel`, else one after another.
fn for_each_pack(parallel: bool, packs: &mut [Pack], jobs: &mut [PackJob], f: impl Fn(&mut Pack, &mut PackJob) + Sync) {
    let run = |packs: &mut [Pack], jobs: &mut [PackJob]| {
        for (pk, job) in packs.iter_mut().zip(jobs.iter_mut()) {
            f(pk, job);
        }
    };
    if parallel {
        let mid = packs.len().div_ceil(2);
        let (pa, pb) = packs.split_at_mut(mid);
        let (ja, jb) = jobs.split_at_mut(mid);
        // the caller takes the first half (the fuller packs); the helper, which may need a
        // moment to notice the job, the rest
        crate::sim::duo::join(|| run(pa, ja), || run(pb, jb));
    } else {
        run(packs, jobs);
    }
}

impl World {
    /// A world before its first throw.
    fn fresh(slots: Vec<Slot>, rng: Rng) -> Self {
        let n = slots.len();
        World {
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

    fn release_grab(&mut self, packs: &mut [Pack]) {
        if let Some(g) = self.grab.take() {
            let s = self.slots[g.die];
            packs[s.pack].w[g.particle][s.lane] = W_INV;
        }
    }

    fn after_step(&mut self, packs: &mut [Pack], speeds_before: &[f64], speeds: &[f64]) {
        self.roll_steps += 1;
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

    /// Orientation of die `i`'s pips: the lattice's rotation R times the die's frame.
    pub fn pip_rotation(&self, packs: &[Pack], i: usize) -> M3 {
        let s = self.slots[i];
        mat_mul(&packs[s.pack].r[s.lane], &CUBE_ROTATIONS[self.frames[i] as usize])
    }

    /// The lattice particle at pip-frame lattice point `p` of die `i`.
    pub fn particle_at(&self, i: usize, p: usize) -> usize {
        LATTICE_MAPS[self.frames[i] as usize][p] as usize
    }

    /// Time since the throw.
    pub fn roll_seconds(&self) -> f64 {
        self.roll_steps as f64 * STEP
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
    pub fn nudge(&mut self, packs: &mut [Pack], i: usize) {
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
    fn collide_dice(&mut self, packs: &mut [Pack]) {
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

/// Largest particle speed of every die of a pack, lane by lane.
pub fn max_speeds(pk: &Pack) -> [f64; LANES] {
    let mut m = [0.0f64; LANES];
    for v in &pk.v {
        for l in 0..LANES {
            let s2 = v[0][l] * v[0][l] + v[1][l] * v[1][l] + v[2][l] * v[2][l];
            m[l] = if s2 > m[l] { s2 } else { m[l] };
        }
    }
    m.map(f64::sqrt)
}

fn center(pk: &Pack, lane: usize) -> V3 {
    let mut c = [0.0; 3];
    for p in 0..PARTICLES {
        c = add(c, pk.x_of(lane, p));
    }
    scale(c, 1.0 / PARTICLES as f64)
}

/// Gives every particle the velocity of a rigid motion: `lin` plus `ang` × (x − centroid).
pub fn set_rigid_velocity(pk: &mut Pack, lane: usize, lin: V3, ang: V3) {
    let c = pk.centroid[lane];
    for p in 0..PARTICLES {
        let v = add(lin, cross(ang, sub(pk.x_of(lane, p), c)));
        pk.set_v(lane, p, v);
    }
}

fn add_rigid_velocity(pk: &mut Pack, lane: usize, lin: V3, ang: V3) {
    let c = pk.centroid[lane];
    for p in 0..PARTICLES {
        let v = add(pk.v_of(lane, p), add(lin, cross(ang, sub(pk.x_of(lane, p), c))));
        pk.set_v(lane, p, v);
    }
}

/// The die's rigid motion: centre velocity and angular velocity (from the angular momentum about
/// the centre).
pub fn rigid_motion(pk: &Pack, lane: usize) -> (V3, V3, V3) {
    let m = 1.0 / PARTICLES as f64;
    let c = center(pk, lane);
    let mut vc = [0.0; 3];
    for p in 0..PARTICLES {
        vc = add(vc, pk.v_of(lane, p));
    }
    vc = scale(vc, m);
    let mut l = [0.0; 3];
    let mut inertia = [[0.0; 3]; 3];
    for p in 0..PARTICLES {
        let r = sub(pk.x_of(lane, p), c);
        l = add(l, scale(cross(r, sub(pk.v_of(lane, p), vc)), m));
        let rr = dot(r, r);
        for (i, row) in inertia.iter_mut().enumerate() {
            for (j, e) in row.iter_mut().enumerate() {
                *e += m * ((if i == j { rr } else { 0.0 }) - r[i] * r[j]);
            }
        }
    }
    let omega = invert3(&inertia).map_or([0.0; 3], |inv| mat_vec(&inv, l));
    (c, vc, omega)
}

/// Damping of one step: the wobble (each particle's velocity off the die's rigid motion) loses
/// share `wobble`; on the floor, the horizontal drift loses `drift` and the spin `spin` (rolling
/// resistance of a squashy die).
#[cfg(test)]
fn damp(pk: &mut Pack, lane: usize, wobble: f64, drift: f64, spin: f64) {
    let (c, vc, omega) = rigid_motion(pk, lane);
    let (lin_loss, ang_loss) = ([vc[0] * drift, 0.0, vc[2] * drift], scale(omega, spin));
    for p in 0..PARTICLES {
        if pk.w[p][lane] == 0.0 {
            continue;
        }
        let r = sub(pk.x_of(lane, p), c);
        let rigid = add(vc, cross(omega, r));
        let v0 = pk.v_of(lane, p);
        let v = add(v0, scale(sub(rigid, v0), wobble));
        pk.set_v(lane, p, sub(sub(v, lin_loss), cross(ang_loss, r)));
    }
}

/// [`damp`] for the live lanes of a pack side by side, each lane exactly as [`damp`] would do
/// it alone (the same operations in the same order).
fn damp_lanes(pk: &mut Pack, live: &[bool; LANES], wobble: f64, drift: [f64; LANES], spin: [f64; LANES]) {
    #[cfg(target_arch = "x86_64")]
    if super::pack::fast_path() {
        // SAFETY: the processor has AVX2 and FMA (checked above).
        return unsafe { damp_lanes_avx2(pk, live, wobble, drift, spin) };
    }
    damp_lanes_any(pk, live, wobble, drift, spin)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn damp_lanes_avx2(pk: &mut Pack, live: &[bool; LANES], wobble: f64, drift: [f64; LANES], spin: [f64; LANES]) {
    damp_lanes_any(pk, live, wobble, drift, spin)
}

#[inline(always)]
fn damp_lanes_any(pk: &mut Pack, live: &[bool; LANES], wobble: f64, drift: [f64; LANES], spin: [f64; LANES]) {
    type L3 = [[f64; LANES]; 3];
    let m = 1.0 / PARTICLES as f64;
    // rigid_motion, lane-wise: centre, centre velocity, angular momentum and inertia
    let (mut c, mut vc): (L3, L3) = ([[0.0; LANES]; 3], [[0.0; LANES]; 3]);
    for p in 0..PARTICLES {
        for k in 0..3 {
            for l in 0..LANES {
                c[k][l] += pk.x[p][k][l];
                vc[k][l] += pk.v[p][k][l];
            }
        }
    }
    for k in 0..3 {
        for l in 0..LANES {
            c[k][l] *= 1.0 / PARTICLES as f64;
            vc[k][l] *= m;
        }
    }
    let mut am: L3 = [[0.0; LANES]; 3];
    let mut inertia = [[[0.0; LANES]; 3]; 3];
    for p in 0..PARTICLES {
        for l in 0..LANES {
            let r = [pk.x[p][0][l] - c[0][l], pk.x[p][1][l] - c[1][l], pk.x[p][2][l] - c[2][l]];
            let u = [pk.v[p][0][l] - vc[0][l], pk.v[p][1][l] - vc[1][l], pk.v[p][2][l] - vc[2][l]];
            let cr = scale(cross(r, u), m);
            for k in 0..3 {
                am[k][l] += cr[k];
            }
            let rr = dot(r, r);
            for i in 0..3 {
                for j in 0..3 {
                    inertia[i][j][l] += m * ((if i == j { rr } else { 0.0 }) - r[i] * r[j]);
                }
            }
        }
    }
    let mut omega: L3 = [[0.0; LANES]; 3];
    for l in 0..LANES {
        // invert3 and mat_vec, with the singular case selected away afterwards
        let mi: M3 = std::array::from_fn(|i| std::array::from_fn(|j| inertia[i][j][l]));
        let c0 = cross(mi[1], mi[2]);
        let det = dot(mi[0], c0);
        let (c1, c2) = (cross(mi[2], mi[0]), cross(mi[0], mi[1]));
        let inv =
            [[c0[0] / det, c1[0] / det, c2[0] / det], [c0[1] / det, c1[1] / det, c2[1] / det], [c0[2] / det, c1[2] / det, c2[2] / det]];
        let w = mat_vec(&inv, [am[0][l], am[1][l], am[2][l]]);
        let singular = det.abs() < 1e-18;
        for k in 0..3 {
            omega[k][l] = if singular { 0.0 } else { w[k] };
        }
    }
    for p in 0..PARTICLES {
        for l in 0..LANES {
            let (o, cl, vcl) = ([omega[0][l], omega[1][l], omega[2][l]], [c[0][l], c[1][l], c[2][l]], [vc[0][l], vc[1][l], vc[2][l]]);
            let lin_loss = [vcl[0] * drift[l], 0.0, vcl[2] * drift[l]];
            let ang_loss = scale(o, spin[l]);
            let r = sub(pk.x_of(l, p), cl);
            let rigid = add(vcl, cross(o, r));
            let v0 = pk.v_of(l, p);
            let v = add(v0, scale(sub(rigid, v0), wobble));
            let v = sub(sub(v, lin_loss), cross(ang_loss, r));
            let keep = !live[l] || pk.w[p][l] == 0.0;
            for k in 0..3 {
                pk.v[p][k][l] = if keep { v0[k] } else { v[k] };
            }
        }
    }
}

/// Floor at y = 0 with friction, and the circular fence, for the live lanes of a pack (four dice
/// at once, each lane exactly as alone); `floor` and `fence` collect which dice touched them.
fn floor_and_fence(pk: &mut Pack, live: &[bool; LANES], floor: &mut [bool; LANES], fence: &mut [bool; LANES]) {
    #[cfg(target_arch = "x86_64")]
    if super::pack::fast_path() {
        // SAFETY: the processor has AVX2 (checked above).
        return unsafe { floor_and_fence_avx2(pk, live, floor, fence) };
    }
    floor_and_fence_lanes(pk, live, floor, fence)
}

/// The same contacts in AVX2 registers: each lane's arithmetic is [`floor_and_fence_lanes`]'s,
/// operation for operation, so the two agree bit for bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn floor_and_fence_avx2(pk: &mut Pack, live: &[bool; LANES], floor: &mut [bool; LANES], fence: &mut [bool; LANES]) {
    use std::arch::x86_64::*;
    let live_mask = _mm256_castsi256_pd(_mm256_set_epi64x(-(live[3] as i64), -(live[2] as i64), -(live[1] as i64), -(live[0] as i64)));
    let (zero, one) = (_mm256_setzero_pd(), _mm256_set1_pd(1.0));
    let (stat, kin, arena) = (_mm256_set1_pd(STATIC_FRICTION), _mm256_set1_pd(KINETIC_FRICTION), _mm256_set1_pd(ARENA_R));
    let (mut any_floor, mut any_fence) = (zero, zero);
    for p in 0..PARTICLES {
        let (x, prev, w) = (&mut pk.x[p], &pk.prev[p], &pk.w[p]);
        // SAFETY: each lane array is four f64 in a row; loads and stores are unaligned ones.
        unsafe {
            let active = _mm256_and_pd(live_mask, _mm256_cmp_pd::<_CMP_NEQ_OQ>(_mm256_loadu_pd(w.as_ptr()), zero));
            let (x0, x1, x2) = (_mm256_loadu_pd(x[0].as_ptr()), _mm256_loadu_pd(x[1].as_ptr()), _mm256_loadu_pd(x[2].as_ptr()));
            let (p0, p2) = (_mm256_loadu_pd(prev[0].as_ptr()), _mm256_loadu_pd(prev[2].as_ptr()));
            let below = _mm256_and_pd(active, _mm256_cmp_pd::<_CMP_LT_OQ>(x1, zero));
            // Most particles touch neither floor nor fence: skip the square roots and divisions
            // when no lane can (x² + z² ≤ 9 rules out the fence: √ is monotonic).
            let r2 = _mm256_add_pd(_mm256_mul_pd(x0, x0), _mm256_mul_pd(x2, x2));
            let near_fence = _mm256_and_pd(active, _mm256_cmp_pd::<_CMP_GT_OQ>(r2, _mm256_set1_pd(ARENA_R * ARENA_R)));
            if _mm256_movemask_pd(_mm256_or_pd(below, near_fence)) == 0 {
                continue;
            }
            let pen = _mm256_sub_pd(zero, x1);
            let (s0, s2) = (_mm256_sub_pd(x0, p0), _mm256_sub_pd(x2, p2));
            let s = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(s0, s0), _mm256_mul_pd(s2, s2)));
            let stick = _mm256_cmp_pd::<_CMP_LT_OQ>(s, _mm256_mul_pd(stat, pen));
            let slide = _mm256_andnot_pd(stick, _mm256_cmp_pd::<_CMP_GT_OQ>(s, zero));
            let k = _mm256_div_pd(_mm256_mul_pd(kin, pen), s);
            let k = _mm256_blendv_pd(k, one, _mm256_cmp_pd::<_CMP_GT_OQ>(k, one));
            let slid0 = _mm256_blendv_pd(x0, _mm256_sub_pd(x0, _mm256_mul_pd(s0, k)), slide);
            let slid2 = _mm256_blendv_pd(x2, _mm256_sub_pd(x2, _mm256_mul_pd(s2, k)), slide);
            let x0 = _mm256_blendv_pd(x0, _mm256_blendv_pd(slid0, p0, stick), below);
            let x2 = _mm256_blendv_pd(x2, _mm256_blendv_pd(slid2, p2, stick), below);
            let x1 = _mm256_blendv_pd(x1, zero, below);
            let r = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(x0, x0), _mm256_mul_pd(x2, x2)));
            let out = _mm256_and_pd(active, _mm256_cmp_pd::<_CMP_GT_OQ>(r, arena));
            let f = _mm256_div_pd(arena, r);
            _mm256_storeu_pd(x[0].as_mut_ptr(), _mm256_blendv_pd(x0, _mm256_mul_pd(x0, f), out));
            _mm256_storeu_pd(x[1].as_mut_ptr(), x1);
            _mm256_storeu_pd(x[2].as_mut_ptr(), _mm256_blendv_pd(x2, _mm256_mul_pd(x2, f), out));
            any_floor = _mm256_or_pd(any_floor, below);
            any_fence = _mm256_or_pd(any_fence, out);
        }
    }
    let (bf, bn) = (_mm256_movemask_pd(any_floor), _mm256_movemask_pd(any_fence));
    for l in 0..LANES {
        floor[l] |= bf >> l & 1 == 1;
        fence[l] |= bn >> l & 1 == 1;
    }
}

/// The lanes side by side, without branches: every candidate computed, then selected.
#[inline(always)]
pub(super) fn floor_and_fence_lanes(pk: &mut Pack, live: &[bool; LANES], floor: &mut [bool; LANES], fence: &mut [bool; LANES]) {
    let sel = |c: bool, a: f64, b: f64| if c { a } else { b };
    let (mut touched_floor, mut touched_fence) = ([0.0f64; LANES], [0.0f64; LANES]);
    let live: [f64; LANES] = live.map(|l| if l { 1.0 } else { 0.0 });
    for p in 0..PARTICLES {
        let (x, prev, w) = (&mut pk.x[p], &pk.prev[p], &pk.w[p]);
        for l in 0..LANES {
            let active = live[l] * w[l] != 0.0;
            let (x0, x1, x2) = (x[0][l], x[1][l], x[2][l]);
            let below = active & (x1 < 0.0);
            let pen = -x1;
            let (s0, s2) = (x0 - prev[0][l], x2 - prev[2][l]);
            let s = (s0 * s0 + s2 * s2).sqrt();
            let stick = s < STATIC_FRICTION * pen;
            let slide = !stick & (s > 0.0);
            let k = at_most(KINETIC_FRICTION * pen / s, 1.0);
            let x0 = sel(below, sel(stick, prev[0][l], sel(slide, x0 - s0 * k, x0)), x0);
            let x2 = sel(below, sel(stick, prev[2][l], sel(slide, x2 - s2 * k, x2)), x2);
            let x1 = sel(below, 0.0, x1);
            let r = (x0 * x0 + x2 * x2).sqrt();
            let out = active & (r > ARENA_R);
            let f = ARENA_R / r;
            x[0][l] = sel(out, x0 * f, x0);
            x[1][l] = x1;
            x[2][l] = sel(out, x2 * f, x2);
            touched_floor[l] = sel(below, 1.0, touched_floor[l]);
            touched_fence[l] = sel(out, 1.0, touched_fence[l]);
        }
    }
    for l in 0..LANES {
        floor[l] |= touched_floor[l] != 0.0;
        fence[l] |= touched_fence[l] != 0.0;
    }
}

/// `min` for values that are never NaN.
#[inline(always)]
fn at_most(v: f64, hi: f64) -> f64 {
    if v > hi { hi } else { v }
}

fn random_unit(rng: &mut Rng) -> V3 {
    // uniform on the sphere
    let z = 2.0 * rng.unit() - 1.0;
    let a = rng.unit() * std::f64::consts::TAU;
    let s = (1.0 - z * z).max(0.0).sqrt();
    [s * a.cos(), s * a.sin(), z]
}

fn random_horizontal(rng: &mut Rng) -> V3 {
    let a = rng.unit() * std::f64::consts::TAU;
    [a.cos(), 0.0, a.sin()]
}

/// A uniformly random rotation (Shoemake's method).
pub fn random_rotation(rng: &mut Rng) -> Quat {
    let (u1, u2, u3) = (rng.unit(), rng.unit() * std::f64::consts::TAU, rng.unit() * std::f64::consts::TAU);
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    [a * u2.sin(), a * u2.cos(), b * u3.sin(), b * u3.cos()]
}

/// The random stream a dice game with scene seed `seed` throws with (scenes and `dice stats` share
/// it, so a study's seed replays as a scene).
pub fn throw_stream(seed: u64) -> Rng {
    Rng::stream(seed, "dice.throws")
}

/// Cube corner `corner` (each 0 or 1 along x, y, z) as a particle index.
pub fn corner_particle(corner: [usize; 3]) -> usize {
    super::model::index(corner[0] * 3, corner[1] * 3, corner[2] * 3)
}

#[cfg(test)]
mod lane_tests {
    use super::*;

    /// A pack whose particles are scattered through every case of the floor and fence contact:
    /// above and below the floor, sticking and sliding, beyond the fence, pinned, and idle lanes.
    fn scattered() -> Pack {
        let mut pk = Pack::default();
        for p in 0..PARTICLES {
            for l in 0..LANES {
                let f = (p * LANES + l) as f64;
                let x = [3.4 * (f * 0.37).sin(), 0.05 * (f * 0.91).cos() - 0.01, 3.4 * (f * 0.53).cos()];
                // the slip since the substep began: from none to ten times the penetration
                let slip = 0.004 * (f * 0.29).sin().abs() * (p % 3) as f64;
                pk.set_x(l, p, x);
                for (k, d) in [(0, slip), (1, 0.0), (2, -0.5 * slip)] {
                    pk.prev[p][k][l] = x[k] - d;
                }
                if (p + l) % 11 == 0 {
                    pk.w[p][l] = 0.0;
                }
            }
        }
        pk
    }

    #[test]
    fn lane_damping_equals_damping_each_die() {
        let mut pk = scattered();
        for p in 0..PARTICLES {
            for l in 0..LANES {
                let f = (p * LANES + l) as f64;
                pk.set_v(l, p, [(f * 0.13).sin() * 3.0, (f * 0.71).cos(), -(f * 0.31).sin() * 2.0]);
            }
        }
        let live = [true, false, true, true];
        let (drift, spin) = ([0.3, 0.3, 0.0, 0.2], [0.1, 0.4, 0.0, 0.25]);
        let mut lanes = pk.clone();
        damp_lanes(&mut lanes, &live, 0.05, drift, spin);
        let mut each = pk.clone();
        for l in (0..LANES).filter(|&l| live[l]) {
            damp(&mut each, l, 0.05, drift[l], spin[l]);
        }
        assert_eq!(lanes, each);
        assert_ne!(lanes.v, pk.v);
        // and the portable build agrees
        let mut any = pk.clone();
        damp_lanes_any(&mut any, &live, 0.05, drift, spin);
        assert_eq!(any, each);
    }

    #[test]
    fn the_instruction_set_does_not_change_the_contacts() {
        let live = [true, true, false, true];
        let (mut a, mut b) = (scattered(), scattered());
        let (mut fa, mut na, mut fb, mut nb) = ([false; LANES], [false; LANES], [false; LANES], [false; LANES]);
        floor_and_fence(&mut a, &live, &mut fa, &mut na);
        floor_and_fence_lanes(&mut b, &live, &mut fb, &mut nb);
        assert_eq!(a, b);
        assert_eq!((fa, na), (fb, nb));
        assert_eq!((fa, na), ([true, true, false, true], [true, true, false, true]));
        // the idle lane is untouched, and some particles stuck while others slid
        assert_eq!(a.x[5][1][2], scattered().x[5][1][2]);
        let moved_back = (0..PARTICLES).filter(|&p| a.x[p][0][0] == a.prev[p][0][0] && a.x[p][0][0] != scattered().x[p][0][0]).count();
        assert!(moved_back > 0, "no particle stuck");
    }
}
