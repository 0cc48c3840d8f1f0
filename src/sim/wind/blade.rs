//! A grass blade's shape: a quadratic Bézier spine from the root that keeps its length at every
//! lean (the controls are divided by the curve's exact arc length), and the shaping of many blades
//! at once — the wind read from the grid, the lean `atan(bend · |W| / stiffness)` turned by the
//! travelling ripple, written branch-free in lanes of eight so the compiler vectorises it (and
//! compiled for AVX2 where the CPU has it, with the same bits). `model = "kinematic"` blades take the
//! seed's formulas instead.

use crate::portable;
use std::sync::OnceLock;

use rayon::prelude::*;

use super::field::{WindField, WindGrid};
use crate::frame::Motion;
use crate::scene::wind::GrassSpec;

/// Largest lean of a blade from upright, radians (89°).
pub const MAX_LEAN: f32 = 1.553;
/// Entries of the table of 1 / arc length.
const ENTRIES: usize = 4096;

/// The blade's shape at lean Θ from upright, in units of its length: the tip at (sin Θ, cos Θ)
/// along its lean, the middle control straight above the root at 0.5 cos Θ (so the blade leaves
/// the ground upright and curves over), both divided by the curve's arc length, which depends on
/// cos Θ alone: tabulated once, evenly in cos Θ over [cos 89°, 1], and interpolated linearly
/// (a test checks the lengths this gives).
struct LengthFit {
    lo: f32,
    scale: f32,
    table: Vec<f32>,
}

fn length_fit() -> &'static LengthFit {
    static FIT: OnceLock<LengthFit> = OnceLock::new();
    FIT.get_or_init(|| {
        let lo = portable::cos(MAX_LEAN as f64);
        let table = (0..=ENTRIES)
            .map(|i| {
                let c = lo + (1.0 - lo) * i as f64 / ENTRIES as f64;
                let s = (1.0 - c * c).max(0.0).sqrt();
                (1.0 / spine_length([0.0, 0.5 * c, 0.0], [s, c, 0.0])) as f32
            })
            .collect();
        LengthFit { lo: lo as f32, scale: (ENTRIES as f64 / (1.0 - lo)) as f32, table }
    })
}

impl LengthFit {
    /// [`LengthFit::inverse`] of `LANES` values: positions in the table (lanes), the reads, the
    /// blend (lanes).
    #[inline(always)]
    fn inverse_lanes(&self, c: &[f32; LANES]) -> [f32; LANES] {
        let (mut i, mut f) = ([0usize; LANES], [0.0f32; LANES]);
        for l in 0..LANES {
            let x = ((c[l] - self.lo) * self.scale).clamp(0.0, ENTRIES as f32 - 1e-3);
            i[l] = x as usize;
            f[l] = x - i[l] as f32;
        }
        let (mut a, mut b) = ([0.0f32; LANES], [0.0f32; LANES]);
        for l in 0..LANES {
            let [p, q] = self.table[i[l]..i[l] + 2] else { unreachable!("the index is clamped into the table") };
            (a[l], b[l]) = (p, q);
        }
        std::array::from_fn(|l| a[l] + (b[l] - a[l]) * f[l])
    }

    /// 1 / arc length of the blade shape with cos Θ = `c`.
    #[inline(always)]
    fn inverse(&self, c: f32) -> f32 {
        let f = ((c - self.lo) * self.scale).clamp(0.0, ENTRIES as f32 - 1e-3);
        let i = f as usize;
        let [a, b] = self.table[i..i + 2] else { unreachable!("the index is clamped into the table") };
        a + (b - a) * (f - i as f32)
    }
}

/// Arc length of the quadratic Bézier from the origin through controls `c1`, `c2` (Simpson's
/// rule on 8192 intervals: far below f32's resolution for these curves).
pub fn spine_length(c1: [f64; 3], c2: [f64; 3]) -> f64 {
    let speed = |h: f64| {
        let d: [f64; 3] = std::array::from_fn(|a| (2.0 - 4.0 * h) * c1[a] + 2.0 * h * c2[a]);
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
    };
    let n = 8192;
    let h = 1.0 / n as f64;
    let mut sum = speed(0.0) + speed(1.0);
    for i in 1..n {
        sum += speed(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    sum * h / 3.0
}

/// The motion record of a blade whose tip leans by Θ (sin Θ = `s`, cos Θ = `c`, Θ up to
/// [`MAX_LEAN`]; a negative `s` leans it the other way) toward unit (dx, dz).
#[inline(always)]
fn shape(fit: &LengthFit, s: f32, c: f32, dx: f32, dz: f32) -> Motion {
    let inv = fit.inverse(c);
    Motion { a: [0.0, 0.5 * c * inv, 0.0, 0.0], b: [s * inv * dx, c * inv, s * inv * dz, 0.0] }
}

/// The motion record of a blade leaning by `theta` (signed, radians) toward unit (dx, dz).
pub fn lean(theta: f32, dx: f32, dz: f32) -> Motion {
    let (s, c) = portable::sin_cos(theta.clamp(-MAX_LEAN, MAX_LEAN));
    shape(length_fit(), s, c, dx, dz)
}

/// sin and cos of a small angle (|r| ≤ 1.2 rad) by their Taylor series to r¹¹: exact to f32.
#[inline(always)]
fn sin_cos_small(r: f32) -> (f32, f32) {
    // reciprocals written out: a division by a constant stays a division
    const S: [f32; 5] = [1.0 / 6.0, 1.0 / 20.0, 1.0 / 42.0, 1.0 / 72.0, 1.0 / 110.0];
    const C: [f32; 6] = [1.0 / 2.0, 1.0 / 12.0, 1.0 / 30.0, 1.0 / 56.0, 1.0 / 90.0, 1.0 / 132.0];
    let r2 = r * r;
    let s = r * (1.0 - r2 * S[0] * (1.0 - r2 * S[1] * (1.0 - r2 * S[2] * (1.0 - r2 * S[3] * (1.0 - r2 * S[4])))));
    let c = 1.0 - r2 * C[0] * (1.0 - r2 * C[1] * (1.0 - r2 * C[2] * (1.0 - r2 * C[3] * (1.0 - r2 * C[4] * (1.0 - r2 * C[5])))));
    (s, c)
}

/// What every blade of a patch shares at one moment.
#[derive(Clone, Copy)]
pub(super) struct Moment {
    /// Mean wind direction (unit, x and z).
    dir: [f32; 2],
    /// sin and cos of the ripple's phase, and its amplitude (radians).
    phase: [f32; 2],
    amplitude: f32,
    /// sin and cos of [`MAX_LEAN`].
    limit: [f32; 2],
}

impl Moment {
    pub(super) fn of(spec: &GrassSpec, field: &WindField, t: f64) -> Self {
        let (dir, _) = field.mean(t);
        let kappa = std::f64::consts::TAU / spec.wave.wavelength;
        // the crests' travel is integrated, so a change of speed never jumps the phase
        let travelled = match spec.wave.speed {
            Some(v) => v * t,
            None => field.travelled(t).0,
        };
        let (s, c) = portable::sin_cos((kappa * travelled).rem_euclid(std::f64::consts::TAU));
        let amplitude = spec.wave.amplitude_deg.to_radians() as f32;
        let (ls, lc) = portable::sin_cos(MAX_LEAN);
        Moment { dir: [dir[0] as f32, dir[1] as f32], phase: [s as f32, c as f32], amplitude, limit: [ls, lc] }
    }

    /// The lean of one blade with give `k` in wind `w` whose place on the ripple is `at`: sin
    /// and cos of the signed lean, and its unit direction ([`Moment::lean_lanes`] in one lane, so
    /// the formula is written once).
    pub(super) fn lean(&self, k: f32, w: [f32; 2], at: [f32; 2]) -> ([f32; 2], [f32; 2]) {
        let [s, c, dx, dz] = self.lean_lanes(&[k; LANES], &[[w[0]; LANES], [w[1]; LANES]], &[[at[0]; LANES], [at[1]; LANES]]);
        ([s[0], c[0]], [dx[0], dz[0]])
    }
}

/// Blades shaped together, lane by lane (arrays the compiler turns into vector instructions).
const LANES: usize = 8;

impl Moment {
    /// The lean of `LANES` blades with gives `k` in winds `w` whose places on the ripple are `at`
    /// ((sin, cos) of κ·(p·d̂)): (sin, cos, dx, dz) of each lane's signed lean and its unit
    /// direction. Branch-free loops over lanes, so they vectorise: the wind's lean atan(k·|W|)
    /// as (x, 1)/√(1 + x²), turned by the ripple with the angle-sum formulas, held at
    /// [`MAX_LEAN`].
    #[inline(always)]
    fn lean_lanes(&self, k: &[f32; LANES], w: &[[f32; LANES]; 2], at: &[[f32; LANES]; 2]) -> [[f32; LANES]; 4] {
        let [mut s, mut c, mut dx, mut dz] = [[0.0f32; LANES]; 4];
        let mut speed = [0.0f32; LANES];
        for l in 0..LANES {
            speed[l] = (w[0][l] * w[0][l] + w[1][l] * w[1][l]).sqrt();
        }
        for l in 0..LANES {
            let calm = speed[l] <= 1e-6;
            let inv = 1.0 / speed[l].max(1e-6);
            dx[l] = if calm { self.dir[0] } else { w[0][l] * inv };
            dz[l] = if calm { self.dir[1] } else { w[1][l] * inv };
        }
        for l in 0..LANES {
            let x = k[l] * speed[l];
            let norm = 1.0 / (1.0 + x * x).sqrt();
            let (sa, ca) = (x * norm, norm);
            let wave = at[0][l] * self.phase[1] - at[1][l] * self.phase[0];
            let (sr, cr) = sin_cos_small(self.amplitude * speed[l] / (speed[l] + 1.5) * wave);
            (s[l], c[l]) = (sa * cr + ca * sr, ca * cr - sa * sr);
        }
        for l in 0..LANES {
            let held = c[l] < self.limit[1];
            s[l] = if held { self.limit[0].copysign(s[l]) } else { s[l] };
            c[l] = if held { self.limit[1] } else { c[l] };
        }
        [s, c, dx, dz]
    }
}

/// Shapes up to `LANES` blades (roots `at`, gives `k`, places on the ripple `ripple`) into
/// `out`: arithmetic lane by lane, memory reads (the grid, the length table) one by one between.
/// Returns whether every shape is finite (a sum of non-finite parts is not).
#[inline(always)]
fn shape_block(
    m: &Moment,
    fit: &LengthFit,
    grid: &WindGrid,
    at: (&[f32], &[f32]),
    k: &[f32],
    ripple: &[[f32; 2]],
    out: &mut [Motion],
) -> bool {
    let n = out.len();
    let (mut px, mut pz, mut kk) = ([0.0f32; LANES], [0.0f32; LANES], [0.0f32; LANES]);
    let mut rr = [[0.0f32; LANES]; 2];
    for l in 0..n {
        (px[l], pz[l], kk[l]) = (at.0[l], at.1[l], k[l]);
        (rr[0][l], rr[1][l]) = (ripple[l][0], ripple[l][1]);
    }
    // the grid: where each root falls (lanes), the four corners (reads), the blend (lanes)
    let (cell, uv) = grid.cells(&px, &pz);
    let mut corners = [[[0.0f32; LANES]; 2]; 4];
    for l in 0..n {
        for (q, corner) in grid.corners(cell[l]).into_iter().enumerate() {
            corners[q][0][l] = corner[0];
            corners[q][1][l] = corner[1];
        }
    }
    let mut w = [[0.0f32; LANES]; 2];
    for a in 0..2 {
        for l in 0..LANES {
            let (u, v) = (uv[0][l], uv[1][l]);
            let low = corners[0][a][l] + (corners[1][a][l] - corners[0][a][l]) * u;
            let high = corners[2][a][l] + (corners[3][a][l] - corners[2][a][l]) * u;
            w[a][l] = low + (high - low) * v;
        }
    }
    let [s, c, dx, dz] = m.lean_lanes(&kk, &w, &rr);
    let inv = fit.inverse_lanes(&c);
    let mut finite = true;
    for (l, o) in out.iter_mut().enumerate() {
        let (si, ci) = (s[l] * inv[l], c[l] * inv[l]);
        *o = Motion { a: [0.0, 0.5 * ci, 0.0, 0.0], b: [si * dx[l], ci, si * dz[l], 0.0] };
        finite &= (si * dx[l] + si * dz[l] + ci).is_finite();
    }
    finite
}

/// Blades per parallel chunk: fixed, so the split never depends on the thread count.
const CHUNK: usize = 4096;

fn first_bad(out: &[Motion]) -> Option<usize> {
    out.iter().position(|m| !(m.a.iter().chain(&m.b).all(|v| v.is_finite())))
}

/// One parallel chunk's inputs.
struct Run<'a> {
    m: &'a Moment,
    fit: &'a LengthFit,
    grid: &'a WindGrid,
    x: &'a [f32],
    z: &'a [f32],
    give: &'a [f32],
    ripple: &'a [[f32; 2]],
}

impl Run<'_> {
    /// Shapes every blade into `out`; whether all are finite.
    #[inline(always)]
    fn blocks(&self, out: &mut [Motion]) -> bool {
        let mut finite = true;
        for (b, block) in out.chunks_mut(LANES).enumerate() {
            let r = b * LANES..b * LANES + block.len();
            finite &= shape_block(
                self.m,
                self.fit,
                self.grid,
                (&self.x[r.clone()], &self.z[r.clone()]),
                &self.give[r.clone()],
                &self.ripple[r],
                block,
            );
        }
        finite
    }

    /// [`Run::blocks`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn wide(&self, out: &mut [Motion]) -> bool {
        self.blocks(out)
    }
}

#[cfg(target_arch = "x86_64")]
fn avx2() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| std::arch::is_x86_feature_detected!("avx2"))
}

pub(super) fn shape_default(
    out: &mut [Motion],
    x: &[f32],
    z: &[f32],
    give: &[f32],
    ripple: &[[f32; 2]],
    grid: &WindGrid,
    m: Moment,
) -> Option<usize> {
    let bad: Vec<Option<usize>> = out
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let base = c * CHUNK;
            let r = base..base + chunk.len();
            let run =
                Run { m: &m, fit: length_fit(), grid, x: &x[r.clone()], z: &z[r.clone()], give: &give[r.clone()], ripple: &ripple[r] };
            #[cfg(target_arch = "x86_64")]
            let finite = if avx2() {
                // SAFETY: the CPU has AVX2 (checked just above); the code is the same arithmetic
                // compiled for wider registers (no fused multiply-add), so results are identical
                unsafe { run.wide(chunk) }
            } else {
                run.blocks(chunk)
            };
            #[cfg(not(target_arch = "x86_64"))]
            let finite = run.blocks(chunk);
            // only a chunk with a non-finite shape is searched for it
            if finite { None } else { first_bad(chunk).map(|j| base + j) }
        })
        .collect();
    bad.into_iter().flatten().next()
}

/// The seed's response applied to blades: the tip pushed sideways by `bend · W` in units of the
/// blade's height with no length correction (so blades stretch), the wind sampled once per blade
/// at its root from the seed's field, and the post's ripple phase `(X·Wx + Z·Wz)·k − t·c` taken
/// with the unnormalised wind (so its wavelength breathes with the gusts).
pub(super) fn shape_seed(
    out: &mut [Motion],
    x: &[f32],
    z: &[f32],
    give: &[f32],
    field: &WindField,
    t: f64,
    spec: &GrassSpec,
) -> Option<usize> {
    use crate::scene::wind::STUD;
    let base = portable::hypot(8.0f64, 4.0);
    let lambda = spec.wave.wavelength / STUD;
    let crest = spec.wave.speed.unwrap_or_else(|| field.mean(t).1) / STUD;
    let amp = portable::tan(spec.wave.amplitude_deg.to_radians());
    let bad: Vec<Option<usize>> = out
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let first = c * CHUNK;
            for (j, o) in chunk.iter_mut().enumerate() {
                let i = first + j;
                let w = field.seed_wind(x[i] as f64, z[i] as f64, t);
                let (ws, xs, zs) = ([w[0] / STUD, w[1] / STUD], x[i] as f64 / STUD, z[i] as f64 / STUD);
                let phase = std::f64::consts::TAU / lambda * ((xs * ws[0] + zs * ws[1]) / base - crest * t);
                let speed = portable::hypot(w[0], w[1]).max(1e-9);
                let push = amp * portable::sin(phase);
                let d = [give[i] as f64 * w[0] + push * w[0] / speed, give[i] as f64 * w[1] + push * w[1] / speed];
                *o = Motion { a: [0.0, 0.5, 0.0, 0.0], b: [d[0] as f32, 1.0, d[1] as f32, 0.0] };
            }
            first_bad(chunk).map(|j| first + j)
        })
        .collect();
    bad.into_iter().flatten().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wide_build_shapes_blades_bit_for_bit_like_the_portable_one() {
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            let n = 1000;
            let x: Vec<f32> = (0..n).map(|i| portable::sin(i as f32 * 0.37) * 9.0).collect();
            let z: Vec<f32> = (0..n).map(|i| portable::cos(i as f32 * 0.11) * 9.0).collect();
            let give: Vec<f32> = (0..n).map(|i| 0.1 + (i % 7) as f32 * 0.1).collect();
            let ripple: Vec<[f32; 2]> = (0..n).map(|i| [portable::sin(i as f32), portable::cos(i as f32)]).collect();
            let mut grid = WindGrid::over([-10.0, -10.0], [10.0, 10.0], 0.7);
            grid.sample(|x, z| [3.0 + portable::sin(x * 0.3) * 4.0, portable::cos(z * 0.2) * 5.0 - 2.0]);
            let (ls, lc) = portable::sin_cos(MAX_LEAN);
            let m = Moment { dir: [0.8, 0.6], phase: [0.3, 0.954], amplitude: 0.9, limit: [ls, lc] };
            let run = Run { m: &m, fit: length_fit(), grid: &grid, x: &x, z: &z, give: &give, ripple: &ripple };
            let (mut a, mut b) = (vec![Motion::default(); n], vec![Motion::default(); n]);
            assert!(run.blocks(&mut a));
            // SAFETY: AVX2 is present (checked above)
            assert!(unsafe { run.wide(&mut b) });
            assert_eq!(a, b);
            assert!(a.iter().all(|m| m.b[1] > 0.0 && m.b[1] < 1.01));
        }
    }
}
