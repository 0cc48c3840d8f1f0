//! Trees: a trunk and crown bent by the seed's (h/H)² profile, made length-preserving (heights
//! shrink so the trunk's centre line keeps its length; normals follow exactly in the shader), with
//! an inertial lean — a damped spring toward the wind's load, so gusts make a tree lean, overshoot
//! and settle — and leaf cards that flutter on several smooth-triangle waves with a per-tree phase.

use crate::portable;
use std::f64::consts::TAU;

use super::field::WindField;
use super::spring::Spring;
use crate::frame::{MeshData, MeshRef, Motion, Placement, Placements, srgb8};
use crate::scene::wind::{Model, STUD, TreeLook, TreeSpec};
use crate::sim::rng::Rng;

/// Seconds: the seed's factor turning a wind speed into a top displacement (`0.18 · W`).
pub const BEND: f64 = 0.18;
/// The most a top may move sideways, as a share of the tree's height.
const MAX_LEAN: f64 = 0.8;

pub struct Tree {
    pub spec: TreeSpec,
    /// The trunk and crown, white: the look colours them ([`colored_mesh`]).
    pub mesh: MeshData,
    /// How many of the mesh's vertices are the trunk's (the rest are the crown's).
    pub trunk_vertices: usize,
    pub placement: Placements,
    /// The mesh's height (its largest y).
    pub top: f32,
    /// Top displacement (x, z) and its rate: the spring's state (default model).
    pub bend: [f64; 2],
    pub rate: [f64; 2],
    /// This moment's drawn top displacement, height factor and wind at the root.
    pub shown: ([f64; 2], f64, [f64; 2]),
    pub leaves: std::ops::Range<usize>,
}

struct Leaf {
    /// Attachment point relative to the root (rest pose), and its height share.
    attach: [f32; 3],
    tilt: [f32; 3],
    phase: f32,
}

pub struct Grove {
    pub trees: Vec<Tree>,
    leaves: Vec<Leaf>,
    pub leaf_mesh: MeshRef,
    /// Every leaf's card, white, and its shade (the look's leaf colour times it).
    pub leaf_placements: Vec<Placement>,
    pub leaf_shades: Vec<f32>,
}

/// Tree `tree`'s mesh in `look`'s colours: bark on the trunk, the leaf colour darkened on the
/// crown.
pub fn colored_mesh(tree: &Tree, look: &TreeLook) -> MeshRef {
    let bark = srgb8(look.bark.to_linear(), 255);
    let dark = srgb8(look.leaf.to_linear().map(|c| c * 0.55), 255);
    let colors = (0..tree.mesh.positions.len()).map(|v| if v < tree.trunk_vertices { bark } else { dark }).collect();
    MeshRef::new(MeshData { colors, ..tree.mesh.clone() })
}

/// Every leaf card of `grove` in its tree's leaf colour (`looks`, one per tree), shaded.
pub fn colored_leaves(grove: &Grove, looks: &[TreeLook]) -> Placements {
    let mut out = Vec::with_capacity(grove.leaf_placements.len());
    for (tree, look) in grove.trees.iter().zip(looks) {
        let leaf = look.leaf.to_linear();
        for k in tree.leaves.clone() {
            let shade = grove.leaf_shades[k];
            out.push(Placement { color: srgb8(leaf.map(|v| (v * shade).min(1.0)), 255), ..grove.leaf_placements[k] });
        }
    }
    Placements::new(out)
}

/// The lean target of a tree in wind `w`: `0.18 s · W / stiffness`, capped.
fn target(spec: &TreeSpec, w: [f64; 2]) -> [f64; 2] {
    let t = [BEND * w[0] / spec.stiffness, BEND * w[1] / spec.stiffness];
    cap(t, MAX_LEAN * spec.height)
}

fn cap(d: [f64; 2], most: f64) -> [f64; 2] {
    let len = portable::hypot(d[0], d[1]);
    if len > most { [d[0] * most / len, d[1] * most / len] } else { d }
}

/// Length of the centre line (D·h², H·k·h), h in 0..1.
pub fn centre_length(d: f64, height: f64, k: f64) -> f64 {
    let (a, b) = (2.0 * d.abs(), height * k);
    if a < 1e-12 * height {
        return b;
    }
    0.5 * ((a * a + b * b).sqrt() + b * b / a * (a / b).asinh())
}

/// The height factor k that keeps the centre line `height` long when the top moves by `d`.
pub fn keep_length(d: f64, height: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if centre_length(d, height, mid) > height { hi = mid } else { lo = mid }
    }
    0.5 * (lo + hi)
}

/// Crysis's smooth triangle wave: period 1, range −1..1.
fn smooth_triangle(x: f64) -> f64 {
    let t = ((x + 0.5).fract() * 2.0 - 1.0).abs();
    t * t * (3.0 - 2.0 * t) * 2.0 - 1.0
}

fn push_vertex(m: &mut MeshData, p: [f32; 3], n: [f32; 3], c: [u8; 4]) -> u32 {
    m.positions.push(p);
    m.normals.push(n);
    m.colors.push(c);
    m.positions.len() as u32 - 1
}

/// A tapered trunk and a crown of overlapping blobs, root at the origin, white; the trunk's
/// vertices first, and how many they are.
fn tree_mesh(spec: &TreeSpec, rng: &mut Rng) -> (MeshData, usize, Vec<([f32; 3], f32)>) {
    let mut m = MeshData::default();
    let h = spec.height as f32;
    let white = [255; 4];
    let (sides, rows, trunk_top) = (8u32, 10u32, 0.8 * h);
    for j in 0..=rows {
        let y = trunk_top * j as f32 / rows as f32;
        let r = h * (0.035 - 0.022 * j as f32 / rows as f32);
        for i in 0..sides {
            let a = i as f32 / sides as f32 * std::f32::consts::TAU;
            push_vertex(&mut m, [r * portable::cos(a), y, r * portable::sin(a)], [portable::cos(a), 0.0, portable::sin(a)], white);
        }
    }
    for j in 0..rows {
        for i in 0..sides {
            let (a, b) = (j * sides + i, j * sides + (i + 1) % sides);
            let (c, d) = (a + sides, b + sides);
            m.indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    let trunk = m.positions.len();
    let crown = spec.crown as f32;
    let mut blobs = vec![([0.0, h - crown * 0.75, 0.0], crown * 0.75)];
    for k in 0..5 {
        let a = k as f32 / 5.0 * std::f32::consts::TAU + rng.unit() as f32;
        let out = crown * (0.45 + 0.25 * rng.unit() as f32);
        let y = h - crown * (1.0 + 0.5 * rng.unit() as f32);
        blobs.push(([out * portable::cos(a), y, out * portable::sin(a)], crown * (0.5 + 0.2 * rng.unit() as f32)));
    }
    for &(c, r) in &blobs {
        let (lon, lat) = (10u32, 7u32);
        let first = m.positions.len() as u32;
        for j in 0..=lat {
            let phi = std::f32::consts::PI * j as f32 / lat as f32;
            for i in 0..=lon {
                let th = std::f32::consts::TAU * i as f32 / lon as f32;
                let n = [portable::sin(phi) * portable::cos(th), -portable::cos(phi), portable::sin(phi) * portable::sin(th)];
                push_vertex(&mut m, [c[0] + r * n[0], c[1] + r * n[1], c[2] + r * n[2]], n, white);
            }
        }
        for j in 0..lat {
            for i in 0..lon {
                let a = first + j * (lon + 1) + i;
                let b = a + lon + 1;
                m.indices.extend_from_slice(&[a, a + 1, b, a + 1, b + 1, b]);
            }
        }
    }
    (m, trunk, blobs)
}

/// A leaf card: a diamond from its stem (the origin) up +y, one unit long, facing +z.
fn leaf_mesh() -> MeshData {
    let mut m = MeshData::default();
    let c = [255, 255, 255, 255];
    for p in [[0.0, 0.0, 0.0], [-0.32, 0.45, 0.0], [0.0, 1.0, 0.0], [0.32, 0.45, 0.0]] {
        push_vertex(&mut m, p, [0.0, 0.0, 1.0], c);
    }
    m.indices = vec![0, 3, 2, 0, 2, 1];
    m
}

impl Grove {
    pub fn new(specs: &[TreeSpec], seed: u64) -> Self {
        let mut trees = Vec::new();
        let mut leaves = Vec::new();
        let mut placements = Vec::new();
        let mut shades = Vec::new();
        for (index, spec) in specs.iter().enumerate() {
            let mut rng = Rng::stream(seed, &format!("wind.tree.{index}"));
            let (mesh, trunk_vertices, blobs) = tree_mesh(spec, &mut rng);
            let top = mesh.bounds().map_or(spec.height as f32, |b| b.1[1]);
            let first = leaves.len();
            let size = (spec.height / 7.0 * 0.42) as f32;
            for _ in 0..spec.leaves {
                let (c, r) = blobs[rng.below(blobs.len() as u64) as usize];
                // a uniform direction on the sphere, just outside the blob
                let y = rng.unit() as f32 * 2.0 - 1.0;
                let a = rng.unit() as f32 * std::f32::consts::TAU;
                let ring = (1.0 - y * y).sqrt();
                let out = r * (0.97 + 0.15 * rng.unit() as f32);
                let attach = [c[0] + out * ring * portable::cos(a), c[1] + out * y, c[2] + out * ring * portable::sin(a)];
                let tilt_axis = rng.unit() as f32 * std::f32::consts::TAU;
                let tilt = 0.3 + 1.1 * rng.unit() as f32;
                leaves.push(Leaf {
                    attach,
                    tilt: [tilt * portable::cos(tilt_axis), 0.0, tilt * portable::sin(tilt_axis)],
                    phase: rng.unit() as f32,
                });
                shades.push((0.75 + 0.45 * rng.unit()) as f32);
                placements.push(Placement {
                    position: [spec.at[0] as f32 + attach[0], attach[1], spec.at[1] as f32 + attach[2]],
                    yaw: rng.unit() as f32 * std::f32::consts::TAU,
                    scale: [size * (0.8 + 0.4 * rng.unit() as f32); 3],
                    color: [255; 4],
                });
            }
            let root = Placement { position: [spec.at[0] as f32, 0.0, spec.at[1] as f32], yaw: 0.0, scale: [1.0; 3], color: [255; 4] };
            trees.push(Tree {
                spec: spec.clone(),
                mesh,
                trunk_vertices,
                placement: Placements::new(vec![root]),
                top,
                bend: [0.0; 2],
                rate: [0.0; 2],
                shown: ([0.0; 2], 1.0, [0.0; 2]),
                leaves: first..leaves.len(),
            });
        }
        Grove { trees, leaves, leaf_mesh: MeshRef::new(leaf_mesh()), leaf_placements: placements, leaf_shades: shades }
    }

    /// Starts every default-model tree at rest under the wind at `t` (no start-up swing).
    pub fn settle(&mut self, field: &WindField, t: f64) {
        for tree in &mut self.trees {
            tree.bend = target(&tree.spec, field.at(tree.spec.at[0], tree.spec.at[1], t));
            tree.rate = [0.0; 2];
        }
    }

    /// Advances the trees' springs from `t` by `dt`; the load moves linearly over the step.
    pub fn step(&mut self, field: &WindField, t: f64, dt: f64) {
        for tree in self.trees.iter_mut().filter(|t| t.spec.model == Model::Default) {
            let [x, z] = tree.spec.at;
            let (from, to) = (target(&tree.spec, field.at(x, z, t)), target(&tree.spec, field.at(x, z, t + dt)));
            let spring = Spring::new(TAU * tree.spec.frequency, tree.spec.damping);
            for a in 0..2 {
                (tree.bend[a], tree.rate[a]) = spring.advance(tree.bend[a], tree.rate[a], from[a], to[a], dt);
            }
        }
    }

    /// The pose at `t`: each tree's top displacement, height factor and wind at its root.
    pub fn pose(&mut self, field: &WindField, t: f64) {
        for tree in &mut self.trees {
            let [x, z] = tree.spec.at;
            let top = tree.top as f64;
            tree.shown = match tree.spec.model {
                Model::Default => {
                    let d = cap(tree.bend, MAX_LEAN * top);
                    (d, keep_length(portable::hypot(d[0], d[1]), top), field.at(x, z, t))
                }
                // the seed: 0.18·W of the seed's field at the root, no stiffness, no inertia, no
                // length correction
                Model::Kinematic => {
                    let w = field.seed_wind(x, z, t);
                    ([BEND * w[0], BEND * w[1]], 1.0, w)
                }
            };
        }
    }

    /// The trunk's motion record (a `Bend`), its lean scaled by `fade`.
    pub fn trunk_motion(&self, i: usize, fade: f32) -> Motion {
        let tree = &self.trees[i];
        let (d, k, _) = tree.shown;
        let k = if fade >= 1.0 { k } else { keep_length(portable::hypot(d[0], d[1]) * fade as f64, tree.top as f64) };
        Motion { a: [d[0] as f32 * fade, d[1] as f32 * fade, k as f32, 0.0], b: [0.0; 4] }
    }

    /// Every leaf's motion at `t`: carried by its tree's bend and turned by the flutter; `fades`
    /// gives (bend, flutter) scales per tree.
    pub fn leaf_motion(&self, t: f64, fades: &[(f32, f32)]) -> Vec<Motion> {
        let mut out = Vec::with_capacity(self.leaves.len());
        for (i, (tree, &(bend, flutter))) in self.trees.iter().zip(fades).enumerate() {
            let (d, _, w) = tree.shown;
            let k = self.trunk_motion(i, bend).a[2];
            let (d, top) = ([d[0] as f32 * bend, d[1] as f32 * bend], tree.top);
            let speed = portable::hypot(w[0], w[1]);
            let across = if speed > 1e-9 { [(-w[1] / speed) as f32, (w[0] / speed) as f32] } else { [0.0, 1.0] };
            let strength = (speed / 3.0).min(2.0) as f32;
            let amp = tree.spec.flutter.amplitude_deg.to_radians() as f32 * strength * flutter;
            // the tree's phase: when the wind reaches it
            let reach = (tree.spec.at[0] * w[0] + tree.spec.at[1] * w[1]) / portable::powi(speed.max(1e-9), 2);
            for leaf in &self.leaves[tree.leaves.clone()] {
                let h = (leaf.attach[1] / top).clamp(0.0, 1.0);
                let mut a = [d[0] * h * h, leaf.attach[1] * (k - 1.0), d[1] * h * h, 0.0];
                let mut b = [leaf.tilt[0], leaf.tilt[1], leaf.tilt[2], 0.0];
                match tree.spec.model {
                    Model::Default => {
                        let freqs = &tree.spec.flutter.frequencies;
                        let mut wave = 0.0;
                        for (n, f) in freqs.iter().enumerate() {
                            wave += smooth_triangle(f * (t - reach) + leaf.phase as f64 * (n + 1) as f64) / (n + 1) as f64;
                        }
                        let angle = amp * (wave / freqs.len().max(1) as f64 * 2.0) as f32;
                        b[0] += across[0] * angle;
                        b[2] += across[1] * angle;
                        b[1] += 0.4 * angle;
                    }
                    Model::Kinematic => {
                        // the seed's flutter, on every vertex in world axes: sin(0.5(x + z) + 3.5t)·0.3r studs
                        let (xs, zs) = ((tree.spec.at[0] + leaf.attach[0] as f64) / STUD, (tree.spec.at[1] + leaf.attach[2] as f64) / STUD);
                        let f = (portable::sin(0.5 * (xs + zs) + 3.5 * t) * 0.3 * h as f64 * STUD) as f32 * flutter;
                        a[0] += f;
                        a[1] -= 0.2 * f;
                        a[2] += 0.5 * f;
                    }
                }
                out.push(Motion { a, b });
            }
        }
        out
    }
}
