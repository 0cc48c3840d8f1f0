//! The dice's world, shared by the table that steps them and the rollers that throw, settle and
//! read them: the fixed clock, gravity, the fence and the damping.

/// Fixed steps a second, the step, and substeps per step (small-step XPBD).
pub const STEPS_PER_SECOND: f64 = 120.0;
pub const STEP: f64 = 1.0 / STEPS_PER_SECOND;
pub const SUBSTEPS: usize = 6;
/// Radius of the invisible fence that keeps dice in frame, for up to [`ROOMY`] dice.
pub const ARENA_R: f64 = 3.0;
/// The most dice the 3 m fence holds with room for every one to lie flat (a die still cocked
/// after its nudges was, without fail, wedged among neighbours on a table this full).
pub const ROOMY: usize = 8;

/// The fence around `dice` dice thrown together: 3 m, widened beyond [`ROOMY`] dice to keep the
/// table area per die (3.5 m² each).
pub fn arena_radius(dice: usize) -> f64 {
    ARENA_R * (dice.max(ROOMY) as f64 / ROOMY as f64).sqrt()
}
pub const GRAVITY: f64 = 9.81;
/// Jelly damping rate (1/s): wobble and rebound decay with a time constant of 1/6 s.
pub const WOBBLE_DAMPING: f64 = 6.0;
/// Rolling resistance (1/s) of a die touching the floor: its horizontal drift and its spin decay.
pub const FLOOR_DRIFT_DAMPING: f64 = 1.5;
pub const FLOOR_SPIN_DAMPING: f64 = 2.5;
