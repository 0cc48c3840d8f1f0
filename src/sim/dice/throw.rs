//! The only use of a dice game's random stream: how each die is thrown (start, orientation, speed,
//! spin, and which of the 24 cube rotations relates its pips to its lattice), and the random
//! directions a nudge falls back on. Every draw comes from the scene's seed, in a fixed order.

use super::math::{Quat, V3, scale};
use super::world::arena_radius;
use crate::portable;
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

/// Centres closer than this may touch at the throw (a die's diagonal, 1.73, plus a margin).
const START_GAP: f64 = 1.8;
/// Dice thrown from one ring at most; more go on rings above it.
const PER_RING: usize = 6;
/// Height between rings: the start heights' spread (0.4) plus [`START_GAP`] and a margin.
const RING_RISE: f64 = 2.3;
/// Radius of the starting rings: at least 1.3 m, at most 1 m inside the fence (a die's half
/// diagonal and a margin).
const RING_MIN: f64 = 1.3;

/// Where die `i` of `n` starts: its ring (dice share `ceil(n / 6)` rings stacked
/// [`RING_RISE`] apart, as evenly as possible), the ring's radius, the angle of its place on the
/// ring, and how far the angle may wander either way while every pair of starts stays
/// [`START_GAP`] apart.
fn start_place(i: usize, n: usize) -> (f64, f64, f64, f64) {
    let rings = n.div_ceil(PER_RING);
    let (ring, place) = (i % rings, i / rings);
    let m = n / rings + usize::from(ring < n % rings);
    let step = std::f64::consts::TAU / m as f64;
    let widest = arena_radius(n) - 1.0;
    let radius = if m < 3 { RING_MIN } else { (START_GAP / (2.0 * portable::sin(step / 2.0)) + 0.3).clamp(RING_MIN, widest) };
    let spare = step - 2.0 * portable::asin((START_GAP / (2.0 * radius)).min(1.0));
    let wander = if m == 1 { 0.6 } else { (spare / 2.0).clamp(0.0, 0.6) };
    // rings above take the gaps of the ring below
    let angle = (place as f64 + 0.5 + 0.5 * ring as f64) * step;
    (ring as f64 * RING_RISE, radius, angle, wander)
}

/// Targets on the table lie within this radius of the centre: 1.6 m, more for many dice (about
/// 2 m² of table each), at most 0.9 m inside the fence.
fn target_radius(n: usize) -> f64 {
    (2.0 * n as f64 / std::f64::consts::PI).sqrt().clamp(1.6, arena_radius(n) - 0.9)
}

/// Draws the throw of die `i` of `n`: from its place on a starting ring (see [`start_place`]),
/// 1.8–2.2 m up, upward speed 6 + 2u, spin about a random axis at 7 + 8u rad/s, flying toward a
/// random target on the table (see [`target_radius`]) that it reaches when it falls back to the
/// height it started from. No two dice start closer than [`START_GAP`].
pub fn draw(rng: &mut Rng, i: usize, n: usize, gravity: f64) -> Throw {
    let (rise, radius, place, wander) = start_place(i, n);
    let ang = place + (2.0 * rng.unit() - 1.0) * wander;
    let start = [radius * portable::cos(ang), 1.8 + 0.4 * rng.unit() + rise, radius * portable::sin(ang)];
    let rotation = random_rotation(rng);
    let vy = 6.0 + 2.0 * rng.unit();
    let ta = rng.unit() * std::f64::consts::TAU;
    let tr = target_radius(n) * rng.unit().sqrt();
    let target = [tr * portable::cos(ta), 0.0, tr * portable::sin(ta)];
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
    [s * portable::cos(a), s * portable::sin(a), z]
}

pub fn random_horizontal(rng: &mut Rng) -> V3 {
    let a = rng.unit() * std::f64::consts::TAU;
    [portable::cos(a), 0.0, portable::sin(a)]
}

/// A uniformly random rotation (Shoemake's method).
pub fn random_rotation(rng: &mut Rng) -> Quat {
    let (u1, u2, u3) = (rng.unit(), rng.unit() * std::f64::consts::TAU, rng.unit() * std::f64::consts::TAU);
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    [a * portable::sin(u2), a * portable::cos(u2), b * portable::sin(u3), b * portable::cos(u3)]
}

/// The random stream a dice game with scene seed `seed` throws with (scenes and `dice stats` share
/// it, so a study's seed replays as a scene).
pub fn throw_stream(seed: u64) -> Rng {
    Rng::stream(seed, "dice.throws")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::dice::math::{norm, sub};

    #[test]
    fn no_two_dice_start_within_reach_of_each_other() {
        for n in 1..=12 {
            for seed in 0..200 {
                let mut rng = throw_stream(seed);
                let starts: Vec<V3> = (0..n).map(|i| draw(&mut rng, i, n, 9.81).start).collect();
                for a in 0..n {
                    let r = norm([starts[a][0], 0.0, starts[a][2]]);
                    assert!(r + 0.87 < arena_radius(n), "{n} dice, seed {seed}: die {a} starts {r:.2} m out, through the fence");
                    for b in 0..a {
                        let d = norm(sub(starts[a], starts[b]));
                        assert!(d >= START_GAP - 1e-9, "{n} dice, seed {seed}: dice {a} and {b} start {d:.3} m apart");
                    }
                }
            }
        }
    }
}
