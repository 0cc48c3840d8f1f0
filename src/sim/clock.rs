//! The fixed-step clock every simulation with history steps on: step k ends at k / rate seconds
//! (a count, so time never drifts the way a running sum of steps does), and a frame at time t
//! shows the state after the last step at or before t. One clock, one rounding rule, for every
//! kind.

/// How far before a step (in steps) a time may fall and still count as at it: a frame's time
/// f / fps and a step's k / rate are each rounded, so one instant can come out a few units in the
/// last place apart either way.
const SLACK: f64 = 1e-7;

/// A count of fixed steps at `rate` steps a second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedClock {
    rate: f64,
    steps: u64,
}

impl FixedClock {
    /// A clock at step 0 taking `rate` steps a second (> 0).
    pub fn new(rate: f64) -> FixedClock {
        assert!(rate > 0.0 && rate.is_finite(), "a clock of {rate} steps a second");
        FixedClock { rate, steps: 0 }
    }

    /// Steps a second.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Seconds a step lasts.
    pub fn step_seconds(&self) -> f64 {
        1.0 / self.rate
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Seconds simulated: the end of the last step taken.
    pub fn time(&self) -> f64 {
        self.time_of(self.steps)
    }

    /// When step `k` ends, in seconds.
    pub fn time_of(&self, k: u64) -> f64 {
        k as f64 / self.rate
    }

    /// One more step taken.
    pub fn tick(&mut self) {
        self.steps += 1;
    }

    /// The steps that end at or before time `t` (none before 0).
    pub fn steps_at(&self, t: f64) -> u64 {
        (t * self.rate + SLACK).floor().max(0.0) as u64
    }

    /// Whether a step ending at or before `t` is still to be taken.
    pub fn is_behind(&self, t: f64) -> bool {
        self.steps < self.steps_at(t)
    }

    /// Puts the clock at step `k` (a restored state's).
    pub fn set_steps(&mut self, k: u64) {
        self.steps = k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_shows_the_last_step_at_or_before_its_time() {
        let c = FixedClock::new(120.0);
        // 30 fps on 120 steps a second: exactly 4 steps a frame, however the division rounds
        for f in 0..10_000u64 {
            assert_eq!(c.steps_at(f as f64 / 30.0), 4 * f, "frame {f}");
        }
        // 25 fps: frame 1 at 0.04 s falls between steps 4 (0.0333 s) and 5 (0.0417 s)
        assert_eq!(c.steps_at(1.0 / 25.0), 4);
        assert_eq!(c.steps_at(-1.0), 0);
    }

    #[test]
    fn time_is_a_count_not_a_sum() {
        let mut c = FixedClock::new(60.0);
        let mut sum = 0.0;
        for _ in 0..600 {
            c.tick();
            sum += 1.0 / 60.0;
        }
        assert_eq!(c.time(), 10.0);
        assert_ne!(sum, 10.0, "the running sum drifts (this is why the clock counts)");
        assert!(!c.is_behind(10.0) && c.is_behind(10.0 + 1.0 / 60.0));
    }
}
