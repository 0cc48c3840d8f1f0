//! Re-sampling an animated field where it can change. When only the shapes move (the ground's
//! height and its 3-D term are constant in time), every sample's ground term, 3-D term and wall
//! distance are worked out once. Each frame then visits runs of [`RUN`] samples along x: a run that
//! no shape can reach — each shape's distance over the run's box is at least the blend radius
//! past the ground term, so the smooth minimum returns the ground term exactly — takes the
//! shapeless field as it is; the others combine the shapes into their cached ground terms. The
//! arithmetic is the full sampler's, in its order, so the field is the same to the bit.

use glam::DVec3;
use rayon::prelude::*;

use super::field::{FieldAt, GridFrame, finish};
use crate::scene::terrain::CsgOp;

/// Samples per run along x.
pub const RUN: usize = 16;
/// Room left between a bound and the blend radius, metres (rounding in the blend's own sums).
const MARGIN: f64 = 1e-6;

/// The parts of the field that do not change, per sample (x fastest).
pub struct StaticParts {
    dims: [usize; 3],
    /// `y − ground height`.
    ground: Vec<f64>,
    /// The 3-D term (empty when its amplitude is 0) and the wall distance (empty when open).
    over: Vec<f64>,
    wall: Vec<f64>,
    /// The field without shapes.
    plain: Vec<f32>,
    /// Per run: the smallest and largest ground term in it.
    runs: Vec<(f64, f64)>,
}

fn runs_per_row(nx: usize) -> usize {
    nx.div_ceil(RUN)
}

impl StaticParts {
    /// Works the constant parts out at every sample of `grid` (in parallel over z-slices).
    pub fn new(at: &FieldAt, grid: &GridFrame) -> Self {
        let [nx, ny, nz] = grid.dims;
        let slices: Vec<_> = (0..nz)
            .into_par_iter()
            .map(|k| {
                let z = grid.origin[2] + k as f64 * grid.spacing[2];
                let heights: Vec<f64> = (0..nx).map(|i| at.height(grid.origin[0] + i as f64 * grid.spacing[0], z)).collect();
                let (mut ground, mut over, mut wall, mut plain) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for j in 0..ny {
                    let y = grid.origin[1] + j as f64 * grid.spacing[1];
                    for (i, &h) in heights.iter().enumerate() {
                        let p = [grid.origin[0] + i as f64 * grid.spacing[0], y, z];
                        let (o, w) = (at.overhang_at(p), at.wall_at(p));
                        ground.push(y - h);
                        over.extend(o);
                        wall.extend(w);
                        plain.push(finish(y - h, o, w) as f32);
                    }
                }
                (ground, over, wall, plain)
            })
            .collect();
        let mut parts =
            StaticParts { dims: grid.dims, ground: Vec::new(), over: Vec::new(), wall: Vec::new(), plain: Vec::new(), runs: Vec::new() };
        for (g, o, w, p) in slices {
            parts.ground.extend(g);
            parts.over.extend(o);
            parts.wall.extend(w);
            parts.plain.extend(p);
        }
        for row in parts.ground.chunks(nx) {
            for run in row.chunks(RUN) {
                parts.runs.push(run.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &g| (lo.min(g), hi.max(g))));
            }
        }
        parts
    }

    /// Whether these parts were worked out for `grid`.
    pub fn fits(&self, grid: &GridFrame) -> bool {
        self.dims == grid.dims
    }

    /// Samples `at` onto `grid` into `out` from the cached parts. Returns the first non-finite
    /// sample's index, if any, and how many samples were worked out (the rest were copied).
    pub fn sample(&self, at: &FieldAt, grid: &GridFrame, out: &mut Vec<f32>) -> (Option<usize>, usize) {
        let [nx, ny, nz] = grid.dims;
        let per_row = runs_per_row(nx);
        out.clear();
        out.resize(nx * ny * nz, 0.0);
        let worked: usize = out
            .par_chunks_mut(nx * ny)
            .enumerate()
            .map(|(k, slice)| {
                let z = grid.origin[2] + k as f64 * grid.spacing[2];
                let mut worked = 0;
                for j in 0..ny {
                    let y = grid.origin[1] + j as f64 * grid.spacing[1];
                    let mut row = None;
                    for r in 0..per_row {
                        let (i0, i1) = (r * RUN, ((r + 1) * RUN).min(nx));
                        let base = (k * ny + j) * nx;
                        let x = |i: usize| grid.origin[0] + i as f64 * grid.spacing[0];
                        let (lo, hi) = (DVec3::new(x(i0), y, z), DVec3::new(x(i1 - 1), y, z));
                        let (g_lo, g_hi) = self.runs[(k * ny + j) * per_row + r];
                        let reached = at.shape_bounds(lo, hi).any(|(op, k, bound)| match (op, bound) {
                            (CsgOp::Union, Some(d)) => d < g_hi + k + MARGIN,
                            (CsgOp::Subtract, Some(d)) => d < -g_lo + k + MARGIN,
                            _ => true,
                        });
                        let dst = &mut slice[j * nx + i0..j * nx + i1];
                        if !reached {
                            dst.copy_from_slice(&self.plain[base + i0..base + i1]);
                            continue;
                        }
                        worked += i1 - i0;
                        let row = row.get_or_insert_with(|| at.row(y, z));
                        for (i, v) in (i0..i1).zip(dst.iter_mut()) {
                            let s = base + i;
                            let f = FieldAt::shaped_row(row, self.ground[s], x(i));
                            *v = finish(f, self.over.get(s).copied(), self.wall.get(s).copied()) as f32;
                        }
                    }
                }
                worked
            })
            .sum();
        (out.iter().position(|v| !v.is_finite()), worked)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::kinds::FromScene;
    use crate::scene;
    use crate::sim::Simulation;
    use crate::sim::terrain::TerrainSim;

    /// Both samplers over every frame of `scene`: the same field to the bit, the same state.
    fn same_as_full(scene: &scene::Scene, frames: impl Iterator<Item = u32>) {
        let mut partial = TerrainSim::from_scene(scene).expect("a terrain scene");
        let mut full = TerrainSim::from_scene(scene).expect("a terrain scene");
        full.full_resample = true;
        for f in frames {
            partial.mesh_at(f);
            full.mesh_at(f);
            let same = partial.field.iter().zip(&full.field).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same && partial.field.len() == full.field.len(), "frame {f}: the fields differ");
            assert_eq!(partial.digest(), full.digest(), "frame {f}");
        }
        assert!(partial.parts.is_some() && full.parts.is_none(), "each took its own path");
    }

    #[test]
    fn cliffs_resampled_where_shapes_reach_is_the_full_resample_on_every_frame() {
        let s = scene::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/cliffs.toml")).unwrap();
        same_as_full(&s, 0..s.sim.timing.frames);
    }

    #[test]
    fn every_shape_and_operation_keeps_the_bits_and_far_runs_are_copied() {
        let text = "kind = \"terrain\"\n[render]\nfps = 10\nframes = 6\n[terrain]\nresolution = [61, 24, 40]\nsize = [20.0, 8.0, 14.0]\n\
            closed = true\n[terrain.overhang]\namplitude = 0.4\n\
            [[terrain.shapes]]\ntype = \"sphere\"\ncenter = { from = [-6.0, 3.0, 0.0], to = [-4.0, 3.5, 1.0] }\nradius = 1.5\nsmooth = { from = 0.0, to = 1.0 }\n\
            [[terrain.shapes]]\ntype = \"capsule\"\na = { from = [2.0, 1.0, -3.0], to = [2.5, 1.0, -3.0] }\nb = [4.0, 2.0, 3.0]\nradius = 0.8\nop = \"subtract\"\nsmooth = 0.3\n\
            [[terrain.shapes]]\ntype = \"box\"\ncenter = [6.5, 2.0, 4.0]\nsize = [3.0, 3.0, 3.0]\nrounding = 0.4\nsmooth = 0.5\n\
            [[terrain.shapes]]\ntype = \"box\"\ncenter = { from = [0.0, 6.0, 0.0], to = [0.0, 5.0, 0.0] }\nsize = [1.0, 1.0, 1.0]\nop = \"intersect\"\nsmooth = 0.2\n";
        let s = scene::parse(text, Path::new("shapes.toml")).unwrap_or_else(|e| panic!("{e}"));
        // an intersection reaches everywhere: nothing can be copied
        same_as_full(&s, 0..6);
        let no_intersect = text.split("[[terrain.shapes]]\ntype = \"box\"\ncenter = { from").next().unwrap();
        let s = scene::parse(no_intersect, Path::new("shapes.toml")).unwrap_or_else(|e| panic!("{e}"));
        same_as_full(&s, 0..6);
        let mut sim = TerrainSim::from_scene(&s).unwrap();
        sim.mesh_at(0);
        let at = super::FieldAt::new(&sim.spec, &sim.height_noise, &sim.overhang_noise, 0.0, 0.6);
        let mut out = Vec::new();
        let (_, worked) = sim.parts.as_ref().unwrap().sample(&at, &sim.grid, &mut out);
        assert!(worked > 0 && worked < out.len() * 3 / 4, "{worked} of {} samples worked out", out.len());
    }
}
