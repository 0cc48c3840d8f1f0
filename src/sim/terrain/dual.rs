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

/// Where a dual vertex goes.
pub enum Placement<'g> {
    /// The mean of the cell's edge crossings.
    Mean,
    /// The least-squares fit of the tangent planes at the crossings, normals from `gradient`
    /// (grid units in, any scale out; pointing to larger values).
    Qef(&'g (dyn Fn([f32; 3]) -> [f32; 3] + Sync)),
}

/// Weight pulling a QEF vertex toward the crossings' mean, relative to one plane: enough to keep
/// flat and ridge cells well posed, small enough (1e-3) that a corner fitted by three planes moves
/// less than 0.1 % of a cell.
const QEF_PULL: f64 = 1e-3;

/// Surface Nets over `grid` at `iso`.
pub fn surface_nets(grid: &ScalarGrid<'_>, iso: f32) -> IsoMesh {
    extract(grid, iso, &Placement::Mean)
}

/// Dual Contouring over `grid` at `iso`, tangent planes from `gradient`.
pub fn dual_contouring(grid: &ScalarGrid<'_>, iso: f32, gradient: &(dyn Fn([f32; 3]) -> [f32; 3] + Sync)) -> IsoMesh {
    extract(grid, iso, &Placement::Qef(gradient))
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
            crossings[n] = edge_point(e, crossing_t(va, vb, iso));
            n += 1;
        }
    }
    let mut mean = [0f32; 3];
    for c in &crossings[..n] {
        for a in 0..3 {
            mean[a] += c[a] / n as f32;
        }
    }
    let local = match place {
        Placement::Mean => mean,
        Placement::Qef(gradient) => qef(&crossings[..n], mean, |p| gradient([0, 1, 2].map(|a| o[a] + p[a]))),
    };
    let normal = match place {
        Placement::Mean => normalize(trilinear_gradient(v, local)),
        Placement::Qef(gradient) => normalize(gradient([0, 1, 2].map(|a| o[a] + local[a]))),
    };
    Some(([0, 1, 2].map(|a| o[a] + local[a]), normal))
}

/// The point of the cell (local coordinates, clamped to [0, 1]³) nearest, in least squares, to
/// the planes through `points` with normals `gradient(point)`, pulled slightly toward `mean`.
fn qef(points: &[[f32; 3]], mean: [f32; 3], gradient: impl Fn([f32; 3]) -> [f32; 3]) -> [f32; 3] {
    // solve (Σ n nᵀ + λI) x = Σ n (n·p) + λ m, in f64, relative to the mean
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
    for (r, row) in ata.iter_mut().enumerate() {
        row[r] += QEF_PULL;
    }
    let x = solve3(ata, atb).unwrap_or([0.0; 3]);
    std::array::from_fn(|a| (mean[a] as f64 + x[a]).clamp(0.0, 1.0) as f32)
}

/// Solves a 3×3 system by Cramer's rule; `None` when singular.
fn solve3(m: [[f64; 3]; 3], b: [f64; 3]) -> Option<[f64; 3]> {
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(m);
    if d.abs() < 1e-12 {
        return None;
    }
    Some(std::array::from_fn(|k| {
        let mut mk = m;
        for r in 0..3 {
            mk[r][k] = b[r];
        }
        det(mk) / d
    }))
}

/// Both meshers: vertices cell by cell (x fastest), then quads edge by edge.
fn extract(grid: &ScalarGrid<'_>, iso: f32, place: &Placement<'_>) -> IsoMesh {
    let [nx, ny, nz] = grid.dims;
    let mut mesh = IsoMesh::default();
    if nx < 2 || ny < 2 || nz < 2 {
        return mesh;
    }
    let (cx, cy, cz) = (nx - 1, ny - 1, nz - 1);
    let cell = |x: usize, y: usize, z: usize| x + cx * (y + cy * z);
    let sample = |x: usize, y: usize, z: usize| grid.data[x + nx * (y + ny * z)];
    let mut ids = vec![u32::MAX; cx * cy * cz];
    for z in 0..cz {
        for y in 0..cy {
            for x in 0..cx {
                let v: [f32; 8] = std::array::from_fn(|c| {
                    let o = CORNERS[c];
                    sample(x + o[0] as usize, y + o[1] as usize, z + o[2] as usize)
                });
                if let Some((p, n)) = cell_vertex(&v, iso, [x as f32, y as f32, z as f32], place) {
                    ids[cell(x, y, z)] = mesh.positions.len() as u32;
                    mesh.positions.push(p);
                    mesh.normals.push(n);
                }
            }
        }
    }
    // A crossed edge from sample s along `axis` is shared by the four cells around it, listed
    // counter-clockwise in the (u, v) plane with u × v = axis: the quad then faces +axis.
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let s = [x, y, z];
                let inside = sample(x, y, z) < iso;
                for axis in 0..3 {
                    let (u, w) = ((axis + 1) % 3, (axis + 2) % 3);
                    if s[axis] + 1 >= grid.dims[axis] || s[u] == 0 || s[w] == 0 || s[u] >= grid.dims[u] - 1 || s[w] >= grid.dims[w] - 1 {
                        continue;
                    }
                    let mut t = s;
                    t[axis] += 1;
                    if inside == (sample(t[0], t[1], t[2]) < iso) {
                        continue;
                    }
                    let around = [(1, 1), (0, 1), (0, 0), (1, 0)].map(|(du, dw)| {
                        let mut c = s;
                        c[u] -= du;
                        c[w] -= dw;
                        ids[cell(c[0], c[1], c[2])]
                    });
                    // inside at s: the surface faces +axis (toward the larger value at t)
                    let q = if inside { around } else { [around[0], around[3], around[2], around[1]] };
                    push_quad(&mut mesh, q);
                }
            }
        }
    }
    mesh
}

/// Two triangles over the quad's shorter diagonal (the flatter split).
fn push_quad(mesh: &mut IsoMesh, q: [u32; 4]) {
    let p = |i: u32| mesh.positions[i as usize];
    let d2 = |a: [f32; 3], b: [f32; 3]| (0..3).map(|k| (a[k] - b[k]) * (a[k] - b[k])).sum::<f32>();
    let tris = if d2(p(q[0]), p(q[2])) <= d2(p(q[1]), p(q[3])) { [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] } else { [[q[0], q[1], q[3]], [q[1], q[2], q[3]]] };
    for t in tris {
        mesh.indices.extend_from_slice(&t);
    }
}
