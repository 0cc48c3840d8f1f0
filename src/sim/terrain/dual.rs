//! Dual meshers: one vertex per grid cell the surface passes through, one quad per grid edge it
//! crosses (joining the four cells around that edge). Surface Nets (Gibson 1998) puts the vertex
//! at the mean of the cell's edge crossings; Dual Contouring (Ju et al. 2002) at the point that
//! best fits the tangent planes at those crossings (a least-squares "QEF" on the field's
//! gradient), so sharp corners and edges survive. Both are watertight on closed fields, for the
//! same reason marching cubes is: every crossed edge in the grid's interior gets its quad, and a
//! quad's four vertices are shared with its neighbours.
//!
//! Grid units, as in `mc`: sample (x, y, z) sits at (x, y, z); inside = value < iso; triangles are
//! counter-clockwise seen from outside (larger values), normals point outside.

use super::mc::cube::{CORNERS, EDGE_CORNERS, crossing_t, edge_point, trilinear_gradient};
use super::mc::{IsoMesh, ScalarGrid};

/// The continuous field a grid was sampled from, at a point in grid units.
pub type Field<'g> = &'g (dyn Fn([f64; 3]) -> f64 + Sync);

/// Where a dual vertex goes.
pub enum Placement<'g> {
    /// The mean of the cell's edge crossings.
    Mean,
    /// The least-squares fit of the tangent planes of `field` at the crossings, each crossing
    /// first moved onto the field's own zero along its edge (linear interpolation of the samples
    /// misses it where the field bends, as a box's distance field does near its edges).
    Qef(Field<'g>),
}

/// Directions in which the tangent planes constrain a QEF vertex less than this fraction of the
/// best-constrained direction do not move it from the crossings' mean (a truncated
/// pseudo-inverse): on a gently curved sheet or along a crease the planes nearly agree, and
/// solving for where they meet would slide the vertex sideways and fold the quads around it.
/// Three faces of a box corner constrain it equally, so corners are still found exactly.
const QEF_CUTOFF: f64 = 0.1;

/// Surface Nets over `grid` at `iso`.
pub fn surface_nets(grid: &ScalarGrid<'_>, iso: f32) -> IsoMesh {
    extract(grid, iso, &Placement::Mean)
}

/// Dual Contouring over `grid` (sampled from `field`) at `iso`.
pub fn dual_contouring(grid: &ScalarGrid<'_>, iso: f32, field: Field<'_>) -> IsoMesh {
    extract(grid, iso, &Placement::Qef(field))
}

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
fn refine(field: Field<'_>, iso: f64, a: [f64; 3], b: [f64; 3], fa: f64, fb: f64) -> f64 {
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
    t
}

fn normalize(g: [f32; 3]) -> [f32; 3] {
    let len = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
    if len > 0.0 && len.is_finite() { g.map(|c| c / len) } else { [0.0, 1.0, 0.0] }
}

/// The vertex of the cell whose corner values are `v` (minus nothing: raw values) at local
/// origin `o`, or `None` when the surface does not pass through it.
fn cell_vertex(v: &[f32; 8], iso: f32, o: [f32; 3], place: &Placement<'_>) -> Option<([f32; 3], [f32; 3])> {
    let mut mask = 0u8;
    for (i, &x) in v.iter().enumerate() {
        mask |= ((x < iso) as u8) << i;
    }
    if mask == 0 || mask == 255 {
        return None;
    }
    let mut crossings = [[0f32; 3]; 12];
    let mut n = 0;
    for (e, [a, b]) in EDGE_CORNERS.iter().enumerate() {
        let (va, vb) = (v[*a as usize], v[*b as usize]);
        if (va < iso) != (vb < iso) {
            let t = match place {
                Placement::Mean => crossing_t(va, vb, iso),
                Placement::Qef(field) => {
                    let corner = |c: u8| std::array::from_fn(|k| o[k] as f64 + CORNERS[c as usize][k] as f64);
                    refine(*field, iso as f64, corner(*a), corner(*b), va as f64, vb as f64) as f32
                }
            };
            crossings[n] = edge_point(e, t);
            n += 1;
        }
    }
    let mut mean = [0f32; 3];
    for c in &crossings[..n] {
        for a in 0..3 {
            mean[a] += c[a] / n as f32;
        }
    }
    let at = |p: [f32; 3]| std::array::from_fn(|a| (o[a] + p[a]) as f64);
    let local = match place {
        Placement::Mean => mean,
        Placement::Qef(field) => qef(&crossings[..n], mean, |p| gradient(*field, at(p)).map(|c| c as f32)),
    };
    let normal = match place {
        Placement::Mean => normalize(trilinear_gradient(v, local)),
        Placement::Qef(field) => normalize(gradient(*field, at(local)).map(|c| c as f32)),
    };
    Some(([0, 1, 2].map(|a| o[a] + local[a]), normal))
}

/// The point of the cell (local coordinates) nearest, in least squares, to the planes through
/// `points` with normals `gradient(point)`, moving from `mean` only in the directions the planes
/// pin down (see [`QEF_CUTOFF`]); `mean` itself when that point is outside the cell.
fn qef(points: &[[f32; 3]], mean: [f32; 3], gradient: impl Fn([f32; 3]) -> [f32; 3]) -> [f32; 3] {
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
    // fold the quads around it when clamped: the crossings' mean is the safe place then
    if fit.iter().all(|c| (-1e-6..=1.0 + 1e-6).contains(c)) { fit.map(|c| c.clamp(0.0, 1.0) as f32) } else { mean }
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

/// Inside bits of one z-plane of samples: `words` u64 per row, rows y = 0..ny.
fn classify_plane(grid: &ScalarGrid<'_>, iso: f32, z: usize, words: usize, out: &mut [u64]) {
    let [nx, ny, _] = grid.dims;
    for y in 0..ny {
        let row = &grid.data[nx * (y + ny * z)..nx * (y + ny * z) + nx];
        super::mc::classify_row(row, iso, &mut out[y * words..(y + 1) * words]);
    }
}

/// Both meshers: cell layer by cell layer (z), row by row, the cells the surface passes through
/// found 64 at a time from the samples' inside bits; each such cell gets its vertex, then the
/// quads of the crossed edges at its lowest corner (whose other three cells come before it).
fn extract(grid: &ScalarGrid<'_>, iso: f32, place: &Placement<'_>) -> IsoMesh {
    let [nx, ny, nz] = grid.dims;
    let mut mesh = IsoMesh::default();
    if nx < 2 || ny < 2 || nz < 2 {
        return mesh;
    }
    let (cx, cy) = (nx - 1, ny - 1);
    let words = nx.div_ceil(64);
    let mut planes = [vec![0u64; words * ny], vec![0u64; words * ny]];
    // vertex ids of the previous and the current cell layer; only cells the surface passes
    // through are ever read, and those were written in this pass
    let mut ids = [vec![0u32; cx * cy], vec![0u32; cx * cy]];
    classify_plane(grid, iso, 0, words, &mut planes[0]);
    let sample = |x: usize, y: usize, z: usize| grid.data[x + nx * (y + ny * z)];
    for z in 0..nz - 1 {
        classify_plane(grid, iso, z + 1, words, &mut planes[1]);
        ids.swap(0, 1);
        for y in 0..cy {
            let rows = [&planes[0][y * words..], &planes[0][(y + 1) * words..], &planes[1][y * words..], &planes[1][(y + 1) * words..]];
            for w in 0..words {
                let (mut any, mut all) = (0u64, u64::MAX);
                for r in &rows {
                    let (here, next) = (r[w], if w + 1 < words { r[w + 1] } else { 0 });
                    let right = (here >> 1) | (next << 63);
                    any |= here | right;
                    all &= here & right;
                }
                let valid = if (w + 1) * 64 <= cx { u64::MAX } else { (1u64 << (cx - w * 64)) - 1 };
                let mut active = any & !all & valid;
                while active != 0 {
                    let x = w * 64 + active.trailing_zeros() as usize;
                    active &= active - 1;
                    let v: [f32; 8] = std::array::from_fn(|c| {
                        let o = CORNERS[c];
                        sample(x + o[0] as usize, y + o[1] as usize, z + o[2] as usize)
                    });
                    let Some((p, n)) = cell_vertex(&v, iso, [x as f32, y as f32, z as f32], place) else { continue };
                    ids[1][x + cx * y] = mesh.positions.len() as u32;
                    mesh.positions.push(p);
                    mesh.normals.push(n);
                    cell_quads(&mut mesh, &ids, [x, y, z], &v, iso, cx);
                }
            }
        }
        planes.swap(0, 1);
    }
    mesh
}

/// The quads of cell `c`'s crossed edges at its lowest corner (corner values `v`). The edge from
/// that corner along `axis` is shared with the cells one step back along the other two axes,
/// listed counter-clockwise in the (u, w) plane with u × w = axis, so the quad faces +axis, and
/// turned round when the surface faces the other way.
fn cell_quads(mesh: &mut IsoMesh, ids: &[Vec<u32>; 2], c: [usize; 3], v: &[f32; 8], iso: f32, cx: usize) {
    // the corner one step along x, y, z from corner 0 (Bourke's numbering)
    const ALONG: [usize; 3] = [1, 3, 4];
    let inside = v[0] < iso;
    for axis in 0..3 {
        let (u, w) = ((axis + 1) % 3, (axis + 2) % 3);
        if c[u] == 0 || c[w] == 0 || inside == (v[ALONG[axis]] < iso) {
            continue;
        }
        let around = [(1, 1), (0, 1), (0, 0), (1, 0)].map(|(du, dw)| {
            let mut k = c;
            k[u] -= du;
            k[w] -= dw;
            // layer z is ids[1], z − 1 is ids[0]
            ids[(k[2] == c[2]) as usize][k[0] + cx * k[1]]
        });
        let q = if inside { around } else { [around[0], around[3], around[2], around[1]] };
        let mut facing = [0.0; 3];
        facing[axis] = if inside { 1.0 } else { -1.0 };
        push_quad(mesh, q, facing);
    }
}

/// Two triangles over one of the quad's diagonals: the split whose triangles both face along
/// `facing` (the crossed edge's direction, inside to outside) the most, so a quad folded over a
/// sharp crease does not turn a triangle inside out; between equally good splits, the shorter
/// diagonal.
fn push_quad(mesh: &mut IsoMesh, q: [u32; 4], facing: [f32; 3]) {
    let p = |i: u32| mesh.positions[i as usize];
    let d2 = |a: [f32; 3], b: [f32; 3]| (0..3).map(|k| (a[k] - b[k]) * (a[k] - b[k])).sum::<f32>();
    let along = |t: [u32; 3]| {
        let [a, b, c] = t.map(p);
        let (u, v) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
        let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt().max(1e-12);
        (n[0] * facing[0] + n[1] * facing[1] + n[2] * facing[2]) / len
    };
    let first = [[q[0], q[1], q[2]], [q[0], q[2], q[3]]];
    let second = [[q[0], q[1], q[3]], [q[1], q[2], q[3]]];
    let worst = |s: &[[u32; 3]; 2]| along(s[0]).min(along(s[1]));
    let (w1, w2) = (worst(&first), worst(&second));
    let shorter_first = d2(p(q[0]), p(q[2])) <= d2(p(q[1]), p(q[3]));
    let tris = if (w1 - w2).abs() > 1e-3 {
        if w1 > w2 { first } else { second }
    } else if shorter_first {
        first
    } else {
        second
    };
    for t in tris {
        mesh.indices.extend_from_slice(&t);
    }
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
