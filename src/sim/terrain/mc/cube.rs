//! One cube of marching cubes: Bourke's corner/edge numbering, the case index, edge crossings, the
//! iso-contour loops on the cube's six faces (face ambiguity resolved by the asymptotic decider),
//! and `polygonise`, which adds the interior test (`interior.rs`) and the triangulation
//! (`triangulate.rs`).
//!
//! Cube-local coordinates are in [0, 1]³. "Inside" means value < iso; a value exactly equal to iso is
//! outside, everywhere, so neighbouring cubes always agree on a shared sample.

pub use super::interior::{Tunnel, find_tunnel, volume_links};
pub use super::triangulate::{CENTRE, CubeSurface, MAX_TRIS, triangulate};

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

pub(super) const NONE: u8 = u8::MAX;

/// `EDGE_OF[a][b]`: the edge joining corners a and b, or `NONE`.
pub const EDGE_OF: [[u8; 8]; 8] = {
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
pub fn face_is_ambiguous(case: u8, face: &[u8; 4]) -> bool {
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

/// For each ambiguous face of `case`, whether its inside corners connect (bit f for face f), by
/// the asymptotic decider on the corner values `v` (already minus iso).
pub fn face_decisions(case: u8, v: &[f64; 8]) -> u8 {
    let mut fic = 0u8;
    let amb = ambiguous_faces(case);
    for (f, face) in FACES.iter().enumerate() {
        if (amb >> f) & 1 == 0 {
            continue;
        }
        let [c0, c1, c2, c3] = face.map(|c| v[c as usize]);
        let joined =
            if (case >> face[0]) & 1 == 1 { decider_inside_connected(c0, c2, c1, c3) } else { decider_inside_connected(c1, c3, c0, c2) };
        fic |= (joined as u8) << f;
    }
    fic
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
    let fic = face_decisions(case, &v);
    let loops = build_loops(case, fic);
    let tunnel = find_tunnel(case, fic, &loops, &v);
    let point = |e: u8| {
        let [a, b] = EDGE_CORNERS[e as usize];
        edge_point(e as usize, crossing_t(values[a as usize], values[b as usize], iso))
    };
    triangulate(&loops, tunnel, point, out);
    case
}
