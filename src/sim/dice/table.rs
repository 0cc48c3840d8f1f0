//! The dice table: the floor at y = 0 inside an invisible circular fence, and the dice of one or
//! more [`Roller`]s packed four to a [`Pack`], stepped together at a fixed 1/120 s in 6
//! substeps. The rollers share nothing but the packs' arithmetic, so a roller's dice move exactly
//! as they would alone: a scene is one roller; `simreel dice stats` packs several seeds side by
//! side.

use super::lanes::{damp_lanes, floor_and_fence};
use super::math::{M3, Quat, V3};
use super::model::{PARTICLES, SIZE};
use super::pack::{LANES, Pack, edge_compliance};
use super::rigid::{body_speeds, max_speeds};
use super::roller::{Roller, Slot, Speeds};
use crate::portable;
use crate::sim::FixedClock;
use crate::sim::rng::Rng;

pub use super::world::{
    ARENA_R, FLOOR_DRIFT_DAMPING, FLOOR_SPIN_DAMPING, GRAVITY, ROOMY, STEP, STEPS_PER_SECOND, SUBSTEPS, WOBBLE_DAMPING, arena_radius,
};

/// Packs of dice and the rollers they belong to, stepped together.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    packs: Vec<Pack>,
    rollers: Vec<Roller>,
    /// Steps taken, at one a [`STEP`].
    clock: FixedClock,
    /// Step two halves of the packs on two threads (see [`crate::sim::duo`]); never changes a
    /// result. Off for tables that already run side by side on every core (`dice stats`).
    two_threads: bool,
}

impl Table {
    /// Rollers given as (firmness per die, random stream); their dice take consecutive lanes.
    pub fn new(rollers: Vec<(Vec<f64>, Rng)>) -> Self {
        let total: usize = rollers.iter().map(|(firmness, _)| firmness.len()).sum();
        let mut packs = vec![Pack::default(); total.div_ceil(LANES)];
        let mut next = 0;
        let rollers = rollers
            .into_iter()
            .map(|(firmness, rng)| {
                let n = firmness.len();
                let slots: Vec<Slot> = (0..n).map(|i| Slot { pack: (next + i) / LANES, lane: (next + i) % LANES }).collect();
                next += n;

                for (i, s) in slots.iter().enumerate() {
                    let pk = &mut packs[s.pack];
                    pk.edge_compliance[s.lane] = edge_compliance(firmness[i]);
                    pk.gravity[s.lane] = GRAVITY;
                    pk.arena[s.lane] = arena_radius(n);
                    // at rest in a row until the first throw
                    let x = (i as f64 - (n as f64 - 1.0) / 2.0) * 1.4;
                    pk.place(s.lane, [x, SIZE / 2.0, 0.0], [0.0, 0.0, 0.0, 1.0]);
                }
                Roller::fresh(slots, rng)
            })
            .collect();
        Table { packs, rollers, clock: FixedClock::new(STEPS_PER_SECOND), two_threads: true }
    }

    /// A table with one roller.
    pub fn single(firmness: &[f64], rng: Rng) -> Self {
        Table::new(vec![(firmness.to_vec(), rng)])
    }

    pub fn packs(&self) -> &[Pack] {
        &self.packs
    }

    pub fn rollers(&self) -> &[Roller] {
        &self.rollers
    }

    pub fn roller(&self, r: usize) -> &Roller {
        &self.rollers[r]
    }

    /// Seconds simulated.
    pub fn time(&self) -> f64 {
        self.clock.time()
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.clock.steps()
    }

    /// The table's clock.
    pub fn clock(&self) -> &FixedClock {
        &self.clock
    }

    /// Whether a step may split its packs over two threads (it never changes a result).
    pub fn set_two_threads(&mut self, on: bool) {
        self.two_threads = on;
    }

    /// The pack and lane of die `die` of roller `r`.
    pub fn die(&self, r: usize, die: usize) -> (&Pack, usize) {
        let s = self.rollers[r].slots()[die];
        (&self.packs[s.pack], s.lane)
    }

    /// The same, for changing the die's particles directly (tests, tools).
    pub fn die_mut(&mut self, r: usize, die: usize) -> (&mut Pack, usize) {
        let s = self.rollers[r].slots()[die];
        (&mut self.packs[s.pack], s.lane)
    }

    /// Puts die `die` of roller `r` at rest at `centre`, turned by `q`.
    pub fn place(&mut self, r: usize, die: usize, centre: V3, q: Quat) {
        let (pk, lane) = self.die_mut(r, die);
        pk.place(lane, centre, q);
    }

    /// Retires roller `r`: its dice are put out of the way, inert, and no longer stepped; a pack
    /// whose dice are all idle or retired is skipped. (`dice stats` retires a seed's roller once
    /// its rolls are done, while other seeds still roll.)
    pub fn retire(&mut self, r: usize) {
        self.rollers[r].retire(&mut self.packs);
    }

    /// Gives roller `r`'s dice to a new game with random stream `rng`, as if it had just been
    /// made (its next throw is that stream's first); its dice keep their firmness (which lives
    /// in the packs).
    pub fn reseed(&mut self, r: usize, rng: Rng) {
        let old = &mut self.rollers[r];
        old.release_grab(&mut self.packs);
        let roller = Roller::fresh(old.slots().to_vec(), rng);
        for s in roller.slots() {
            self.packs[s.pack].gravity[s.lane] = GRAVITY;
        }
        self.rollers[r] = roller;
    }

    /// Throws every die of roller `r` (the only use of its random stream) and starts a roll.
    pub fn throw(&mut self, r: usize) {
        self.rollers[r].throw(&mut self.packs);
    }

    /// Starts a roll of roller `r`'s dice from where they lie, without a throw.
    pub fn roll_from_here(&mut self, r: usize) {
        self.rollers[r].roll_from_here();
    }

    /// Takes roller `r`'s dice as lying where they were placed, before any throw: read now
    /// (`read_now`), or once they have come to rest (dice placed in the air, say).
    pub fn settle_in_place(&mut self, r: usize, read_now: bool) {
        self.rollers[r].settle_in_place(&self.packs, read_now);
    }

    /// Holds die `die` of roller `r` still where it lies until it is thrown, nudged, grabbed or
    /// touched by another die (a staged die).
    pub fn sleep(&mut self, r: usize, die: usize) {
        self.rollers[r].put_to_sleep(&self.packs, die);
    }

    /// Grabs particle `particle` of die `die` of roller `r`; it then follows `target` (updated
    /// with [`Table::drag`]) until [`Table::release`].
    pub fn grab(&mut self, r: usize, die: usize, particle: usize) {
        self.rollers[r].take_hold(&mut self.packs, die, particle);
    }

    pub fn drag(&mut self, r: usize, target: V3) {
        self.rollers[r].drag(target);
    }

    pub fn release(&mut self, r: usize) {
        self.rollers[r].release_grab(&mut self.packs);
    }

    /// Frees cocked die `die` of roller `r` (see the roller's rules); the rules call it
    /// themselves when a roll ends cocked.
    pub fn nudge(&mut self, r: usize, die: usize) {
        self.rollers[r].nudge(&mut self.packs, die);
    }

    /// Positions of die `die` of roller `r`, indexed in the pips' frame (lattice point
    /// i + 4j + 16k along the die's face axes): the control points of its Bézier volume.
    pub fn particles(&self, r: usize, die: usize) -> [V3; PARTICLES] {
        let roller = &self.rollers[r];
        let (pk, lane) = self.die(r, die);
        std::array::from_fn(|p| pk.x_of(lane, roller.particle_at(die, p)))
    }

    /// Orientation of the die's pips and its centre.
    pub fn pose(&self, r: usize, die: usize) -> (M3, V3) {
        let (pk, lane) = self.die(r, die);
        (self.rollers[r].pip_rotation(&self.packs, die), pk.centroid[lane])
    }

    /// One fixed step (1/120 s) of every roller.
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
        for s in self.rollers.iter().filter(|r| !r.is_retired()).flat_map(|r| r.slots()) {
            jobs[s.pack].live[s.lane] = true;
        }
        for roller in &self.rollers {
            if let Some(g) = roller.grab() {
                let s = roller.slots()[g.die];
                jobs[s.pack].pins.push((s.lane, g.particle, g.target));
            }
            for (die, held) in roller.sleepers() {
                let s = roller.slots()[die];
                jobs[s.pack].pins.extend(held.iter().enumerate().map(|(p, &x)| (s.lane, p, x)));
            }
        }
        let parallel = self.two_threads && n > 1 && rayon::current_num_threads() > 1;
        for sub in 0..=SUBSTEPS {
            for_each_pack(parallel, &mut self.packs, &mut jobs, |pk, job| job.run(pk, sub, h));
            if sub < SUBSTEPS {
                for roller in self.rollers.iter_mut().filter(|r| !r.is_retired()) {
                    roller.collide_dice(&mut self.packs);
                }
            }
        }
        self.clock.tick();
        for roller in self.rollers.iter_mut().filter(|r| !r.is_retired()) {
            let n = roller.slots().len();
            let (mut before, mut after, mut fence) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
            let mut body = Vec::with_capacity(n);
            for s in roller.slots() {
                let job = &jobs[s.pack];
                before.push(job.speeds_before[s.lane]);
                after.push(job.speeds[s.lane]);
                body.push(job.body_speeds[s.lane]);
                fence.push(job.fence[s.lane]);
            }
            roller.after_step(&mut self.packs, Speeds { before: &before, after: &after, body: &body }, &fence);
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
    /// How fast each die moves as a body at the end of the step.
    body_speeds: [f64; LANES],
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
        let share = |rate: f64| 1.0 - portable::exp(-rate * STEP);
        let (wobble, drift, spin) = (share(WOBBLE_DAMPING), share(FLOOR_DRIFT_DAMPING), share(FLOOR_SPIN_DAMPING));
        let on_floor = |rate: f64| self.floor.map(|f| if f { rate } else { 0.0 });
        damp_lanes(pk, &self.live, wobble, on_floor(drift), on_floor(spin));
        self.speeds = max_speeds(pk);
        self.body_speeds = body_speeds(pk);
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

/// The table's state in a snapshot (see `super::snapshot`).
impl Table {
    pub(super) fn save(&self, w: &mut crate::sim::snapshot::Writer) {
        w.u64(self.clock.steps()).count(self.packs.len()).count(self.rollers.len());
        for p in &self.packs {
            super::snapshot::put_pack(w, p);
        }
        for r in &self.rollers {
            r.save(w);
        }
    }

    /// Reads a snapshot of this table at clock step `steps`: the packs and rollers it holds, for
    /// [`Table::take`]; `None` when it is not this table's.
    pub(super) fn read(&self, r: &mut crate::sim::snapshot::Reader, steps: u64) -> Option<(Vec<Pack>, Vec<Roller>)> {
        if r.u64()? != steps || r.count(0)? != self.packs.len() || r.count(0)? != self.rollers.len() {
            return None;
        }
        let packs = (0..self.packs.len()).map(|_| super::snapshot::get_pack(r)).collect::<Option<Vec<_>>>()?;
        let rollers = self.rollers.iter().map(|x| x.read_saved(r)).collect::<Option<Vec<_>>>()?;
        Some((packs, rollers))
    }

    /// Takes what [`Table::read`] read, at clock step `steps`.
    pub(super) fn take(&mut self, steps: u64, (packs, rollers): (Vec<Pack>, Vec<Roller>)) {
        (self.packs, self.rollers) = (packs, rollers);
        self.clock.set_steps(steps);
    }
}
