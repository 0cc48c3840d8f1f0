//! The only use of a dice game's random stream: how each die is thrown (start, orientation, speed,
//! spin, and which of the 24 cube rotations relates its pips to its lattice), and the random
//! directions a nudge falls back on. Every draw comes from the scene's seed, in a fixed order.

use super::math::{Quat, V3, scale};
use crate::sim::rng::Rng;

/// One die's throw: where it starts, how it is turned, its rigid velocity, and its pip frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Throw {
    pub start: V3,
    pub rotation: Quat,
    /// Linear velocity (m/s) and angular velocity (rad/s).
    pub linear: V3,
    pub angular: V3,
    /// Which of the 24 cube rotations turns the pips' frame into the lattice's.
    pub frame: u8,
}

/// Draws the throw of die `i` of `n`: from a ring 1.3 m out, 1.8–2.2 m up, upward speed 6 + 2u,
/// spin about a random axis at 7 + 8u rad/s, flying toward a random target on the table (within
/// 1.6 m of the centre) that it reaches when it falls back to the table's height.
pub fn draw(rng: &mut Rng, i: usize, n: usize, gravity: f64) -> Throw {
    let ang = (i as f64 + 0.5) / n as f64 * std::f64::consts::TAU + rng.unit() * 0.6;
    let start = [1.3 * ang.cos(), 1.8 + 0.4 * rng.unit(), 1.3 * ang.sin()];
    let rotation = random_rotation(rng);
    let vy = 6.0 + 2.0 * rng.unit();
    let ta = rng.unit() * std::f64::consts::TAU;
    let tr = 1.6 * rng.unit().sqrt();
    let target = [tr * ta.cos(), 0.0, tr * ta.sin()];
    let flight = 2.0 * vy / gravity;
    let linear = [(target[0] - start[0]) / flight, vy, (target[2] - start[2]) / flight];
    let axis = random_unit(rng);
    let spin = 7.0 + 8.0 * rng.unit();
    let frame = rng.below(24) as u8;
    Throw { start, rotation, linear, angular: scale(axis, spin), frame }
}

fn random_unit(rng: &mut Rng) -> V3 {
    // uniform on the sphere
    let z = 2.0 * rng.unit() - 1.0;
    let a = rng.unit() * std::f64::consts::TAU;
    let s = (1.0 - z * z).max(0.0).sqrt();
    [s * a.cos(), s * a.sin(), z]
}

pub fn random_horizontal(rng: &mut Rng) -> V3 {
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
