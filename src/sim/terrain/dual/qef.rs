//! Where a dual vertex goes: the least-squares fit of the field's tangent planes at a piece's edge
//! crossings (Dual Contouring's "QEF"), each crossing first moved onto the field's own zero along
//! its edge; the eigen-decomposition the fit is solved with.

use super::Field;
use crate::sim::terrain::mc::cube::T_MARGIN;

/// Directions in which the tangent planes constrain a QEF vertex less than this fraction of the
/// best-constrained direction do not move it from the crossings' mean (a truncated
/// pseudo-inverse): on a gently curved sheet or along a crease the planes nearly agree, and
/// solving for where they meet would slide the vertex sideways and fold the quads around it.
/// Three faces of a box corner constrain it equally, so corners are still found exactly.
const QEF_CUTOFF: f64 = 0.1;

/// The gradient of `field` at `p` (grid units), by central differences a thousandth of a cell
/// apart.
pub fn gradient(field: Field<'_>, p: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|a| {
        let (mut lo, mut hi) = (p, p);
        lo[a] -= 1e-3;
        hi[a] += 1e-3;
        (field(hi) - field(lo)) / 2e-3
    })
}

/// Where `field` meets `iso` between `a` (value `fa`) and `b` (value `fb`, the other sign):
/// regula falsi with the Illinois step, from the linear guess; 0..1 along a→b.
pub(super) fn refine(field: Field<'_>, iso: f64, a: [f64; 3], b: [f64; 3], fa: f64, fb: f64) -> f64 {
    let (mut lo, mut hi, mut flo, mut fhi) = (0.0, 1.0, fa - iso, fb - iso);
    let mut side = 0;
    let mut t = 0.5;
    for _ in 0..24 {
        t = if fhi != flo { (lo * fhi - hi * flo) / (fhi - flo) } else { 0.5 * (lo + hi) };
        let p: [f64; 3] = std::array::from_fn(|k| a[k] + (b[k] - a[k]) * t);
        let ft = field(p) - iso;
        if ft.abs() < 1e-9 || hi - lo < 1e-9 {
            break;
        }
        if (ft < 0.0) == (flo < 0.0) {
            (lo, flo) = (t, ft);
            if side == -1 {
                fhi *= 0.5;
            }
            side = -1;
        } else {
            (hi, fhi) = (t, ft);
            if side == 1 {
                flo *= 0.5;
            }
            side = 1;
        }
    }
    // kept T_MARGIN from the corners, as marching cubes' crossings are (a sample exactly at iso
    // would put the crossings of several edges on one point)
    t.clamp(T_MARGIN as f64, 1.0 - T_MARGIN as f64)
}

pub(super) fn normalize(g: [f32; 3]) -> [f32; 3] {
    let len = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
    if len > 0.0 && len.is_finite() { g.map(|c| c / len) } else { [0.0, 1.0, 0.0] }
}

/// The point of the cell (local coordinates) nearest, in least squares, to the planes through
/// `points` with normals `gradient(point)`, moving from `mean` only in the directions the planes
/// pin down (see [`QEF_CUTOFF`]); `mean` itself when that point is outside the cell.
pub(super) fn qef(points: &[[f32; 3]], mean: [f32; 3], gradient: impl Fn([f32; 3]) -> [f32; 3]) -> [f32; 3] {
    // minimise Σ (n·(x − p))² over x = mean + d: (Σ n nᵀ) d = Σ n (n·(p − mean)), solved by a
    // truncated pseudo-inverse, in f64
    let mut ata = [[0f64; 3]; 3];
    let mut atb = [0f64; 3];
    for p in points {
        let n = normalize(gradient(*p)).map(f64::from);
        let d: f64 = (0..3).map(|a| n[a] * (p[a] - mean[a]) as f64).sum();
        for r in 0..3 {
            for c in 0..3 {
                ata[r][c] += n[r] * n[c];
            }
            atb[r] += n[r] * d;
        }
    }
    let (values, vectors) = eigen3(ata);
    let top = values.iter().copied().fold(0.0, f64::max);
    let mut x = [0f64; 3];
    for k in 0..3 {
        if values[k] > QEF_CUTOFF * top && values[k] > 1e-12 {
            let v = vectors[k];
            let along = (v[0] * atb[0] + v[1] * atb[1] + v[2] * atb[2]) / values[k];
            for a in 0..3 {
                x[a] += along * v[a];
            }
        }
    }
    let fit: [f64; 3] = std::array::from_fn(|a| mean[a] as f64 + x[a]);
    // a fit outside the cell (planes meeting beyond it, as a slanted sheet and a wall do) would
    // fold the quads around it when clamped: the crossings' mean is the safe place then. A fit on
    // the cell's boundary is kept T_MARGIN inside it, so it never lands on a neighbour's vertex
    // or on one line with two of them (a box's edge along a grid line would put a quad's corners
    // on one line: a triangle without area)
    let (lo, hi) = (T_MARGIN as f64, 1.0 - T_MARGIN as f64);
    let at = if fit.iter().all(|c| (-1e-6..=1.0 + 1e-6).contains(c)) { fit } else { mean.map(f64::from) };
    at.map(|c| c.clamp(lo, hi) as f32)
}

/// Eigenvalues and unit eigenvectors of a symmetric 3×3 matrix (cyclic Jacobi rotations).
fn eigen3(mut m: [[f64; 3]; 3]) -> ([f64; 3], [[f64; 3]; 3]) {
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _ in 0..16 {
        let off = m[0][1].abs() + m[0][2].abs() + m[1][2].abs();
        if off < 1e-14 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if m[p][q].abs() < 1e-300 {
                continue;
            }
            let theta = (m[q][q] - m[p][p]) / (2.0 * m[p][q]);
            let t = if theta == 0.0 { 1.0 } else { theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt()) };
            let (c, s) = (1.0 / (t * t + 1.0).sqrt(), t / (t * t + 1.0).sqrt());
            // m ← Jᵀ m J with the rotation J in the (p, q) plane; v ← v J
            for row in m.iter_mut() {
                let (mkp, mkq) = (row[p], row[q]);
                row[p] = c * mkp - s * mkq;
                row[q] = s * mkp + c * mkq;
            }
            let (rp, rq) = (m[p], m[q]);
            for k in 0..3 {
                m[p][k] = c * rp[k] - s * rq[k];
                m[q][k] = s * rp[k] + c * rq[k];
            }
            for row in v.iter_mut() {
                let (a, b) = (row[p], row[q]);
                row[p] = c * a - s * b;
                row[q] = s * a + c * b;
            }
        }
    }
    // column k of v is the eigenvector of m[k][k]
    let vectors = std::array::from_fn(|k| [v[0][k], v[1][k], v[2][k]]);
    ([m[0][0], m[1][1], m[2][2]], vectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigen_decomposition_rebuilds_the_matrix() {
        let m = [[4.0, 1.0, 0.5], [1.0, 3.0, -0.7], [0.5, -0.7, 2.0]];
        let (l, v) = eigen3(m);
        for r in 0..3 {
            for c in 0..3 {
                let back: f64 = (0..3).map(|k| l[k] * v[k][r] * v[k][c]).sum();
                assert!((back - m[r][c]).abs() < 1e-9, "{r},{c}: {back} vs {}", m[r][c]);
            }
        }
    }

    #[test]
    fn three_planes_meet_at_their_corner_and_one_plane_keeps_the_mean() {
        // the corner (0.3, 0.6, 0.8) of three axis planes, crossings spread over them
        let corner = [0.3f32, 0.6, 0.8];
        let pts = [[0.3, 0.1, 0.2], [0.3, 0.9, 0.5], [0.7, 0.6, 0.1], [0.2, 0.6, 0.9], [0.9, 0.2, 0.8], [0.1, 0.4, 0.8]];
        let normal = |p: [f32; 3]| -> [f32; 3] {
            let d: [f32; 3] = std::array::from_fn(|a| (p[a] - corner[a]).abs());
            let a = (0..3).min_by(|&i, &j| d[i].total_cmp(&d[j])).unwrap();
            std::array::from_fn(|k| if k == a { 1.0 } else { 0.0 })
        };
        let mean = [0.4, 0.45, 0.55];
        let x = qef(&pts, mean, normal);
        assert!(x.iter().zip(&corner).all(|(a, b)| (a - b).abs() < 1e-5), "{x:?}");
        // one plane y = 0.5: only y is pinned, x and z stay at the mean
        let flat = [[0.1, 0.5, 0.2], [0.8, 0.5, 0.9]];
        let x = qef(&flat, mean, |_| [0.0, 1.0, 0.0]);
        assert!((x[0] - 0.4).abs() < 1e-6 && (x[1] - 0.5).abs() < 1e-6 && (x[2] - 0.55).abs() < 1e-6, "{x:?}");
    }
}
