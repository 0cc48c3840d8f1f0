//! `[terrain.cube]`: one marching cube (or a few, a small grid) drawn as the seed's case figures
//! draw it — the grid's edges as lines, its samples as dots (inside dark, outside light), the
//! points where the surface crosses an edge, and the surface in one colour.

use super::field::GridFrame;
use super::mc::cube::crossing_t;
use crate::frame::{IDENTITY, Material, MeshData, MeshInstance, MeshRef, Wire, srgb8};
use crate::scene::terrain::{CubeLook, CubeSpec, CubeValues, case_corners, corner_sample, cube_samples};

/// The grid's samples (x fastest), a class resolved to its cube (see
/// [`super::mc::classes::representative`]).
pub fn samples(cube: &CubeSpec) -> Vec<f64> {
    match &cube.values {
        CubeValues::Samples(s) => s.clone(),
        CubeValues::Class { class, iso } => cube_samples(case_corners(super::mc::classes::representative(*class).unwrap_or(0), *iso)),
    }
}

/// A single cube's values at Bourke's corners 0..7; `None` for a grid of several cubes.
pub fn corners(dims: [usize; 3], samples: &[f64]) -> Option<[f64; 8]> {
    (dims == [2, 2, 2]).then(|| std::array::from_fn(|c| samples[corner_sample(c)]))
}

/// The trilinear interpolant of `samples` (a `dims` grid, x fastest) at grid point `g`: the field
/// the cubes stand for, which dual contouring fits its planes to.
pub fn trilinear(dims: [usize; 3], samples: &[f64], g: [f64; 3]) -> f64 {
    let [nx, ny, nz] = dims;
    let cell: [usize; 3] = std::array::from_fn(|a| (g[a].floor().max(0.0) as usize).min(dims[a] - 2));
    let f: [f64; 3] = std::array::from_fn(|a| g[a] - cell[a] as f64);
    let at = |x: usize, y: usize, z: usize| samples[x.min(nx - 1) + nx * (y.min(ny - 1) + ny * z.min(nz - 1))];
    let mut sum = 0.0;
    for k in 0..8usize {
        let o = [k & 1, k >> 1 & 1, k >> 2];
        let w: f64 = (0..3).map(|a| if o[a] == 1 { f[a] } else { 1.0 - f[a] }).product();
        sum += w * at(cell[0] + o[0], cell[1] + o[1], cell[2] + o[2]);
    }
    sum
}

/// The colour (linear) of a sample dot inside the surface (below the iso level): near black.
pub const INSIDE: [f32; 3] = [0.02, 0.02, 0.02];
/// The colour (linear) of a sample dot outside: white.
pub const OUTSIDE: [f32; 3] = [0.95, 0.95, 0.95];

/// The colour (linear) of the edge crossings: the surface's, darker.
pub fn crossing_color(look: &crate::scene::terrain::CubeLook) -> [f32; 3] {
    look.color.to_linear().map(|x| x * 0.6)
}

/// The grid's edges, sample dots and crossing points (of `samples`, a `dims` grid), in world
/// space, drawn as `look` says.
pub fn decorations(dims: [usize; 3], look: &CubeLook, samples: &[f64], grid: &GridFrame, iso: f32, wire: Wire) -> Vec<MeshInstance> {
    let [nx, ny, nz] = dims;
    let world = |p: [usize; 3]| grid.world(p.map(|v| v as f32));
    let value = |p: [usize; 3]| samples[p[0] + nx * (p[1] + ny * p[2])] as f32;
    let side = (0..3).map(|a| grid.spacing[a]).fold(f64::INFINITY, f64::min) as f32;
    let plain = |mesh: MeshData, wire: Option<Wire>| MeshInstance {
        mesh: MeshRef::new(mesh),
        transform: IDENTITY,
        material: Material { roughness: 0.6, specular: 0.15, casts_shadow: false, wire, ..Material::default() },
        deform: None,
    };
    let mut points = Vec::new();
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                points.push([x, y, z]);
            }
        }
    }
    // every grid edge: from each sample one step along each axis
    let edges: Vec<([usize; 3], [usize; 3])> = points
        .iter()
        .flat_map(|&p| {
            (0..3).filter_map(move |a| {
                let mut q = p;
                q[a] += 1;
                (q[a] < [nx, ny, nz][a]).then_some((p, q))
            })
        })
        .collect();
    let mut out = vec![plain(MeshData::lines(&edges.iter().map(|&(a, b)| (world(a), world(b))).collect::<Vec<_>>()), Some(wire))];
    let r = look.dot as f32 * side;
    if r <= 0.0 {
        return out;
    }
    let mut dots = MeshData::default();
    for &p in &points {
        let color = srgb8(if value(p) < iso { INSIDE } else { OUTSIDE }, 255);
        append(&mut dots, MeshData::sphere(world(p), r, 10, color));
    }
    out.push(plain(dots, None));
    if look.crossings {
        let mut marks = MeshData::default();
        let color = srgb8(crossing_color(look), 255);
        for &(a, b) in &edges {
            let (va, vb) = (value(a), value(b));
            if (va < iso) != (vb < iso) {
                let t = crossing_t(va, vb, iso);
                let (wa, wb) = (world(a), world(b));
                let p = std::array::from_fn(|k| wa[k] + (wb[k] - wa[k]) * t);
                append(&mut marks, MeshData::sphere(p, r * 0.6, 8, color));
            }
        }
        if !marks.indices.is_empty() {
            out.push(plain(marks, None));
        }
    }
    out
}

fn append(into: &mut MeshData, m: MeshData) {
    let base = into.positions.len() as u32;
    into.positions.extend(m.positions);
    into.normals.extend(m.normals);
    into.colors.extend(m.colors);
    into.indices.extend(m.indices.iter().map(|i| i + base));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_becomes_its_smallest_case() {
        let cube = |values| CubeSpec { dims: [2, 2, 2], values };
        // class 2 (two corners sharing an edge): corners 0 and 1, one unit below iso
        let c = corners([2, 2, 2], &samples(&cube(CubeValues::Class { class: 2, iso: 0.5 }))).unwrap();
        assert_eq!(c, [-0.5, -0.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5]);
        assert_eq!(corners([3, 2, 2], &[0.0; 12]), None);
    }

    #[test]
    fn the_interpolant_meets_the_samples() {
        let samples: Vec<f64> = (0..12).map(|i| i as f64 * 0.5 - 2.0).collect();
        for z in 0..2 {
            for y in 0..2 {
                for x in 0..3 {
                    let want = samples[x + 3 * (y + 2 * z)];
                    assert_eq!(trilinear([3, 2, 2], &samples, [x as f64, y as f64, z as f64]), want, "({x}, {y}, {z})");
                }
            }
        }
        // halfway along x between the first two samples
        assert_eq!(trilinear([3, 2, 2], &samples, [0.5, 0.0, 0.0]), -1.75);
    }
}
