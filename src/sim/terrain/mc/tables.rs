//! The two lookup tables of marching cubes, generated once from the cube topology in `cube.rs`
//! (not transcribed): the edge table (which of the 12 edges a case crosses) and the triangle table
//! (which crossings to join), plus, per case, whether the lookup is enough or the cube needs its
//! values (an ambiguous face for the asymptotic decider, or several loops the interior may join).

use std::sync::LazyLock;

use super::cube::{self, CubeSurface};

/// One of the 256 cases.
#[derive(Clone, Copy, Debug)]
pub struct CaseEntry {
    /// Triangles as triples of edge numbers (Bourke's numbering), outward-facing, counter-clockwise.
    pub tris: [[u8; 3]; 5],
    pub n_tris: u8,
    /// Edges in the order the triangles first use them (vertex creation order).
    pub uses: [u8; 12],
    pub n_uses: u8,
    /// The lookup is not enough: decide with the corner values (`cube::polygonise`).
    pub needs_values: bool,
}

/// The generated tables, indexed by the 8-bit case (bit i = corner i inside).
pub static CASES: LazyLock<[CaseEntry; 256]> = LazyLock::new(|| std::array::from_fn(|c| entry(c as u8)));

/// The seed's `edgeTable`: bit e of `EDGE_TABLE[case]` = the surface crosses edge e.
pub static EDGE_TABLE: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = cube::edge_mask(c as u8);
        c += 1;
    }
    t
};

fn entry(case: u8) -> CaseEntry {
    let mut e = CaseEntry { tris: [[0; 3]; 5], n_tris: 0, uses: [0; 12], n_uses: 0, needs_values: false };
    if case == 0 || case == 255 {
        return e;
    }
    let loops = cube::build_loops(case, 0);
    if cube::ambiguous_faces(case) != 0 || loops.len() > 1 {
        e.needs_values = true;
        return e;
    }
    // A single loop: its triangulation only depends on the case. Diagonals are chosen on edge
    // midpoints, which is where the crossings sit on average.
    let mut surf = CubeSurface::default();
    cube::triangulate(&loops, None, |k| cube::edge_point(k as usize, 0.5), &mut surf);
    assert!(surf.n_extra == 0 && surf.triangles().len() <= 5, "case {case}: single loop too long");
    for (k, t) in surf.triangles().iter().enumerate() {
        e.tris[k] = *t;
        for &v in t {
            if !e.uses[..e.n_uses as usize].contains(&v) {
                e.uses[e.n_uses as usize] = v;
                e.n_uses += 1;
            }
        }
    }
    e.n_tris = surf.n_tris;
    e
}
