//! One cube of marching cubes: Bourke's corner/edge numbering, the iso-contour loops on the cube's
//! six faces (face ambiguity resolved by the asymptotic decider), the interior connectivity of the
//! trilinear interpolant (MC33's interior ambiguity, decided by sweeping bilinear slices), and the
//! triangulation of the loops into disks or, where the interior joins two loops, a tunnel.
//!
//! Cube-local coordinates are in [0, 1]³. "Inside" means value < iso; a value exactly equal to iso is
//! outside, everywhere, so neighbouring cubes always agree on a shared sample.

/// Corner offsets (x, y, z), Bourke's numbering: 0..3 go round the z = 0 face, 4..7 sit above them.
pub const CORNERS: [[u8; 3]; 8] = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]];

/// Edge endpoints in Bourke's edge numbering, lower-coordinate corner first (so interpolation always
/// runs from the lower sample to the higher one, whichever cube asks).
pub const EDGE_CORNERS: [[u8; 2]; 12] = [[0, 1], [1, 2], [3, 2], [0, 3], [4, 5], [5, 6], [7, 6], [4, 7], [0, 4], [1, 5], [2, 6], [3, 7]];

/// Axis along which each edge runs (0 = x, 1 = y, 2 = z).
pub const EDGE_AXIS: [u8; 12] = [0, 1, 0, 1, 0, 1, 0, 1, 2, 2, 2, 2];

/// The six faces, each as four corners counter-clockwise seen from outside the cube
/// (right-handed around the outward normal): z = 0, z = 1, y = 0, y = 1, x = 0, x = 1.
pub const FACES: [[u8; 4]; 6] = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [3, 7, 6, 2], [0, 4, 7, 3], [1, 2, 6, 5]];

const NONE: u8 = u8::MAX;

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

/// `EDGE_OF[a][b]`: the edge joining corners a and b, or `NONE`.
const EDGE_OF: [[u8; 8]; 8] = {
    let mut t = [[NONE; 8]; 8];
    let mut e = 0;
    while e < 12 {
        let [a, b] = EDGE_CORNERS[e];
        t[a as usize][b as usize] = e as u8;
        t[b as usize][a as usize] = e as u8;
        e += 1;
    }
    t
};

/// Bit `i` set = corner `i` inside. This is the seed's 8-bit `cubeIndex`.
pub fn case_index(values: &[f32; 8], iso: f32) -> u8 {
    let mut case = 0u8;
    for (i, &v) in values.iter().enumerate() {
        if v < iso {
            case |= 1 << i;
        }
    }
    case
}

/// The 12-bit mask of edges the surface crosses for a case (the seed's `edgeTable[case]`).
pub const fn edge_mask(case: u8) -> u16 {
    let mut mask = 0u16;
    let mut e = 0;
    while e < 12 {
        let [a, b] = EDGE_CORNERS[e];
        if ((case >> a) & 1) != ((case >> b) & 1) {
            mask |= 1 << e;
        }
        e += 1;
    }
    mask
}

/// Position of the iso crossing along an edge, as a fraction from the lower sample `v0` to the
/// upper sample `v1`. The v0 == v1 guard (and any non-finite sample) falls back to the midpoint; the
/// result is kept `T_MARGIN` away from the corners so that crossings on different edges never share a
/// position (a sample exactly at iso would otherwise put several vertices on one corner and make
/// zero-area triangles).
#[inline(always)]
pub fn crossing_t(v0: f32, v1: f32, iso: f32) -> f32 {
    let t = (iso - v0) / (v1 - v0);
    if t.is_finite() { t.clamp(T_MARGIN, 1.0 - T_MARGIN) } else { 0.5 }
}

/// 1e-3 of a cell: far below the linear-interpolation error, far above f32 resolution at grid
/// coordinates up to 2¹³.
pub const T_MARGIN: f32 = 1e-3;

/// Cube-local position of the crossing on edge `e` at fraction `t`.
pub fn edge_point(e: usize, t: f32) -> [f32; 3] {
    let c = CORNERS[EDGE_CORNERS[e][0] as usize];
    let mut p = [c[0] as f32, c[1] as f32, c[2] as f32];
    p[EDGE_AXIS[e] as usize] += t;
    p
}

/// Is the face ambiguous (inside corners on one diagonal, outside on the other)?
fn face_is_ambiguous(case: u8, face: &[u8; 4]) -> bool {
    let ins = |j: usize| (case >> face[j]) & 1;
    ins(0) == ins(2) && ins(1) == ins(3) && ins(0) != ins(1)
}

/// Bit f set = face f is ambiguous for this case.
pub const fn ambiguous_faces(case: u8) -> u8 {
    let mut bits = 0u8;
    let mut f = 0;
    while f < 6 {
        let face = FACES[f];
        let i0 = (case >> face[0]) & 1;
        let i1 = (case >> face[1]) & 1;
        let i2 = (case >> face[2]) & 1;
        let i3 = (case >> face[3]) & 1;
        if i0 == i2 && i1 == i3 && i0 != i1 {
            bits |= 1 << f;
        }
        f += 1;
    }
    bits
}

/// Asymptotic decider (Nielson & Hamann 1991) for a face whose inside corners are `a`, `c` and
/// outside corners `b`, `d` (values already minus iso). The bilinear saddle value is
/// (ac − bd)/(a + c − b − d); the denominator is negative, so the saddle is inside iff ac > bd.
/// Only products are compared, and multiplication commutes exactly, so both cubes sharing the face
/// reach the same answer whatever order they list its corners in. A saddle exactly at iso is outside.
#[inline]
pub fn decider_inside_connected(a: f64, c: f64, b: f64, d: f64) -> bool {
    a * c > b * d
}

/// The iso-contour loops of one cube: each loop is a cycle of crossed edges, oriented so that a
/// triangle fan over it faces outward (toward larger values), counter-clockwise seen from outside.
#[derive(Clone, Copy, Debug, Default)]
pub struct CubeLoops {
    edges: [u8; 12],
    ends: [u8; 6],
    count: u8,
}

impl CubeLoops {
    pub fn len(&self) -> usize {
        self.count as usize
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn get(&self, k: usize) -> &[u8] {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        &self.edges[start..self.ends[k] as usize]
    }
}

/// Builds the loops for `case`, given for each ambiguous face whether its inside corners connect
/// (bit f of `face_inside_connected`). Every crossed edge lies on two faces; on one of them the
/// contour enters the inside region through it and on the other it leaves, so following
/// enter → leave segments face by face closes every loop.
pub fn build_loops(case: u8, face_inside_connected: u8) -> CubeLoops {
    let mut next = [NONE; 12];
    for (f, face) in FACES.iter().enumerate() {
        let ins = |j: usize| (case >> face[j & 3]) & 1 == 1;
        let edge = |j: usize| EDGE_OF[face[j & 3] as usize][face[(j + 1) & 3] as usize];
        let active = (0..4).filter(|&j| ins(j) != ins(j + 1)).count();
        if active == 0 {
            continue;
        }
        for j in 0..4 {
            if ins(j) || !ins(j + 1) {
                continue; // edge j = (c_j, c_{j+1}) enters the inside going round the face
            }
            let leave = if active == 2 {
                (0..4).find(|&k| ins(k) && !ins(k + 1)).unwrap_or(j)
            } else if (face_inside_connected >> f) & 1 == 1 {
                j + 3 // cut off the outside corner c_j: leave through (c_{j-1}, c_j)
            } else {
                j + 1 // cut off the inside corner c_{j+1}: leave through (c_{j+1}, c_{j+2})
            };
            next[edge(j) as usize] = edge(leave);
        }
    }
    let mut loops = CubeLoops::default();
    let mut seen = 0u16;
    let mut n = 0usize;
    for start in 0..12 {
        if next[start] == NONE || (seen >> start) & 1 == 1 {
            continue;
        }
        let mut e = start;
        loop {
            seen |= 1 << e;
            loops.edges[n] = e as u8;
            n += 1;
            e = next[e] as usize;
            if e == start {
                break;
            }
        }
        loops.ends[loops.count as usize] = n as u8;
        loops.count += 1;
    }
    loops
}

/// Union-find over a handful of nodes, deterministic (smaller root wins).
#[derive(Clone, Copy)]
struct Sets<const N: usize>([u8; N]);

impl<const N: usize> Sets<N> {
    fn new() -> Self {
        let mut p = [0u8; N];
        for (i, x) in p.iter_mut().enumerate() {
            *x = i as u8;
        }
        Sets(p)
    }

    fn find(&mut self, mut a: usize) -> usize {
        while self.0[a] as usize != a {
            self.0[a] = self.0[self.0[a] as usize];
            a = self.0[a] as usize;
        }
        a
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            self.0[hi] = lo as u8;
        }
    }
}

/// Connectivity of the corners within one class (inside or outside) over the cube's surface:
/// along cube edges, and across ambiguous faces as the decider says.
fn surface_patches(case: u8, face_inside_connected: u8, inside: bool) -> Sets<8> {
    let mut s = Sets::<8>::new();
    let class = |c: u8| ((case >> c) & 1 == 1) == inside;
    for [a, b] in EDGE_CORNERS {
        if class(a) && class(b) {
            s.union(a as usize, b as usize);
        }
    }
    for (f, face) in FACES.iter().enumerate() {
        if !face_is_ambiguous(case, face) {
            continue;
        }
        let joined_inside = (face_inside_connected >> f) & 1 == 1;
        if joined_inside == inside {
            // the diagonal pair of this class is joined through the face centre
            let (p, q) = if class(face[0]) { (face[0], face[2]) } else { (face[1], face[3]) };
            s.union(p as usize, q as usize);
        }
    }
    s
}

/// Connectivity of the corners through the cube's volume under the trilinear interpolant, for the
/// inside class (`inside = true`) or the outside class. `v` are corner values minus iso.
///
/// The cube is swept along z by horizontal slices. Each slice is bilinear in (x, y); its topology
/// only changes where a vertical edge crosses iso or where its asymptotic decider flips (a root of
/// the quadratic s0·s2 − s1·s3), so one slice per interval between those events captures every
/// component, and components carry over between neighbouring intervals through the corners that
/// keep their class. This is the interior test of MC33 (the body saddle joining two corners that the
/// faces keep apart) without its case tables.
pub fn volume_links(v: &[f64; 8], inside: bool) -> [u8; 8] {
    let b = [v[0], v[1], v[2], v[3]];
    let d = [v[4] - v[0], v[5] - v[1], v[6] - v[2], v[7] - v[3]];
    let mut events = [0.0f64; 8];
    let mut n_events = 0;
    let mut push = |t: f64| {
        if t > 0.0 && t < 1.0 {
            events[n_events] = t;
            n_events += 1;
        }
    };
    for k in 0..4 {
        if d[k] != 0.0 {
            push(-b[k] / d[k]);
        }
    }
    // s0 s2 − s1 s3 = A t² + B t + C
    let qa = d[0] * d[2] - d[1] * d[3];
    let qb = b[0] * d[2] + b[2] * d[0] - b[1] * d[3] - b[3] * d[1];
    let qc = b[0] * b[2] - b[1] * b[3];
    if qa.abs() > 1e-300 {
        let disc = qb * qb - 4.0 * qa * qc;
        if disc >= 0.0 {
            let r = disc.sqrt();
            // numerically stable pair of roots
            let q = -0.5 * (qb + qb.signum() * r);
            push(q / qa);
            if q != 0.0 {
                push(qc / q);
            }
        }
    } else if qb != 0.0 {
        push(-qc / qb);
    }
    let events = &mut events[..n_events];
    events.sort_by(f64::total_cmp);

    // Nodes: 4 slice corners per interval (at most 7 intervals), then the 8 cube corners.
    const CUBE: usize = 28;
    let mut sets = Sets::<36>::new();
    let mut prev_class = [false; 4];
    let n_intervals = n_events + 1;
    for i in 0..n_intervals {
        let lo = if i == 0 { 0.0 } else { events[i - 1] };
        let hi = if i == n_events { 1.0 } else { events[i] };
        let t = 0.5 * (lo + hi);
        let s: [f64; 4] = std::array::from_fn(|k| b[k] + t * d[k]);
        let class: [bool; 4] = std::array::from_fn(|k| (s[k] < 0.0) == inside);
        for k in 0..4 {
            let k1 = (k + 1) & 3;
            if class[k] && class[k1] {
                sets.union(4 * i + k, 4 * i + k1);
            }
        }
        let ambiguous = class[0] == class[2] && class[1] == class[3] && class[0] != class[1];
        if ambiguous {
            let in02 = s[0] < 0.0; // the inside diagonal is (0, 2) or (1, 3)
            let inside_joined =
                if in02 { decider_inside_connected(s[0], s[2], s[1], s[3]) } else { decider_inside_connected(s[1], s[3], s[0], s[2]) };
            if inside_joined == inside {
                if class[0] {
                    sets.union(4 * i, 4 * i + 2);
                } else {
                    sets.union(4 * i + 1, 4 * i + 3);
                }
            }
        }
        if i > 0 {
            for k in 0..4 {
                if class[k] && prev_class[k] {
                    sets.union(4 * (i - 1) + k, 4 * i + k);
                }
            }
        }
        if i == 0 {
            for k in 0..4 {
                if class[k] && ((v[k] < 0.0) == inside) {
                    sets.union(CUBE + k, k);
                }
            }
        }
        if i == n_intervals - 1 {
            for k in 0..4 {
                if class[k] && ((v[k + 4] < 0.0) == inside) {
                    sets.union(CUBE + 4 + k, 4 * i + k);
                }
            }
        }
        prev_class = class;
    }
    std::array::from_fn(|c| sets.find(CUBE + c) as u8)
}

/// A pair of loops joined by a tunnel through the cube's interior.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunnel {
    pub a: u8,
    pub b: u8,
}

/// Finds the tunnel (if any) that the trilinear interior adds between two loops: two surface patches
/// of one class that the faces keep apart but the volume joins. Returns `None` when the loops are all
/// disks. Configurations outside the trilinear possibilities (only reachable through rounding) also
/// fall back to disks, which is still a closed surface.
pub fn find_tunnel(case: u8, face_inside_connected: u8, loops: &CubeLoops, v: &[f64; 8]) -> Option<Tunnel> {
    if loops.len() < 2 {
        return None;
    }
    let mut found = None;
    for inside in [true, false] {
        let class = |c: usize| ((case >> c) & 1 == 1) == inside;
        let mut patches = surface_patches(case, face_inside_connected, inside);
        let patch: [u8; 8] = std::array::from_fn(|c| if class(c) { patches.find(c) as u8 } else { NONE });
        let distinct = patch.iter().filter(|&&p| p != NONE).fold(0u8, |m, &p| m | 1 << p);
        if distinct.count_ones() < 2 {
            continue;
        }
        let links = volume_links(v, inside);
        // Patches joined through the volume: same volume component, different surface patch.
        let mut joined: Option<(u8, u8)> = None;
        for c in 0..8 {
            for c2 in (c + 1)..8 {
                if patch[c] == NONE || patch[c2] == NONE || patch[c] == patch[c2] || links[c] != links[c2] {
                    continue;
                }
                let pair = (patch[c].min(patch[c2]), patch[c].max(patch[c2]));
                match joined {
                    None => joined = Some(pair),
                    Some(p) if p == pair => {}
                    Some(_) => return None, // three patches in one component: not trilinear
                }
            }
        }
        let Some((pa, pb)) = joined else { continue };
        if found.is_some() {
            return None; // tunnels of both classes at once: not trilinear
        }
        // The loop bounding each joined patch; each must bound exactly one.
        let loop_of = |p: u8| {
            let mut hit = None;
            for k in 0..loops.len() {
                let [a, b] = EDGE_CORNERS[loops.get(k)[0] as usize];
                let c = if class(a as usize) { a } else { b };
                if patch[c as usize] == p {
                    if hit.is_some() {
                        return None;
                    }
                    hit = Some(k as u8);
                }
            }
            hit
        };
        found = Some(Tunnel { a: loop_of(pa)?, b: loop_of(pb)? });
    }
    found
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
    let axis = sub(cb, ca);
    let len = norm(axis);
    if len == 0.0 || out.n_extra as usize + 3 > MAX_EXTRA {
        return false;
    }
    let d = axis.map(|c| c / len);
    let mid = [0, 1, 2].map(|i| 0.5 * (ca[i] + cb[i]));
    // radius: a quarter of the loops' mean spread, so the ring stays well inside the cube
    let spread = |l: &[u8], c: [f32; 3]| l.iter().map(|&e| norm(sub(point(e), c))).sum::<f32>() / l.len() as f32;
    let r = 0.25 * 0.5 * (spread(a, ca) + spread(b, cb));
    let helper = if d[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    let u = normalize(cross(d, helper));
    let v = cross(d, u);
    // The ring must turn against `a` around the axis (the loft walks it backwards).
    let turn_a = dot(newell(a.iter().map(|&e| point(e))), d);
    let sign = if turn_a >= 0.0 { -1.0 } else { 1.0 };
    let before = (out.n_tris, out.n_extra);
    let mut ids = [0u8; 3];
    for (k, id) in ids.iter_mut().enumerate() {
        let ang = sign * k as f32 * std::f32::consts::TAU / 3.0;
        let (s, c) = ang.sin_cos();
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

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn norm(a: [f32; 3]) -> f32 {
    dot(a, a).sqrt()
}

fn normalize(a: [f32; 3]) -> [f32; 3] {
    let l = norm(a);
    a.map(|c| c / l)
}

/// Newell's normal of a closed polygon (twice its vector area).
fn newell(points: impl Iterator<Item = [f32; 3]> + Clone) -> [f32; 3] {
    let first = points.clone().next().unwrap_or([0.0; 3]);
    let mut n = [0.0f32; 3];
    let mut prev: Option<[f32; 3]> = None;
    for p in points.chain(std::iter::once(first)) {
        if let Some(q) = prev {
            let c = cross(q, p);
            for i in 0..3 {
                n[i] += c[i];
            }
        }
        prev = Some(p);
    }
    n
}

/// Gradient of the trilinear interpolant of `values` at cube-local `p` (points to larger values).
pub fn trilinear_gradient(values: &[f32; 8], p: [f32; 3]) -> [f32; 3] {
    let mut g = [0.0f32; 3];
    for (c, o) in CORNERS.iter().enumerate() {
        let w = |a: usize| if o[a] == 1 { p[a] } else { 1.0 - p[a] };
        let dw = |a: usize| if o[a] == 1 { 1.0 } else { -1.0 };
        g[0] += values[c] * dw(0) * w(1) * w(2);
        g[1] += values[c] * w(0) * dw(1) * w(2);
        g[2] += values[c] * w(0) * w(1) * dw(2);
    }
    g
}

/// Full per-cube polygonisation from the eight corner values: face decisions, loops, interior test,
/// triangulation. Used for cubes with an ambiguous face or several loops; the extraction's lookup
/// table covers the rest and is built from this same code.
pub fn polygonise(values: &[f32; 8], iso: f32, out: &mut CubeSurface) -> u8 {
    let case = case_index(values, iso);
    *out = CubeSurface::default();
    if case == 0 || case == 255 {
        return case;
    }
    let v: [f64; 8] = std::array::from_fn(|i| values[i] as f64 - iso as f64);
    let mut fic = 0u8;
    let amb = ambiguous_faces(case);
    for (f, face) in FACES.iter().enumerate() {
        if (amb >> f) & 1 == 0 {
            continue;
        }
        let [c0, c1, c2, c3] = face.map(|c| v[c as usize]);
        let joined =
            if (case >> face[0]) & 1 == 1 { decider_inside_connected(c0, c2, c1, c3) } else { decider_inside_connected(c1, c3, c0, c2) };
        if joined {
            fic |= 1 << f;
        }
    }
    let loops = build_loops(case, fic);
    let tunnel = find_tunnel(case, fic, &loops, &v);
    let point = |e: u8| {
        let [a, b] = EDGE_CORNERS[e as usize];
        edge_point(e as usize, crossing_t(values[a as usize], values[b as usize], iso))
    };
    triangulate(&loops, tunnel, point, out);
    case
}
