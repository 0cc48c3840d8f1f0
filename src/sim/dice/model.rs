//! One die's particle lattice and constraint topology (seed 000): 4 × 4 × 4 particles spanning
//! a unit cube, inverse mass 64 each (a die of mass 1); distance constraints along axes, face
//! diagonals, body diagonals and skip-one axis links (564 in all); five tetrahedra per lattice
//! cell (135 volume constraints). Built once and shared by every die.

use crate::portable;
use std::sync::LazyLock;

/// Stretch limits, as multiples of rest length: projected exactly, without compliance.
pub const STRETCH_MAX: f64 = 1.9;
pub const STRETCH_MIN: f64 = 0.45;

/// Particles per lattice side.
pub const N: usize = 4;
/// Particles per die.
pub const PARTICLES: usize = N * N * N;
/// Inverse mass of one particle: 64 particles of 1/64 make a die of mass 1.
pub const W_INV: f64 = 64.0;
/// Edge of the die, metres.
pub const SIZE: f64 = 1.0;

/// Particle index of lattice point (i, j, k), x fastest.
pub const fn index(i: usize, j: usize, k: usize) -> usize {
    i + N * (j + N * k)
}

/// Rest position of particle `p` relative to the die's centre.
pub fn rest(p: usize) -> [f64; 3] {
    let (i, j, k) = (p % N, (p / N) % N, p / (N * N));
    let s = SIZE / (N - 1) as f64;
    [i as f64 * s - SIZE / 2.0, j as f64 * s - SIZE / 2.0, k as f64 * s - SIZE / 2.0]
}

/// A distance constraint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    pub a: u16,
    pub b: u16,
    pub rest: f64,
    /// The hard stretch limits: 0.45 and 1.9 rest lengths.
    pub min: f64,
    pub max: f64,
    /// The limits squared, for checks without a square root.
    pub min2: f64,
    pub max2: f64,
}

/// A volume constraint over a tetrahedron with positive rest volume.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tet {
    pub v: [u16; 4],
    pub rest: f64,
}

/// The shared topology.
pub struct Topology {
    pub rest: [[f64; 3]; PARTICLES],
    pub links: Vec<Link>,
    pub tets: Vec<Tet>,
}

pub fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    (portable::powi(a[0] - b[0], 2) + portable::powi(a[1] - b[1], 2) + portable::powi(a[2] - b[2], 2)).sqrt()
}

/// Signed volume of a tetrahedron (positive when b − a, c − a, d − a are right-handed).
pub fn tet_volume(a: [f64; 3], b: [f64; 3], c: [f64; 3], d: [f64; 3]) -> f64 {
    let (u, v, w) =
        ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]], [d[0] - a[0], d[1] - a[1], d[2] - a[2]]);
    (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0])) / 6.0
}

pub static TOPOLOGY: LazyLock<Topology> = LazyLock::new(build);

fn build() -> Topology {
    let rest: [[f64; 3]; PARTICLES] = std::array::from_fn(rest);
    let mut links = Vec::new();
    let mut link = |a: usize, b: usize| {
        let r = dist(rest[a], rest[b]);
        let (min, max) = (STRETCH_MIN * r, STRETCH_MAX * r);
        links.push(Link { a: a as u16, b: b as u16, rest: r, min, max, min2: min * min, max2: max * max })
    };
    let inside =
        |i: isize, j: isize, k: isize| (0..N as isize).contains(&i) && (0..N as isize).contains(&j) && (0..N as isize).contains(&k);
    // Every lattice offset once (the half-space of offsets with a positive first non-zero component):
    // axis neighbours (1 step), face diagonals, body diagonals, and skip-one axis links (2 steps).
    let mut offsets: Vec<[isize; 3]> = Vec::new();
    for d in [[1, 0, 0], [0, 1, 0], [0, 0, 1]] {
        offsets.push(d);
    }
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        for s in [1, -1] {
            let mut d = [0isize; 3];
            d[a] = 1;
            d[b] = s;
            offsets.push(d);
        }
    }
    for (sy, sz) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
        offsets.push([1, sy, sz]);
    }
    for d in [[2, 0, 0], [0, 2, 0], [0, 0, 2]] {
        offsets.push(d);
    }
    for k in 0..N as isize {
        for j in 0..N as isize {
            for i in 0..N as isize {
                for d in &offsets {
                    let (i2, j2, k2) = (i + d[0], j + d[1], k + d[2]);
                    if inside(i2, j2, k2) {
                        link(index(i as usize, j as usize, k as usize), index(i2 as usize, j2 as usize, k2 as usize));
                    }
                }
            }
        }
    }
    // Five tetrahedra per cell, the split mirrored on alternate cells so neighbouring cells share
    // face diagonals.
    let mut tets = Vec::new();
    for k in 0..N - 1 {
        for j in 0..N - 1 {
            for i in 0..N - 1 {
                let c = |di: usize, dj: usize, dk: usize| index(i + di, j + dj, k + dk);
                let (v000, v100, v010, v110) = (c(0, 0, 0), c(1, 0, 0), c(0, 1, 0), c(1, 1, 0));
                let (v001, v101, v011, v111) = (c(0, 0, 1), c(1, 0, 1), c(0, 1, 1), c(1, 1, 1));
                let five: [[usize; 4]; 5] = if (i + j + k) % 2 == 0 {
                    [
                        [v000, v100, v010, v001],
                        [v110, v010, v100, v111],
                        [v101, v001, v111, v100],
                        [v011, v111, v001, v010],
                        [v100, v010, v001, v111],
                    ]
                } else {
                    [
                        [v100, v000, v110, v101],
                        [v010, v110, v000, v011],
                        [v001, v101, v011, v000],
                        [v111, v011, v101, v110],
                        [v000, v110, v101, v011],
                    ]
                };
                for t in five {
                    let mut v = t;
                    let mut vol = tet_volume(rest[v[0]], rest[v[1]], rest[v[2]], rest[v[3]]);
                    if vol < 0.0 {
                        v.swap(2, 3);
                        vol = -vol;
                    }
                    tets.push(Tet { v: v.map(|x| x as u16), rest: vol });
                }
            }
        }
    }
    let links = colour_order(links, |l| [l.a, l.b]);
    let tets = colour_order(tets, |t| t.v);
    Topology { rest, links, tets }
}

/// Reorders constraints into groups that share no particle (greedy graph colouring, in the original
/// order within a group). Solving one group after another is still Gauss–Seidel, but consecutive
/// solves no longer wait on each other's results, so the processor overlaps their square roots and
/// divisions.
fn colour_order<T: Copy, const K: usize>(items: Vec<T>, particles: impl Fn(&T) -> [u16; K]) -> Vec<T> {
    let mut colours: Vec<(u64, Vec<T>)> = Vec::new(); // (particles used, members)
    for it in items {
        let mask = particles(&it).iter().fold(0u64, |m, &p| m | 1 << p);
        match colours.iter_mut().find(|(used, _)| used & mask == 0) {
            Some((used, members)) => {
                *used |= mask;
                members.push(it);
            }
            None => colours.push((mask, vec![it])),
        }
    }
    colours.into_iter().flat_map(|(_, members)| members).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_mass_and_volume_match_the_seed() {
        let t = &*TOPOLOGY;
        assert_eq!(t.links.len(), 564);
        assert_eq!(t.tets.len(), 135);
        assert_eq!(PARTICLES as f64 / W_INV, 1.0, "die mass");
        let total: f64 = t.tets.iter().map(|x| x.rest).sum();
        assert!((total - SIZE * SIZE * SIZE).abs() < 1e-12, "the tetrahedra fill the cube: {total}");
        assert!(t.tets.iter().all(|x| x.rest > 0.0));
        // no duplicate links, and the four kinds in the expected numbers
        let mut seen = std::collections::HashSet::new();
        let s = SIZE / 3.0;
        let mut kinds = [0; 4];
        for l in &t.links {
            assert!(seen.insert((l.a.min(l.b), l.a.max(l.b))));
            let r = l.rest / s;
            let kind = if (r - 1.0).abs() < 1e-9 {
                0
            } else if (r - 2f64.sqrt()).abs() < 1e-9 {
                1
            } else if (r - 3f64.sqrt()).abs() < 1e-9 {
                2
            } else if (r - 2.0).abs() < 1e-9 {
                3
            } else {
                panic!("unexpected link length {r}")
            };
            kinds[kind] += 1;
        }
        assert_eq!(kinds, [144, 216, 108, 96]);
    }

    #[test]
    fn colour_groups_share_no_particle() {
        // consecutive links within a run without repeats: check that the ordering is a partition
        // into particle-disjoint groups by replaying the greedy rule
        let t = &*TOPOLOGY;
        let mut used = 0u64;
        let mut groups = 1;
        for l in &t.links {
            let m = (1u64 << l.a) | (1u64 << l.b);
            if used & m != 0 {
                groups += 1;
                used = 0;
            }
            used |= m;
        }
        assert!(groups < 60, "{groups} groups");
    }
}
