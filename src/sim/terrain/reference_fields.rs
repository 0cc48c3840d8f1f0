//! The two benchmark fields shared with `../shared/bench/mc_peers.py` (bit for bit: every formula is
//! evaluated in f64 in the order written there, then cast to f32). Sample (x, y, z) has integer
//! coordinates 0..N-1 and lives at `x + N * (y + N * z)`; iso 0, negative inside.

use crate::portable;
use std::f64::consts::PI;

/// Sphere SDF: centre (N-1)/2, radius 0.35 N.
pub fn sphere(n: usize, x: f64, y: f64, z: f64) -> f32 {
    let nf = n as f64;
    let c = (nf - 1.0) / 2.0;
    let r = 0.35 * nf;
    let (dx, dy, dz) = (x - c, y - c, z - c);
    ((dx * dx + dy * dy + dz * dz).sqrt() - r) as f32
}

const A: [f64; 4] = [0.080, 0.040, 0.020, 0.010];
const F: [f64; 4] = [1.5, 3.1, 6.3, 12.7];
const P: [f64; 4] = [0.0, 1.3, 2.9, 4.1];
const Q: [f64; 4] = [0.7, 2.2, 3.6, 5.3];

/// Four octaves of sin·cos height on a 0.4 N base, plus a 3-D term whose |∂g/∂y| reaches 2.2 > 1:
/// overhangs and arches. Open where it meets the x and z faces of the grid.
pub fn terrain(n: usize, x: f64, y: f64, z: f64) -> f32 {
    let nf = n as f64;
    let u = 2.0 * PI / nf;
    let mut h = 0.40 * nf;
    for o in 0..4 {
        let fu = F[o] * u;
        h += (nf * A[o]) * portable::sin(fu * x + P[o]) * portable::cos(fu * z + Q[o]);
    }
    let g = (0.07 * nf) * portable::sin(u * (2.7 * x + 3.3 * y) + 0.5) * portable::cos(u * (2.1 * z - 1.7 * y) + 1.1);
    ((y - h) + g) as f32
}

/// The named field sampled on an N³ grid (built in parallel over z-slices; each sample is
/// independent, so the result does not depend on the thread count).
pub fn build(name: &str, n: usize) -> Option<Vec<f32>> {
    use rayon::prelude::*;
    let f = match name {
        "sphere" => sphere,
        "terrain" => terrain,
        _ => return None,
    };
    let mut v = vec![0.0f32; n * n * n];
    v.par_chunks_mut(n * n).enumerate().for_each(|(z, slice)| {
        for y in 0..n {
            for x in 0..n {
                slice[x + n * y] = f(n, x as f64, y as f64, z as f64);
            }
        }
    });
    Some(v)
}

/// The checksum `mc_peers.py` uses to prove the fields identical: sum of bits(f[i]) · ((i mod 65521) + 1)
/// (wrapping u64), and the count of negative samples.
pub fn checksum(v: &[f32]) -> (u64, u64) {
    let mut s = 0u64;
    let mut neg = 0u64;
    for (i, &x) in v.iter().enumerate() {
        s = s.wrapping_add((x.to_bits() as u64).wrapping_mul((i as u64 % 65521) + 1));
        neg += (x < 0.0) as u64;
    }
    (s, neg)
}
