//! The terrain's scalar field at a moment in time: layered-noise height, a 3-D overhang term and SDF
//! primitives joined by smooth CSG, sampled onto the grid. Negative inside the ground.

use glam::DVec3;
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
pub(super) enum Sdf {
    Sphere { c: DVec3, r: f64 },
    Box { c: DVec3, half: DVec3, round: f64 },
    Capsule { a: DVec3, b: DVec3, r: f64 },
    Plane { n: DVec3, d: f64 },
}

impl Sdf {
    fn distance(&self, p: DVec3) -> f64 {
        match *self {
            Sdf::Sphere { c, r } => (p - c).length() - r,
            Sdf::Box { c, half, round } => {
                let q = (p - c).abs() - (half - round).max(DVec3::ZERO);
                let outside = q.max(DVec3::ZERO).length();
                let inside = q.max_element().min(0.0);
                outside + inside - round
            }
            Sdf::Capsule { a, b, r } => {
                let (pa, ba) = (p - a, b - a);
                let bb = ba.dot(ba);
                let h = if bb > 0.0 { (pa.dot(ba) / bb).clamp(0.0, 1.0) } else { 0.0 };
                (pa - ba * h).length() - r
            }
            Sdf::Plane { n, d } => n.dot(p) - d,
        }
    }
}

/// The field so far `f` with one shape at distance `d` combined into it.
fn combine(f: f64, d: f64, op: CsgOp, k: f64) -> f64 {
    match op {
        CsgOp::Union => smooth_min(f, d, k),
        CsgOp::Subtract => smooth_max(f, -d, k),
        CsgOp::Intersect => smooth_max(f, d, k),
    }
}

/// glam's component `max` (`if a > b { a } else { b }`), so a value computed here has the bits
/// [`Sdf::distance`] gives.
fn gmax(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// One shape's distance along a row of samples (y and z fixed): what does not change along x is
/// worked out once. Every operation is [`Sdf::distance`]'s, in its order, so the bits are its.
#[derive(Clone, Copy, Debug)]
pub(super) enum RowSdf {
    /// `c.x`, `half − round` along x (clamped at 0), the y and z parts of `q`, and the rounding.
    Box {
        cx: f64,
        hx: f64,
        qy: f64,
        qz: f64,
        round: f64,
    },
    /// `c.x`, `dy²`, `dz²`, radius.
    Sphere {
        cx: f64,
        dy2: f64,
        dz2: f64,
        r: f64,
    },
    Other {
        sdf: Sdf,
        y: f64,
        z: f64,
    },
}

impl RowSdf {
    fn of(sdf: &Sdf, y: f64, z: f64) -> Self {
        match *sdf {
            Sdf::Box { c, half, round } => {
                let h = (half - round).max(DVec3::ZERO);
                RowSdf::Box { cx: c.x, hx: h.x, qy: (y - c.y).abs() - h.y, qz: (z - c.z).abs() - h.z, round }
            }
            Sdf::Sphere { c, r } => RowSdf::Sphere { cx: c.x, dy2: (y - c.y) * (y - c.y), dz2: (z - c.z) * (z - c.z), r },
            other => RowSdf::Other { sdf: other, y, z },
        }
    }

    pub(super) fn distance(&self, x: f64) -> f64 {
        match *self {
            RowSdf::Box { cx, hx, qy, qz, round } => {
                let qx = (x - cx).abs() - hx;
                let (mx, my, mz) = (gmax(qx, 0.0), gmax(qy, 0.0), gmax(qz, 0.0));
                let outside = ((mx * mx) + (my * my) + (mz * mz)).sqrt();
                let inside = gmax(qx, gmax(qy, qz)).min(0.0);
                outside + inside - round
            }
            RowSdf::Sphere { cx, dy2, dz2, r } => {
                let dx = x - cx;
                ((dx * dx) + dy2 + dz2).sqrt() - r
            }
            RowSdf::Other { sdf, y, z } => sdf.distance(DVec3::new(x, y, z)),
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

/// The field from its ground term with the shapes in, the 3-D term and the walls: the last steps
/// of [`FieldAt::value`], in its order (so a cached ground term gives the same bits).
pub(super) fn finish(mut f: f64, over: Option<f64>, wall: Option<f64>) -> f64 {
    if let Some(o) = over {
        f += o;
    }
    if let Some(w) = wall {
        f = f.max(w);
    }
    f
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
            Sdf::Box { c: DVec3::new(0.0, spec.size[1] / 2.0, 0.0), half: half.into(), round: 0.0 }
        });
        let h = &spec.height;
        let shapes = spec
            .shapes
            .iter()
            .map(|s| {
                let sdf = match &s.primitive {
                    Primitive::Sphere { center, radius } => {
                        Sdf::Sphere { c: center.at(time, duration).into(), r: radius.scalar_at(time, duration) }
                    }
                    Primitive::Box { center, size, rounding } => {
                        let half = DVec3::from(*size) / 2.0;
                        Sdf::Box { c: center.at(time, duration).into(), half, round: rounding.min(half.min_element()) }
                    }
                    Primitive::Capsule { a, b, radius } => {
                        Sdf::Capsule { a: a.at(time, duration).into(), b: b.at(time, duration).into(), r: radius.scalar_at(time, duration) }
                    }
                    Primitive::Plane { normal, offset } => Sdf::Plane { n: (*normal).into(), d: offset.scalar_at(time, duration) },
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

    /// The field at world point `p`.
    pub fn at(&self, p: [f64; 3]) -> f64 {
        self.value(p, self.height(p[0], p[2]))
    }

    /// The field at grid point `g` of `grid` (grid units, fractional between samples).
    pub fn at_grid(&self, grid: &GridFrame, g: [f64; 3]) -> f64 {
        self.at(std::array::from_fn(|a| grid.origin[a] + g[a] * grid.spacing[a]))
    }

    /// The field at world point `p`, given the ground height of its column.
    fn value(&self, p: [f64; 3], ground: f64) -> f64 {
        let f = self.shaped(p[1] - ground, p);
        let (over, wall) = (self.overhang_at(p), self.wall_at(p));
        finish(f, over, wall)
    }

    /// The ground term `f` with every shape combined into it, in order.
    pub(super) fn shaped(&self, mut f: f64, p: [f64; 3]) -> f64 {
        for (sdf, op, k) in &self.shapes {
            f = combine(f, sdf.distance(p.into()), *op, *k);
        }
        f
    }

    /// Each shape's row evaluator for the row at (`y`, `z`), with its operation and blend radius.
    pub(super) fn row(&self, y: f64, z: f64) -> Vec<(RowSdf, CsgOp, f64)> {
        self.shapes.iter().map(|(sdf, op, k)| (RowSdf::of(sdf, y, z), *op, *k)).collect()
    }

    /// [`FieldAt::shaped`] along a row prepared by [`FieldAt::row`].
    pub(super) fn shaped_row(row: &[(RowSdf, CsgOp, f64)], mut f: f64, x: f64) -> f64 {
        for (sdf, op, k) in row {
            f = combine(f, sdf.distance(x), *op, *k);
        }
        f
    }

    /// The 3-D term at `p` (it roughens everything, shapes included, so carved and added rock
    /// looks like rock); `None` when its amplitude is 0.
    pub(super) fn overhang_at(&self, p: [f64; 3]) -> Option<f64> {
        (self.overhang != 0.0).then(|| {
            let o = &self.spec.overhang;
            let q = p.map(|c| c * o.frequency);
            self.overhang * self.overhang_noise.fbm3(q[0], q[1], q[2], o.octaves, 2.0, 0.5)
        })
    }

    /// The distance to the closed terrain's walls at `p`; `None` when it is open.
    pub(super) fn wall_at(&self, p: [f64; 3]) -> Option<f64> {
        self.walls.as_ref().map(|w| w.distance(p.into()))
    }

    /// For each shape, its operation and blend radius, and a lower bound of its signed distance
    /// over the box `lo..hi` (`None` where none is known: the box reaches into the shape's
    /// bounds, or the shape is a plane).
    pub(super) fn shape_bounds(&self, lo: DVec3, hi: DVec3) -> impl Iterator<Item = (CsgOp, f64, Option<f64>)> + '_ {
        self.shapes.iter().map(move |(sdf, op, k)| {
            let gap = |blo: DVec3, bhi: DVec3| {
                let g = (blo - hi).max(lo - bhi).max(DVec3::ZERO);
                (g != DVec3::ZERO).then(|| g.length())
            };
            let bound = match *sdf {
                Sdf::Sphere { c, r } => {
                    let d = (c - c.clamp(lo, hi)).length() - r;
                    (d > 0.0).then_some(d)
                }
                // a rounded box lies inside its unrounded bounds, and outside them its distance
                // is the true Euclidean distance
                Sdf::Box { c, half, .. } => gap(c - half, c + half),
                Sdf::Capsule { a, b, r } => gap(a.min(b) - DVec3::splat(r), a.max(b) + DVec3::splat(r)),
                Sdf::Plane { .. } => None,
            };
            (*op, *k, bound)
        })
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::scene::{self, KindSpec};
    use crate::sim::rng::Rng;

    fn spec(terrain: &str) -> TerrainSpec {
        let text = format!("kind = \"terrain\"\n[render]\nframes = 11\nfps = 10\n[terrain]\n{terrain}\n");
        let s = scene::parse(&text, Path::new("t.toml")).unwrap_or_else(|e| panic!("{e}"));
        let KindSpec::Terrain(t) = s.sim.kind else { panic!("a terrain scene") };
        t
    }

    /// `f` on the field of `terrain` at time 0 (duration 1 s), with the noises of seed 5.
    fn with_field<R>(terrain: &str, f: impl FnOnce(&FieldAt) -> R) -> R {
        let spec = spec(terrain);
        let (h, o) = (Noise::new(&mut Rng::new(5)), Noise::new(&mut Rng::new(6)));
        f(&FieldAt::new(&spec, &h, &o, 0.0, 1.0))
    }

    const FLAT: &str = "size = [10.0, 6.0, 10.0]\nclosed = false\n[terrain.height]\nbase = 2.0\namplitude = 0.0\n";

    #[test]
    fn smooth_min_blends_only_within_its_radius() {
        for (a, b) in [(0.3, -0.2), (-1.0, 2.0), (0.5, 0.5)] {
            assert_eq!(smooth_min(a, b, 0.0), f64::min(a, b), "k = 0 is the plain minimum");
            assert_eq!(smooth_min(a, b, 0.4), smooth_min(b, a, 0.4), "symmetric");
            assert!(smooth_min(a, b, 0.4) <= f64::min(a, b), "never above the minimum");
            assert_eq!(smooth_max(a, b, 0.4), -smooth_min(-a, -b, 0.4));
        }
        // farther apart than k: untouched; equal: lowered by k/4, the most it ever is
        assert_eq!(smooth_min(1.0, 1.5, 0.4), 1.0);
        assert!((smooth_min(1.0, 1.0, 0.4) - 0.9).abs() < 1e-15);
        // continuous where the blend starts
        let edge = smooth_min(1.0, 1.4 - 1e-9, 0.4);
        assert!((edge - 1.0).abs() < 1e-9, "{edge}");
    }

    #[test]
    fn primitives_measure_signed_distance() {
        let sphere = Sdf::Sphere { c: DVec3::from([1.0, 2.0, 3.0]), r: 0.5 };
        assert_eq!(sphere.distance(DVec3::from([1.0, 2.0, 3.0])), -0.5);
        assert!((sphere.distance(DVec3::from([1.0, 2.0, 5.0])) - 1.5).abs() < 1e-12);
        let cube = Sdf::Box { c: DVec3::from([0.0; 3]), half: DVec3::from([1.0, 2.0, 3.0]), round: 0.0 };
        assert_eq!(cube.distance(DVec3::from([0.0; 3])), -1.0, "inside: distance to the nearest face");
        assert_eq!(cube.distance(DVec3::from([3.0, 0.0, 0.0])), 2.0);
        assert!((cube.distance(DVec3::from([2.0, 3.0, 0.0])) - 2f64.sqrt()).abs() < 1e-12, "beyond an edge: to the edge");
        let rounded = Sdf::Box { c: DVec3::from([0.0; 3]), half: DVec3::from([1.0; 3]), round: 0.25 };
        assert_eq!(rounded.distance(DVec3::from([2.0, 0.0, 0.0])), 1.0, "faces stay where they were");
        let corner = rounded.distance(DVec3::from([2.0, 2.0, 2.0]));
        assert!((corner - (3f64.sqrt() * 1.25 - 0.25)).abs() < 1e-12, "corners are rounded: {corner}");
        let capsule = Sdf::Capsule { a: DVec3::from([0.0; 3]), b: DVec3::from([0.0, 4.0, 0.0]), r: 1.0 };
        assert_eq!(capsule.distance(DVec3::from([3.0, 2.0, 0.0])), 2.0, "beside the segment");
        assert_eq!(capsule.distance(DVec3::from([0.0, 7.0, 0.0])), 2.0, "past its end");
        let plane = Sdf::Plane { n: DVec3::from([0.0, 1.0, 0.0]), d: 1.5 };
        assert_eq!(plane.distance(DVec3::from([9.0, 1.0, -4.0])), -0.5);
    }

    #[test]
    fn the_field_is_negative_in_the_ground_and_positive_in_the_air() {
        with_field(FLAT, |f| {
            assert_eq!(f.height(3.0, -2.0), 2.0);
            assert_eq!(f.value([0.0, 1.0, 0.0], f.height(0.0, 0.0)), -1.0);
            assert_eq!(f.value([0.0, 2.5, 0.0], f.height(0.0, 0.0)), 0.5);
        });
        // the layered noise moves the ground by at most its amplitude times Σ gainᵒ
        with_field("[terrain.height]\nbase = 3.0\namplitude = 1.0\noctaves = 4\ngain = 0.5\n", |f| {
            let (mut lo, mut hi) = (f64::MAX, f64::MIN);
            for i in 0..400 {
                let h = f.height(i as f64 * 0.173 - 30.0, i as f64 * 0.091);
                (lo, hi) = (lo.min(h), hi.max(h));
            }
            assert!(hi - lo > 0.5, "the ground is not flat: {lo}..{hi}");
            assert!(lo > 3.0 - 1.875 * 1.5 && hi < 3.0 + 1.875 * 1.5, "{lo}..{hi}");
        });
    }

    #[test]
    fn shapes_add_carve_and_intersect_in_order() {
        let shape = |op: &str, smooth: f64| {
            format!(
                "{FLAT}[[terrain.shapes]]\ntype = \"sphere\"\ncenter = [0.0, 2.0, 0.0]\nradius = 1.0\nop = \"{op}\"\nsmooth = {smooth}\n"
            )
        };
        let at = |terrain: &str, p: [f64; 3]| with_field(terrain, |f| f.value(p, f.height(p[0], p[2])));
        // a union makes the sphere's air part solid; a subtraction hollows its ground part
        assert!(at(&shape("union", 0.0), [0.0, 2.8, 0.0]) < 0.0);
        assert!(at(&shape("subtract", 0.0), [0.0, 1.2, 0.0]) > 0.0);
        // an intersection keeps only the ground inside the sphere
        assert!(at(&shape("intersect", 0.0), [3.0, 1.0, 0.0]) > 0.0);
        assert!(at(&shape("intersect", 0.0), [0.0, 1.5, 0.0]) < 0.0);
        // a smooth union fills the crease where the sphere meets the ground
        let crease = [1.05, 2.1, 0.0];
        assert!(at(&shape("union", 0.8), crease) < at(&shape("union", 0.0), crease));
        assert!(at(&shape("union", 0.8), crease) < 0.0, "the fillet is solid");
    }

    #[test]
    fn a_closed_block_is_air_outside_its_walls_and_floor() {
        let closed = FLAT.replace("closed = false", "closed = true");
        with_field(&closed, |f| {
            let g = GridFrame::of(f.spec);
            // the grid's outermost samples are outside the walls, so the surface closes inside
            assert!(f.value([g.origin[0], 1.0, 0.0], 2.0) > 0.0);
            assert!(f.value([0.0, 0.0, 0.0], 2.0) > 0.0);
            assert!(f.value([0.0, 1.0, 0.0], 2.0) < 0.0, "inside it is ground as before");
        });
    }

    #[test]
    fn the_grid_spans_the_size_and_sampling_finds_no_fault() {
        let spec = spec("resolution = [9, 5, 7]\nsize = [8.0, 4.0, 6.0]\n");
        let g = GridFrame::of(&spec);
        assert_eq!(g.world([0.0, 0.0, 0.0]), [-4.0, 0.0, -3.0]);
        assert_eq!(g.world([8.0, 4.0, 6.0]), [4.0, 4.0, 3.0]);
        let (h, o) = (Noise::new(&mut Rng::new(1)), Noise::new(&mut Rng::new(2)));
        let field = FieldAt::new(&spec, &h, &o, 0.0, 1.0);
        let mut out = Vec::new();
        assert_eq!(field.sample(&g, &mut out), None);
        assert_eq!(out.len(), 9 * 5 * 7);
        // x fastest, then y, then z: sample (i, j, k) is the field at its world point
        let (i, j, k) = (3, 2, 5);
        let p = g.world([i as f32, j as f32, k as f32]).map(f64::from);
        let expected = field.value(p, field.height(p[0], p[2])) as f32;
        assert!((out[(k * 5 + j) * 9 + i] - expected).abs() < 1e-5);
    }

    #[test]
    fn animated_shapes_move_with_time() {
        let spec = spec(&format!(
            "{FLAT}[[terrain.shapes]]\ntype = \"sphere\"\ncenter = [[0.0, 0.0, 4.0, 0.0], [1.0, 3.0, 4.0, 0.0]]\nradius = 0.5\n"
        ));
        let (h, o) = (Noise::new(&mut Rng::new(1)), Noise::new(&mut Rng::new(2)));
        let at = |t: f64, x: f64| {
            let f = FieldAt::new(&spec, &h, &o, t, 1.0);
            f.value([x, 4.0, 0.0], f.height(x, 0.0))
        };
        assert!(at(0.0, 0.0) < 0.0 && at(0.0, 3.0) > 0.0);
        assert!(at(1.0, 0.0) > 0.0 && at(1.0, 3.0) < 0.0);
    }
}
