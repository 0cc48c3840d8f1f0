//! Four jelly dice solved side by side. Every die runs the same constraint sequence on the same
//! topology, so a [`Pack`] stores its particles lane-wise (`x[particle][axis][lane]`) and each
//! constraint is projected for four dice at once with packed arithmetic: no gathers, no scatters.
//! A lane computes exactly what a scalar solve of that die would, in the same order, so a die's
//! motion never depends on which pack or lane holds it, nor on the instruction set: every
//! operation is an exactly rounded IEEE one, a product and a sum rounded each (never a fused
//! multiply-add: WebAssembly has no instruction for one, and its exact software routine made the
//! step 20 times slower in a page than these plain operations, which it runs in SIMD lanes).
//!
//! One substep of small-step XPBD per die: predict with gravity → distance constraints (XPBD with
//! constraint damping, then the hard stretch limits 1.9× / 0.45×) → volume constraints → a weak
//! shape-matching pull whose rotation (Müller et al. 2016, warm-started, ≤ 4 iterations) is the
//! die's orientation R. Compliance is divided by h²; λ starts at zero every substep.

// Lane loops index several arrays with the same lane number; that is what vectorises.
#![allow(clippy::needless_range_loop)]

use super::math::{
    M3, Quat, SMALL_HALF_ANGLE, V3, add, cross, dot, mat_vec, quat_mul, quat_normalize, quat_to_matrix, scale, small_sin_cos,
};
use super::model::{PARTICLES, TOPOLOGY, W_INV};
pub use super::model::{STRETCH_MAX, STRETCH_MIN};
use crate::portable;

pub const LANES: usize = 4;
pub type Lane = [f64; LANES];

/// Volume compliance: near-incompressible, "like gummy".
pub const VOLUME_COMPLIANCE: f64 = 1e-8;
/// Share of the way to the shape-matching goal per substep: a weak pull back to the cube.
pub const SHAPE_PULL: f64 = 0.01;
/// Jelly viscosity β (seconds): XPBD constraint damping of the distance constraints (Macklin et
/// al. 2016), γ = α̃·β/h. It soaks up the energy of an impact inside the body, so a landing die
/// squashes and stays instead of springing back up.
pub const JELLY_VISCOSITY: f64 = 0.0005;
/// Rotation-extraction iterations per substep (warm-started, so few are needed).
pub const ROTATION_ITERATIONS: usize = 4;

/// Firmness 0..100 to edge compliance: 0.25 · 0.12^(firmness / 100) (soft 0.25 … firm 0.03).
pub fn edge_compliance(firmness: f64) -> f64 {
    0.25 * portable::powf(0.12f64, firmness / 100.0)
}

/// Four dice, lane by lane. Unused lanes hold a die at rest without gravity.
#[derive(Clone, Debug, PartialEq)]
#[repr(C, align(64))]
pub struct Pack {
    pub x: [[Lane; 3]; PARTICLES],
    pub prev: [[Lane; 3]; PARTICLES],
    pub v: [[Lane; 3]; PARTICLES],
    /// Inverse masses; 0 pins a particle (a grab).
    pub w: [Lane; PARTICLES],
    pub edge_compliance: Lane,
    pub gravity: Lane,
    /// Radius of the fence around each die's table (see [`super::world::arena_radius`]).
    pub arena: Lane,
    /// Orientation from shape matching (the warm start of the next extraction), and as a matrix.
    pub q: [Quat; LANES],
    pub r: [M3; LANES],
    pub centroid: [V3; LANES],
}

impl Default for Pack {
    fn default() -> Self {
        let mut p = Pack {
            x: [[[0.0; LANES]; 3]; PARTICLES],
            prev: [[[0.0; LANES]; 3]; PARTICLES],
            v: [[[0.0; LANES]; 3]; PARTICLES],
            w: [[W_INV; LANES]; PARTICLES],
            edge_compliance: [edge_compliance(50.0); LANES],
            gravity: [0.0; LANES],
            arena: [super::world::ARENA_R; LANES],
            q: [[0.0, 0.0, 0.0, 1.0]; LANES],
            r: [quat_to_matrix([0.0, 0.0, 0.0, 1.0]); LANES],
            centroid: [[0.0; 3]; LANES],
        };
        for lane in 0..LANES {
            // idle lanes rest far below the table, out of everyone's way
            p.place(lane, [0.0, -100.0 - 4.0 * lane as f64, 0.0], [0.0, 0.0, 0.0, 1.0]);
        }
        p
    }
}

impl Pack {
    /// Puts a die at rest in `lane`, centred at `c`, rotated by `q`.
    pub fn place(&mut self, lane: usize, c: V3, q: Quat) {
        let r = quat_to_matrix(q);
        for p in 0..PARTICLES {
            let x = super::math::add(c, mat_vec(&r, TOPOLOGY.rest[p]));
            self.set_x(lane, p, x);
            self.set_v(lane, p, [0.0; 3]);
            set_lane(&mut self.prev[p], lane, x);
            self.w[p][lane] = W_INV;
        }
        self.q[lane] = q;
        self.r[lane] = r;
        self.centroid[lane] = c;
    }

    #[inline(always)]
    pub fn x_of(&self, lane: usize, p: usize) -> V3 {
        lane_of(&self.x[p], lane)
    }
    #[inline(always)]
    pub fn set_x(&mut self, lane: usize, p: usize, v: V3) {
        set_lane(&mut self.x[p], lane, v)
    }
    #[inline(always)]
    pub fn v_of(&self, lane: usize, p: usize) -> V3 {
        lane_of(&self.v[p], lane)
    }
    #[inline(always)]
    pub fn set_v(&mut self, lane: usize, p: usize, v: V3) {
        set_lane(&mut self.v[p], lane, v)
    }

    /// Predict, distances, volumes and shape matching for all four dice: one substep of length `h`.
    pub fn solve(&mut self, h: f64) {
        self.solve_after(false, h)
    }

    /// [`Pack::update_velocities`] for the substep just ended, then [`Pack::solve`], in fewer
    /// passes over the particles; the same numbers as calling the two.
    pub fn velocities_and_solve(&mut self, h: f64) {
        self.solve_after(true, h)
    }

    fn solve_after(&mut self, velocities: bool, h: f64) {
        #[cfg(target_arch = "x86_64")]
        if fast_path() {
            // SAFETY: the processor has AVX2 (checked above).
            return unsafe { self.solve_avx2(velocities, h) };
        }
        self.solve_portable(velocities, h)
    }

    /// The same solve compiled for any processor.
    pub fn solve_portable(&mut self, velocities: bool, h: f64) {
        solve_any(self, velocities, h)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn solve_avx2(&mut self, velocities: bool, h: f64) {
        solve_any(self, velocities, h)
    }

    /// The hard stretch limits once more, last thing in the substep: contacts (floor, fence, other
    /// dice) push particles after the distance solve, and a die must never leave the limits. Checked
    /// on squared lengths; a link is projected only when some lane is out of bounds, which is rare.
    pub fn enforce_limits(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if fast_path() {
            // SAFETY: the processor has AVX2 (checked above).
            return unsafe { self.enforce_limits_avx2() };
        }
        enforce_limits(self)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn enforce_limits_avx2(&mut self) {
        enforce_limits(self)
    }

    /// Velocities from the substep's displacement.
    pub fn update_velocities(&mut self, h: f64) {
        let inv_h = 1.0 / h;
        for p in 0..PARTICLES {
            for k in 0..3 {
                for l in 0..LANES {
                    self.v[p][k][l] = (self.x[p][k][l] - self.prev[p][k][l]) * inv_h;
                }
            }
        }
    }
}

#[inline(always)]
fn solve_any(pk: &mut Pack, velocities: bool, h: f64) {
    // every inverse mass W_INV, checked on the bits without a branch per particle
    let uniform = pk.w.iter().flatten().fold(0, |acc, w| acc | (w.to_bits() ^ W_INV.to_bits())) == 0;
    match (uniform, velocities) {
        (true, false) => solve::<true, false>(pk, h),
        (true, true) => solve::<true, true>(pk, h),
        (false, false) => solve::<false, false>(pk, h),
        (false, true) => solve::<false, true>(pk, h),
    }
}

/// One lane of a lane-wise vector.
#[inline(always)]
fn lane_of(c: &[Lane; 3], lane: usize) -> V3 {
    [c[0][lane], c[1][lane], c[2][lane]]
}

#[inline(always)]
fn set_lane(c: &mut [Lane; 3], lane: usize, v: V3) {
    for (k, value) in v.into_iter().enumerate() {
        c[k][lane] = value;
    }
}

/// Whether this processor runs the AVX2 build of the solver.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn fast_path() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// The constraint solves of one substep. `UNIFORM`: no particle pinned, so every inverse mass is
/// `W_INV` and the compiler folds it; the arithmetic is the same expression either way, so the
/// two paths agree bit for bit. `VELOCITIES`: first finish the previous substep (velocities from
/// its displacement), in the same pass over the particles as the prediction.
#[inline(always)]
fn solve<const UNIFORM: bool, const VELOCITIES: bool>(pk: &mut Pack, h: f64) {
    predict::<UNIFORM, VELOCITIES>(pk, h);
    distances::<UNIFORM>(pk, h);
    volumes::<UNIFORM>(pk, h);
    shape_match::<UNIFORM>(pk);
}

/// v = (x − prev) / h when `VELOCITIES`, then prev = x, gravity, and x += v·h for free particles.
#[inline(always)]
fn predict<const UNIFORM: bool, const VELOCITIES: bool>(pk: &mut Pack, h: f64) {
    let g: Lane = std::array::from_fn(|l| pk.gravity[l] * h);
    let inv_h = 1.0 / h;
    for p in 0..PARTICLES {
        if VELOCITIES {
            for k in 0..3 {
                for l in 0..LANES {
                    pk.v[p][k][l] = (pk.x[p][k][l] - pk.prev[p][k][l]) * inv_h;
                }
            }
        }
        pk.prev[p] = pk.x[p];
        let free: [bool; LANES] = std::array::from_fn(|l| UNIFORM || pk.w[p][l] > 0.0);
        for l in 0..LANES {
            if free[l] {
                pk.v[p][1][l] -= g[l];
            }
        }
        for k in 0..3 {
            for l in 0..LANES {
                if free[l] {
                    pk.x[p][k][l] += pk.v[p][k][l] * h;
                }
            }
        }
    }
}

/// Distance constraints with XPBD damping and the hard stretch limits. Per lane, with d the link
/// and d₀ the link at the start of the substep: the stretch rate along the link is
/// (d − d₀)·d / |d| = (|d|² − d₀·d) / |d|, Δλ = −(C + γ·rate) / ((1 + γ) Σw + α̃), the new length
/// |d| + Σw·Δλ clamped into the limits, and the correction shared by inverse mass.
#[inline(always)]
fn distances<const UNIFORM: bool>(pk: &mut Pack, h: f64) {
    let alpha: Lane = std::array::from_fn(|l| pk.edge_compliance[l] / (h * h));
    let gamma: Lane = std::array::from_fn(|l| alpha[l] * JELLY_VISCOSITY / h);
    // Σw·gain: how far the length moves per unit of C + γ·rate
    let gain = |l: usize, wsum: f64| (1.0 / ((1.0 + gamma[l]) * wsum + alpha[l])) * wsum;
    let uniform_gain: Lane = std::array::from_fn(|l| gain(l, W_INV + W_INV));
    let (x, prev, w) = (pk.x.as_mut_ptr(), pk.prev.as_ptr(), &pk.w);
    for link in SOLVE_LINKS.iter() {
        let (rest, lo, hi) = (link.rest, link.min, link.max);
        // SAFETY: the offsets are rows of a particle array (see `SolveLink`).
        let (pa, pb, qa, qb) = unsafe { (*row(x, link.a), *row(x, link.b), *row(prev, link.a), *row(prev, link.b)) };
        let (wa, wb) = if UNIFORM {
            ([W_INV; LANES], [W_INV; LANES])
        } else {
            let (a, b) = (link.a as usize / ROW, link.b as usize / ROW);
            (w[a & (PARTICLES - 1)], w[b & (PARTICLES - 1)])
        };
        let (mut na, mut nb) = (pa, pb);
        for l in 0..LANES {
            let d = [pa[0][l] - pb[0][l], pa[1][l] - pb[1][l], pa[2][l] - pb[2][l]];
            let d0 = [qa[0][l] - qb[0][l], qa[1][l] - qb[1][l], qa[2][l] - qb[2][l]];
            let len2 = d[2] * d[2] + (d[1] * d[1] + d[0] * d[0]);
            let d0d = d[2] * d0[2] + (d[1] * d0[1] + d[0] * d0[0]);
            // the square root and the reciprocal of the square start together (one waits less
            // on the other): 1/|d| = |d| · (1/|d|²)
            let len2 = at_least(len2, 1e-24);
            let len = len2.sqrt();
            let inv = len * (1.0 / len2);
            let rate = (len2 - d0d) * inv;
            let wsum = wa[l] + wb[l];
            let g = if UNIFORM { uniform_gain[l] } else { gain(l, wsum) };
            let c = gamma[l] * rate + (len - rest);
            let target = at_most(at_least(len - c * g, lo), hi);
            // each end's share of the shortening, as a multiple of d
            let (ka, kb) = if UNIFORM {
                // each end moves half: (len − target)·inv·½, with the exact halving taken off
                // the chain that waits on the square root (the same bits)
                let k = (len - target) * (inv * 0.5);
                (k, k)
            } else {
                let k = (len - target) * inv;
                let share = 1.0 / at_least(wsum, 1e-30);
                (k * (wa[l] * share), k * (wb[l] * share))
            };
            for c in 0..3 {
                na[c][l] = pa[c][l] - d[c] * ka;
                nb[c][l] = d[c] * kb + pb[c][l];
            }
        }
        // SAFETY: as above; the two rows differ, and nothing else borrows the array.
        unsafe {
            *row_mut(x, link.a) = na;
            *row_mut(x, link.b) = nb;
        }
    }
}

/// Bytes per particle row of a lane-wise array.
const ROW: usize = std::mem::size_of::<[Lane; 3]>();

/// A link as the solve reads it: its particles as byte offsets into a `[[Lane; 3]; PARTICLES]`
/// (so finding a row costs the processor no arithmetic), its rest length and hard limits.
struct SolveLink {
    a: u32,
    b: u32,
    rest: f64,
    min: f64,
    max: f64,
}

static SOLVE_LINKS: std::sync::LazyLock<Vec<SolveLink>> = std::sync::LazyLock::new(|| {
    TOPOLOGY.links.iter().map(|l| SolveLink { a: row_at(l.a), b: row_at(l.b), rest: l.rest, min: l.min, max: l.max }).collect()
});

/// A tetrahedron as the volume solve reads it: its corners as byte offsets (see [`SolveLink`])
/// and six times its rest volume.
struct SolveTet {
    at: [u32; 4],
    rest6: f64,
}

static SOLVE_TETS: std::sync::LazyLock<Vec<SolveTet>> =
    std::sync::LazyLock::new(|| TOPOLOGY.tets.iter().map(|t| SolveTet { at: t.v.map(row_at), rest6: 6.0 * t.rest }).collect());

/// Byte offset of particle `p`'s row; always a row of the array, whatever `p` is (the safety of
/// [`row`] rests on this).
fn row_at(p: u16) -> u32 {
    (p as usize % PARTICLES * ROW) as u32
}

/// The row at byte offset `at` of a particle array.
///
/// # Safety
/// `at` is `p · ROW` for some particle `p < PARTICLES`, and `x` points to a whole particle array.
#[inline(always)]
unsafe fn row(x: *const [Lane; 3], at: u32) -> *const [Lane; 3] {
    debug_assert!((at as usize).is_multiple_of(ROW) && (at as usize) < PARTICLES * ROW);
    unsafe { x.cast::<u8>().add(at as usize).cast() }
}

/// [`row`] for writing.
///
/// # Safety
/// As for [`row`], and the array is not borrowed elsewhere.
#[inline(always)]
unsafe fn row_mut(x: *mut [Lane; 3], at: u32) -> *mut [Lane; 3] {
    unsafe { row(x, at).cast_mut() }
}

/// `max` and `min` for values that are never NaN: one instruction each, where `f64::max` must
/// also handle NaN.
#[inline(always)]
fn at_least(v: f64, lo: f64) -> f64 {
    if v < lo { lo } else { v }
}
#[inline(always)]
pub(super) fn at_most(v: f64, hi: f64) -> f64 {
    if v > hi { hi } else { v }
}

#[inline(always)]
fn enforce_limits(pk: &mut Pack) {
    if within_limits(&pk.x) {
        return;
    }
    project_limits(pk);
}

/// Whether every link of every lane is within its limits: squared lengths against squared
/// bounds, the verdicts OR-ed together without a branch per link (the usual answer is yes).
#[inline(always)]
fn within_limits(x: &[[Lane; 3]; PARTICLES]) -> bool {
    let mut out = [0.0f64; LANES];
    for link in &TOPOLOGY.links {
        let (a, b) = (link.a as usize & (PARTICLES - 1), link.b as usize & (PARTICLES - 1));
        let (pa, pb) = (&x[a], &x[b]);
        for l in 0..LANES {
            let d = [pa[0][l] - pb[0][l], pa[1][l] - pb[1][l], pa[2][l] - pb[2][l]];
            let len2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            // distance outside [lo², hi²], positive when out of bounds
            let over = at_least(len2 - link.max2, link.min2 - len2);
            out[l] = at_least(out[l], over);
        }
    }
    out.iter().all(|&o| o <= 0.0)
}

/// The limits pass proper: each link outside its bounds projected back, in link order.
#[inline(never)]
fn project_limits(pk: &mut Pack) {
    let (x, w) = (&mut pk.x, &pk.w);
    for link in &TOPOLOGY.links {
        let (a, b) = (link.a as usize & (PARTICLES - 1), link.b as usize & (PARTICLES - 1));
        let (pa, pb) = (x[a], x[b]);
        let (lo2, hi2) = (link.min2, link.max2);
        let mut out = false;
        for l in 0..LANES {
            let d = [pa[0][l] - pb[0][l], pa[1][l] - pb[1][l], pa[2][l] - pb[2][l]];
            let len2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            out |= len2 > hi2 || len2 < lo2;
        }
        if !out {
            continue;
        }
        let (mut na, mut nb) = (pa, pb);
        for l in 0..LANES {
            let d = [pa[0][l] - pb[0][l], pa[1][l] - pb[1][l], pa[2][l] - pb[2][l]];
            let len = at_least((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt(), 1e-12);
            let target = at_most(at_least(len, link.min), link.max);
            let (wa, wb) = (w[a][l], w[b][l]);
            let wsum = wa + wb;
            if target == len || wsum == 0.0 {
                continue;
            }
            let s = (len - target) / (len * wsum);
            for k in 0..3 {
                na[k][l] = pa[k][l] - d[k] * s * wa;
                nb[k][l] = pb[k][l] + d[k] * s * wb;
            }
        }
        x[a] = na;
        x[b] = nb;
    }
}

/// Volume constraints, one per tetrahedron: C = V − V₀. With G₁ = (c−a)×(d−a), G₂ = (d−a)×(b−a),
/// G₃ = (b−a)×(c−a) and G₀ = −(G₁+G₂+G₃) (six times the gradients), the correction of vertex i
/// is −(6V − 6V₀)·wᵢGᵢ / (Σ wⱼ|Gⱼ|² + 36α̃).
#[inline(always)]
fn volumes<const UNIFORM: bool>(pk: &mut Pack, h: f64) {
    let alpha36 = 36.0 * VOLUME_COMPLIANCE / (h * h);
    let (x, w) = (pk.x.as_mut_ptr(), &pk.w);
    let cross = |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[2] * b[2] + (a[1] * b[1] + a[0] * b[0]);
    for t in SOLVE_TETS.iter() {
        let rest6 = t.rest6;
        let ws: [Lane; 4] = if UNIFORM { [[W_INV; LANES]; 4] } else { t.at.map(|at| w[(at as usize / ROW) & (PARTICLES - 1)]) };
        // gradients and step first, then each vertex read, moved and written back in turn:
        // fewer values held at once than moving all four together
        let (mut g, mut s) = ([[[0.0; LANES]; 3]; 4], [[0.0; LANES]; 4]);
        // SAFETY: the offsets are rows of a particle array (see `SolveTet`).
        let [xa, xb, xc, xd] = t.at.map(|at| unsafe { *row(x, at) });
        for l in 0..LANES {
            let e1 = [xb[0][l] - xa[0][l], xb[1][l] - xa[1][l], xb[2][l] - xa[2][l]];
            let e2 = [xc[0][l] - xa[0][l], xc[1][l] - xa[1][l], xc[2][l] - xa[2][l]];
            let e3 = [xd[0][l] - xa[0][l], xd[1][l] - xa[1][l], xd[2][l] - xa[2][l]];
            let g1 = cross(e2, e3);
            let g2 = cross(e3, e1);
            let g3 = cross(e1, e2);
            let vol6 = dot(e1, g1);
            let g0 = [-(g1[0] + g2[0] + g3[0]), -(g1[1] + g2[1] + g3[1]), -(g1[2] + g2[2] + g3[2])];
            let denom = ws[0][l] * dot(g0, g0) + (ws[1][l] * dot(g1, g1) + (ws[2][l] * dot(g2, g2) + (ws[3][l] * dot(g3, g3) + alpha36)));
            let lambda = -(vol6 - rest6) / denom;
            for (i, gi) in [g0, g1, g2, g3].into_iter().enumerate() {
                s[i][l] = lambda * ws[i][l];
                for k in 0..3 {
                    g[i][k][l] = gi[k];
                }
            }
        }
        for (i, at) in t.at.into_iter().enumerate() {
            // SAFETY: as above, and nothing else borrows the array.
            let xv = unsafe { &mut *row_mut(x, at) };
            for k in 0..3 {
                for l in 0..LANES {
                    xv[k][l] += g[i][k][l] * s[i][l];
                }
            }
        }
    }
}

/// Shape matching: the best-fit rotation of the rest lattice (stored as the orientation) and a
/// weak pull of every free particle toward its goal position.
#[inline(always)]
fn shape_match<const UNIFORM: bool>(pk: &mut Pack) {
    let rest = &TOPOLOGY.rest;
    let mut c = [[0.0; LANES]; 3];
    for p in 0..PARTICLES {
        for k in 0..3 {
            for l in 0..LANES {
                c[k][l] += pk.x[p][k][l];
            }
        }
    }
    for ck in &mut c {
        for v in ck.iter_mut() {
            *v *= 1.0 / PARTICLES as f64;
        }
    }
    // A = Σ (x − c) ⊗ rest = Σ x ⊗ rest, since the rest lattice is centred; lane-wise
    let mut a = [[[0.0; LANES]; 3]; 3];
    for p in 0..PARTICLES {
        for i in 0..3 {
            for j in 0..3 {
                for l in 0..LANES {
                    a[i][j][l] += pk.x[p][i][l] * rest[p][j];
                }
            }
        }
    }
    extract_rotations(&a, &mut pk.q, ROTATION_ITERATIONS);
    for l in 0..LANES {
        pk.r[l] = quat_to_matrix(pk.q[l]);
        pk.centroid[l] = [c[0][l], c[1][l], c[2][l]];
    }
    let r: [[Lane; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| std::array::from_fn(|l| pk.r[l][i][j])));
    for p in 0..PARTICLES {
        let rp = rest[p];
        for i in 0..3 {
            for l in 0..LANES {
                let goal = r[i][2][l] * rp[2] + (r[i][1][l] * rp[1] + (r[i][0][l] * rp[0] + c[i][l]));
                if UNIFORM || pk.w[p][l] > 0.0 {
                    pk.x[p][i][l] = (goal - pk.x[p][i][l]) * SHAPE_PULL + pk.x[p][i][l];
                }
            }
        }
    }
}

/// [`extract_rotation`] for the four lanes at once: per lane the same operations in the same
/// order (a lane stops where the scalar loop would stop), so the two agree bit for bit; only the
/// rare large corrections take the maths library's sine and cosine, lane by lane.
// `!(a < b)` on purpose: a NaN must go the way the scalar loop sends it
#[allow(clippy::neg_cmp_op_on_partial_ord)]
#[inline(always)]
fn extract_rotations(a: &[[Lane; 3]; 3], q: &mut [Quat; LANES], iterations: usize) {
    let mut active = [true; LANES];
    for _ in 0..iterations {
        let mut axis = [[0.0; LANES]; 3];
        let (mut half, mut s, mut c) = ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
        for l in 0..LANES {
            let r = quat_to_matrix(q[l]);
            let col = |m: &M3, j: usize| [m[0][j], m[1][j], m[2][j]];
            let acol = |j: usize| [a[0][j][l], a[1][j][l], a[2][j][l]];
            let (r0, r1, r2) = (col(&r, 0), col(&r, 1), col(&r, 2));
            let (a0, a1, a2) = (acol(0), acol(1), acol(2));
            let num = add(add(cross(r0, a0), cross(r1, a1)), cross(r2, a2));
            let den = (dot(r0, a0) + dot(r1, a1) + dot(r2, a2)).abs() + 1.0e-9;
            let omega = scale(num, 1.0 / den);
            let w = dot(omega, omega).sqrt();
            active[l] &= !(w < 1.0e-9);
            let unit = scale(omega, 1.0 / w);
            for k in 0..3 {
                axis[k][l] = unit[k];
            }
            half[l] = w * 0.5;
            (s[l], c[l]) = small_sin_cos(half[l]);
        }
        if active == [false; LANES] {
            break;
        }
        for l in 0..LANES {
            if active[l] && !(half[l].abs() < SMALL_HALF_ANGLE) {
                (s[l], c[l]) = portable::sin_cos(half[l]);
            }
        }
        for l in 0..LANES {
            let dq = [axis[0][l] * s[l], axis[1][l] * s[l], axis[2][l] * s[l], c[l]];
            let next = quat_normalize(quat_mul(dq, q[l]));
            if active[l] {
                q[l] = next;
            }
        }
    }
}

/// Current volume of the die in `lane` (sum of the tetrahedra).
pub fn volume(pk: &Pack, lane: usize) -> f64 {
    TOPOLOGY
        .tets
        .iter()
        .map(|t| {
            super::model::tet_volume(
                pk.x_of(lane, t.v[0] as usize),
                pk.x_of(lane, t.v[1] as usize),
                pk.x_of(lane, t.v[2] as usize),
                pk.x_of(lane, t.v[3] as usize),
            )
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jostled() -> Pack {
        let mut p = Pack::default();
        for lane in 0..LANES {
            p.place(lane, [lane as f64 * 2.0, 1.0, 0.0], super::super::math::quat_normalize([0.1 * lane as f64, 0.2, 0.3, 0.9]));
            p.gravity[lane] = 9.81;
            p.edge_compliance[lane] = edge_compliance(25.0 * lane as f64);
            for i in 0..PARTICLES {
                let v =
                    [portable::sin(i as f64 * 0.37 + lane as f64), portable::cos(i as f64 * 0.11), portable::sin(i as f64 * 0.23) * 0.5];
                p.set_v(lane, i, v);
            }
        }
        p
    }

    #[test]
    fn the_instruction_set_does_not_change_a_bit() {
        let (mut a, mut b) = (jostled(), jostled());
        for _ in 0..50 {
            a.solve(1.0 / 720.0);
            a.update_velocities(1.0 / 720.0);
            b.solve_portable(false, 1.0 / 720.0);
            b.update_velocities(1.0 / 720.0);
        }
        assert_eq!(a, b);
    }

    #[test]
    fn a_pinned_particle_path_equals_the_uniform_path_when_nothing_is_pinned() {
        // the general path with every mass equal must reproduce the uniform path exactly
        let (mut a, mut b) = (jostled(), jostled());
        a.solve_portable(false, 1.0 / 720.0);
        solve::<false, false>(&mut b, 1.0 / 720.0);
        assert_eq!(a, b);
    }

    #[test]
    fn the_fused_velocity_pass_equals_the_separate_one() {
        let (mut a, mut b) = (jostled(), jostled());
        a.solve(1.0 / 720.0);
        b.solve(1.0 / 720.0);
        for _ in 0..20 {
            a.update_velocities(1.0 / 720.0);
            a.solve(1.0 / 720.0);
            b.velocities_and_solve(1.0 / 720.0);
        }
        assert_eq!(a, b);
        // and on the portable build, with a pinned particle
        let (mut c, mut d) = (jostled(), jostled());
        c.w[9][1] = 0.0;
        d.w[9][1] = 0.0;
        for _ in 0..20 {
            c.update_velocities(1.0 / 720.0);
            c.solve_portable(false, 1.0 / 720.0);
            d.velocities_and_solve(1.0 / 720.0);
        }
        assert_eq!(c, d);
    }

    #[test]
    fn lane_rotation_extraction_equals_the_scalar_one() {
        use super::super::math::{extract_rotation, quat_normalize};
        for case in 0..200 {
            let f = case as f64;
            // a stretched and sheared rotation, and warm starts from close by to far away
            let truth = quat_normalize([portable::sin(f * 0.7), portable::cos(f * 1.3), 0.4, 0.9]);
            let r = quat_to_matrix(truth);
            let mut a = [[[0.0; LANES]; 3]; 3];
            let mut q = [[0.0; 4]; LANES];
            for l in 0..LANES {
                let s = [[1.2, 0.1 * l as f64, 0.0], [0.0, 0.9, 0.05], [0.02 * portable::sin(f), 0.0, 1.0 - 0.1 * l as f64]];
                for i in 0..3 {
                    for j in 0..3 {
                        a[i][j][l] = (0..3).map(|k| r[i][k] * s[k][j]).sum::<f64>() * 8.9;
                    }
                }
                let off = [0.0, 1e-12, 0.003, 0.4][l] * portable::sin(f * 0.37);
                q[l] = if case % 7 == 0 && l == 0 {
                    extract_rotation(&std::array::from_fn(|i| std::array::from_fn(|j| a[i][j][l])), truth, 40)
                } else {
                    quat_normalize([truth[0] + off, truth[1] - off, truth[2], truth[3]])
                };
            }
            let mut lanes = q;
            extract_rotations(&a, &mut lanes, ROTATION_ITERATIONS);
            for l in 0..LANES {
                let al: M3 = std::array::from_fn(|i| std::array::from_fn(|j| a[i][j][l]));
                assert_eq!(lanes[l], extract_rotation(&al, q[l], ROTATION_ITERATIONS), "case {case}, lane {l}");
            }
        }
    }

    #[test]
    fn a_lane_does_not_depend_on_its_neighbours() {
        let mut a = jostled();
        let mut b = jostled();
        // disturb lane 3 of b and pin one of its particles: lanes 0..3 must not notice
        b.w[5][3] = 0.0;
        b.set_v(3, 7, [30.0, -20.0, 5.0]);
        for _ in 0..30 {
            a.solve(1.0 / 720.0);
            b.solve(1.0 / 720.0);
            a.update_velocities(1.0 / 720.0);
            b.update_velocities(1.0 / 720.0);
        }
        for lane in 0..3 {
            for p in 0..PARTICLES {
                assert_eq!(a.x_of(lane, p), b.x_of(lane, p));
            }
            assert_eq!(a.q[lane], b.q[lane]);
        }
    }
}
