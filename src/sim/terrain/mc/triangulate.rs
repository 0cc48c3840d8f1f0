//! Triangulating a cube's loops: disks by ear clipping (shortest allowed diagonal first) or around a
//! centre vertex, and tunnels by lofting one loop to the other (or through a small middle ring when
//! every direct rung would lie on a face). A triangle side never joins two crossings on the same
//! face unless the contour does, so neighbouring cubes can never draw the same chord.

use crate::portable;
use glam::Vec3;

use super::cube::{CubeLoops, EDGE_CORNERS, FACES};
use super::interior::Tunnel;

/// Faces each edge lies on (bit f = face f).
const EDGE_FACES: [u8; 12] = {
    let mut t = [0u8; 12];
    let mut f = 0;
    while f < 6 {
        let mut j = 0;
        while j < 4 {
            let (a, b) = (FACES[f][j], FACES[f][(j + 1) & 3]);
            let mut e = 0;
            while e < 12 {
                let [p, q] = EDGE_CORNERS[e];
                if (p == a && q == b) || (p == b && q == a) {
                    t[e] |= 1 << f;
                }
                e += 1;
            }
            j += 1;
        }
        f += 1;
    }
    t
};

/// May a triangle side join the crossings on edges `a` and `b`? Not if both lie on one face: that
/// chord would lie in the face itself, where the neighbouring cube can draw the same chord (an edge
/// with four triangles) and where it cuts across the face's own contour. Loop neighbours are joined
/// by the contour segment and always allowed; centre vertices (>= `CENTRE`) are inside the cube.
fn chord_allowed(a: u8, b: u8) -> bool {
    a >= CENTRE || b >= CENTRE || EDGE_FACES[a as usize] & EDGE_FACES[b as usize] == 0
}

/// Vertex reference inside one cube: 0..12 are edge crossings, 12.. are extra vertices inside the
/// cube (`CubeSurface::extra`): a long loop's centroid, or the middle ring of a tunnel (MC33 also
/// places vertices inside the cube for its most twisted cases).
pub const CENTRE: u8 = 12;

/// Most triangles one cube can emit: 12 crossings shared among disks and one tunnel, plus the
/// six rungs of a tunnel's middle ring.
pub const MAX_TRIS: usize = 20;
const MAX_EXTRA: usize = 8;

/// The triangulated surface of one cube.
#[derive(Clone, Copy, Debug)]
pub struct CubeSurface {
    pub tris: [[u8; 3]; MAX_TRIS],
    pub n_tris: u8,
    /// Cube-local positions of the extra vertices `CENTRE + k`.
    pub extra: [[f32; 3]; MAX_EXTRA],
    pub n_extra: u8,
    /// Two loops were joined by a tunnel through the interior.
    pub tunnel: bool,
    /// A tunnel was found but could not be drawn; the loops were closed as disks instead.
    pub tunnel_fallback: bool,
}

impl Default for CubeSurface {
    fn default() -> Self {
        CubeSurface { tris: [[0; 3]; MAX_TRIS], n_tris: 0, extra: [[0.0; 3]; MAX_EXTRA], n_extra: 0, tunnel: false, tunnel_fallback: false }
    }
}

impl CubeSurface {
    pub fn triangles(&self) -> &[[u8; 3]] {
        &self.tris[..self.n_tris as usize]
    }

    pub fn extras(&self) -> &[[f32; 3]] {
        &self.extra[..self.n_extra as usize]
    }

    fn push(&mut self, t: [u8; 3]) {
        self.tris[self.n_tris as usize] = t;
        self.n_tris += 1;
    }

    fn add_extra(&mut self, p: [f32; 3]) -> u8 {
        self.extra[self.n_extra as usize] = p;
        self.n_extra += 1;
        CENTRE + self.n_extra - 1
    }
}

/// Loops longer than this get a centre vertex and a fan instead of ear clipping.
const MAX_CLIPPED_LOOP: usize = 6;

fn dist2(a: [f32; 3], b: [f32; 3]) -> f32 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

/// Triangulates loops into `out`. `point(e)` is the cube-local crossing on edge `e`; it steers the
/// choice of diagonals (shortest first), never the topology.
pub fn triangulate(loops: &CubeLoops, tunnel: Option<Tunnel>, point: impl Fn(u8) -> [f32; 3], out: &mut CubeSurface) {
    let mut joined = None;
    if let Some(t) = tunnel {
        let (a, b) = (loops.get(t.a as usize), loops.get(t.b as usize));
        if loft(a, b, &point, out) || ringed_tube(a, b, &point, out) {
            out.tunnel = true;
            joined = Some(t);
        } else {
            out.tunnel_fallback = true;
        }
    }
    for k in 0..loops.len() {
        if joined.is_some_and(|t| k == t.a as usize || k == t.b as usize) {
            continue;
        }
        disk(loops.get(k), &point, out);
    }
}

fn disk(ring: &[u8], point: &impl Fn(u8) -> [f32; 3], out: &mut CubeSurface) {
    let n = ring.len();
    if n > MAX_CLIPPED_LOOP || !clip_ears(ring, point, out) {
        centre_fan(ring, point, out);
    }
}

/// A fan around a new vertex at the loop's centroid.
fn centre_fan(ring: &[u8], point: &impl Fn(u8) -> [f32; 3], out: &mut CubeSurface) {
    let n = ring.len();
    let c = out.add_extra(centroid(ring.iter().map(|&e| point(e))));
    for i in 0..n {
        out.push([ring[i], ring[(i + 1) % n], c]);
    }
}

fn centroid(points: impl Iterator<Item = [f32; 3]>) -> [f32; 3] {
    let mut s = [0.0f32; 3];
    let mut k = 0.0f32;
    for p in points {
        for a in 0..3 {
            s[a] += p[a];
        }
        k += 1.0;
    }
    s.map(|c| c / k)
}

/// Ear clipping, shortest allowed diagonal first (ties: lowest position in the ring). Leaves `out`
/// untouched and returns false when some step has no allowed ear.
fn clip_ears(ring: &[u8], point: &impl Fn(u8) -> [f32; 3], out: &mut CubeSurface) -> bool {
    let n = ring.len();
    let mut poly: [u8; MAX_CLIPPED_LOOP] = [0; MAX_CLIPPED_LOOP];
    poly[..n].copy_from_slice(ring);
    let mut tris = [[0u8; 3]; MAX_CLIPPED_LOOP];
    let mut m = n;
    let mut k = 0;
    while m > 3 {
        let mut best = None;
        let mut best_d = f32::INFINITY;
        for i in 0..m {
            let (a, b) = (poly[(i + m - 1) % m], poly[(i + 1) % m]);
            if !chord_allowed(a, b) {
                continue;
            }
            let d = dist2(point(a), point(b));
            if d < best_d {
                best_d = d;
                best = Some(i);
            }
        }
        let Some(best) = best else { return false };
        tris[k] = [poly[(best + m - 1) % m], poly[best], poly[(best + 1) % m]];
        k += 1;
        poly.copy_within(best + 1..m, best);
        m -= 1;
    }
    tris[k] = [poly[0], poly[1], poly[2]];
    for t in &tris[..=k] {
        out.push(*t);
    }
    true
}

/// A tube between loops `a` and `b` (each already oriented as a disk would be): walk round `a`
/// forwards and `b` backwards in step (the loop that is behind, as a fraction of its length, moves
/// next), from whichever starting rung gives the shortest total of rungs without a forbidden chord.
/// Returns false, writing nothing, if every start needs a forbidden chord.
fn loft(a: &[u8], b: &[u8], point: &impl Fn(u8) -> [f32; 3], out: &mut CubeSurface) -> bool {
    let (n, m) = (a.len(), b.len());
    let mut best: Option<(f32, [[u8; 3]; MAX_TRIS])> = None;
    'start: for j0 in 0..m {
        let mut tris = [[0u8; 3]; MAX_TRIS];
        let mut total = dist2(point(a[0]), point(b[j0]));
        if !chord_allowed(a[0], b[j0]) {
            continue;
        }
        let (mut ca, mut cb) = (0usize, 0usize);
        // A rung met twice means one loop was fanned whole onto a single vertex of the other: a pinch.
        let mut rungs = [0u16; 12];
        while ca < n || cb < m {
            let rung = &mut rungs[ca % n];
            if (*rung >> (cb % m)) & 1 == 1 {
                continue 'start;
            }
            *rung |= 1 << (cb % m);
            let ai = a[ca % n];
            let an = a[(ca + 1) % n];
            let bj = b[(j0 + m * 2 - cb) % m];
            let bp = b[(j0 + m * 2 - cb - 1) % m];
            let can_a = ca < n && chord_allowed(an, bj);
            let can_b = cb < m && chord_allowed(ai, bp);
            // (ca + 1) / n <= (cb + 1) / m, in integers
            let a_behind = (ca + 1) * m <= (cb + 1) * n;
            let advance_a = match (can_a, can_b) {
                (false, false) => continue 'start,
                (true, false) => true,
                (false, true) => false,
                (true, true) => a_behind,
            };
            if advance_a {
                tris[ca + cb] = [ai, an, bj];
                total += dist2(point(an), point(bj));
                ca += 1;
            } else {
                tris[ca + cb] = [bp, bj, ai];
                total += dist2(point(ai), point(bp));
                cb += 1;
            }
        }
        if best.as_ref().is_none_or(|(t, _)| total < *t) {
            best = Some((total, tris));
        }
    }
    let Some((_, tris)) = best else { return false };
    for t in &tris[..n + m] {
        out.push(*t);
    }
    true
}

/// A tunnel whose loops cannot be joined directly (every rung would be a chord on a face): a ring of
/// three extra vertices halfway between the loops' centroids, lofted to each loop.
fn ringed_tube(a: &[u8], b: &[u8], point: &impl Fn(u8) -> [f32; 3], out: &mut CubeSurface) -> bool {
    let ca = centroid(a.iter().map(|&e| point(e)));
    let cb = centroid(b.iter().map(|&e| point(e)));
    let axis = Vec3::from(cb) - Vec3::from(ca);
    let len = axis.length();
    if len == 0.0 || out.n_extra as usize + 3 > MAX_EXTRA {
        return false;
    }
    let d = axis / len;
    let mid = [0, 1, 2].map(|i| 0.5 * (ca[i] + cb[i]));
    // radius: a quarter of the loops' mean spread, so the ring stays well inside the cube
    let spread = |l: &[u8], c: [f32; 3]| l.iter().map(|&e| Vec3::from(point(e)).distance(Vec3::from(c))).sum::<f32>() / l.len() as f32;
    let r = 0.25 * 0.5 * (spread(a, ca) + spread(b, cb));
    let helper = if d.x.abs() < 0.9 { Vec3::X } else { Vec3::Y };
    let across = d.cross(helper);
    let u = across / across.length();
    let v = d.cross(u);
    // The ring must turn against `a` around the axis (the loft walks it backwards).
    let turn_a = newell(a.iter().map(|&e| point(e))).dot(d);
    let sign = if turn_a >= 0.0 { -1.0 } else { 1.0 };
    let before = (out.n_tris, out.n_extra);
    let mut ids = [0u8; 3];
    for (k, id) in ids.iter_mut().enumerate() {
        let ang = sign * k as f32 * std::f32::consts::TAU / 3.0;
        let (s, c) = portable::sin_cos(ang);
        *id = out.add_extra([0, 1, 2].map(|i| mid[i] + r * (c * u[i] + s * v[i])));
    }
    let extra = out.extra;
    let pt = |e: u8| if e >= CENTRE { extra[(e - CENTRE) as usize] } else { point(e) };
    let back = [ids[2], ids[1], ids[0]];
    if loft(a, &ids, &pt, out) && loft(&back, b, &pt, out) {
        return true;
    }
    (out.n_tris, out.n_extra) = before;
    false
}

/// Newell's normal of a closed polygon (twice its vector area).
fn newell(points: impl Iterator<Item = [f32; 3]> + Clone) -> Vec3 {
    let first = points.clone().next().unwrap_or([0.0; 3]);
    let mut n = Vec3::ZERO;
    let mut prev: Option<Vec3> = None;
    for p in points.chain(std::iter::once(first)).map(Vec3::from) {
        if let Some(q) = prev {
            n += q.cross(p);
        }
        prev = Some(p);
    }
    n
}
