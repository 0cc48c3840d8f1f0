//! Dual meshers: a vertex for each piece of the surface inside a grid cell, one quad per grid edge
//! the surface crosses (joining the pieces of the four cells around that edge that hold it).
//! Surface Nets (Gibson 1998) puts a piece's vertex at the mean of its edge crossings; Dual
//! Contouring (Ju et al. 2002) at the point that best fits the tangent planes at those crossings
//! (a least-squares "QEF" on the field's gradient), so sharp corners and edges survive.
//!
//! One vertex per piece, not per cell, as manifold dual contouring (Schaefer, Ju and Warren 2007)
//! and dual marching cubes (Nielson 2004) do: where two sheets pass through one cell, each keeps
//! its own vertex, so every edge has two triangles and every vertex one fan (see `cell` for what a
//! piece is). Both are watertight on closed fields for the same reason marching cubes is: every
//! crossed edge in the grid's interior gets its quad, and a quad's vertices are shared with its
//! neighbours.
//!
//! Grid units, as in `mc`: sample (x, y, z) sits at (x, y, z); inside = value < iso; triangles are
//! counter-clockwise seen from outside (larger values), normals point outside.

mod cell;
mod qef;

use rayon::prelude::*;

use super::mc::cube::{CORNERS, EDGE_AXIS, EDGE_CORNERS};
use super::mc::{IsoMesh, ScalarGrid};
use cell::{Doubled, Pieces};
pub use qef::gradient;

/// The continuous field a grid was sampled from, at a point in grid units.
pub type Field<'g> = &'g (dyn Fn([f64; 3]) -> f64 + Sync);

/// Where a dual vertex goes.
pub enum Placement<'g> {
    /// The mean of the piece's edge crossings.
    Mean,
    /// The least-squares fit of the tangent planes of `field` at the piece's crossings, each
    /// crossing first moved onto the field's own zero along its edge (linear interpolation of the
    /// samples misses it where the field bends, as a box's distance field does near its edges).
    Qef(Field<'g>),
}

/// How many vertices a cell the surface passes through gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vertices {
    /// One for each piece of the surface in it (and one for each segment of a doubled face; see
    /// `cell`): closed 2-manifolds.
    PerPiece,
    /// One, as classic surface nets (and fast-surface-nets) make them: where two sheets pass
    /// through one cell they share its vertex and pinch (edges of four triangles).
    PerCell,
}

/// Surface Nets over `grid` at `iso`, in one pass on the calling thread.
pub fn surface_nets(grid: &ScalarGrid<'_>, iso: f32) -> IsoMesh {
    extract_parallel(grid, iso, &Placement::Mean, Vertices::PerPiece, usize::MAX)
}

/// Dual Contouring over `grid` (sampled from `field`) at `iso`, in one pass on the calling thread.
pub fn dual_contouring(grid: &ScalarGrid<'_>, iso: f32, field: Field<'_>) -> IsoMesh {
    extract_parallel(grid, iso, &Placement::Qef(field), Vertices::PerPiece, usize::MAX)
}

/// Extracts slabs of `layers_per_chunk` cell layers in parallel on the rayon pool and stitches
/// them; the mesh is identical to one pass's (`usize::MAX`: one pass on the calling thread).
pub fn extract_parallel(grid: &ScalarGrid<'_>, iso: f32, place: &Placement<'_>, vertices: Vertices, layers_per_chunk: usize) -> IsoMesh {
    let mut m = IsoMesh::default();
    extract_into(grid, iso, place, vertices, layers_per_chunk, &mut m);
    m
}

/// [`extract_parallel`] into a caller-owned mesh, whose buffers are reused: a steady stream of
/// extractions of one size allocates nothing in one pass.
pub fn extract_into(
    grid: &ScalarGrid<'_>,
    iso: f32,
    place: &Placement<'_>,
    vertices: Vertices,
    layers_per_chunk: usize,
    out: &mut IsoMesh,
) {
    out.positions.clear();
    out.normals.clear();
    out.indices.clear();
    out.stats = Default::default();
    let [nx, ny, nz] = grid.dims;
    if nx < 2 || ny < 2 || nz < 2 {
        return;
    }
    let layers = nz - 1;
    let per = layers_per_chunk.max(1);
    if per >= layers {
        let mut part = Part {
            positions: std::mem::take(&mut out.positions),
            normals: std::mem::take(&mut out.normals),
            indices: std::mem::take(&mut out.indices),
            ..Part::default()
        };
        scan(grid, iso, place, vertices, 0..layers, &mut part);
        (out.positions, out.normals, out.indices) = (part.positions, part.normals, part.indices);
        out.stats.cubes = part.cells;
        return;
    }
    let ranges: Vec<std::ops::Range<usize>> = (0..layers).step_by(per).map(|z0| z0..(z0 + per).min(layers)).collect();
    let parts: Vec<Part> = ranges
        .into_par_iter()
        .map(|zs| {
            let mut part = Part::default();
            scan(grid, iso, place, vertices, zs, &mut part);
            part
        })
        .collect();
    stitch(&parts, out);
}

/// The mesh of one slab of cell layers. When the slab does not start at the bottom, its first
/// `ghost` vertices are those of the layer below it, made again (the same cells in the same order
/// as the slab below makes them) so its lowest quads can be built; they stand for that slab's
/// last layer, which starts at its vertex `last_layer`.
#[derive(Default)]
struct Part {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    indices: Vec<u32>,
    ghost: u32,
    last_layer: u32,
    /// Cells the surface passes through (the ghost layer's not counted).
    cells: u64,
}

/// Joins slab meshes: a slab's ghost vertices become the slab below's last-layer vertices, the rest
/// keep their order, so the result equals one pass's vertex for vertex and triangle for triangle.
fn stitch(parts: &[Part], out: &mut IsoMesh) {
    let mut base = 0u32;
    let mut below_last_layer = 0u32;
    for p in parts {
        let own = &p.positions[p.ghost as usize..];
        out.positions.extend_from_slice(own);
        out.normals.extend_from_slice(&p.normals[p.ghost as usize..]);
        let ghost = p.ghost;
        out.indices.extend(p.indices.iter().map(|&i| if i < ghost { below_last_layer + i } else { base + i - ghost }));
        out.stats.cubes += p.cells;
        below_last_layer = base + p.last_layer - ghost;
        base += own.len() as u32;
    }
}

/// One cell of the scan: where its vertices start and which piece each edge belongs to.
#[derive(Clone, Copy, Default)]
struct Cell {
    first: u32,
    pieces: Pieces,
    doubled: Doubled,
}

/// Inside bits of one z-plane of samples: `words` u64 per row, rows y = 0..ny.
fn classify_plane(grid: &ScalarGrid<'_>, iso: f32, z: usize, words: usize, out: &mut [u64]) {
    let [nx, ny, _] = grid.dims;
    for y in 0..ny {
        let row = &grid.data[nx * (y + ny * z)..nx * (y + ny * z) + nx];
        super::mc::classify_row(row, iso, &mut out[y * words..(y + 1) * words]);
    }
}

/// Meshes cell layers `zs` into `part`: cell layer by cell layer (z), row by row, the cells the
/// surface passes through found 64 at a time from the samples' inside bits; each such cell gets a
/// vertex per piece, then the quads of the crossed edges at its lowest corner (whose other three
/// cells come before it). A slab above the bottom first makes the layer below it again (its ghost).
fn scan(grid: &ScalarGrid<'_>, iso: f32, place: &Placement<'_>, vertices: Vertices, zs: std::ops::Range<usize>, part: &mut Part) {
    let [nx, ny, _] = grid.dims;
    let (cx, cy) = (nx - 1, ny - 1);
    let words = nx.div_ceil(64);
    let mut planes = [vec![0u64; words * ny], vec![0u64; words * ny]];
    // the cells of the previous and the current layer; only cells the surface passes through are
    // ever read, and those were written in this pass
    let mut cells = [vec![Cell::default(); cx * cy], vec![Cell::default(); cx * cy]];
    let first_layer = zs.start.saturating_sub(1);
    classify_plane(grid, iso, first_layer, words, &mut planes[0]);
    // the values at the corners of the cell whose lowest corner is `at`
    let corners = |at: [usize; 3]| -> [f32; 8] {
        std::array::from_fn(|c| {
            let o = CORNERS[c].map(usize::from);
            grid.data[at[0] + o[0] + nx * (at[1] + o[1] + ny * (at[2] + o[2]))]
        })
    };
    for z in first_layer..zs.end {
        let ghost = z < zs.start;
        if z == zs.start {
            part.ghost = part.positions.len() as u32;
        }
        part.last_layer = part.positions.len() as u32;
        classify_plane(grid, iso, z + 1, words, &mut planes[1]);
        cells.swap(0, 1);
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
                    let v = corners([x, y, z]);
                    let case = super::mc::cube::case_index(&v, iso);
                    let o = [x as f32, y as f32, z as f32];
                    let (pieces, doubled) = match vertices {
                        Vertices::PerCell => (Pieces::WHOLE, Doubled::default()),
                        Vertices::PerPiece => {
                            let pieces = cell::pieces(case, &v, iso);
                            let below = |axis: usize| {
                                let mut at = [x, y, z];
                                at[axis] = at[axis].checked_sub(1)?;
                                Some(corners(at))
                            };
                            (pieces, Doubled::of(case, &v, iso, pieces, below))
                        }
                    };
                    cells[1][x + cx * y] = Cell { first: part.positions.len() as u32, pieces, doubled };
                    cell::place(&v, iso, o, pieces, doubled, place, &mut part.positions, &mut part.normals);
                    if !ghost {
                        part.cells += 1;
                        cell_quads(part, &cells, [x, y, z], &v, iso, cx);
                    }
                }
            }
        }
        planes.swap(0, 1);
    }
}

/// `EDGE_AT[axis][du][dw]`: the cell edge along `axis` whose lower corner is `du` along the next
/// axis and `dw` along the one after (u = axis + 1, w = axis + 2, mod 3).
const EDGE_AT: [[[usize; 2]; 2]; 3] = {
    let mut t = [[[0usize; 2]; 2]; 3];
    let mut e = 0;
    while e < 12 {
        let axis = EDGE_AXIS[e] as usize;
        let c = CORNERS[EDGE_CORNERS[e][0] as usize];
        t[axis][c[(axis + 1) % 3] as usize][c[(axis + 2) % 3] as usize] = e;
        e += 1;
    }
    t
};

/// The quads of cell `c`'s crossed edges at its lowest corner (corner values `v`). The edge from
/// that corner along `axis` is shared with the cells one step back along the other two axes,
/// listed counter-clockwise in the (u, w) plane with u × w = axis, so the quad faces +axis, and
/// turned round when the surface faces the other way. Each cell gives the vertex of the piece
/// that holds the edge; between two cells whose shared face is doubled, the vertex of the face's
/// segment through the edge comes in too (a pentagon or more, then).
fn cell_quads(part: &mut Part, cells: &[Vec<Cell>; 2], c: [usize; 3], v: &[f32; 8], iso: f32, cx: usize) {
    // the corner one step along x, y, z from corner 0 (Bourke's numbering)
    const ALONG: [usize; 3] = [1, 3, 4];
    // the cells around the edge, as steps back along (u, w); consecutive ones share a face
    const AROUND: [(usize, usize); 4] = [(1, 1), (0, 1), (0, 0), (1, 0)];
    let inside = v[0] < iso;
    for axis in 0..3 {
        let (u, w) = ((axis + 1) % 3, (axis + 2) % 3);
        if c[u] == 0 || c[w] == 0 || inside == (v[ALONG[axis]] < iso) {
            continue;
        }
        let cell = |(du, dw): (usize, usize)| {
            let mut k = c;
            k[u] -= du;
            k[w] -= dw;
            // layer z is cells[1], z − 1 is cells[0]
            cells[(k[2] == c[2]) as usize][k[0] + cx * k[1]]
        };
        let mut polygon = [0u32; 8];
        let mut segment = [false; 8];
        let mut n = 0;
        for i in 0..4 {
            let (du, dw) = AROUND[i];
            let here = cell((du, dw));
            polygon[n] = here.first + here.pieces.of(EDGE_AT[axis][du][dw]);
            n += 1;
            // the face between this cell and the next: across u or w, owned by the higher cell
            let (nu, nw) = AROUND[(i + 1) % 4];
            let (across, high) = if nu != du { (u, (du.min(nu), dw)) } else { (w, (du, dw.min(nw))) };
            let owner = cell(high);
            if owner.doubled.across(across) {
                polygon[n] = owner.first + owner.pieces.count() + owner.doubled.segment_vertex(across, EDGE_AT[axis][high.0][high.1]);
                segment[n] = true;
                n += 1;
            }
        }
        let (polygon, segment) = (&mut polygon[..n], &mut segment[..n]);
        if !inside {
            polygon.reverse();
            segment.reverse();
        }
        let mut facing = [0.0; 3];
        facing[axis] = if inside { 1.0 } else { -1.0 };
        if n == 4 {
            push_quad(part, [polygon[0], polygon[1], polygon[2], polygon[3]], facing);
        } else {
            // a fan from a segment vertex: its edges to the others are in this polygon only
            let from = segment.iter().position(|&s| s).expect("a segment vertex");
            polygon.rotate_left(from);
            for k in 1..n - 1 {
                part.indices.extend_from_slice(&[polygon[0], polygon[k], polygon[k + 1]]);
            }
        }
    }
}

/// Two triangles over one of the quad's diagonals: a split without a zero-area triangle if there
/// is one; then the split whose triangles both face along `facing` (the crossed edge's direction,
/// inside to outside) the most, so a quad folded over a sharp crease does not turn a triangle
/// inside out; between equally good splits, the shorter diagonal.
fn push_quad(part: &mut Part, q: [u32; 4], facing: [f32; 3]) {
    let p = |i: u32| part.positions[i as usize];
    let d2 = |a: [f32; 3], b: [f32; 3]| (0..3).map(|k| (a[k] - b[k]) * (a[k] - b[k])).sum::<f32>();
    // (has area, how much it faces along `facing`)
    let along = |t: [u32; 3]| {
        let [a, b, c] = t.map(p);
        let (u, v) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
        let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        (len > 0.0, (n[0] * facing[0] + n[1] * facing[1] + n[2] * facing[2]) / len.max(1e-12))
    };
    let first = [[q[0], q[1], q[2]], [q[0], q[2], q[3]]];
    let second = [[q[0], q[1], q[3]], [q[1], q[2], q[3]]];
    let judge = |s: &[[u32; 3]; 2]| {
        let ((a0, f0), (a1, f1)) = (along(s[0]), along(s[1]));
        (a0 && a1, f0.min(f1))
    };
    let ((area1, w1), (area2, w2)) = (judge(&first), judge(&second));
    let shorter_first = d2(p(q[0]), p(q[2])) <= d2(p(q[1]), p(q[3]));
    let tris = if area1 != area2 {
        if area1 { first } else { second }
    } else if (w1 - w2).abs() > 1e-3 {
        if w1 > w2 { first } else { second }
    } else if shorter_first {
        first
    } else {
        second
    };
    for t in tris {
        part.indices.extend_from_slice(&t);
    }
}
