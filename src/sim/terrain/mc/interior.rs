//! MC33's interior ambiguity: whether the trilinear interpolant joins, through the inside of a
//! cube, two surface patches that the faces keep apart. When it does, the two loops bounding those
//! patches become the ends of one tunnel instead of two disks.

use super::cube::{CubeLoops, EDGE_CORNERS, FACES, NONE, decider_inside_connected, face_is_ambiguous};

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
