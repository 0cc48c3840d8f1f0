//! The 15 classes of marching cubes, derived from the cube's symmetry rather than transcribed: the
//! 24 rotations of the cube act on the corners, a case and its complement (inside and outside
//! swapped) make the same surface, and the 256 cases fall into 15 orbits. Each orbit gets
//! Lorensen & Cline's number (0–14) from its shape: how many corners are inside (or outside, the
//! fewer), how they touch along cube edges, and, for the two mirror-image chains of four corners,
//! their handedness. With Bourke's corner numbering these are the case numbers of Lewiner et al.'s
//! MC33 tables (as scikit-image ships them) for all 256 cases.

use super::cube::CORNERS;

/// The 24 rotations of the cube as corner permutations: `r[c]` is where corner `c` goes.
pub fn rotations() -> Vec<[u8; 8]> {
    let mut out = Vec::with_capacity(24);
    // signed permutation matrices with determinant +1, acting on corners centred at the origin
    for perm in [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [2, 1, 0], [1, 0, 2]] {
        let even = matches!(perm, [0, 1, 2] | [1, 2, 0] | [2, 0, 1]);
        for signs in 0..8u8 {
            let negatives = signs.count_ones();
            // det = sign(perm) · product of signs
            if even != negatives.is_multiple_of(2) {
                continue;
            }
            let r = std::array::from_fn(|c| {
                let p = CORNERS[c].map(|v| 2 * v as i8 - 1);
                let q: [i8; 3] = std::array::from_fn(|a| if signs >> a & 1 == 1 { -p[perm[a]] } else { p[perm[a]] });
                let back = q.map(|v| ((v + 1) / 2) as u8);
                CORNERS.iter().position(|k| *k == back).expect("a corner") as u8
            });
            out.push(r);
        }
    }
    out
}

/// Case `case` with its corners moved by rotation `r`.
pub fn rotate(case: u8, r: &[u8; 8]) -> u8 {
    (0..8).filter(|&c| case >> c & 1 == 1).fold(0u8, |acc, c| acc | 1 << r[c])
}

/// The case's orbit under rotations and complement, as the smallest case index in it.
pub fn orbit_key(case: u8, rotations: &[[u8; 8]]) -> u8 {
    rotations.iter().flat_map(|r| [rotate(case, r), rotate(!case, r)]).min().expect("rotations")
}

fn adjacent(a: usize, b: usize) -> bool {
    (0..3).filter(|&k| CORNERS[a][k] != CORNERS[b][k]).count() == 1
}

/// Lorensen & Cline's class number (0–14) of `case`.
pub fn class_of(case: u8) -> u8 {
    // the fewer of inside and outside; with four each, either gives the same class
    let set = if case.count_ones() <= 4 { case } else { !case };
    let corners: Vec<usize> = (0..8).filter(|&c| set >> c & 1 == 1).collect();
    let pairs: Vec<(usize, usize)> = corners
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| corners[i + 1..].iter().map(move |&b| (a, b)))
        .filter(|&(a, b)| adjacent(a, b))
        .collect();
    let degree = |c: usize| pairs.iter().filter(|&&(a, b)| a == c || b == c).count();
    match (corners.len(), pairs.len()) {
        (0, _) => 0,
        (1, _) => 1,
        (2, 1) => 2,
        (2, _) => {
            let (a, b) = (corners[0], corners[1]);
            let differing = (0..3).filter(|&k| CORNERS[a][k] != CORNERS[b][k]).count();
            if differing == 2 { 3 } else { 4 }
        }
        (3, 2) => 5,
        (3, 1) => 6,
        (3, _) => 7,
        (4, 4) => 8,
        (4, 0) => 13,
        (4, 3) if corners.iter().any(|&c| degree(c) == 3) => 9,
        (4, 3) => {
            if chain_handedness(&corners, &pairs) > 0 {
                14
            } else {
                11
            }
        }
        (4, _) if corners.iter().all(|&c| degree(c) == 1) => 10,
        _ => 12,
    }
}

/// For four corners joined in a chain by three cube edges in three different directions: the sign
/// of the determinant of the three steps, which no rotation changes (nor reading the chain from
/// its other end).
fn chain_handedness(corners: &[usize], pairs: &[(usize, usize)]) -> i32 {
    let degree = |c: usize| pairs.iter().filter(|&&(a, b)| a == c || b == c).count();
    let mut at = *corners.iter().find(|&&c| degree(c) == 1).expect("a chain has two ends");
    let mut prev = usize::MAX;
    let mut steps = Vec::new();
    for _ in 0..3 {
        let next = pairs.iter().find_map(|&(a, b)| match (a == at, b == at) {
            (true, _) if b != prev => Some(b),
            (_, true) if a != prev => Some(a),
            _ => None,
        });
        let Some(next) = next else { break };
        steps.push(std::array::from_fn::<i32, 3, _>(|k| CORNERS[next][k] as i32 - CORNERS[at][k] as i32));
        (prev, at) = (at, next);
    }
    let [a, b, c] = [steps[0], steps[1], steps[2]];
    let det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
    det.signum()
}

/// The smallest case index of class `class` with no more inside corners than outside ones: the
/// cube a figure shows for that class.
pub fn representative(class: u8) -> Option<u8> {
    (0..=255u8).find(|&c| c.count_ones() <= 4 && class_of(c) == class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rotations_are_the_24_of_the_cube() {
        let r = rotations();
        assert_eq!(r.len(), 24);
        let mut unique = r.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 24, "distinct permutations");
        // each keeps cube edges as cube edges
        for p in &r {
            for a in 0..8 {
                for b in 0..8 {
                    assert_eq!(adjacent(a, b), adjacent(p[a] as usize, p[b] as usize));
                }
            }
        }
    }

    #[test]
    fn the_256_cases_fall_into_15_classes_one_per_orbit() {
        let rot = rotations();
        let mut orbit_of_class = [None; 15];
        let mut sizes = [0usize; 15];
        for case in 0..=255u8 {
            let class = class_of(case) as usize;
            sizes[class] += 1;
            // every case of a class lies in one orbit, and different classes in different ones
            let key = orbit_key(case, &rot);
            assert_eq!(*orbit_of_class[class].get_or_insert(key), key, "case {case} in class {class}");
            // rotating or complementing never changes the class
            for r in &rot {
                assert_eq!(class_of(rotate(case, r)), class as u8);
            }
            assert_eq!(class_of(!case), class as u8);
        }
        let mut keys: Vec<u8> = orbit_of_class.iter().map(|k| k.expect("every class is used")).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 15, "15 distinct orbits");
        assert_eq!(sizes.iter().sum::<usize>(), 256);
        // with mirror images too (48 symmetries), the two chains of four become one: 14 classes
        let mirror = |case: u8| (0..8).filter(|&c| case >> c & 1 == 1).fold(0u8, |acc, c| acc | 1 << (c ^ 1));
        let mirrored: std::collections::BTreeSet<u8> = (0..=255u8).map(|c| orbit_key(c, &rot).min(orbit_key(mirror(c), &rot))).collect();
        assert_eq!(mirrored.len(), 14);
        assert_eq!(class_of(mirror(representative(11).unwrap())), 14);
    }

    #[test]
    fn representatives_show_their_class() {
        for class in 0..15 {
            let c = representative(class).expect("every class has one");
            assert_eq!(class_of(c), class);
            assert!(c.count_ones() <= 4);
        }
        assert_eq!(representative(0), Some(0));
        assert_eq!(representative(1), Some(1));
        assert_eq!(representative(15), None);
    }
}
