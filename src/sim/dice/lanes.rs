//! The per-step kernels that run four dice side by side, one per lane of a [`Pack`]: damping
//! (jelly wobble, rolling resistance on the floor) and the contacts with the floor (friction) and
//! the fence. Each has a portable version and an AVX2 twin that the processor's features select;
//! every lane's arithmetic is the same operations in the same order as one die alone, so the
//! builds and the lane packing agree bit for bit (tested below). `unsafe` covers only the
//! dispatch to the AVX2 twins and, inside them, the unaligned loads and stores.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{__m256d, _mm256_loadu_pd, _mm256_storeu_pd};

use super::math::{M3, add, cross, dot, mat_vec, scale, sub};
use super::model::PARTICLES;
#[cfg(target_arch = "x86_64")]
use super::pack::Lane;
use super::pack::{LANES, Pack, at_most};

/// Floor friction: particles touching the floor keep still while the sideways slip is under this
/// share of the penetration (static), and lose this share of it otherwise (kinetic).
const STATIC_FRICTION: f64 = 0.9;
const KINETIC_FRICTION: f64 = 0.6;

/// [`super::rigid::damp`] for the live lanes of a pack side by side, each lane exactly as that
/// would do it alone (the same operations in the same order).
pub(super) fn damp_lanes(pk: &mut Pack, live: &[bool; LANES], wobble: f64, drift: [f64; LANES], spin: [f64; LANES]) {
    #[cfg(target_arch = "x86_64")]
    if super::pack::fast_path() {
        // SAFETY: the processor has AVX2 (checked above).
        return unsafe { damp_lanes_avx2(pk, live, wobble, drift, spin) };
    }
    damp_lanes_any(pk, live, wobble, drift, spin)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn damp_lanes_avx2(pk: &mut Pack, live: &[bool; LANES], wobble: f64, drift: [f64; LANES], spin: [f64; LANES]) {
    damp_lanes_any(pk, live, wobble, drift, spin)
}

#[inline(always)]
fn damp_lanes_any(pk: &mut Pack, live: &[bool; LANES], wobble: f64, drift: [f64; LANES], spin: [f64; LANES]) {
    type L3 = [[f64; LANES]; 3];
    let m = 1.0 / PARTICLES as f64;
    // rigid_motion, lane-wise: centre, centre velocity, angular momentum and inertia
    let (mut c, mut vc): (L3, L3) = ([[0.0; LANES]; 3], [[0.0; LANES]; 3]);
    for p in 0..PARTICLES {
        for k in 0..3 {
            for l in 0..LANES {
                c[k][l] += pk.x[p][k][l];
                vc[k][l] += pk.v[p][k][l];
            }
        }
    }
    for k in 0..3 {
        for l in 0..LANES {
            c[k][l] *= 1.0 / PARTICLES as f64;
            vc[k][l] *= m;
        }
    }
    let mut am: L3 = [[0.0; LANES]; 3];
    let mut inertia = [[[0.0; LANES]; 3]; 3];
    for p in 0..PARTICLES {
        for l in 0..LANES {
            let r = [pk.x[p][0][l] - c[0][l], pk.x[p][1][l] - c[1][l], pk.x[p][2][l] - c[2][l]];
            let u = [pk.v[p][0][l] - vc[0][l], pk.v[p][1][l] - vc[1][l], pk.v[p][2][l] - vc[2][l]];
            let cr = scale(cross(r, u), m);
            for k in 0..3 {
                am[k][l] += cr[k];
            }
            let rr = dot(r, r);
            for i in 0..3 {
                for j in 0..3 {
                    inertia[i][j][l] += m * ((if i == j { rr } else { 0.0 }) - r[i] * r[j]);
                }
            }
        }
    }
    let mut omega: L3 = [[0.0; LANES]; 3];
    for l in 0..LANES {
        // invert3 and mat_vec, with the singular case selected away afterwards
        let mi: M3 = std::array::from_fn(|i| std::array::from_fn(|j| inertia[i][j][l]));
        let c0 = cross(mi[1], mi[2]);
        let det = dot(mi[0], c0);
        let (c1, c2) = (cross(mi[2], mi[0]), cross(mi[0], mi[1]));
        let inv =
            [[c0[0] / det, c1[0] / det, c2[0] / det], [c0[1] / det, c1[1] / det, c2[1] / det], [c0[2] / det, c1[2] / det, c2[2] / det]];
        let w = mat_vec(&inv, [am[0][l], am[1][l], am[2][l]]);
        let singular = det.abs() < 1e-18;
        for k in 0..3 {
            omega[k][l] = if singular { 0.0 } else { w[k] };
        }
    }
    for p in 0..PARTICLES {
        for l in 0..LANES {
            let (o, cl, vcl) = ([omega[0][l], omega[1][l], omega[2][l]], [c[0][l], c[1][l], c[2][l]], [vc[0][l], vc[1][l], vc[2][l]]);
            let lin_loss = [vcl[0] * drift[l], 0.0, vcl[2] * drift[l]];
            let ang_loss = scale(o, spin[l]);
            let r = sub(pk.x_of(l, p), cl);
            let rigid = add(vcl, cross(o, r));
            let v0 = pk.v_of(l, p);
            let v = add(v0, scale(sub(rigid, v0), wobble));
            let v = sub(sub(v, lin_loss), cross(ang_loss, r));
            let keep = !live[l] || pk.w[p][l] == 0.0;
            for k in 0..3 {
                pk.v[p][k][l] = if keep { v0[k] } else { v[k] };
            }
        }
    }
}

/// Floor at y = 0 with friction, and the circular fence, for the live lanes of a pack (four dice
/// at once, each lane exactly as alone); `floor` and `fence` collect which dice touched them.
pub(super) fn floor_and_fence(pk: &mut Pack, live: &[bool; LANES], floor: &mut [bool; LANES], fence: &mut [bool; LANES]) {
    #[cfg(target_arch = "x86_64")]
    if super::pack::fast_path() {
        // SAFETY: the processor has AVX2 (checked above).
        return unsafe { floor_and_fence_avx2(pk, live, floor, fence) };
    }
    floor_and_fence_lanes(pk, live, floor, fence)
}

/// The same contacts in AVX2 registers: each lane's arithmetic is [`floor_and_fence_lanes`]'s,
/// operation for operation, so the two agree bit for bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn floor_and_fence_avx2(pk: &mut Pack, live: &[bool; LANES], floor: &mut [bool; LANES], fence: &mut [bool; LANES]) {
    use std::arch::x86_64::*;
    let live_mask = _mm256_castsi256_pd(_mm256_set_epi64x(-(live[3] as i64), -(live[2] as i64), -(live[1] as i64), -(live[0] as i64)));
    let (zero, one) = (_mm256_setzero_pd(), _mm256_set1_pd(1.0));
    let (stat, kin, arena) = (_mm256_set1_pd(STATIC_FRICTION), _mm256_set1_pd(KINETIC_FRICTION), load(&pk.arena));
    let (mut any_floor, mut any_fence) = (zero, zero);
    for p in 0..PARTICLES {
        let (x, prev, w) = (&mut pk.x[p], &pk.prev[p], &pk.w[p]);
        let active = _mm256_and_pd(live_mask, _mm256_cmp_pd::<_CMP_NEQ_OQ>(load(w), zero));
        let (x0, x1, x2) = (load(&x[0]), load(&x[1]), load(&x[2]));
        let (p0, p2) = (load(&prev[0]), load(&prev[2]));
        let below = _mm256_and_pd(active, _mm256_cmp_pd::<_CMP_LT_OQ>(x1, zero));
        // Most particles touch neither floor nor fence: skip the square roots and divisions
        // when no lane can (x² + z² ≤ R² rules out the fence: √ is monotonic).
        let r2 = _mm256_add_pd(_mm256_mul_pd(x0, x0), _mm256_mul_pd(x2, x2));
        let near_fence = _mm256_and_pd(active, _mm256_cmp_pd::<_CMP_GT_OQ>(r2, _mm256_mul_pd(arena, arena)));
        if _mm256_movemask_pd(_mm256_or_pd(below, near_fence)) == 0 {
            continue;
        }
        let pen = _mm256_sub_pd(zero, x1);
        let (s0, s2) = (_mm256_sub_pd(x0, p0), _mm256_sub_pd(x2, p2));
        let s = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(s0, s0), _mm256_mul_pd(s2, s2)));
        let stick = _mm256_cmp_pd::<_CMP_LT_OQ>(s, _mm256_mul_pd(stat, pen));
        let slide = _mm256_andnot_pd(stick, _mm256_cmp_pd::<_CMP_GT_OQ>(s, zero));
        let k = _mm256_div_pd(_mm256_mul_pd(kin, pen), s);
        let k = _mm256_blendv_pd(k, one, _mm256_cmp_pd::<_CMP_GT_OQ>(k, one));
        let slid0 = _mm256_blendv_pd(x0, _mm256_sub_pd(x0, _mm256_mul_pd(s0, k)), slide);
        let slid2 = _mm256_blendv_pd(x2, _mm256_sub_pd(x2, _mm256_mul_pd(s2, k)), slide);
        let x0 = _mm256_blendv_pd(x0, _mm256_blendv_pd(slid0, p0, stick), below);
        let x2 = _mm256_blendv_pd(x2, _mm256_blendv_pd(slid2, p2, stick), below);
        let x1 = _mm256_blendv_pd(x1, zero, below);
        let r = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(x0, x0), _mm256_mul_pd(x2, x2)));
        let out = _mm256_and_pd(active, _mm256_cmp_pd::<_CMP_GT_OQ>(r, arena));
        let f = _mm256_div_pd(arena, r);
        store(&mut x[0], _mm256_blendv_pd(x0, _mm256_mul_pd(x0, f), out));
        store(&mut x[1], x1);
        store(&mut x[2], _mm256_blendv_pd(x2, _mm256_mul_pd(x2, f), out));
        any_floor = _mm256_or_pd(any_floor, below);
        any_fence = _mm256_or_pd(any_fence, out);
    }
    let (bf, bn) = (_mm256_movemask_pd(any_floor), _mm256_movemask_pd(any_fence));
    for l in 0..LANES {
        floor[l] |= bf >> l & 1 == 1;
        fence[l] |= bn >> l & 1 == 1;
    }
}

/// The lanes side by side, without branches: every candidate computed, then selected.
#[inline(always)]
pub(super) fn floor_and_fence_lanes(pk: &mut Pack, live: &[bool; LANES], floor: &mut [bool; LANES], fence: &mut [bool; LANES]) {
    let sel = |c: bool, a: f64, b: f64| if c { a } else { b };
    let (mut touched_floor, mut touched_fence) = ([0.0f64; LANES], [0.0f64; LANES]);
    let live: [f64; LANES] = live.map(|l| if l { 1.0 } else { 0.0 });
    let arena = pk.arena;
    for p in 0..PARTICLES {
        let (x, prev, w) = (&mut pk.x[p], &pk.prev[p], &pk.w[p]);
        for l in 0..LANES {
            let active = live[l] * w[l] != 0.0;
            let (x0, x1, x2) = (x[0][l], x[1][l], x[2][l]);
            let below = active & (x1 < 0.0);
            let pen = -x1;
            let (s0, s2) = (x0 - prev[0][l], x2 - prev[2][l]);
            let s = (s0 * s0 + s2 * s2).sqrt();
            let stick = s < STATIC_FRICTION * pen;
            let slide = !stick & (s > 0.0);
            let k = at_most(KINETIC_FRICTION * pen / s, 1.0);
            let x0 = sel(below, sel(stick, prev[0][l], sel(slide, x0 - s0 * k, x0)), x0);
            let x2 = sel(below, sel(stick, prev[2][l], sel(slide, x2 - s2 * k, x2)), x2);
            let x1 = sel(below, 0.0, x1);
            let r = (x0 * x0 + x2 * x2).sqrt();
            let out = active & (r > arena[l]);
            let f = arena[l] / r;
            x[0][l] = sel(out, x0 * f, x0);
            x[1][l] = x1;
            x[2][l] = sel(out, x2 * f, x2);
            touched_floor[l] = sel(below, 1.0, touched_floor[l]);
            touched_fence[l] = sel(out, 1.0, touched_fence[l]);
        }
    }
    for l in 0..LANES {
        floor[l] |= touched_floor[l] != 0.0;
        fence[l] |= touched_fence[l] != 0.0;
    }
}

// `load` and `store` move one `Lane` as one 256-bit register: four f64.
const _: () = assert!(LANES == 4);

/// Four lanes into an AVX register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
fn load(lane: &Lane) -> __m256d {
    // SAFETY: `lane` is four f64 in a row, which is what an unaligned 256-bit load reads.
    unsafe { _mm256_loadu_pd(lane.as_ptr()) }
}

/// An AVX register into four lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
fn store(lane: &mut Lane, v: __m256d) {
    // SAFETY: `lane` is four f64 in a row, which is what an unaligned 256-bit store writes.
    unsafe { _mm256_storeu_pd(lane.as_mut_ptr(), v) }
}

#[cfg(test)]
mod tests {
    use super::super::rigid::damp;
    use super::*;
    use crate::portable;

    /// A pack whose particles are scattered through every case of the floor and fence contact:
    /// above and below the floor, sticking and sliding, beyond the fence, pinned, and idle lanes.
    fn scattered() -> Pack {
        let mut pk = Pack::default();
        for p in 0..PARTICLES {
            for l in 0..LANES {
                let f = (p * LANES + l) as f64;
                let x = [3.4 * portable::sin(f * 0.37), 0.05 * portable::cos(f * 0.91) - 0.01, 3.4 * portable::cos(f * 0.53)];
                // the slip since the substep began: from none to ten times the penetration
                let slip = 0.004 * portable::sin(f * 0.29).abs() * (p % 3) as f64;
                pk.set_x(l, p, x);
                for (k, d) in [(0, slip), (1, 0.0), (2, -0.5 * slip)] {
                    pk.prev[p][k][l] = x[k] - d;
                }
                if (p + l) % 11 == 0 {
                    pk.w[p][l] = 0.0;
                }
            }
        }
        pk
    }

    #[test]
    fn lane_damping_equals_damping_each_die() {
        let mut pk = scattered();
        for p in 0..PARTICLES {
            for l in 0..LANES {
                let f = (p * LANES + l) as f64;
                pk.set_v(l, p, [portable::sin(f * 0.13) * 3.0, portable::cos(f * 0.71), -portable::sin(f * 0.31) * 2.0]);
            }
        }
        let live = [true, false, true, true];
        let (drift, spin) = ([0.3, 0.3, 0.0, 0.2], [0.1, 0.4, 0.0, 0.25]);
        let mut lanes = pk.clone();
        damp_lanes(&mut lanes, &live, 0.05, drift, spin);
        let mut each = pk.clone();
        for l in (0..LANES).filter(|&l| live[l]) {
            damp(&mut each, l, 0.05, drift[l], spin[l]);
        }
        assert_eq!(lanes, each);
        assert_ne!(lanes.v, pk.v);
        // and the portable build agrees
        let mut any = pk.clone();
        damp_lanes_any(&mut any, &live, 0.05, drift, spin);
        assert_eq!(any, each);
    }

    #[test]
    fn the_instruction_set_does_not_change_the_contacts() {
        let live = [true, true, false, true];
        let (mut a, mut b) = (scattered(), scattered());
        let (mut fa, mut na, mut fb, mut nb) = ([false; LANES], [false; LANES], [false; LANES], [false; LANES]);
        floor_and_fence(&mut a, &live, &mut fa, &mut na);
        floor_and_fence_lanes(&mut b, &live, &mut fb, &mut nb);
        assert_eq!(a, b);
        assert_eq!((fa, na), (fb, nb));
        assert_eq!((fa, na), ([true, true, false, true], [true, true, false, true]));
        // the idle lane is untouched, and some particles stuck while others slid
        assert_eq!(a.x[5][1][2], scattered().x[5][1][2]);
        let moved_back = (0..PARTICLES).filter(|&p| a.x[p][0][0] == a.prev[p][0][0] && a.x[p][0][0] != scattered().x[p][0][0]).count();
        assert!(moved_back > 0, "no particle stuck");
    }
}
