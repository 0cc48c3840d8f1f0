//! One degree of freedom of the seed's damped spring, `ẍ = ω²(x_target − x) − 2ζω ẋ`, with its
//! soft wall (outside a limit: extra stiffness toward the limit and extra damping of outward
//! motion) and, for lift, a hard floor. Two ways to step it:
//!
//! - [`Dof::exact`]: inside one region (inside the limits, or outside one of them, moving in or
//!   out) the equation is linear with constant coefficients, so a step is its closed-form solution
//!   (under-, critically or over-damped) — stable for any step, and two half steps equal one whole.
//! - [`Dof::semi_implicit`]: the seed's velocity-then-position Euler step, stable only while
//!   `h²K + 2hc < 4` for stiffness K and damping c.

use crate::portable;

/// The constants of one degree of freedom after heaviness is applied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Law {
    /// Natural angular frequency, rad/s.
    pub omega: f64,
    pub zeta: f64,
    pub lo: f64,
    pub hi: f64,
    /// Wall stiffness as a multiple of ω, and the wall's damping ratio on outward motion.
    pub wall: [f64; 2],
    /// Position and downward velocity stop at `lo` (lift cannot go into its support).
    pub floor: bool,
}

/// The linear equation `ẍ = K(e − x) − c ẋ` that holds over one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Region {
    pub k: f64,
    pub e: f64,
    pub c: f64,
    /// Outside a limit (counted as a wall entry when it starts).
    pub walled: bool,
}

impl Law {
    /// The equation for a state (x, v) following `target` (already clamped to the limits).
    pub fn region(&self, x: f64, v: f64, target: f64) -> Region {
        let w2 = self.omega * self.omega;
        let c = 2.0 * self.zeta * self.omega;
        let ww = self.wall[0] * self.omega;
        let outside = |limit: f64, outward: bool| {
            let k = w2 + ww * ww;
            let e = (w2 * target + ww * ww * limit) / k;
            Region { k, e, c: c + if outward { 2.0 * self.wall[1] * ww } else { 0.0 }, walled: true }
        };
        if x > self.hi {
            outside(self.hi, v > 0.0)
        } else if x < self.lo && !self.floor {
            outside(self.lo, v < 0.0)
        } else {
            Region { k: w2, e: target, c, walled: false }
        }
    }

    /// Clamps a target into the limits.
    pub fn clamp(&self, target: f64) -> f64 {
        target.clamp(self.lo, self.hi)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dof {
    pub x: f64,
    pub v: f64,
}

impl Dof {
    /// The acceleration now under `r`.
    pub fn accel(&self, r: &Region) -> f64 {
        r.k * (r.e - self.x) - r.c * self.v
    }

    /// Moves along the exact solution of `r` for `h` seconds.
    pub fn exact(&mut self, r: &Region, h: f64, law: &Law) {
        let (y, v) = free(self.x - r.e, self.v, r.k.sqrt(), r.c / (2.0 * r.k.sqrt()), h);
        self.x = y + r.e;
        self.v = v;
        self.floor(law);
    }

    /// The seed's step: velocity first, then position with the new velocity.
    pub fn semi_implicit(&mut self, r: &Region, h: f64, law: &Law) {
        self.v += h * self.accel(r);
        self.x += h * self.v;
        self.floor(law);
    }

    fn floor(&mut self, law: &Law) {
        if law.floor && self.x <= law.lo {
            self.x = law.lo;
            self.v = self.v.max(0.0);
        }
    }
}

/// The unforced motion `ÿ + 2ζω ẏ + ω² y = 0` from (y, v) after `h`.
pub fn free(y: f64, v: f64, w: f64, z: f64, h: f64) -> (f64, f64) {
    if h <= 0.0 {
        return (y, v);
    }
    if (z - 1.0).abs() < 1e-9 {
        let b = v + w * y;
        let d = portable::exp(-w * h);
        return ((y + b * h) * d, (v - w * b * h) * d);
    }
    if z < 1.0 {
        let wd = w * (1.0 - z * z).sqrt();
        let decay = portable::exp(-z * w * h);
        let (s, c) = portable::sin_cos(wd * h);
        return (decay * (y * c + (v + z * w * y) / wd * s), decay * (v * c - (z * w * v + w * w * y) / wd * s));
    }
    let root = (z * z - 1.0).sqrt();
    let (r1, r2) = (-w * (z - root), -w * (z + root));
    let c1 = (v - r2 * y) / (r1 - r2);
    let c2 = y - c1;
    let (e1, e2) = (portable::exp(r1 * h), portable::exp(r2 * h));
    (c1 * e1 + c2 * e2, c1 * r1 * e1 + c2 * r2 * e2)
}

/// The step response of a spring of `zeta` (0 < ζ < 1) with natural frequency `hz`: overshoot
/// as a fraction of the step, and the time of the first peak.
pub fn overshoot_and_peak(hz: f64, zeta: f64) -> (f64, f64) {
    let w = std::f64::consts::TAU * hz;
    let wd = w * (1.0 - zeta * zeta).sqrt();
    (portable::exp(-zeta * std::f64::consts::PI / (1.0 - zeta * zeta).sqrt()), std::f64::consts::PI / wd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn law(hz: f64, zeta: f64) -> Law {
        Law { omega: std::f64::consts::TAU * hz, zeta, lo: -1e9, hi: 1e9, wall: [2.0, 1.0], floor: false }
    }

    #[test]
    fn the_closed_form_solves_the_equation_in_every_damping_regime() {
        for zeta in [0.0, 0.32, 0.999_99, 1.0, 1.000_01, 1.7] {
            let l = law(1.5, zeta);
            let r = l.region(0.3, -0.4, 1.0);
            // against a fine RK4 integration of the same equation
            let f = |x: f64, v: f64| (v, r.k * (r.e - x) - r.c * v);
            let (mut x, mut v) = (0.3, -0.4);
            let n = 20_000;
            let h = 1.3 / n as f64;
            for _ in 0..n {
                let k1 = f(x, v);
                let k2 = f(x + 0.5 * h * k1.0, v + 0.5 * h * k1.1);
                let k3 = f(x + 0.5 * h * k2.0, v + 0.5 * h * k2.1);
                let k4 = f(x + h * k3.0, v + h * k3.1);
                x += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
                v += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
            }
            let mut d = Dof { x: 0.3, v: -0.4 };
            d.exact(&r, 1.3, &l);
            assert!((d.x - x).abs() < 1e-9 && (d.v - v).abs() < 1e-8, "ζ {zeta}: {d:?} vs ({x}, {v})");
            // two half steps are one whole step
            let mut half = Dof { x: 0.3, v: -0.4 };
            half.exact(&r, 0.65, &l);
            half.exact(&r, 0.65, &l);
            assert!((half.x - d.x).abs() < 1e-12 && (half.v - d.v).abs() < 1e-12, "ζ {zeta}");
        }
    }

    #[test]
    fn outside_a_limit_the_wall_pulls_back_and_damps_only_outward_motion() {
        let l = Law { lo: -2.0, hi: 1.0, ..law(1.2, 0.32) };
        let inside = l.region(0.5, 1.0, 1.0);
        assert!(!inside.walled && inside.e == 1.0);
        let out = l.region(1.5, 1.0, 1.0);
        let back = l.region(1.5, -1.0, 1.0);
        assert!(out.walled && out.k > inside.k && out.c > back.c && back.c == inside.c);
        assert!(out.e <= 1.0, "the wall's rest point is at or inside the limit");
        // with the floor, the lower limit is hard
        let lift = Law { lo: 0.0, hi: 2.0, floor: true, ..law(1.2, 0.32) };
        let mut d = Dof { x: 0.1, v: -5.0 };
        d.exact(&lift.region(d.x, d.v, 0.0), 0.1, &lift);
        assert_eq!((d.x, d.v), (0.0, 0.0));
    }
}
