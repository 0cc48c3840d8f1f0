//! Seeded gradient noise (Perlin's improved noise, 2002): 2-D and 3-D, quintic fade, with the
//! permutation shuffled from the scene's seed. Output roughly in [−1, 1], zero at lattice points.

use super::rng::Rng;

#[derive(Clone, Debug)]
pub struct Noise {
    perm: [u8; 512],
}

const G2: [[f64; 2]; 8] = {
    const D: f64 = std::f64::consts::FRAC_1_SQRT_2;
    [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [D, D], [-D, D], [D, -D], [-D, -D]]
};

const G3: [[f64; 3]; 16] = [
    [1.0, 1.0, 0.0],
    [-1.0, 1.0, 0.0],
    [1.0, -1.0, 0.0],
    [-1.0, -1.0, 0.0],
    [1.0, 0.0, 1.0],
    [-1.0, 0.0, 1.0],
    [1.0, 0.0, -1.0],
    [-1.0, 0.0, -1.0],
    [0.0, 1.0, 1.0],
    [0.0, -1.0, 1.0],
    [0.0, 1.0, -1.0],
    [0.0, -1.0, -1.0],
    // Perlin pads the 12 edge directions to 16 with four of them again.
    [1.0, 1.0, 0.0],
    [-1.0, 1.0, 0.0],
    [0.0, -1.0, 1.0],
    [0.0, -1.0, -1.0],
];

#[inline]
fn fade(t: f64) -> f64 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

#[inline]
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    a + t * (b - a)
}

impl Noise {
    /// A noise whose lattice gradients are shuffled by `rng`.
    pub fn new(rng: &mut Rng) -> Self {
        let mut p: [u8; 256] = std::array::from_fn(|i| i as u8);
        for i in (1..256).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            p.swap(i, j);
        }
        Noise { perm: std::array::from_fn(|i| p[i & 255]) }
    }

    #[inline]
    fn hash2(&self, x: usize, y: usize) -> usize {
        self.perm[self.perm[x & 255] as usize + (y & 255)] as usize
    }

    #[inline]
    fn hash3(&self, x: usize, y: usize, z: usize) -> usize {
        self.perm[self.perm[self.perm[x & 255] as usize + (y & 255)] as usize + (z & 255)] as usize
    }

    pub fn noise2(&self, x: f64, y: f64) -> f64 {
        let (fx, fy) = (x.floor(), y.floor());
        let (xi, yi) = (fx as i64 as usize, fy as i64 as usize);
        let (dx, dy) = (x - fx, y - fy);
        let g = |ix: usize, iy: usize, ox: f64, oy: f64| {
            let v = G2[self.hash2(xi.wrapping_add(ix), yi.wrapping_add(iy)) & 7];
            v[0] * (dx - ox) + v[1] * (dy - oy)
        };
        let (u, v) = (fade(dx), fade(dy));
        lerp(lerp(g(0, 0, 0.0, 0.0), g(1, 0, 1.0, 0.0), u), lerp(g(0, 1, 0.0, 1.0), g(1, 1, 1.0, 1.0), u), v)
    }

    pub fn noise3(&self, x: f64, y: f64, z: f64) -> f64 {
        let (fx, fy, fz) = (x.floor(), y.floor(), z.floor());
        let (xi, yi, zi) = (fx as i64 as usize, fy as i64 as usize, fz as i64 as usize);
        let (dx, dy, dz) = (x - fx, y - fy, z - fz);
        let g = |ix: usize, iy: usize, iz: usize| {
            let v = G3[self.hash3(xi.wrapping_add(ix), yi.wrapping_add(iy), zi.wrapping_add(iz)) & 15];
            v[0] * (dx - ix as f64) + v[1] * (dy - iy as f64) + v[2] * (dz - iz as f64)
        };
        let (u, v, w) = (fade(dx), fade(dy), fade(dz));
        let x00 = lerp(g(0, 0, 0), g(1, 0, 0), u);
        let x10 = lerp(g(0, 1, 0), g(1, 1, 0), u);
        let x01 = lerp(g(0, 0, 1), g(1, 0, 1), u);
        let x11 = lerp(g(0, 1, 1), g(1, 1, 1), u);
        lerp(lerp(x00, x10, v), lerp(x01, x11, v), w)
    }

    /// 3-D noise and its gradient (∂/∂x, ∂/∂y, ∂/∂z), differentiated analytically: the same value
    /// as [`Noise::noise3`], and a gradient that is exact up to rounding (curl noise needs it).
    pub fn noise3_grad(&self, x: f64, y: f64, z: f64) -> (f64, [f64; 3]) {
        let (fx, fy, fz) = (x.floor(), y.floor(), z.floor());
        let (xi, yi, zi) = (fx as i64 as usize, fy as i64 as usize, fz as i64 as usize);
        let d = [x - fx, y - fy, z - fz];
        let w = d.map(fade);
        let dw = d.map(|t| 30.0 * t * t * (t - 1.0) * (t - 1.0));
        let (mut value, mut grad) = (0.0, [0.0; 3]);
        for corner in 0..8usize {
            let c = [corner & 1, (corner >> 1) & 1, corner >> 2];
            let g = G3[self.hash3(xi.wrapping_add(c[0]), yi.wrapping_add(c[1]), zi.wrapping_add(c[2])) & 15];
            let off: [f64; 3] = std::array::from_fn(|a| d[a] - c[a] as f64);
            let dot = g[0] * off[0] + g[1] * off[1] + g[2] * off[2];
            // weight of this corner along each axis, and its derivative
            let wa: [f64; 3] = std::array::from_fn(|a| if c[a] == 1 { w[a] } else { 1.0 - w[a] });
            let da: [f64; 3] = std::array::from_fn(|a| if c[a] == 1 { dw[a] } else { -dw[a] });
            let weight = wa[0] * wa[1] * wa[2];
            value += weight * dot;
            grad[0] += da[0] * wa[1] * wa[2] * dot + weight * g[0];
            grad[1] += wa[0] * da[1] * wa[2] * dot + weight * g[1];
            grad[2] += wa[0] * wa[1] * da[2] * dot + weight * g[2];
        }
        (value, grad)
    }

    /// Fractal sum of `octaves` layers of 2-D noise: Σ gainᵒ · noise(lacunarityᵒ · p).
    pub fn fbm2(&self, x: f64, y: f64, octaves: u32, lacunarity: f64, gain: f64) -> f64 {
        let (mut sum, mut amp, mut f) = (0.0, 1.0, 1.0);
        for o in 0..octaves {
            // each octave is shifted so that lattice zeros do not line up
            let s = o as f64 * 17.31;
            sum += amp * self.noise2(x * f + s, y * f - s);
            amp *= gain;
            f *= lacunarity;
        }
        sum
    }

    pub fn fbm3(&self, x: f64, y: f64, z: f64, octaves: u32, lacunarity: f64, gain: f64) -> f64 {
        let (mut sum, mut amp, mut f) = (0.0, 1.0, 1.0);
        for o in 0..octaves {
            let s = o as f64 * 17.31;
            sum += amp * self.noise3(x * f + s, y * f - s, z * f + 0.5 * s);
            amp *= gain;
            f *= lacunarity;
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_is_seeded_bounded_and_continuous() {
        let a = Noise::new(&mut Rng::new(3));
        let b = Noise::new(&mut Rng::new(3));
        let c = Noise::new(&mut Rng::new(4));
        let mut differs = false;
        let mut max = 0.0f64;
        for i in 0..2000 {
            let (x, y, z) = (i as f64 * 0.137, i as f64 * 0.071 - 20.0, i as f64 * 0.029);
            assert_eq!(a.noise3(x, y, z), b.noise3(x, y, z));
            differs |= a.noise3(x, y, z) != c.noise3(x, y, z);
            max = max.max(a.noise3(x, y, z).abs()).max(a.noise2(x, y).abs());
            // continuity: a tiny step moves the value a tiny amount
            assert!((a.noise3(x, y, z) - a.noise3(x + 1e-6, y, z)).abs() < 1e-4);
        }
        assert!(differs);
        assert!(max > 0.3 && max <= 1.5, "{max}");
        assert_eq!(a.noise2(3.0, -7.0), 0.0);
    }

    #[test]
    fn the_analytic_gradient_matches_the_value_and_finite_differences() {
        let n = Noise::new(&mut Rng::new(5));
        for i in 0..500 {
            let p = [i as f64 * 0.173 - 30.0, i as f64 * 0.061 + 2.0, i as f64 * 0.097 - 5.0];
            let (v, g) = n.noise3_grad(p[0], p[1], p[2]);
            assert!((v - n.noise3(p[0], p[1], p[2])).abs() < 1e-12);
            let h = 1e-5;
            for a in 0..3 {
                let (mut lo, mut hi) = (p, p);
                lo[a] -= h;
                hi[a] += h;
                let fd = (n.noise3(hi[0], hi[1], hi[2]) - n.noise3(lo[0], lo[1], lo[2])) / (2.0 * h);
                assert!((fd - g[a]).abs() < 1e-6, "axis {a} at {p:?}: {fd} vs {}", g[a]);
            }
        }
    }

    #[test]
    fn noise_is_zero_on_the_lattice_and_fbm_sums_its_octaves() {
        let n = Noise::new(&mut Rng::new(8));
        for (x, y, z) in [(0.0, 0.0, 0.0), (3.0, -7.0, 12.0), (-255.0, 256.0, 1.0)] {
            assert_eq!(n.noise3(x, y, z), 0.0);
            assert_eq!(n.noise2(x, y), 0.0);
        }
        let (x, y, z) = (1.37, -2.61, 0.42);
        // one octave is the noise itself; a gain of 0 silences every octave after the first
        assert_eq!(n.fbm2(x, y, 1, 2.0, 0.5), n.noise2(x, y));
        assert_eq!(n.fbm3(x, y, z, 5, 2.0, 0.0), n.noise3(x, y, z));
        assert_eq!(n.fbm2(x, y, 0, 2.0, 0.5), 0.0);
        // octave o is noise at lacunarityᵒ · p, shifted by o · 17.31, weighted gainᵒ
        let two = n.noise2(x, y) + 0.5 * n.noise2(2.0 * x + 17.31, 2.0 * y - 17.31);
        assert_eq!(n.fbm2(x, y, 2, 2.0, 0.5), two);
        // and the sum stays within Σ gainᵒ of the per-octave bound
        let mut max = 0.0f64;
        for i in 0..3000 {
            max = max.max(n.fbm3(i as f64 * 0.113, i as f64 * 0.057 - 9.0, i as f64 * 0.031, 6, 2.0, 0.5).abs());
        }
        assert!(max > 0.4 && max < 1.5 * 1.97, "{max}");
    }
}
