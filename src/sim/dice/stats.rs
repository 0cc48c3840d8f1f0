//! The fairness study behind `simreel dice stats`: many seeds, several rolls each, read from the
//! physics exactly as a scene reads them, summarised the way the seed reported its 1,000 rolls
//! (χ² over the faces, settle times, cocked results, nudges, fence contacts).
//!
//! Seeds run side by side in a [`Table`] (their dice filling the packs' lanes), one table per
//! core, each roller taking a new seed when its last one is done; none of this changes a single
//! result, since a roller's dice never see another roller's.

use crate::portable;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::roller::{COCKED, Phase, RollOutcome};
use super::table::Table;
use super::throw::throw_stream;

/// What to roll.
#[derive(Clone, Debug, PartialEq)]
pub struct StudySpec {
    pub dice: usize,
    /// First and last seed, inclusive.
    pub seeds: (u64, u64),
    pub rolls_per_seed: u32,
    pub firmness: f64,
}

impl StudySpec {
    /// The seed's study: 3 dice, seeds 1–100, 10 rolls each, firmness 55.
    pub fn seed_study() -> Self {
        StudySpec { dice: 3, seeds: (1, 100), rolls_per_seed: 10, firmness: 55.0 }
    }

    pub fn rolls(&self) -> u64 {
        (self.seeds.1 - self.seeds.0 + 1) * self.rolls_per_seed as u64
    }
}

/// One roll of one seed.
#[derive(Clone, Debug, PartialEq)]
pub struct Roll {
    pub seed: u64,
    pub index: u32,
    pub outcome: RollOutcome,
}

impl Roll {
    pub fn cocked(&self) -> bool {
        self.outcome.readings.iter().any(|r| r.confidence < COCKED)
    }
}

/// Median, 95th percentile (nearest rank) and maximum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub p95: f64,
    pub max: f64,
}

impl Spread {
    pub fn of(mut v: Vec<f64>) -> Self {
        if v.is_empty() {
            return Spread { median: 0.0, p95: 0.0, max: 0.0 };
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let rank = |p: f64| v[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        let median = if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) };
        Spread { median, p95: rank(0.95), max: v[n - 1] }
    }
}

/// Every roll of a study, in seed and roll order.
#[derive(Clone, Debug, PartialEq)]
pub struct Study {
    pub spec: StudySpec,
    pub rolls: Vec<Roll>,
}

impl Study {
    /// How often each face (1..=6) came up.
    pub fn face_counts(&self) -> [u64; 6] {
        let mut c = [0; 6];
        for r in &self.rolls {
            for d in &r.outcome.readings {
                c[d.value as usize - 1] += 1;
            }
        }
        c
    }

    /// Pearson's χ² against a fair die (5 degrees of freedom).
    pub fn chi_square(&self) -> f64 {
        let c = self.face_counts();
        let e = c.iter().sum::<u64>() as f64 / 6.0;
        if e == 0.0 {
            return 0.0;
        }
        c.iter().map(|&o| portable::powi(o as f64 - e, 2) / e).sum()
    }

    /// Rolls that ended with at least one die below the confidence threshold.
    pub fn cocked(&self) -> usize {
        self.rolls.iter().filter(|r| r.cocked()).count()
    }

    pub fn nudges(&self) -> u64 {
        self.rolls.iter().map(|r| r.outcome.nudges as u64).sum()
    }

    /// Dice (summed over rolls) that touched the fence.
    pub fn fence_contacts(&self) -> u64 {
        self.rolls.iter().map(|r| r.outcome.fence_contacts as u64).sum()
    }

    /// Rolls still moving after the time limit.
    pub fn unsettled(&self) -> usize {
        self.rolls.iter().filter(|r| !r.outcome.settled).count()
    }

    /// Throw to the first time every die was still, as the seed measured it.
    pub fn settle_s(&self) -> Spread {
        Spread::of(self.rolls.iter().map(|r| r.outcome.first_settle_s).collect())
    }

    /// Throw to the final reading (after any nudges).
    pub fn result_s(&self) -> Spread {
        Spread::of(self.rolls.iter().map(|r| r.outcome.settle_s).collect())
    }

    /// Lowest confidence of any die in any roll.
    pub fn lowest_confidence(&self) -> f64 {
        self.rolls.iter().flat_map(|r| r.outcome.readings.iter().map(|d| d.confidence)).fold(1.0, f64::min)
    }

    /// The summary as a table for people (what `simreel dice stats` prints).
    pub fn table(&self) -> String {
        use crate::text::count;
        use std::fmt::Write;
        let s = &self.spec;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{}, seeds {}..{}, {} each: {}, {} read, firmness {}",
            count(s.dice as u64, "die", "dice"),
            s.seeds.0,
            s.seeds.1,
            count(s.rolls_per_seed.into(), "roll", "rolls"),
            count(self.rolls.len() as u64, "roll", "rolls"),
            count((self.rolls.len() * s.dice) as u64, "die", "dice"),
            s.firmness
        );
        let faces = self.face_counts().iter().enumerate().map(|(i, c)| format!("{}: {c}", i + 1)).collect::<Vec<_>>().join("  ");
        let _ = writeln!(o, "faces           {faces}");
        let chi = self.chi_square();
        let verdict = if chi < CHI_SQUARE_CRITICAL { "no sign of bias" } else { "biased at α = 0.05" };
        let _ = writeln!(o, "chi-square      {chi:.2} (df 5, critical {CHI_SQUARE_CRITICAL} at α = 0.05: {verdict})");
        let st = self.settle_s();
        let _ = writeln!(o, "settle (s)      median {:.2}, p95 {:.2}, max {:.2} (throw to first stillness)", st.median, st.p95, st.max);
        let rs = self.result_s();
        let _ = writeln!(o, "result (s)      median {:.2}, p95 {:.2}, max {:.2} (throw to final reading)", rs.median, rs.p95, rs.max);
        let cocked = count(self.cocked() as u64, "roll", "rolls");
        let _ = writeln!(
            o,
            "cocked          {cocked} (lowest confidence {:.3}; threshold {})",
            self.lowest_confidence(),
            super::roller::COCKED
        );
        let _ = writeln!(o, "nudges          {}", self.nudges());
        let _ = writeln!(o, "fence contacts  {} touched the fence", count(self.fence_contacts(), "die", "dice"));
        if self.unsettled() > 0 {
            let still = count(self.unsettled() as u64, "roll", "rolls");
            let _ = writeln!(o, "unsettled       {still} still moving after {} s", super::roller::MAX_ROLL_SECONDS);
        }
        o
    }

    /// The summary as one JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        let s = self.settle_s();
        let r = self.result_s();
        serde_json::json!({
            "dice": self.spec.dice,
            "seeds": [self.spec.seeds.0, self.spec.seeds.1],
            "rolls_per_seed": self.spec.rolls_per_seed,
            "firmness": self.spec.firmness,
            "rolls": self.rolls.len(),
            "face_counts": self.face_counts(),
            "chi_square": self.chi_square(),
            "cocked": self.cocked(),
            "nudges": self.nudges(),
            "fence_contacts": self.fence_contacts(),
            "unsettled": self.unsettled(),
            "lowest_confidence": self.lowest_confidence(),
            "settle_s": {"median": s.median, "p95": s.p95, "max": s.max},
            "result_s": {"median": r.median, "p95": r.p95, "max": r.max},
            "settle_times_s": self.rolls.iter().map(|r| r.outcome.first_settle_s).collect::<Vec<_>>(),
        })
    }
}

/// χ² at α = 0.05 with 5 degrees of freedom (six faces): above it, a die is biased.
const CHI_SQUARE_CRITICAL: f64 = 11.07;

/// Rollers per table: enough that their dice fill whole packs.
fn rollers_per_table(dice: usize) -> usize {
    let lanes = super::pack::LANES;
    let lcm = dice * lanes / gcd(dice, lanes);
    lcm / dice
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Runs the study on the current rayon pool; `progress` is told of every finished roll.
///
/// Each pool thread steps one table of a few rollers; a roller that has rolled all its rolls takes
/// the next seed nobody has started (or retires when none is left), so lanes stay busy until
/// the end and the threads finish together. Which thread, table or lane rolls a seed never
/// changes its rolls.
pub fn run(spec: &StudySpec, progress: &(dyn Fn() + Sync)) -> Study {
    let queue = SeedQueue { first: spec.seeds.0, last: spec.seeds.1, taken: AtomicU64::new(0) };
    let per = rollers_per_table(spec.dice);
    let seeds = spec.seeds.1.saturating_sub(spec.seeds.0) as usize + 1;
    let tables = rayon::current_num_threads().min(seeds.div_ceil(per)).max(1);
    let mut rolls: Vec<Roll> = (0..tables).into_par_iter().flat_map_iter(|_| run_table(spec, per, &queue, progress)).collect();
    rolls.sort_by_key(|r| (r.seed, r.index));
    Study { spec: spec.clone(), rolls }
}

/// The seeds `first..=last` not yet started, handed out one at a time.
struct SeedQueue {
    first: u64,
    last: u64,
    taken: AtomicU64,
}

impl SeedQueue {
    fn take(&self) -> Option<u64> {
        let n = self.taken.fetch_add(1, Ordering::Relaxed);
        self.first.checked_add(n).filter(|&seed| seed <= self.last)
    }
}

/// One table of `per` rollers, rolling seeds from `queue` until none is left.
fn run_table(spec: &StudySpec, per: usize, queue: &SeedQueue, progress: &(dyn Fn() + Sync)) -> Vec<Roll> {
    let mut out = Vec::new();
    if spec.rolls_per_seed == 0 {
        return out;
    }
    let mut table = Table::new((0..per).map(|_| (vec![spec.firmness; spec.dice], throw_stream(0))).collect());
    // the tables already keep every core busy
    table.set_two_threads(false);
    // per roller: the seed it rolls and how many rolls it has finished
    let mut rolling: Vec<Option<(u64, u32)>> = vec![None; per];
    let start = |table: &mut Table, rolling: &mut Vec<Option<(u64, u32)>>, w: usize| match queue.take() {
        Some(seed) => {
            table.reseed(w, throw_stream(seed));
            table.throw(w);
            rolling[w] = Some((seed, 0));
        }
        None => {
            table.retire(w);
            rolling[w] = None;
        }
    };
    for w in 0..per {
        start(&mut table, &mut rolling, w);
    }
    while rolling.iter().any(Option::is_some) {
        table.step();
        for w in 0..per {
            let Some((seed, done)) = rolling[w] else { continue };
            let roller = table.roller(w);
            if roller.phase() != Phase::Settled {
                continue;
            }
            let outcome = roller.outcome().cloned().expect("a settled roller has an outcome");
            out.push(Roll { seed, index: done, outcome });
            progress();
            if done + 1 < spec.rolls_per_seed {
                rolling[w] = Some((seed, done + 1));
                table.throw(w);
            } else {
                start(&mut table, &mut rolling, w);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_uses_nearest_rank() {
        let s = Spread::of((1..=20).map(|i| i as f64).collect());
        assert_eq!((s.median, s.p95, s.max), (10.5, 19.0, 20.0));
        let s = Spread::of(vec![3.0, 1.0, 2.0]);
        assert_eq!((s.median, s.p95, s.max), (2.0, 3.0, 3.0));
    }

    #[test]
    fn packing_fills_lanes() {
        assert_eq!(rollers_per_table(3), 4);
        assert_eq!(rollers_per_table(2), 2);
        assert_eq!(rollers_per_table(5), 4);
        assert_eq!(rollers_per_table(4), 1);
    }
}
