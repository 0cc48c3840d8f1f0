//! Marching cubes as the classic 15-class table does it: no asymptotic decider and no interior
//! test. An ambiguous face is split by the cube's corner count alone — with four inside corners or
//! fewer, the inside corners stay apart; with more, the complement's rule applies and they join —
//! so two cubes sharing an ambiguous face can split it differently and leave a crack. This is the
//! behaviour the decider exists to fix, kept for figures that show it.

use std::collections::HashMap;

use super::cube::{self, CubeSurface, EDGE_CORNERS};
use super::{IsoMesh, ScalarGrid};

/// Inside corners join across ambiguous face f (bit f) under the classic table's rule.
pub fn classic_face_joins(case: u8) -> u8 {
    if case.count_ones() > 4 { cube::ambiguous_faces(case) } else { 0 }
}

/// Extracts `grid` at `iso` with the classic rule, one cube at a time (vertices shared through
/// their grid edge, so only the ambiguous faces can open).
pub fn extract_classic(grid: &ScalarGrid<'_>, iso: f32) -> IsoMesh {
    let [nx, ny, nz] = grid.dims;
    let mut mesh = IsoMesh::default();
    if nx < 2 || ny < 2 || nz < 2 {
        return mesh;
    }
    let at = |x: usize, y: usize, z: usize| x + nx * (y + ny * z);
    let mut ids: HashMap<(usize, u8), u32> = HashMap::new();
    for z in 0..nz - 1 {
        for y in 0..ny - 1 {
            for x in 0..nx - 1 {
                let corner = |c: usize| {
                    let o = cube::CORNERS[c];
                    at(x + o[0] as usize, y + o[1] as usize, z + o[2] as usize)
                };
                let values: [f32; 8] = std::array::from_fn(|c| grid.data[corner(c)]);
                let case = cube::case_index(&values, iso);
                if case == 0 || case == 255 {
                    continue;
                }
                let loops = cube::build_loops(case, classic_face_joins(case));
                let point = |e: u8| {
                    let [a, b] = EDGE_CORNERS[e as usize];
                    cube::edge_point(e as usize, cube::crossing_t(values[a as usize], values[b as usize], iso))
                };
                let mut surf = CubeSurface::default();
                cube::triangulate(&loops, None, point, &mut surf);
                mesh.stats.cubes += 1;
                let mut tri_ids = [0u32; 3];
                for t in surf.triangles() {
                    for (k, &r) in t.iter().enumerate() {
                        tri_ids[k] = if (r as usize) < 12 {
                            let a = EDGE_CORNERS[r as usize][0];
                            let key = (corner(a as usize), cube::EDGE_AXIS[r as usize]);
                            *ids.entry(key).or_insert_with(|| {
                                let local = point(r);
                                let g = cube::trilinear_gradient(&values, local);
                                push_vertex(&mut mesh, [x as f32 + local[0], y as f32 + local[1], z as f32 + local[2]], g);
                                mesh.positions.len() as u32 - 1
                            })
                        } else {
                            let local = surf.extras()[r as usize - cube::CENTRE as usize];
                            let g = cube::trilinear_gradient(&values, local);
                            push_vertex(&mut mesh, [x as f32 + local[0], y as f32 + local[1], z as f32 + local[2]], g);
                            mesh.positions.len() as u32 - 1
                        };
                    }
                    mesh.indices.extend_from_slice(&tri_ids);
                }
            }
        }
    }
    mesh
}

fn push_vertex(mesh: &mut IsoMesh, p: [f32; 3], g: [f32; 3]) {
    let len = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
    mesh.positions.push(p);
    mesh.normals.push(if len > 0.0 && len.is_finite() { g.map(|c| c / len) } else { [0.0, 1.0, 0.0] });
}
