//! Small f64 vector, matrix and quaternion helpers for the dice solver (plain arrays, no
//! allocation). The rest of simreel uses glam; these stay because the solver's lane kernels
//! (`pack.rs`, `lanes.rs`) spell out the very same operations in the same order, four dice at a
//! time, and are tested to agree with these scalar references (rotation extraction, damping) bit
//! for bit: both sides of that contract live in this crate, where a change to
//! one is seen next to the other, not inside a dependency's implementation.

use crate::portable;

pub type V3 = [f64; 3];
/// Row-major 3 × 3 matrix: `m[row][col]`.
pub type M3 = [[f64; 3]; 3];
/// Quaternion (x, y, z, w).
pub type Quat = [f64; 4];

#[inline(always)]
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
#[inline(always)]
pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
#[inline(always)]
pub fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
#[inline(always)]
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
#[inline(always)]
pub fn cross(a: V3, b: V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
#[inline(always)]
pub fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}

#[inline(always)]
pub fn mat_vec(m: &M3, v: V3) -> V3 {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// Transpose times a vector (for a rotation: world → body frame).
#[inline(always)]
pub fn mat_t_vec(m: &M3, v: V3) -> V3 {
    [
        m[0][0] * v[0] + m[1][0] * v[1] + m[2][0] * v[2],
        m[0][1] * v[0] + m[1][1] * v[1] + m[2][1] * v[2],
        m[0][2] * v[0] + m[1][2] * v[1] + m[2][2] * v[2],
    ]
}

/// Inverse of a 3 × 3 matrix, if it is not singular.
pub fn invert3(m: &M3) -> Option<M3> {
    let c0 = cross(m[1], m[2]);
    let det = dot(m[0], c0);
    if det.abs() < 1e-18 {
        return None;
    }
    let (c1, c2) = (cross(m[2], m[0]), cross(m[0], m[1]));
    // rows of the inverse are the columns of the cofactor matrix over the determinant
    Some([[c0[0] / det, c1[0] / det, c2[0] / det], [c0[1] / det, c1[1] / det, c2[1] / det], [c0[2] / det, c1[2] / det, c2[2] / det]])
}

/// Unit quaternion to the rotation matrix whose columns are the rotated axes.
pub fn quat_to_matrix(q: Quat) -> M3 {
    let [x, y, z, w] = q;
    [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w)],
        [2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w)],
        [2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y)],
    ]
}

pub fn quat_mul(a: Quat, b: Quat) -> Quat {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

pub fn quat_normalize(q: Quat) -> Quat {
    let l = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if l > 0.0 { q.map(|c| c / l) } else { [0.0, 0.0, 0.0, 1.0] }
}

/// Rotation by `angle` about unit `axis`.
pub fn quat_axis_angle(axis: V3, angle: f64) -> Quat {
    let (s, c) = half_sin_cos(angle);
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

/// Below this half angle [`half_sin_cos`] uses its series: the rotation a die turns in one
/// substep stays under it up to 140 rad/s, so the maths library's sine and cosine (which may
/// differ between platforms in the last bit) are practically never called.
pub(super) const SMALL_HALF_ANGLE: f64 = 0.1;

/// The series branch of [`half_sin_cos`], for `x` = half the angle: Taylor series to x¹³ and
/// x¹², whose first omitted terms stay below 1e-24 here.
#[inline(always)]
pub(super) fn small_sin_cos(x: f64) -> (f64, f64) {
    let x2 = x * x;
    // nested form; products with the reciprocals (a division costs several multiplications)
    let t = |k: f64, rest: f64| 1.0 - x2 * k * rest;
    let s = x * t(1.0 / 6.0, t(1.0 / 20.0, t(1.0 / 42.0, t(1.0 / 72.0, t(1.0 / 110.0, t(1.0 / 156.0, 1.0))))));
    let c = t(0.5, t(1.0 / 12.0, t(1.0 / 30.0, t(1.0 / 56.0, t(1.0 / 90.0, t(1.0 / 132.0, 1.0))))));
    (s, c)
}

/// sin and cos of `angle / 2`. The small angles of a warm-started rotation extraction (all but
/// the rarest) use Taylor series accurate to the last bit or two below 0.2 rad, which give the
/// same bits on every platform, whatever its maths library.
pub(super) fn half_sin_cos(angle: f64) -> (f64, f64) {
    let x = angle * 0.5;
    if x.abs() < SMALL_HALF_ANGLE { small_sin_cos(x) } else { portable::sin_cos(x) }
}

/// Müller et al. 2016, "A Robust Method to Extract the Rotational Part of Deformations": the
/// rotation closest to `a`, iterating from `q` (warm start) at most `iterations` times.
pub fn extract_rotation(a: &M3, mut q: Quat, iterations: usize) -> Quat {
    let col = |m: &M3, j: usize| [m[0][j], m[1][j], m[2][j]];
    for _ in 0..iterations {
        let r = quat_to_matrix(q);
        let (r0, r1, r2) = (col(&r, 0), col(&r, 1), col(&r, 2));
        let (a0, a1, a2) = (col(a, 0), col(a, 1), col(a, 2));
        let num = add(add(cross(r0, a0), cross(r1, a1)), cross(r2, a2));
        let den = (dot(r0, a0) + dot(r1, a1) + dot(r2, a2)).abs() + 1.0e-9;
        let omega = scale(num, 1.0 / den);
        let w = norm(omega);
        if w < 1.0e-9 {
            break;
        }
        q = quat_normalize(quat_mul(quat_axis_angle(scale(omega, 1.0 / w), w), q));
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_extraction_recovers_a_rotation_from_a_stretched_one() {
        let truth = quat_normalize([0.3, -0.5, 0.2, 0.8]);
        let r = quat_to_matrix(truth);
        // stretch along the body's x, squash along z: the rotational part is unchanged
        let s = [[1.3, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.7]];
        let a: M3 = std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| r[i][k] * s[k][j]).sum()));
        let q = extract_rotation(&a, [0.0, 0.0, 0.0, 1.0], 40);
        let got = quat_to_matrix(q);
        for i in 0..3 {
            for j in 0..3 {
                // the iteration stops once the correction is below 1e-9 rad
                assert!((got[i][j] - r[i][j]).abs() < 1e-8, "{got:?} vs {r:?}");
            }
        }
        // warm-started from the answer, it stays there
        let again = extract_rotation(&a, q, 4);
        assert!((0..4).all(|i| (again[i] - q[i]).abs() < 1e-12));
    }

    #[test]
    fn small_angle_series_match_the_library() {
        // half angles up to the series' limit, both signs: within 2 units in the last place
        for i in 0..=2000 {
            let a = (i as f64 - 1000.0) * (2.0 * SMALL_HALF_ANGLE / 1000.0) * 0.99999;
            let (s, c) = half_sin_cos(a);
            let (s2, c2) = portable::sin_cos(a * 0.5);
            let ulp = |v: f64| f64::EPSILON * v.abs().max(f64::MIN_POSITIVE);
            assert!((s - s2).abs() <= 2.0 * ulp(s2) && (c - c2).abs() <= 2.0 * ulp(c2), "{a}: {s} {s2} {c} {c2}");
        }
    }

    #[test]
    fn inverse_of_a_matrix() {
        let m = [[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, 1.0, 4.0]];
        let inv = invert3(&m).unwrap();
        let product: M3 = std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| m[i][k] * inv[k][j]).sum()));
        for (i, row) in product.iter().enumerate() {
            for (j, e) in row.iter().enumerate() {
                assert!((e - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
        assert!(invert3(&[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]]).is_none());
    }
}
