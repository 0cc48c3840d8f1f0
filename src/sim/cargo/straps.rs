//! The straps that tie the loads to the jige's prongs: rope tubes skinned to four bones (the
//! package root and each load's pivot) with the seed's weighting rule. A point near a part's
//! surface follows that part alone; a point floating between parts is split between the two
//! nearest by inverse-square distance; a small second weight (below [`MERGE`]) is folded into the
//! first. Posed by linear blend skinning every frame — no rope simulation, as in the seed.

use crate::portable;
use glam::DVec3;

use super::rig::Poses;
use crate::frame::MeshData;
use crate::scene::cargo::LinkSpec;

/// Rope radius, metres.
pub const RADIUS: f64 = 0.012;
/// "Near a surface": within this of it (beyond the rope's own radius).
pub const NEAR: f64 = 0.01;
/// A second weight below this is merged into the first.
pub const MERGE: f64 = 0.15;
const RING: usize = 6;
/// How far up a narrower load's side the rope from the wider load below lands.
const STEP_RISE: f64 = 0.1;
const SPACING: f64 = 0.015;
/// The prongs' plate under the bottom load, in the root's axes.
const PLATE: ([f64; 3], [f64; 3]) = ([-0.25, -0.04, -0.3], [0.25, 0.0, 0.3]);

/// A box in a bone's rest axes.
#[derive(Clone, Copy, Debug)]
struct Region {
    lo: DVec3,
    hi: DVec3,
}

impl Region {
    fn distance(&self, p: DVec3) -> f64 {
        let d = (self.lo - p).max(p - self.hi).max(DVec3::ZERO);
        d.length()
    }
}

#[derive(Clone, Debug)]
pub struct Straps {
    /// Centreline points in the root's rest axes, and their (bone, weight) pairs.
    pub points: Vec<(DVec3, [(usize, f64); 2])>,
    /// Ring offsets (rest) per point.
    rings: Vec<[DVec3; RING]>,
    /// Where each loop starts in `points`.
    loops: Vec<usize>,
    /// Each bone's rest origin in the root's axes (bone 0 is the root).
    rest: Vec<DVec3>,
    /// Each load's box in its own axes (base centre at the origin).
    pub boxes: Vec<(DVec3, DVec3)>,
}

/// Bone weights for a point: the seed's rule over distances to each bone's region.
fn weights(p: DVec3, regions: &[Region]) -> [(usize, f64); 2] {
    let mut d: Vec<(usize, f64)> = regions.iter().enumerate().map(|(b, r)| (b, r.distance(p))).collect();
    d.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let (a, b) = (d[0], d[1]);
    if a.1 <= RADIUS + NEAR {
        return [(a.0, 1.0), (b.0, 0.0)];
    }
    let (wa, wb) = (1.0 / (a.1 * a.1), 1.0 / (b.1 * b.1));
    let second = wb / (wa + wb);
    if second < MERGE { [(a.0, 1.0), (b.0, 0.0)] } else { [(a.0, 1.0 - second), (b.0, second)] }
}

impl Straps {
    /// Two loops over the stack and under the prongs' plate, across the carrier's back, a quarter
    /// of the shallowest load's depth either side of the centre.
    pub fn new(links: &[LinkSpec], rest_height: &[f64]) -> Self {
        let plate = Region { lo: DVec3::from_array(PLATE.0), hi: DVec3::from_array(PLATE.1) };
        let boxes: Vec<(DVec3, DVec3)> = links
            .iter()
            .map(|l| (DVec3::new(-0.5 * l.size[0], 0.0, -0.5 * l.size[2]), DVec3::new(0.5 * l.size[0], l.size[1], 0.5 * l.size[2])))
            .collect();
        let mut regions = vec![plate];
        regions.extend(boxes.iter().zip(rest_height).map(|(b, &h)| Region { lo: b.0 + DVec3::Y * h, hi: b.1 + DVec3::Y * h }));
        let rest: Vec<DVec3> = std::iter::once(DVec3::ZERO).chain(rest_height.iter().map(|&h| DVec3::Y * h)).collect();
        let shallowest = links.iter().map(|l| l.size[0]).fold(f64::INFINITY, f64::min);
        let mut straps = Straps { points: Vec::new(), rings: Vec::new(), loops: Vec::new(), rest, boxes: boxes.clone() };
        if links.is_empty() {
            return straps;
        }
        for x in [-0.25 * shallowest, 0.25 * shallowest] {
            straps.loops.push(straps.points.len());
            let outline = outline(links, rest_height, x);
            let n = outline.len();
            for i in 0..n {
                let (a, b) = (outline[i], outline[(i + 1) % n]);
                let steps = ((b - a).length() / SPACING).ceil().max(1.0) as usize;
                for s in 0..steps {
                    let p = a.lerp(b, s as f64 / steps as f64);
                    straps.points.push((p, weights(p, &regions)));
                }
            }
        }
        straps.rings = (0..straps.points.len()).map(|i| straps.ring(i)).collect();
        straps
    }

    /// The loop a point belongs to: (start, length).
    fn loop_of(&self, i: usize) -> (usize, usize) {
        let k = self.loops.partition_point(|&s| s <= i) - 1;
        let start = self.loops[k];
        let end = self.loops.get(k + 1).copied().unwrap_or(self.points.len());
        (start, end - start)
    }

    fn ring(&self, i: usize) -> [DVec3; RING] {
        let (start, len) = self.loop_of(i);
        let at = |j: usize| self.points[start + j % len].0;
        let j = i - start;
        let tangent = (at(j + 1) - at(j + len - 1)).normalize_or(DVec3::Y);
        let side = DVec3::X;
        let normal = tangent.cross(side).normalize_or(DVec3::X);
        let binormal = tangent.cross(normal);
        std::array::from_fn(|k| {
            let a = std::f64::consts::TAU * k as f64 / RING as f64;
            normal * portable::cos(a) + binormal * portable::sin(a)
        })
    }

    /// Where a rest point goes with the bones posed.
    fn skin(&self, p: DVec3, w: &[(usize, f64); 2], poses: &Poses) -> (DVec3, glam::DMat3) {
        let mut out = DVec3::ZERO;
        let mut rot = glam::DMat3::ZERO;
        for &(b, wt) in w.iter().filter(|(_, wt)| *wt > 0.0) {
            let frame = if b == 0 { poses.root } else { poses.loads[b - 1] };
            out += frame.point(p - self.rest[b]) * wt;
            rot += frame.rot * wt;
        }
        (out, rot)
    }

    /// The rope surface's vertices, posed.
    pub fn posed_vertices(&self, poses: &Poses) -> Vec<(DVec3, DVec3)> {
        let mut v = Vec::with_capacity(self.points.len() * RING);
        for ((p, w), ring) in self.points.iter().zip(&self.rings) {
            // blending is linear: a ring vertex is the skinned centre plus the blended rotation
            // of its offset
            let (c, rot) = self.skin(*p, w, poses);
            for off in ring {
                let r = rot * *off;
                v.push((c + r * RADIUS, r.normalize_or(DVec3::Y)));
            }
        }
        v
    }

    /// The straps' tube mesh, posed.
    pub fn mesh(&self, poses: &Poses, color: [u8; 4]) -> MeshData {
        let verts = self.posed_vertices(poses);
        let mut m = MeshData::default();
        for (p, n) in &verts {
            m.positions.push(p.as_vec3().to_array());
            m.normals.push(n.as_vec3().to_array());
            m.colors.push(color);
        }
        for i in 0..self.points.len() {
            let (start, len) = self.loop_of(i);
            let next = start + (i - start + 1) % len;
            for k in 0..RING {
                let k2 = (k + 1) % RING;
                let (a, b, c, d) = (i * RING + k, i * RING + k2, next * RING + k, next * RING + k2);
                m.indices.extend_from_slice(&[a as u32, c as u32, b as u32, b as u32, c as u32, d as u32]);
            }
        }
        m
    }

    /// How deep the posed rope surface goes into any posed load, metres (0: nowhere).
    pub fn penetration(&self, poses: &Poses) -> f64 {
        let mut deepest = 0.0f64;
        for (p, _) in self.posed_vertices(poses) {
            for (load, (lo, hi)) in poses.loads.iter().zip(&self.boxes) {
                let q = load.rot.transpose() * (p - load.origin);
                let inside = (q - *lo).min(*hi - q);
                let depth = inside.min_element();
                deepest = deepest.max(depth);
            }
        }
        deepest
    }
}

/// A loop around the stack's outline in the plane x = `x`, `RADIUS` out from every face: up the
/// left side, over the top, down the right side, under the prongs' plate.
fn outline(links: &[LinkSpec], rest_height: &[f64], x: f64) -> Vec<DVec3> {
    let r = RADIUS;
    let bottom = PLATE.0[1] - r;
    let plate = PLATE.0[2].abs().min(0.5 * links[0].size[2]);
    let mut back = vec![DVec3::new(x, bottom, -plate - r)];
    for (i, l) in links.iter().enumerate() {
        let (z, y0, y1) = (-0.5 * l.size[2] - r, rest_height[i], rest_height[i] + l.size[1]);
        // a taut rope crosses the step from a wider load below to this one diagonally, floating
        let lower = if i == 0 { 0.0 } else { y0 + r + STEP_RISE };
        back.push(DVec3::new(x, lower, z));
        back.push(DVec3::new(x, y1 + r, z));
    }
    let front: Vec<DVec3> = back.iter().rev().map(|p| DVec3::new(p.x, p.y, -p.z)).collect();
    back.dedup_by(|a, b| a.distance(*b) < 1e-9);
    let mut all = back;
    all.extend(front);
    all.dedup_by(|a, b| a.distance(*b) < 1e-9);
    all
}
