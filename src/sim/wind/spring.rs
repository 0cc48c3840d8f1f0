//! A damped spring `x'' + 2ζω x' + ω² x = ω² f(t)` integrated exactly over a step in which the
//! target `f` moves linearly (a first-order hold). With a constant or linear target the result does
//! not depend on the step: 30 steps a second and 240 land on the same trajectory.

use crate::portable;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    /// Natural angular frequency, rad/s.
    pub omega: f64,
    /// Damping ratio, 0 < ζ < 1.
    pub zeta: f64,
}

impl Spring {
    pub fn new(omega: f64, zeta: f64) -> Self {
        Spring { omega, zeta: zeta.clamp(1e-6, 1.0 - 1e-9) }
    }

    /// The free (unforced) motion from (x, v) after `dt`.
    fn free(&self, x: f64, v: f64, dt: f64) -> (f64, f64) {
        let (w, z) = (self.omega, self.zeta);
        let wd = w * (1.0 - z * z).sqrt();
        let decay = portable::exp(-z * w * dt);
        let (s, c) = portable::sin_cos(wd * dt);
        let x1 = decay * (x * c + (v + z * w * x) / wd * s);
        let v1 = decay * (v * c - (z * w * v + w * w * x) / wd * s);
        (x1, v1)
    }

    /// State (x, v) after `dt` while the target moves from `from` to `to` linearly.
    pub fn advance(&self, x: f64, v: f64, from: f64, to: f64, dt: f64) -> (f64, f64) {
        if dt <= 0.0 {
            return (x, v);
        }
        let rate = (to - from) / dt;
        // particular solution of a linear target: x_p(τ) = f(τ) − 2ζ·rate/ω, x_p' = rate
        let lag = 2.0 * self.zeta * rate / self.omega;
        let (y, yv) = self.free(x - (from - lag), v - rate, dt);
        (y + to - lag, yv + rate)
    }

    /// The angular frequency at which a spring of damping `zeta`, let go from rest at 1, stays
    /// within `band` of 0 from time `settle` on.
    pub fn settling(zeta: f64, band: f64, settle: f64) -> f64 {
        let unit = Spring::new(1.0, zeta);
        let outside = |tau: f64| unit.free(1.0, 0.0, tau).0.abs() > band;
        // the last moment outside the band, on the unit spring, found on a fine scan then refined
        let (mut last, step) = (0.0, 0.01);
        let mut tau = 0.0;
        while tau < 200.0 {
            if outside(tau) {
                last = tau;
            }
            tau += step;
        }
        let (mut lo, mut hi) = (last, last + step);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if outside(mid) { lo = mid } else { hi = mid }
        }
        hi / settle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trajectory_does_not_depend_on_the_step() {
        let s = Spring::new(2.6, 0.3);
        // a linear target from 0.2 to 1.4 over two seconds, then held
        let target = |t: f64| if t < 2.0 { 0.2 + 0.6 * t } else { 1.4 };
        let run = |hz: u32| {
            let dt = 1.0 / hz as f64;
            let (mut x, mut v) = (0.5, -0.3);
            let mut out = Vec::new();
            for k in 0..(4 * hz) {
                let t = k as f64 * dt;
                (x, v) = s.advance(x, v, target(t), target(t + dt), dt);
                if (k + 1) % (hz / 30) == 0 {
                    out.push((x, v));
                }
            }
            out
        };
        let base = run(30);
        for hz in [60, 120, 240] {
            for (a, b) in base.iter().zip(run(hz)) {
                assert!((a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9, "{hz} Hz: {a:?} vs {b:?}");
            }
        }
        // and it is a spring: released from 1 at rest toward 0 it crosses 0, overshoots, settles
        let (mut x, mut v) = (1.0, 0.0);
        let mut lowest = 1.0f64;
        for _ in 0..600 {
            (x, v) = s.advance(x, v, 0.0, 0.0, 1.0 / 60.0);
            lowest = lowest.min(x);
        }
        assert!(lowest < -0.3 && x.abs() < 1e-3, "lowest {lowest}, end {x}");
    }

    #[test]
    fn settling_time_is_met_exactly() {
        for (zeta, settle) in [(0.8, 1.5), (0.8, 2.5), (0.5, 2.0)] {
            let w = Spring::settling(zeta, 0.02, settle);
            let s = Spring::new(w, zeta);
            let at = |t: f64| s.advance(1.0, 0.0, 0.0, 0.0, t).0;
            assert!(at(settle).abs() <= 0.02 + 1e-9, "{zeta}: {}", at(settle));
            // outside the band just before, and never back out afterwards
            assert!((0..50).any(|k| at(settle * (0.9 + 0.002 * k as f64)).abs() > 0.02));
            assert!((0..400).all(|k| at(settle + 0.01 * k as f64).abs() <= 0.02 + 1e-9));
        }
    }
}
