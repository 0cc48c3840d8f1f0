//! The terrain's scalar field at a moment in time: layered-noise height, a 3-D overhang term and SDF
//! primitives joined by smooth CSG, sampled onto the grid. Negative inside the ground.

use rayon::prelude::*;

use crate::scene::terrain::{CsgOp, Primitive, TerrainSpec};
use crate::sim::noise::Noise;

/// The grid's placement in the world: sample (i, j, k) sits at `origin + (i, j, k) · spacing`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridFrame {
    pub dims: [usize; 3],
    pub origin: [f64; 3],
    pub spacing: [f64; 3],
}

impl GridFrame {
    /// x and z centred on 0, y from 0 up.
    pub fn of(spec: &TerrainSpec) -> Self {
        let dims = spec.resolution;
        let spacing = std::array::from_fn(|a| spec.size[a] / (dims[a] - 1) as f64);
        GridFrame { dims, origin: [-spec.size[0] / 2.0, 0.0, -spec.size[2] / 2.0], spacing }
    }

    pub fn world(&self, grid: [f32; 3]) -> [f32; 3] {
        std::array::from_fn(|a| (self.origin[a] + grid[a] as f64 * self.spacing[a]) as f32)
    }
}

/// One primitive with its animated values resolved.
#[derive(Clone, Copy, Debug)]
enum Sdf {
    Sphere { c: [f64; 3], r: f64 },
    Box { c: [f64; 3], half: [f64; 3], round: f64 },
    Capsule { a: [f64; 3], b: [f64; 3], r: f64 },
    Plane { n: [f64; 3], d: f64 },
}

fn length(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

impl Sdf {
    fn distance(&self, p: [f64; 3]) -> f64 {
        match *self {
            Sdf::Sphere { c, r } => length([p[0] - c[0], p[1] - c[1], p[2] - c[2]]) - r,
            Sdf::Box { c, half, round } => {
                let q: [f64; 3] = std::array::from_fn(|i| (p[i] - c[i]).abs() - (half[i] - round).max(0.0));
                let outside = length(q.map(|v| v.max(0.0)));
                let inside = q[0].max(q[1]).max(q[2]).min(0.0);
                outside + inside - round
            }
            Sdf::Capsule { a, b, r } => {
                let pa = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
                let ba = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                let bb = ba[0] * ba[0] + ba[1] * ba[1] + ba[2] * ba[2];
                let h = if bb > 0.0 { ((pa[0] * ba[0] + pa[1] * ba[1] + pa[2] * ba[2]) / bb).clamp(0.0, 1.0) } else { 0.0 };
                length([pa[0] - ba[0] * h, pa[1] - ba[1] * h, pa[2] - ba[2] * h]) - r
            }
            Sdf::Plane { n, d } => n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - d,
        }
    }
}

/// Polynomial smooth minimum (blend radius `k`, exact `min` for k = 0).
pub fn smooth_min(a: f64, b: f64, k: f64) -> f64 {
    if k <= 0.0 {
        return a.min(b);
    }
    let h = (k - (a - b).abs()).max(0.0) / k;
    a.min(b) - h * h * k * 0.25
}

pub fn smooth_max(a: f64, b: f64, k: f64) -> f64 {
    -smooth_min(-a, -b, k)
}

/// The field of `spec` frozen at one time.
pub struct FieldAt<'a> {
    spec: &'a TerrainSpec,
    height_noise: &'a Noise,
    overhang_noise: &'a Noise,
    base: f64,
    amplitude: f64,
    offset: [f64; 2],
    overhang: f64,
    shapes: Vec<(Sdf, CsgOp, f64)>,
    /// The grid's box shrunk by half a cell, intersected with the field when the terrain is closed.
    walls: Option<Sdf>,
}

impl<'a> FieldAt<'a> {
    pub fn new(spec: &'a TerrainSpec, height_noise: &'a Noise, overhang_noise: &'a Noise, time: f64, duration: f64) -> Self {
        let grid = GridFrame::of(spec);
        let walls = spec.closed.then(|| {
            let half: [f64; 3] = std::array::from_fn(|a| spec.size[a] / 2.0 - grid.spacing[a] * 0.5);
            Sdf::Box { c: [0.0, spec.size[1] / 2.0, 0.0], half, round: 0.0 }
        });
        let h = &spec.height;
        let shapes = spec
            .shapes
            .iter()
            .map(|s| {
                let sdf = match &s.primitive {
                    Primitive::Sphere { center, radius } => {
                        Sdf::Sphere { c: center.at(time, duration), r: radius.scalar_at(time, duration) }
                    }
                    Primitive::Box { center, size, rounding } => {
                        let half = size.map(|v| v / 2.0);
                        Sdf::Box { c: center.at(time, duration), half, round: rounding.min(half[0]).min(half[1]).min(half[2]) }
                    }
                    Primitive::Capsule { a, b, radius } => {
                        Sdf::Capsule { a: a.at(time, duration), b: b.at(time, duration), r: radius.scalar_at(time, duration) }
                    }
                    Primitive::Plane { normal, offset } => Sdf::Plane { n: *normal, d: offset.scalar_at(time, duration) },
                };
                (sdf, s.op, s.smooth.scalar_at(time, duration))
            })
            .collect();
        FieldAt {
            spec,
            height_noise,
            overhang_noise,
            base: h.base.scalar_at(time, duration),
            amplitude: h.amplitude.scalar_at(time, duration),
            offset: h.offset.at(time, duration),
            overhang: spec.overhang.amplitude.scalar_at(time, duration),
            shapes,
            walls,
        }
    }

    /// Ground height of the layered noise at (x, z).
    pub fn height(&self, x: f64, z: f64) -> f64 {
        let h = &self.spec.height;
        let f = h.frequency;
        self.base
            + self.amplitude * self.height_noise.fbm2((x + self.offset[0]) * f, (z + self.offset[1]) * f, h.octaves, h.lacunarity, h.gain)
    }

    /// The field at world point `p`, given the ground height of its column.
    fn value(&self, p: [f64; 3], ground: f64) -> f64 {
        let mut f = p[1] - ground;
        for (sdf, op, k) in &self.shapes {
            let d = sdf.distance(p);
            f = match op {
                CsgOp::Union => smooth_min(f, d, *k),
                CsgOp::Subtract => smooth_max(f, -d, *k),
                CsgOp::Intersect => smooth_max(f, d, *k),
            };
        }
        // The 3-D term roughens everything, shapes included, so carved and added rock looks like rock.
        if self.overhang != 0.0 {
            let o = &self.spec.overhang;
            let q = p.map(|c| c * o.frequency);
            f += self.overhang * self.overhang_noise.fbm3(q[0], q[1], q[2], o.octaves, 2.0, 0.5);
        }
        if let Some(w) = &self.walls {
            f = f.max(w.distance(p));
        }
        f
    }

    /// Samples the field onto `grid` (x fastest) into `out`, in parallel over z-slices; each sample
    /// is independent, so the result does not depend on the thread count. Returns the first
    /// non-finite sample's index, if any.
    pub fn sample(&self, grid: &GridFrame, out: &mut Vec<f32>) -> Option<usize> {
        let [nx, ny, nz] = grid.dims;
        out.clear();
        out.resize(nx * ny * nz, 0.0);
        out.par_chunks_mut(nx * ny).enumerate().for_each(|(k, slice)| {
            let z = grid.origin[2] + k as f64 * grid.spacing[2];
            let heights: Vec<f64> = (0..nx).map(|i| self.height(grid.origin[0] + i as f64 * grid.spacing[0], z)).collect();
            for j in 0..ny {
                let y = grid.origin[1] + j as f64 * grid.spacing[1];
                for (i, &ground) in heights.iter().enumerate() {
                    let x = grid.origin[0] + i as f64 * grid.spacing[0];
                    slice[j * nx + i] = self.value([x, y, z], ground) as f32;
                }
            }
        });
        out.iter().position(|v| !v.is_finite())
    }
}
