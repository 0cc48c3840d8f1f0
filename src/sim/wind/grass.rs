//! Grass: blades seeded over patches, each a quadratic Bézier spine that keeps its length at every
//! bend. The wind leans a blade by `atan(bend · |W| / stiffness)` toward the wind plus a travelling
//! ripple; walkers and vehicles lay blades down, which then stand up again on exactly integrated
//! damped springs. Only touched blades carry spring state.
//!
//! Blades live in flat arrays sorted by tile (a tile is a square of the ground drawn as one batch),
//! so a tile's blades, placements and motion records are contiguous slices.

use crate::portable;
use std::collections::BTreeMap;

use rayon::prelude::*;

use super::blade::{MAX_LEAN, Moment, lean, shape_default, shape_seed};
use super::field::{WindField, WindGrid};
use super::spring::Spring;
use crate::frame::{Motion, Placement, Placements, srgb8};
use crate::scene::wind::{GrassLook, GrassSpec, Model, PresserSpec};
use crate::sim::rng::Rng;

/// A blade being pressed or springing back: flatten `s` (1 = laid down) and its rate, the
/// direction it is laid toward, and its recovery spring's angular frequency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pressed {
    pub s: f64,
    pub v: f64,
    pub dir: [f32; 2],
    pub omega: f32,
    pub zeta: f32,
}

/// One patch's constants and where its blades and tiles are.
pub struct Patch {
    pub spec: GrassSpec,
    pub blades: std::ops::Range<usize>,
    pub tiles: std::ops::Range<usize>,
    pub max_height: f32,
    /// ω · T of the recovery spring: ω = settle / recovery time (2 % band).
    pub settle: f64,
}

/// A square of one patch's ground: a contiguous run of blades, drawn as one batch.
pub struct Tile {
    pub patch: usize,
    pub blades: std::ops::Range<usize>,
    pub lo: [f32; 2],
    pub hi: [f32; 2],
    /// Where each blade stands, which way it faces and how big it is (white: its colour is the
    /// look's, from its tone).
    pub placements: Vec<Placement>,
    pub tones: Vec<Tone>,
}

/// What a blade's colour is made from, drawn with the rest of it: its lightness, and the number
/// the look's share of dry blades is compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tone {
    pub light: f32,
    pub dry: f64,
}

impl Tone {
    /// The blade's colour: dry or green by `look`, at its lightness.
    pub fn color(self, look: &GrassLook) -> [u8; 4] {
        let base = if self.dry < look.dry_share { look.dry.to_linear() } else { look.tip.to_linear() };
        srgb8(base.map(|c| (c * self.light).min(1.0)), 255)
    }
}

/// A tile's placements coloured by `look`, as the renderer takes them.
pub fn colored(tile: &Tile, look: &GrassLook) -> Placements {
    Placements::new(tile.placements.iter().zip(&tile.tones).map(|(p, t)| Placement { color: t.color(look), ..*p }).collect())
}

/// Every blade of every patch.
pub struct Meadow {
    pub patches: Vec<Patch>,
    pub tiles: Vec<Tile>,
    pub x: Vec<f32>,
    pub z: Vec<f32>,
    /// bend / stiffness, per blade.
    pub give: Vec<f32>,
    /// Recovery time, seconds, per blade.
    pub recover: Vec<f32>,
    /// This moment's shape of every blade.
    pub motion: Vec<Motion>,
    /// Blade indices bucketed by 1 m cell per patch (for finding blades near a walker).
    cells: Vec<CellIndex>,
    pub pressed: BTreeMap<u32, Pressed>,
    /// Each blade's place on its patch's ripple, (sin, cos) of κ·(p·d̂), for the mean direction
    /// `ripple_dir` of its patch (recomputed when the direction changes).
    ripple: Vec<[f32; 2]>,
    ripple_dir: Vec<Option<[u64; 2]>>,
}

struct CellIndex {
    lo: [f32; 2],
    size: f32,
    nx: usize,
    nz: usize,
    start: Vec<u32>,
    blades: Vec<u32>,
}

/// A value in [0, 1) fixed by a seed and a cell (for clumps, which are looked up in any order).
fn cell_unit(seed: u64, i: i64, j: i64, k: u64) -> f64 {
    let mut r = Rng::new(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (j as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F) ^ k);
    r.unit()
}

struct Blade {
    x: f32,
    z: f32,
    tile: u32,
    /// Order within the tile: blades are thinned with distance from the last ones.
    rank: f32,
    give: f32,
    recover: f32,
    placement: Placement,
    tone: Tone,
}

/// Seeds one patch's blades: jittered grid, clumps sharing facing and height, tones.
fn seed_patch(spec: &GrassSpec, index: usize, seed: u64, tile_size: f32, tiles_x: usize) -> Vec<Blade> {
    let (nx, nz) = spec.layout();
    let mut rng = Rng::stream(seed, &format!("wind.grass.{index}"));
    let (lo, step) = (
        [spec.center[0] - spec.area[0] / 2.0, spec.center[1] - spec.area[1] / 2.0],
        [spec.area[0] / nx.max(1) as f64, spec.area[1] / nz.max(1) as f64],
    );
    let clump_seed = seed ^ crate::frame::Fnv::hash(format!("wind.clumps.{index}").as_bytes());
    let mut out = Vec::with_capacity(nx * nz);
    for j in 0..nz {
        for i in 0..nx {
            let x = lo[0] + (i as f64 + rng.unit()) * step[0];
            let z = lo[1] + (j as f64 + rng.unit()) * step[1];
            let (mut height_u, mut yaw, mut shade) = (rng.unit(), rng.unit() * std::f64::consts::TAU, rng.unit());
            if spec.clumps > 0.0 {
                // the nearest of the jittered clump centres in the 3×3 cells around
                let (ci, cj) = ((x / spec.clumps).floor() as i64, (z / spec.clumps).floor() as i64);
                let mut best = (f64::INFINITY, 0, 0);
                for dj in -1..=1 {
                    for di in -1..=1 {
                        let (a, b) = (ci + di, cj + dj);
                        let cx = (a as f64 + cell_unit(clump_seed, a, b, 1)) * spec.clumps;
                        let cz = (b as f64 + cell_unit(clump_seed, a, b, 2)) * spec.clumps;
                        let d = portable::powi(cx - x, 2) + portable::powi(cz - z, 2);
                        if d < best.0 {
                            best = (d, a, b);
                        }
                    }
                }
                let (a, b) = (best.1, best.2);
                height_u = 0.35 * height_u + 0.65 * cell_unit(clump_seed, a, b, 3);
                yaw = cell_unit(clump_seed, a, b, 4) * std::f64::consts::TAU + (yaw - std::f64::consts::PI) * 0.25;
                shade = 0.5 * shade + 0.5 * cell_unit(clump_seed, a, b, 5);
            }
            let height = spec.height[0] + (spec.height[1] - spec.height[0]) * height_u;
            let stiffness = spec.stiffness[0] + (spec.stiffness[1] - spec.stiffness[0]) * rng.unit();
            let recover = spec.recover[0] + (spec.recover[1] - spec.recover[0]) * rng.unit();
            let tone = Tone { dry: rng.unit(), light: (0.78 + 0.3 * shade) as f32 };
            let (fx, fz) = (((x - lo[0]) as f32 / tile_size) as usize, ((z - lo[1]) as f32 / tile_size) as usize);
            let tiles_z = ((spec.area[1] as f32 / tile_size).ceil() as usize).max(1);
            let tile = (fz.min(tiles_z - 1) * tiles_x + fx.min(tiles_x - 1)) as u32;
            out.push(Blade {
                x: x as f32,
                z: z as f32,
                tile,
                rank: rng.unit() as f32,
                give: (spec.bend / stiffness) as f32,
                recover: recover as f32,
                placement: Placement {
                    position: [x as f32, 0.0, z as f32],
                    yaw: yaw as f32,
                    scale: [spec.width as f32 * (0.8 + 0.4 * shade as f32), height as f32, 1.0],
                    color: [255; 4],
                },
                tone,
            });
        }
    }
    out
}

/// Tile side: 4 m, smaller where dense, so that a tile holds at most about 8 000 blades.
fn tile_size(spec: &GrassSpec) -> f32 {
    (4.0f64).min((8000.0 / spec.density.max(1e-9)).sqrt()).max(0.25) as f32
}

impl Meadow {
    pub fn new(specs: &[GrassSpec], seed: u64) -> Self {
        let mut m = Meadow {
            patches: Vec::new(),
            tiles: Vec::new(),
            x: Vec::new(),
            z: Vec::new(),
            give: Vec::new(),
            recover: Vec::new(),
            motion: Vec::new(),
            cells: Vec::new(),
            pressed: BTreeMap::new(),
            ripple: Vec::new(),
            ripple_dir: Vec::new(),
        };
        for (index, spec) in specs.iter().enumerate() {
            let size = tile_size(spec);
            let tiles_x = ((spec.area[0] as f32 / size).ceil() as usize).max(1);
            let mut blades = seed_patch(spec, index, seed, size, tiles_x);
            blades.sort_by(|a, b| a.tile.cmp(&b.tile).then(a.rank.total_cmp(&b.rank)));
            let first_blade = m.x.len();
            let first_tile = m.tiles.len();
            let lo = [(spec.center[0] - spec.area[0] / 2.0) as f32, (spec.center[1] - spec.area[1] / 2.0) as f32];
            let mut k = 0;
            while k < blades.len() {
                let tile = blades[k].tile;
                let end = k + blades[k..].iter().take_while(|b| b.tile == tile).count();
                let (tx, tz) = ((tile as usize % tiles_x) as f32, (tile as usize / tiles_x) as f32);
                let placements: Vec<Placement> = blades[k..end].iter().map(|b| b.placement).collect();
                let tones: Vec<Tone> = blades[k..end].iter().map(|b| b.tone).collect();
                m.tiles.push(Tile {
                    patch: index,
                    blades: first_blade + k..first_blade + end,
                    lo: [lo[0] + tx * size, lo[1] + tz * size],
                    hi: [lo[0] + (tx + 1.0) * size, lo[1] + (tz + 1.0) * size],
                    placements,
                    tones,
                });
                k = end;
            }
            let max_height = blades.iter().map(|b| b.placement.scale[1]).fold(0.0, f32::max);
            for b in &blades {
                m.x.push(b.x);
                m.z.push(b.z);
                m.give.push(b.give);
                m.recover.push(b.recover);
            }
            m.cells.push(CellIndex::new(&m.x[first_blade..], &m.z[first_blade..], first_blade as u32, lo, spec.area));
            let settle = Spring::settling(spec.damping, 0.02, 1.0);
            m.patches.push(Patch {
                spec: spec.clone(),
                blades: first_blade..m.x.len(),
                tiles: first_tile..m.tiles.len(),
                max_height,
                settle,
            });
        }
        m.motion = vec![Motion::spine_rest(); m.x.len()];
        m.ripple = vec![[0.0, 1.0]; m.x.len()];
        m.ripple_dir = vec![None; m.patches.len()];
        m
    }

    /// Places every blade of patch `p` on the ripple for mean direction `dir` (f64, so a blade
    /// far from the origin keeps its phase), unless they already are.
    fn place_on_ripple(&mut self, p: usize, dir: [f64; 2]) {
        let bits = dir.map(f64::to_bits);
        if self.ripple_dir[p] == Some(bits) {
            return;
        }
        let patch = &self.patches[p];
        let kappa = std::f64::consts::TAU / patch.spec.wave.wavelength;
        let r = patch.blades.clone();
        let (x, z) = (&self.x[r.clone()], &self.z[r.clone()]);
        self.ripple[r].par_iter_mut().enumerate().for_each(|(i, sc)| {
            let (s, c) = portable::sin_cos(kappa * (x[i] as f64 * dir[0] + z[i] as f64 * dir[1]));
            *sc = [s as f32, c as f32];
        });
        self.ripple_dir[p] = Some(bits);
    }

    pub fn len(&self) -> usize {
        self.x.len()
    }

    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Box around every patch (x, z).
    pub fn extent(&self) -> Option<([f64; 2], [f64; 2])> {
        self.patches.iter().map(|p| &p.spec).fold(None, |acc, s| {
            let lo = [s.center[0] - s.area[0] / 2.0, s.center[1] - s.area[1] / 2.0];
            let hi = [s.center[0] + s.area[0] / 2.0, s.center[1] + s.area[1] / 2.0];
            Some(match acc {
                None => (lo, hi),
                Some((a, b)) => ([a[0].min(lo[0]), a[1].min(lo[1])], [b[0].max(hi[0]), b[1].max(hi[1])]),
            })
        })
    }

    /// Advances every pressed blade's spring by `dt`, then lays down the blades under each presser
    /// present at the step's end (`at`: its position and velocity).
    pub fn step(&mut self, pressers: &[(&PresserSpec, [f64; 2], [f64; 2])], dt: f64) {
        self.pressed.retain(|_, p| {
            let spring = Spring::new(p.omega as f64, p.zeta as f64);
            (p.s, p.v) = spring.advance(p.s, p.v, 0.0, 0.0, dt);
            p.s.abs() > 1e-5 || p.v.abs() > 1e-4
        });
        for &(presser, pos, vel) in pressers {
            let speed = (vel[0] * vel[0] + vel[1] * vel[1]).sqrt();
            let heading = if speed > 1e-6 { [vel[0] / speed, vel[1] / speed] } else { [0.0, 0.0] };
            let r = presser.radius;
            let flat = (presser.flatten_deg.to_radians() / MAX_LEAN as f64).min(1.0);
            for (cells, patch) in self.cells.iter().zip(&self.patches) {
                let settle = patch.settle;
                let zeta = patch.spec.damping as f32;
                cells.near(pos, r, |i| {
                    let (dx, dz) = (self.x[i as usize] as f64 - pos[0], self.z[i as usize] as f64 - pos[1]);
                    let d2 = dx * dx + dz * dz;
                    if d2 >= r * r {
                        return;
                    }
                    let target = (1.0 - d2 / (r * r)) * flat;
                    let d = d2.sqrt().max(1e-9);
                    // outward, swept along the way the presser moves
                    let (ox, oz) = (dx / d + 0.6 * heading[0], dz / d + 0.6 * heading[1]);
                    let len = (ox * ox + oz * oz).sqrt();
                    let dir = if len > 1e-9 { [(ox / len) as f32, (oz / len) as f32] } else { [1.0, 0.0] };
                    let omega = (settle / self.recover[i as usize] as f64) as f32;
                    let e = self.pressed.entry(i).or_insert(Pressed { s: 0.0, v: 0.0, dir, omega, zeta });
                    if target >= e.s {
                        e.s = target;
                        e.v = 0.0;
                        e.dir = dir;
                    }
                });
            }
        }
    }
}

impl CellIndex {
    fn new(x: &[f32], z: &[f32], first: u32, lo: [f32; 2], area: [f64; 2]) -> Self {
        let size = 1.0f32;
        let nx = (area[0] as f32 / size).ceil().max(1.0) as usize;
        let nz = (area[1] as f32 / size).ceil().max(1.0) as usize;
        let cell = |i: usize| {
            let cx = (((x[i] - lo[0]) / size) as usize).min(nx - 1);
            let cz = (((z[i] - lo[1]) / size) as usize).min(nz - 1);
            cz * nx + cx
        };
        let mut count = vec![0u32; nx * nz + 1];
        for i in 0..x.len() {
            count[cell(i) + 1] += 1;
        }
        for c in 1..count.len() {
            count[c] += count[c - 1];
        }
        let mut fill = count.clone();
        let mut blades = vec![0u32; x.len()];
        for i in 0..x.len() {
            let c = cell(i);
            blades[fill[c] as usize] = first + i as u32;
            fill[c] += 1;
        }
        CellIndex { lo, size, nx, nz, start: count, blades }
    }

    /// Calls `f` with every blade in the cells touching the disc at `pos` of radius `r`.
    fn near(&self, pos: [f64; 2], r: f64, mut f: impl FnMut(u32)) {
        let cell = |v: f64, lo: f32, n: usize| ((v as f32 - lo) / self.size).floor().clamp(0.0, n as f32 - 1.0) as usize;
        let (x0, x1) = (cell(pos[0] - r, self.lo[0], self.nx), cell(pos[0] + r, self.lo[0], self.nx));
        let (z0, z1) = (cell(pos[1] - r, self.lo[1], self.nz), cell(pos[1] + r, self.lo[1], self.nz));
        let hi = [self.lo[0] as f64 + self.nx as f64 * self.size as f64, self.lo[1] as f64 + self.nz as f64 * self.size as f64];
        if pos[0] + r < self.lo[0] as f64 || pos[1] + r < self.lo[1] as f64 || pos[0] - r > hi[0] || pos[1] - r > hi[1] {
            return;
        }
        for cz in z0..=z1 {
            for cx in x0..=x1 {
                let c = cz * self.nx + cx;
                for &b in &self.blades[self.start[c] as usize..self.start[c + 1] as usize] {
                    f(b);
                }
            }
        }
    }
}

impl Meadow {
    /// Every blade's shape at `t`: the wind read from `grid` (the default model) or from the seed's
    /// formula at the root (`model = "kinematic"`), then pressed blades laid down. Returns the first
    /// blade whose shape is not finite.
    pub fn shape(&mut self, field: &WindField, grid: &WindGrid, t: f64) -> Option<usize> {
        let mut bad = None;
        for p in 0..self.patches.len() {
            if self.patches[p].spec.model == Model::Default {
                self.place_on_ripple(p, field.mean(t).0);
            }
            let patch = &self.patches[p];
            let m = Moment::of(&patch.spec, field, t);
            let r = patch.blades.clone();
            let (x, z, give) = (&self.x[r.clone()], &self.z[r.clone()], &self.give[r.clone()]);
            let out = &mut self.motion[r.clone()];
            let found = match patch.spec.model {
                Model::Default => shape_default(out, x, z, give, &self.ripple[r.clone()], grid, m),
                Model::Kinematic => shape_seed(out, x, z, give, field, t, &patch.spec),
            };
            if let Some(i) = found {
                bad = bad.or(Some(r.start + i));
            }
        }
        let moments: Vec<Moment> = self.patches.iter().map(|p| Moment::of(&p.spec, field, t)).collect();
        for (&i, p) in &self.pressed {
            let i = i as usize;
            let patch = self.patches.iter().position(|q| q.blades.contains(&i)).expect("a pressed blade belongs to a patch");
            let m = moments[patch];
            let ([sw, cw], dir) = m.lean(self.give[i], grid.at(self.x[i], self.z[i]), self.ripple[i]);
            let theta = portable::atan2(sw, cw);
            let s = p.s as f32;
            let angle = theta + (MAX_LEAN - theta) * s;
            let (hx, hz) = (dir[0] * (1.0 - s) * theta.signum() + p.dir[0] * s, dir[1] * (1.0 - s) * theta.signum() + p.dir[1] * s);
            let len = (hx * hx + hz * hz).sqrt();
            let (dx, dz) = if len > 1e-6 { (hx / len, hz / len) } else { (p.dir[0], p.dir[1]) };
            self.motion[i] = lean(angle.abs(), dx, dz);
        }
        bad
    }
}
