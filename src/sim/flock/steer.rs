//! Steering (Reynolds, simplified as in the seed): velocity eases toward a desired velocity at a
//! fixed reactivity, with arrival slow-down, a sine wander and separation; speed is clamped at
//! three times the cruising speed so shockwave overspeed decays on its own.

use crate::portable;

/// The seed's `steerTo`: desired velocity points at the target at `max_speed`, scaled by
/// distance / `arrive` inside the arrive radius; velocity moves toward it by min(1, reactivity·dt).
#[inline]
pub fn steer_to(p: [f32; 2], v: [f32; 2], target: [f32; 2], max_speed: f32, arrive: f32, reactivity: f32, dt: f32) -> [f32; 2] {
    let (dx, dy) = (target[0] - p[0], target[1] - p[1]);
    let d = (dx * dx + dy * dy).sqrt();
    let d = if d > 0.0 { d } else { 1.0 };
    let mut speed = max_speed;
    if arrive > 0.0 && d < arrive {
        speed *= d / arrive;
    }
    let k = (reactivity * dt).min(1.0);
    [v[0] + (dx / d * speed - v[0]) * k, v[1] + (dy / d * speed - v[1]) * k]
}

/// Sideways sine wander: amplitude·dt across the direction of travel, at phase·1.7.
#[inline]
pub fn wander(v: [f32; 2], phase: f32, amplitude: f32, dt: f32) -> [f32; 2] {
    let len = (v[0] * v[0] + v[1] * v[1]).sqrt();
    if len <= 1e-6 {
        return v;
    }
    let push = portable::sin(phase * 1.7) * amplitude * dt;
    [v[0] - v[1] / len * push, v[1] + v[0] / len * push]
}

/// Push away from one neighbour at offset (dx, dy) = self − other, stronger when closer:
/// (1 − d / radius)·strength·dt along the offset, as (1/d − 1/radius)·strength·dt·offset (one
/// square root and one division). Coincident agents part along `fallback`.
#[inline]
pub fn separation(dx: f32, dy: f32, d2: f32, radius: f32, strength: f32, dt: f32, fallback: [f32; 2]) -> [f32; 2] {
    let d = d2.sqrt();
    if d > 1e-6 {
        let w = (1.0 / d - 1.0 / radius).max(0.0) * strength * dt;
        [dx * w, dy * w]
    } else {
        let w = (1.0 - d / radius).max(0.0) * strength * dt;
        [fallback[0] * w, fallback[1] * w]
    }
}

/// Caps speed at `max`.
#[inline]
pub fn clamp_speed(v: [f32; 2], max: f32) -> [f32; 2] {
    let s2 = v[0] * v[0] + v[1] * v[1];
    if s2 > max * max {
        let k = max / s2.sqrt();
        [v[0] * k, v[1] * k]
    } else {
        v
    }
}
