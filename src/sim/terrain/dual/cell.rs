//! One cell of a dual mesher: the pieces the surface makes inside it and a vertex for each.
//!
//! A piece is one loop of crossed edges, as marching cubes' face rules draw it (a face with one
//! inside corner, or two side by side, holds one segment; an ambiguous face holds two, chosen by
//! the asymptotic decider, which both cells sharing the face evaluate alike). Every loop bounds a
//! disk, so giving each its own vertex makes the dual mesh the dual of a closed 2-manifold, itself
//! one. MC33's interior test is not used: where it would join two loops by a tube, the dual mesh
//! keeps two disks (one vertex shared by both would join two fans).

use std::sync::LazyLock;

use super::Placement;
use super::qef::{gradient, normalize, qef, refine};
use crate::sim::terrain::mc::cube::{
    CORNERS, EDGE_AXIS, EDGE_CORNERS, EDGE_OF, FACES, ambiguous_faces, build_loops, case_index, crossing_t, face_decisions,
    face_is_ambiguous, trilinear_gradient,
};

/// Which piece each of a cell's 12 edges belongs to (2 bits an edge; meaningful for crossed
/// edges only) and how many pieces there are (bits 24..).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pieces(u32);

impl Pieces {
    /// Every edge in one piece (a vertex per cell).
    pub const WHOLE: Pieces = Pieces(1 << 24);

    pub fn count(self) -> u32 {
        self.0 >> 24
    }

    /// The piece crossed edge `e` belongs to.
    #[inline(always)]
    pub fn of(self, e: usize) -> u32 {
        (self.0 >> (2 * e)) & 3
    }

    fn of_loops(case: u8, face_inside_connected: u8) -> Pieces {
        let loops = build_loops(case, face_inside_connected);
        let mut bits = (loops.len() as u32) << 24;
        for k in 0..loops.len() {
            for &e in loops.get(k) {
                bits |= (k as u32) << (2 * e);
            }
        }
        Pieces(bits)
    }
}

/// Each edge's lower corner and its direction, as f32 (edge e runs from `EDGE_ORIGIN[e]` along
/// `EDGE_DIRECTION[e]`).
const EDGE_ORIGIN: [[f32; 3]; 12] = {
    let mut t = [[0f32; 3]; 12];
    let mut e = 0;
    while e < 12 {
        let c = CORNERS[EDGE_CORNERS[e][0] as usize];
        t[e] = [c[0] as f32, c[1] as f32, c[2] as f32];
        e += 1;
    }
    t
};
const EDGE_DIRECTION: [[f32; 3]; 12] = {
    let mut t = [[0f32; 3]; 12];
    let mut e = 0;
    while e < 12 {
        t[e][EDGE_AXIS[e] as usize] = 1.0;
        e += 1;
    }
    t
};

/// `ambiguous_faces` of every case.
const AMBIGUOUS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut case = 0;
    while case < 256 {
        t[case] = ambiguous_faces(case as u8);
        case += 1;
    }
    t
};

/// The bits of `AMBIGUOUS` for the low faces x = 0, y = 0, z = 0.
const LOW_FACES: u8 = 1 << LOWER_FACE[0] | 1 << LOWER_FACE[1] | 1 << LOWER_FACE[2];

/// The pieces of every case without an ambiguous face (its loops follow from the case alone).
static UNAMBIGUOUS: LazyLock<[Pieces; 256]> = LazyLock::new(|| std::array::from_fn(|case| Pieces::of_loops(case as u8, 0)));

/// The pieces of a cell of case `case` with corner values `v`.
#[inline]
pub fn pieces(case: u8, v: &[f32; 8], iso: f32) -> Pieces {
    if AMBIGUOUS[case as usize] == 0 {
        return UNAMBIGUOUS[case as usize];
    }
    let centred: [f64; 8] = std::array::from_fn(|i| v[i] as f64 - iso as f64);
    Pieces::of_loops(case, face_decisions(case, &centred))
}

/// Cell faces (indices into `FACES`) at the low side along x, y, z, and the same faces seen from
/// the cell below along that axis (its high side).
const LOWER_FACE: [usize; 3] = [4, 2, 0];
const UPPER_FACE: [usize; 3] = [5, 3, 1];

/// Whether the four edges of face `f` are crossed and belong to one piece.
fn face_in_one_piece(case: u8, pieces: Pieces, f: usize) -> bool {
    let face = FACES[f];
    let edge = |j: usize| EDGE_OF[face[j] as usize][face[(j + 1) % 4] as usize] as usize;
    face_is_ambiguous(case, &face) && (1..4).all(|j| pieces.of(edge(j)) == pieces.of(edge(0)))
}

/// Which of a cell's low faces (x = 0, y = 0, z = 0) are *doubled*: ambiguous, with both of their
/// contour segments in one piece of this cell and in one piece of the cell below. The dual edge
/// between those two pieces would then appear twice (one for each segment) and have four
/// triangles; instead each segment gets its own vertex, on the face, between the two pieces.
/// Bit 2a: the face across axis a is doubled; bit 2a + 1: its segments cut off the face's corners
/// 1 and 3 (in `FACES` order) rather than 0 and 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Doubled(u8);

impl Doubled {
    /// For the cell of case `case`, corner values `v` and pieces `pieces`; `below(a)` gives the
    /// corner values of the cell one step down axis a, or `None` at the grid's edge.
    pub fn of(case: u8, v: &[f32; 8], iso: f32, pieces: Pieces, below: impl Fn(usize) -> Option<[f32; 8]>) -> Doubled {
        let mut bits = 0u8;
        if AMBIGUOUS[case as usize] & LOW_FACES == 0 {
            return Doubled(0);
        }
        for axis in 0..3 {
            if !face_in_one_piece(case, pieces, LOWER_FACE[axis]) {
                continue;
            }
            let Some(u) = below(axis) else { continue };
            let under = case_index(&u, iso);
            if !face_in_one_piece(under, self::pieces(under, &u, iso), UPPER_FACE[axis]) {
                continue;
            }
            let centred: [f64; 8] = std::array::from_fn(|i| v[i] as f64 - iso as f64);
            let joined = (face_decisions(case, &centred) >> LOWER_FACE[axis]) & 1 == 1;
            let first_inside = (case >> FACES[LOWER_FACE[axis]][0]) & 1 == 1;
            // a separated face's segments cut its inside corners off, a joined one's the outside
            let cuts_odd = first_inside == joined;
            bits |= (1 | (cuts_odd as u8) << 1) << (2 * axis);
        }
        Doubled(bits)
    }

    pub fn across(self, axis: usize) -> bool {
        (self.0 >> (2 * axis)) & 1 == 1
    }

    fn cuts_odd(self, axis: usize) -> bool {
        (self.0 >> (2 * axis + 1)) & 1 == 1
    }

    /// The segment vertex (counted from the cell's first) on the low face across `axis`
    /// (doubled) for the segment through the cell's edge `e` (an edge of that face).
    pub fn segment_vertex(self, axis: usize, e: usize) -> u32 {
        let before = 2 * (0..axis).filter(|&a| self.across(a)).count() as u32;
        let face = FACES[LOWER_FACE[axis]];
        let [a, b] = EDGE_CORNERS[e];
        // each edge of the face has one corner its segment cuts off
        let j = (0..4).find(|&j| (face[j] == a || face[j] == b) && (j % 2 == 1) == self.cuts_odd(axis)).expect("an edge of the face");
        before + (j / 2) as u32
    }
}

/// Appends the vertex (grid units) and normal of each piece of the cell at `o` with corner values
/// `v`, piece by piece, then those of its doubled faces' segments (two a face, on the face, at the
/// middle of the segment's crossings).
#[allow(clippy::too_many_arguments)]
pub fn place(
    v: &[f32; 8],
    iso: f32,
    o: [f32; 3],
    pieces: Pieces,
    doubled: Doubled,
    place: &Placement<'_>,
    positions: &mut Vec<[f32; 3]>,
    normals: &mut Vec<[f32; 3]>,
) {
    let count = pieces.count() as usize;
    // the crossings, by edge
    let mut points = [[0f32; 3]; 12];
    let mut crossed = 0u16;
    for (e, [a, b]) in EDGE_CORNERS.iter().enumerate() {
        let (va, vb) = (v[*a as usize], v[*b as usize]);
        if (va < iso) == (vb < iso) {
            continue;
        }
        let t = match place {
            Placement::Mean => crossing_t(va, vb, iso),
            Placement::Qef(field) => {
                let corner = |c: u8| std::array::from_fn(|k| o[k] as f64 + CORNERS[c as usize][k] as f64);
                refine(*field, iso as f64, corner(*a), corner(*b), va as f64, vb as f64) as f32
            }
        };
        // the crossing, edge_point's in arithmetic (its write of one coordinate into a stored
        // point stalled the store forwarding of the whole point: 13 % of a 64³ extraction)
        points[e] = std::array::from_fn(|k| EDGE_ORIGIN[e][k] + EDGE_DIRECTION[e][k] * t);
        crossed |= 1 << e;
    }
    let at = |p: [f32; 3]| std::array::from_fn(|a| (o[a] + p[a]) as f64);
    let normal_at = |p: [f32; 3]| match place {
        Placement::Mean => normalize(trilinear_gradient(v, p)),
        Placement::Qef(field) => normalize(gradient(*field, at(p)).map(|c| c as f32)),
    };
    let mut push = |local: [f32; 3]| {
        positions.push([0, 1, 2].map(|a| o[a] + local[a]));
        normals.push(normal_at(local));
    };
    if count == 1 && matches!(place, Placement::Mean) {
        // one piece (most cells): every crossing is its own
        let mut mean = [0f32; 3];
        let n = crossed.count_ones() as f32;
        for e in (0..12).filter(|&e| (crossed >> e) & 1 == 1) {
            for a in 0..3 {
                mean[a] += points[e][a] / n;
            }
        }
        push(mean);
    } else {
        for k in 0..count {
            let mut own = [[0f32; 3]; 12];
            let mut m = 0;
            for e in (0..12).filter(|&e| (crossed >> e) & 1 == 1 && pieces.of(e) as usize == k) {
                own[m] = points[e];
                m += 1;
            }
            let mut mean = [0f32; 3];
            for c in &own[..m] {
                for a in 0..3 {
                    mean[a] += c[a] / m as f32;
                }
            }
            match place {
                Placement::Mean => push(mean),
                Placement::Qef(field) => push(qef(&own[..m], mean, |p| gradient(*field, at(p)).map(|c| c as f32))),
            }
        }
    }
    for axis in (0..3).filter(|&a| doubled.across(a)) {
        let face = FACES[LOWER_FACE[axis]];
        let first = doubled.cuts_odd(axis) as usize;
        for cut in [face[first], face[first + 2]] {
            let j = face.iter().position(|&c| c == cut).expect("a corner of the face");
            let [e0, e1] = [face[(j + 3) % 4], face[(j + 1) % 4]].map(|c| EDGE_OF[cut as usize][c as usize] as usize);
            push(std::array::from_fn(|a| 0.5 * (points[e0][a] + points[e1][a])));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_loop_is_a_piece_and_an_ambiguous_face_splits_or_joins_by_the_decider() {
        // one inside corner: one piece over its three edges
        let p = pieces(1, &[-1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 0.0);
        assert_eq!(p.count(), 1);
        // two opposite corners of the z = 0 face inside (0 and 2): separated when the saddle is
        // outside, one piece when it is inside
        let apart = [-1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let case = crate::sim::terrain::mc::cube::case_index(&apart, 0.0);
        let p = pieces(case, &apart, 0.0);
        assert_eq!(p.count(), 2);
        assert_ne!(p.of(0), p.of(1), "edge 0 cuts corner 0 off, edge 1 corner 2");
        let joined = [-3.0, 1.0, -3.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let p = pieces(case, &joined, 0.0);
        assert_eq!(p.count(), 1);
        // four corners, none adjacent: four pieces
        let four = [-1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0];
        let case = crate::sim::terrain::mc::cube::case_index(&four, 0.0);
        assert_eq!(pieces(case, &four, 0.0).count(), 4);
        let (mut pos, mut nor) = (Vec::new(), Vec::new());
        place(&four, 0.0, [0.0; 3], pieces(case, &four, 0.0), Doubled::default(), &Placement::Mean, &mut pos, &mut nor);
        assert_eq!(pos.len(), 4);
        // each vertex sits by its own corner: the mean of the three midpoints around it
        assert!(pos.iter().all(|p| p.iter().all(|c| (c - 1.0 / 6.0).abs() < 1e-6 || (c - 5.0 / 6.0).abs() < 1e-6)), "{pos:?}");
    }
}
