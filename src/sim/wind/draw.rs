//! What a wind frame shows: the ground, grass tiles as instanced batches (culled to the view, with
//! fewer segments and then no motion with distance, cross-faded), trees and their leaves, walkers
//! and vehicles, and optionally the field itself as arrows coloured by speed. Nothing here
//! changes the simulation's state.

use crate::portable;
use glam::{Mat4, Vec3, Vec4};

use super::{WindSim, presser_at};
use crate::frame::{Deform, FrameData, IDENTITY, InstanceBatch, Material, MeshData, MeshInstance, MeshRef, Motion, Placements, srgb8};
use crate::scene::values::smoothstep;
use crate::scene::wind::{GrassLook, LodSpec, WindLook};
use crate::sim::{Drawing, KindPainter, Stage};

/// Draws a wind scene: what is made once (the ground, blade ribbons, the grass's, trees' and
/// leaves' colours) and each frame's batches.
pub struct WindPainter {
    stage: Stage,
    look: WindLook,
    ground: MeshRef,
    /// Per patch: blade ribbons with the near, mid and far segment counts.
    blades: Vec<[MeshRef; 3]>,
    walker: MeshRef,
    vehicle: MeshRef,
    /// Per tile of the meadow: its blades' placements in their colours.
    tiles: Vec<Placements>,
    /// Per tree: its mesh in its colours.
    trees: Vec<MeshRef>,
    leaves: Placements,
}

/// A ribbon along +y from 0 to 1, one unit wide at the root and tapering to a point, in `rows`
/// segments; its colour runs from the root's share of the tip colour up to white (the blade's own
/// colour multiplies it).
fn blade_mesh(rows: u32, look: &GrassLook) -> MeshData {
    let (root, tip) = (look.root.to_linear(), look.tip.to_linear());
    let ratio: [f32; 3] = std::array::from_fn(|k| (root[k] / tip[k].max(1e-4)).min(1.0));
    let mut m = MeshData::default();
    for j in 0..=rows {
        let y = j as f32 / rows as f32;
        let shade: [f32; 3] = std::array::from_fn(|k| ratio[k] + (1.0 - ratio[k]) * portable::powf(y, 0.7));
        let half = 0.5 * (1.0 - portable::powf(y, 1.6));
        let xs: &[f32] = if j == rows { &[0.0] } else { &[-half, half] };
        for &x in xs {
            m.positions.push([x, y, 0.0]);
            m.normals.push([0.0, 0.0, 1.0]);
            m.colors.push(srgb8(shade, 255));
        }
    }
    for j in 0..rows.saturating_sub(1) {
        let b = 2 * j;
        m.indices.extend_from_slice(&[b, b + 1, b + 3, b, b + 3, b + 2]);
    }
    let b = 2 * (rows - 1);
    m.indices.extend_from_slice(&[b, b + 1, b + 2]);
    m
}

/// A box from (lo) to (hi), flat-shaded.
/// A walker: legs, body and head as boxes, 1.7 m tall, facing +x.
fn walker_mesh() -> MeshData {
    let mut m = MeshData::default();
    let (cloth, skin, dark) = ([214, 96, 44, 255], [236, 196, 160, 255], [60, 60, 72, 255]);
    m.push_box([-0.08, 0.0, 0.04], [0.08, 0.85, 0.18], dark);
    m.push_box([-0.08, 0.0, -0.18], [0.08, 0.85, -0.04], dark);
    m.push_box([-0.12, 0.85, -0.22], [0.12, 1.45, 0.22], cloth);
    m.push_box([-0.1, 1.48, -0.1], [0.1, 1.7, 0.1], skin);
    m
}

/// A small cart: body and four wheels, 2.6 m long along +x.
fn vehicle_mesh() -> MeshData {
    let mut m = MeshData::default();
    let (body, wheel) = ([58, 108, 180, 255], [30, 30, 34, 255]);
    m.push_box([-1.3, 0.35, -0.75], [1.3, 1.15, 0.75], body);
    for (x, z) in [(-0.8, -0.85), (0.8, -0.85), (-0.8, 0.65), (0.8, 0.65)] {
        m.push_box([x - 0.3, 0.0, z], [x + 0.3, 0.6, z + 0.2], wheel);
    }
    m
}

impl KindPainter for WindPainter {
    type Sim = WindSim;

    fn new(sim: &WindSim, drawing: &Drawing<WindLook>, _: crate::sim::PainterBuilder) -> Self {
        let (look, meadow, grove) = (drawing.kind, &sim.meadow, &sim.grove);
        let mut lo = [-5.0f64, -5.0];
        let mut hi = [5.0f64, 5.0];
        if let Some((a, b)) = meadow.extent() {
            (lo, hi) = (a, b);
        }
        if let Some(area) = look.overlay.as_ref().and_then(|o| o.area) {
            let half = [area[0].abs() / 2.0, area[1].abs() / 2.0];
            lo = [lo[0].min(-half[0]), lo[1].min(-half[1])];
            hi = [hi[0].max(half[0]), hi[1].max(half[1])];
        }
        for t in &grove.trees {
            let r = t.spec.crown * 2.0;
            lo = [lo[0].min(t.spec.at[0] - r), lo[1].min(t.spec.at[1] - r)];
            hi = [hi[0].max(t.spec.at[0] + r), hi[1].max(t.spec.at[1] + r)];
        }
        let margin = if meadow.is_empty() && grove.trees.is_empty() { 0.0 } else { ((hi[0] - lo[0]).max(hi[1] - lo[1]) * 0.25).max(3.0) };
        let (lo, hi) = ([(lo[0] - margin) as f32, (lo[1] - margin) as f32], [(hi[0] + margin) as f32, (hi[1] + margin) as f32]);
        let ground = MeshData::flat_quad(lo, hi, srgb8(look.ground.to_linear(), 255));
        let blades =
            (0..meadow.patches.len()).map(|p| look.lod.segments.map(|rows| MeshRef::new(blade_mesh(rows, &look.grass[p])))).collect();
        WindPainter {
            stage: drawing.stage(),
            look: look.clone(),
            ground: MeshRef::new(ground),
            blades,
            walker: MeshRef::new(walker_mesh()),
            vehicle: MeshRef::new(vehicle_mesh()),
            tiles: meadow.tiles.iter().map(|t| super::grass::colored(t, &look.grass[t.patch])).collect(),
            trees: grove.trees.iter().zip(&look.trees).map(|(t, l)| super::trees::colored_mesh(t, l)).collect(),
            leaves: super::trees::colored_leaves(grove, &look.trees),
        }
    }

    /// The frame: ground, walkers, overlay; grass, trees and leaves as batches.
    fn paint(&mut self, sim: &WindSim, index: u32) -> FrameData {
        let t = self.stage.timing.time_of(index);
        let mut meshes = vec![MeshInstance {
            mesh: self.ground.clone(),
            transform: IDENTITY,
            material: Material { casts_shadow: false, roughness: 0.95, specular: 0.02, ..Material::default() },
            deform: None,
        }];
        meshes.extend(self.presser_meshes(sim, t));
        let bounds = self.ground.data.bounds().map(|(lo, hi)| ([lo[0] as f64, lo[2] as f64], [hi[0] as f64, hi[2] as f64]));
        if let Some(m) = bounds.and_then(|(lo, hi)| self.overlay_mesh(sim, sim.time(), lo, hi)) {
            meshes.push(MeshInstance {
                mesh: MeshRef::new(m),
                transform: IDENTITY,
                material: Material { casts_shadow: false, receives_shadow: false, roughness: 1.0, specular: 0.0, ..Material::default() },
                deform: None,
            });
        }
        let legend = self.look.overlay.as_ref().and_then(|o| Some(self.legend(o.legend?, o.max_speed)));
        let mut data = self.stage.frame(index, meshes, legend);
        let c = &data.camera;
        let eye = Vec3::from(c.eye);
        let aspect = self.stage.width as f32 / self.stage.height as f32;
        let view_proj = c.view_proj(aspect);
        data.batches = self.grass_batches(sim, eye, &view_proj);
        data.batches.extend(self.tree_batches(sim, eye, sim.time()));
        data
    }
}

/// Whether a box is wholly outside the view (all eight corners beyond one clip plane).
fn outside(view_proj: &Mat4, lo: Vec3, hi: Vec3) -> bool {
    let corners: Vec<Vec4> = (0..8)
        .map(|k| {
            let p =
                Vec3::new(if k & 1 == 1 { hi.x } else { lo.x }, if k & 2 == 2 { hi.y } else { lo.y }, if k & 4 == 4 { hi.z } else { lo.z });
            *view_proj * p.extend(1.0)
        })
        .collect();
    let beyond = |f: &dyn Fn(&Vec4) -> bool| corners.iter().all(f);
    beyond(&|c| c.x < -c.w) || beyond(&|c| c.x > c.w) || beyond(&|c| c.y < -c.w) || beyond(&|c| c.y > c.w) || beyond(&|c| c.w <= 0.0)
}

/// Distance from `eye` to the box.
fn distance(eye: Vec3, lo: Vec3, hi: Vec3) -> f64 {
    (eye.clamp(lo, hi) - eye).length() as f64
}

/// Distance from `eye` to the farthest corner of the box.
fn farthest(eye: Vec3, lo: Vec3, hi: Vec3) -> f64 {
    let far = Vec3::select((eye - lo).abs().cmpgt((eye - hi).abs()), lo, hi);
    (far - eye).length() as f64
}

/// The share of blades drawn at distance `d`: all of them up to `near`, then falling with the
/// square of the distance (so the blades on screen per pixel stay about even), at least 10 %.
fn thin(lod: &LodSpec, d: f64) -> f64 {
    if d <= lod.near || lod.thin == 0.0 { 1.0 } else { portable::powf(lod.near / d, 2.0 * lod.thin).max(0.1) }
}

/// Width of the band of shares over which a blade sinks before it is dropped.
const THIN_BAND: f64 = 0.2;

/// Tint of a level-of-detail tier with `debug` on (near, mid, far).
const TIER_TINT: [[f32; 4]; 3] = [[1.0, 1.0, 1.0, 1.0], [0.55, 0.75, 1.6, 1.0], [1.6, 0.6, 0.55, 1.0]];

impl WindPainter {
    /// The grass tiles as batches: culled, tiered, and faded to rest beyond `far`.
    fn grass_batches(&self, sim: &WindSim, eye: Vec3, view_proj: &Mat4) -> Vec<InstanceBatch> {
        let (meadow, lod) = (&sim.meadow, &self.look.lod);
        let mut out = Vec::new();
        for (tile, placements) in meadow.tiles.iter().zip(&self.tiles) {
            let patch = &meadow.patches[tile.patch];
            let reach = patch.max_height;
            let lo = Vec3::new(tile.lo[0] - reach, 0.0, tile.lo[1] - reach);
            let hi = Vec3::new(tile.hi[0] + reach, reach, tile.hi[1] + reach);
            if lod.cull && outside(view_proj, lo, hi) {
                continue;
            }
            let near_edge = distance(eye, lo, hi);
            let tier = if near_edge < lod.near {
                0
            } else if near_edge < lod.far {
                1
            } else {
                2
            };
            // thinned with distance: the tile's blades are in random order, blade j of n stands for
            // the share (j + ½)/n; those past `keep(d)` are dropped, fading (sinking) over a band
            // of shares first, so nothing pops
            let n = tile.blades.len();
            let drawn = ((thin(lod, near_edge) + THIN_BAND) * n as f64).ceil().min(n as f64) as usize;
            let motion = if near_edge >= lod.far + lod.blend && drawn == n {
                Vec::new()
            } else {
                let r = tile.blades.start..tile.blades.start + drawn;
                let rest = Motion::spine_rest();
                let whole = farthest(eye, lo, hi) <= lod.far && thin(lod, farthest(eye, lo, hi)) >= 1.0;
                meadow.motion[r.clone()]
                    .iter()
                    .zip(&meadow.x[r.clone()])
                    .zip(&meadow.z[r])
                    .enumerate()
                    .map(|(j, ((m, &x), &z))| {
                        if whole {
                            return *m;
                        }
                        let d = (Vec3::new(x, 0.0, z) - eye).length() as f64;
                        let still = smoothstep(lod.far, lod.far + lod.blend, d) as f32;
                        let share = (j as f64 + 0.5) / n as f64;
                        let size = (1.0 - smoothstep(thin(lod, d), thin(lod, d) + THIN_BAND, share)) as f32;
                        let mix = |a: [f32; 4], b: [f32; 4]| std::array::from_fn(|k| (a[k] + (b[k] - a[k]) * still) * size);
                        Motion { a: mix(m.a, rest.a), b: mix(m.b, rest.b) }
                    })
                    .collect()
            };
            if drawn == 0 {
                continue;
            }
            out.push(InstanceBatch {
                mesh: self.blades[tile.patch][tier].clone(),
                material: Material {
                    tint: if lod.debug { TIER_TINT[tier] } else { [1.0; 4] },
                    roughness: 0.75,
                    specular: 0.12,
                    casts_shadow: self.look.grass[tile.patch].shadows,
                    ..Material::default()
                },
                deform: Deform::Spine,
                placements: placements.clone(),
                motion,
                drawn: (drawn < n).then_some(drawn as u32),
            });
        }
        out
    }

    /// Trunks and leaves, with flutter faded out past `near` and the lean past `far`.
    fn tree_batches(&self, sim: &WindSim, eye: Vec3, t: f64) -> Vec<InstanceBatch> {
        let (grove, lod) = (&sim.grove, &self.look.lod);
        let fades: Vec<(f32, f32)> = grove
            .trees
            .iter()
            .map(|tree| {
                let d = (Vec3::new(tree.spec.at[0] as f32, 0.0, tree.spec.at[1] as f32) - eye).length() as f64;
                let bend = 1.0 - smoothstep(lod.far, lod.far + lod.blend, d);
                let flutter = 1.0 - smoothstep(lod.near, lod.near + lod.blend, d);
                (bend as f32, flutter as f32)
            })
            .collect();
        let mut out: Vec<InstanceBatch> = grove
            .trees
            .iter()
            .enumerate()
            .map(|(i, tree)| InstanceBatch {
                mesh: self.trees[i].clone(),
                material: Material { roughness: 0.85, specular: 0.05, ..Material::default() },
                deform: Deform::Bend,
                placements: tree.placement.clone(),
                motion: vec![grove.trunk_motion(i, fades[i].0)],
                drawn: None,
            })
            .collect();
        if !self.leaves.data.is_empty() {
            out.push(InstanceBatch {
                mesh: grove.leaf_mesh.clone(),
                material: Material { roughness: 0.6, specular: 0.1, ..Material::default() },
                deform: Deform::Rigid,
                placements: self.leaves.clone(),
                motion: grove.leaf_motion(t, &fades),
                drawn: None,
            });
        }
        out
    }
}

impl WindPainter {
    /// What the arrows' colours mean, on a light card in `corner`: calm, half of `max` and `max`
    /// (m/s) and over, in the colours [`speed_color`] gives them.
    fn legend(&self, corner: crate::frame::Corner, max: f64) -> crate::frame::Canvas2d {
        let swatch = |v: f64| {
            let c = speed_color(v, max);
            [c[0], c[1], c[2], 1.0]
        };
        let speed = |v: f64| crate::frame::legend_number(v, 1);
        let entries = [
            (swatch(max), format!("{} m/s and over", speed(max))),
            (swatch(max / 2.0), format!("{} m/s", speed(max / 2.0))),
            (swatch(0.0), "calm".to_string()),
        ];
        crate::frame::legend_card([self.stage.width as f32, self.stage.height as f32], corner, &entries)
    }
}

/// Blue (calm) through pale yellow to red (`max`), linear RGB.
fn speed_color(speed: f64, max: f64) -> [f32; 3] {
    const STOPS: [[f32; 3]; 5] = [[0.03, 0.2, 0.47], [0.4, 0.69, 0.81], [1.0, 1.0, 0.52], [0.98, 0.42, 0.12], [0.69, 0.01, 0.02]];
    let u = (speed / max).clamp(0.0, 1.0) as f32 * 4.0;
    let i = (u as usize).min(3);
    let f = u - i as f32;
    std::array::from_fn(|k| STOPS[i][k] + (STOPS[i + 1][k] - STOPS[i][k]) * f)
}

/// Arrows on a grid over the ground, pointing with the wind, as long as the speed (a cell at
/// `max_speed`) and coloured by it.
impl WindPainter {
    fn overlay_mesh(&self, sim: &WindSim, t: f64, lo: [f64; 2], hi: [f64; 2]) -> Option<MeshData> {
        let o = self.look.overlay.as_ref()?;
        let mut m = MeshData::default();
        let (nx, nz) = (((hi[0] - lo[0]) / o.spacing).floor() as usize, ((hi[1] - lo[1]) / o.spacing).floor() as usize);
        for j in 0..=nz.min(400) {
            for i in 0..=nx.min(400) {
                let (x, z) = (lo[0] + (i as f64 + 0.5) * o.spacing, lo[1] + (j as f64 + 0.5) * o.spacing);
                if x > hi[0] || z > hi[1] {
                    continue;
                }
                let w = sim.field.at(x, z, t);
                let speed = portable::hypot(w[0], w[1]);
                if speed < 1e-6 {
                    continue;
                }
                let (dx, dz) = (w[0] / speed, w[1] / speed);
                let len = o.spacing * 0.9 * (speed / o.max_speed).clamp(0.3, 1.0);
                let (half, head) = (o.spacing * 0.05, o.spacing * 0.16);
                let color = srgb8(speed_color(speed, o.max_speed), 255);
                let at = |along: f64, across: f64| {
                    let (px, pz) = (x + (along - len * 0.5) * dx - across * dz, z + (along - len * 0.5) * dz + across * dx);
                    [px as f32, o.height as f32, pz as f32]
                };
                let shaft = (len - head * 1.4).max(0.0);
                let first = m.positions.len() as u32;
                for p in [at(0.0, -half), at(shaft, -half), at(shaft, half), at(0.0, half), at(shaft, -head), at(len, 0.0), at(shaft, head)]
                {
                    m.positions.push(p);
                    m.normals.push([0.0, 1.0, 0.0]);
                    m.colors.push(color);
                }
                m.indices.extend_from_slice(&[first, first + 2, first + 1, first, first + 3, first + 2, first + 4, first + 6, first + 5]);
            }
        }
        Some(m)
    }

    /// Walkers and vehicles present at `t`, turned to face where they go.
    fn presser_meshes(&self, sim: &WindSim, t: f64) -> Vec<MeshInstance> {
        let mut out = Vec::new();
        for (p, _) in sim.spec.pressers.iter().zip(&self.look.show).filter(|(_, show)| **show) {
            let Some((pos, vel)) = presser_at(p, t) else { continue };
            let yaw = if portable::hypot(vel[0], vel[1]) > 1e-6 { -(portable::atan2(vel[1], vel[0])) as f32 } else { 0.0 };
            let transform = Mat4::from_translation(Vec3::new(pos[0] as f32, 0.0, pos[1] as f32)) * Mat4::from_rotation_y(yaw);
            out.push(MeshInstance {
                mesh: if p.vehicle { self.vehicle.clone() } else { self.walker.clone() },
                transform: transform.to_cols_array_2d(),
                material: Material { roughness: 0.6, specular: 0.2, ..Material::default() },
                deform: None,
            });
        }
        out
    }
}
