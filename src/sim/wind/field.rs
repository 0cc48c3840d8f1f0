//! The wind field `W(x, z, t)`: stateless and deterministic, f64, metres per second on the ground
//! plane (x, z). The default model carries gust noise downwind with the mean wind (frozen
//! turbulence) so gusts travel, never lets the along-wind speed drop below `gust_min`, adds an
//! optional divergence-free swirl (the curl of a noise potential) and travelling gust fronts; blasts
//! are events on top of it. [`WindField::seed_wind`] is the seed's own formula, for comparison.

use crate::portable;
use crate::scene::Animated;
use crate::scene::wind::{BlastSpec, FrontSpec, GustSpec, STUD, SwirlSpec, WindSpec};
use crate::sim::noise::Noise;
use crate::sim::rng::Rng;

/// How far the mean wind has carried the air since t = 0, tabulated at fine steps (1/240 s) when
/// speed or direction change (constant ones need no table).
#[derive(Clone, Debug)]
struct Drift {
    step: f64,
    /// (∫U dt, ∫U d̂ dt) at k · step.
    table: Vec<(f64, [f64; 2])>,
}

pub struct WindField {
    direction: Animated<1>,
    speed: Animated<1>,
    duration: f64,
    pub gust: GustSpec,
    pub gust_min: f64,
    pub swirl: SwirlSpec,
    fronts: Vec<FrontSpec>,
    blasts: Vec<BlastSpec>,
    gust_noise: Noise,
    swirl_noise: Noise,
    seed_noise: Noise,
    drift: Option<Drift>,
}

fn unit(deg: f64) -> [f64; 2] {
    let (s, c) = portable::sin_cos(deg.to_radians());
    [c, s]
}

impl WindField {
    pub fn new(spec: &WindSpec, seed: u64, duration: f64) -> Self {
        let mut f = WindField {
            direction: spec.direction_deg.clone(),
            speed: spec.speed.clone(),
            duration,
            gust: spec.gust.clone(),
            gust_min: spec.gust_min,
            swirl: spec.swirl.clone(),
            fronts: spec.fronts.clone(),
            blasts: spec.blasts.clone(),
            gust_noise: Noise::new(&mut Rng::stream(seed, "wind.gust")),
            swirl_noise: Noise::new(&mut Rng::stream(seed, "wind.swirl")),
            seed_noise: Noise::new(&mut Rng::stream(seed, "wind.seed")),
            drift: None,
        };
        if !(spec.speed.is_constant() && spec.direction_deg.is_constant()) {
            f.drift = Some(f.tabulate_drift());
        }
        f
    }

    /// Mean direction (unit, x and z) and speed at `t`.
    pub fn mean(&self, t: f64) -> ([f64; 2], f64) {
        (unit(self.direction.scalar_at(t, self.duration)), self.speed.scalar_at(t, self.duration))
    }

    fn tabulate_drift(&self) -> Drift {
        // 1/240 s, coarser for very long scenes (at most about 200 000 entries)
        let end = self.duration + 1.0;
        let step = (1.0 / 240.0f64).max(end / 200_000.0);
        let n = (end / step).ceil() as usize + 1;
        let mut table = Vec::with_capacity(n);
        let (mut s, mut v) = (0.0, [0.0; 2]);
        let rate = |t: f64| {
            let (d, u) = self.mean(t);
            (u, [u * d[0], u * d[1]])
        };
        table.push((s, v));
        for k in 1..n {
            // Simpson over each step: exact for ramps (cubic at most) within a step; a keyframe
            // inside a step errs by at most a step² times the change of slope
            let (t0, t1) = ((k - 1) as f64 * step, k as f64 * step);
            let (a, b, c) = (rate(t0), rate(0.5 * (t0 + t1)), rate(t1));
            s += step / 6.0 * (a.0 + 4.0 * b.0 + c.0);
            for (i, vi) in v.iter_mut().enumerate() {
                *vi += step / 6.0 * (a.1[i] + 4.0 * b.1[i] + c.1[i]);
            }
            table.push((s, v));
        }
        Drift { step, table }
    }

    /// (∫₀ᵗ U dt, ∫₀ᵗ U d̂ dt): how far the mean wind has carried the air.
    pub fn travelled(&self, t: f64) -> (f64, [f64; 2]) {
        let Some(d) = &self.drift else {
            let (dir, u) = self.mean(0.0);
            return (u * t, [u * t * dir[0], u * t * dir[1]]);
        };
        let k = (t.max(0.0) / d.step).floor() as usize;
        let last = d.table.len() - 1;
        if k >= last {
            // beyond the table the mean wind holds its last value
            let (s, v) = d.table[last];
            let extra = t - last as f64 * d.step;
            let (dir, u) = self.mean(t);
            return (s + u * extra, [v[0] + u * extra * dir[0], v[1] + u * extra * dir[1]]);
        }
        let f = t / d.step - k as f64;
        let (a, b) = (d.table[k], d.table[k + 1]);
        (a.0 + (b.0 - a.0) * f, [a.1[0] + (b.1[0] - a.1[0]) * f, a.1[1] + (b.1[1] - a.1[1]) * f])
    }

    /// The field at one moment: what every point shares (mean wind, drift) worked out once.
    pub fn moment(&self, t: f64) -> Moment<'_> {
        let (dir, speed) = self.mean(t);
        let drift = if self.gust.advect { self.travelled(t).1 } else { [0.0; 2] };
        Moment { field: self, t, dir, speed, drift }
    }

    /// The swirl: A · (∂ψ/∂z, −∂ψ/∂x) of the noise potential ψ, divergence-free by construction.
    pub fn swirl_at(&self, x: f64, z: f64, t: f64) -> [f64; 2] {
        self.moment(t).swirl(x, z)
    }

    /// The wind without blasts: the along-wind component is at least `gust_min`.
    pub fn ambient(&self, x: f64, z: f64, t: f64) -> [f64; 2] {
        self.moment(t).ambient(x, z)
    }

    /// The wind at (x, z) at time `t`, m/s: the ambient wind plus blasts (which, being
    /// explosions, push outward in every direction, upwind too).
    pub fn at(&self, x: f64, z: f64, t: f64) -> [f64; 2] {
        self.moment(t).wind(x, z)
    }

    /// The seed's noise value at (x, z) metres: `math.noise(X·0.015, Z·0.015, t·0.35)` in studs.
    pub fn seed_noise(&self, x: f64, z: f64, t: f64) -> f64 {
        self.seed_noise.noise3(x / STUD * 0.015, z / STUD * 0.015, t * 0.35)
    }

    /// The seed's wind, m/s: `(8, 0, 4) + (n, 0, 0.8n)·12` studs/s with n sampled at the root.
    pub fn seed_wind(&self, x: f64, z: f64, t: f64) -> [f64; 2] {
        let n = self.seed_noise(x, z, t);
        [(8.0 + 12.0 * n) * STUD, (4.0 + 0.8 * 12.0 * n) * STUD]
    }

    /// The smallest feature the grid sampling must resolve, m.
    pub fn feature_size(&self) -> f64 {
        let mut s = self.gust.scale / 4.0;
        if self.swirl.amplitude > 0.0 {
            s = s.min(self.swirl.scale / 4.0);
        }
        for f in &self.fronts {
            s = s.min(f.width / 2.0);
        }
        for b in &self.blasts {
            s = s.min(b.width / 2.0);
        }
        s
    }
}

/// The field at time `t`, ready to be sampled at many points.
pub struct Moment<'a> {
    field: &'a WindField,
    t: f64,
    dir: [f64; 2],
    speed: f64,
    drift: [f64; 2],
}

impl Moment<'_> {
    /// Gust noise coordinates of (x, z): carried downwind when advected.
    fn carried(&self, x: f64, z: f64) -> [f64; 2] {
        [x - self.drift[0], z - self.drift[1]]
    }

    /// The gust term on the along-wind speed, m/s.
    pub fn gust(&self, x: f64, z: f64) -> f64 {
        let g = &self.field.gust;
        if g.amplitude == 0.0 {
            return 0.0;
        }
        let [u, v] = self.carried(x, z);
        g.amplitude * self.field.gust_noise.fbm3(u / g.scale, v / g.scale, self.t / g.period, g.octaves, 2.0, 0.5)
    }

    /// The swirl: A · (∂ψ/∂z, −∂ψ/∂x) of the noise potential ψ.
    pub fn swirl(&self, x: f64, z: f64) -> [f64; 2] {
        let s = &self.field.swirl;
        if s.amplitude == 0.0 {
            return [0.0; 2];
        }
        let [u, v] = self.carried(x, z);
        let (_, g) = self.field.swirl_noise.noise3_grad(u / s.scale, v / s.scale, self.t / s.period);
        [s.amplitude * g[1], -s.amplitude * g[0]]
    }

    /// Travelling fronts added to the along-wind speed at along-wind position `along`.
    fn fronts(&self, along: f64) -> f64 {
        self.field
            .fronts
            .iter()
            .map(|f| {
                let u = (along - f.speed * (self.t - f.at)) / f.width;
                f.strength * portable::exp(-u * u)
            })
            .sum()
    }

    /// The blasts' outward wind.
    pub fn blasts(&self, x: f64, z: f64) -> [f64; 2] {
        let mut w = [0.0; 2];
        for b in &self.field.blasts {
            let age = self.t - b.at;
            if age < 0.0 {
                continue;
            }
            let (dx, dz) = (x - b.center[0], z - b.center[1]);
            let r = (dx * dx + dz * dz).sqrt();
            if r < 1e-9 {
                continue;
            }
            let ring = (r - b.speed * age) / b.width;
            // the last factor keeps the field smooth at the centre, where the direction is undefined
            let core = r / b.width;
            let a = b.strength * portable::exp(-ring * ring) * portable::exp(-age / b.decay) * (1.0 - portable::exp(-core * core));
            w[0] += a * dx / r;
            w[1] += a * dz / r;
        }
        w
    }

    /// The wind without blasts: the along-wind component is at least `gust_min`.
    pub fn ambient(&self, x: f64, z: f64) -> [f64; 2] {
        let d = self.dir;
        let s = self.speed + self.gust(x, z) + self.fronts(x * d[0] + z * d[1]);
        let sw = self.swirl(x, z);
        let along = (s + sw[0] * d[0] + sw[1] * d[1]).max(self.field.gust_min);
        let across = -sw[0] * d[1] + sw[1] * d[0];
        [along * d[0] - across * d[1], along * d[1] + across * d[0]]
    }

    /// The wind: ambient plus blasts.
    pub fn wind(&self, x: f64, z: f64) -> [f64; 2] {
        let a = self.ambient(x, z);
        let b = self.blasts(x, z);
        [a[0] + b[0], a[1] + b[1]]
    }
}

/// The field sampled on a regular grid over an area at one time (f32), interpolated bilinearly:
/// what each blade reads.
#[derive(Clone, Debug, Default)]
pub struct WindGrid {
    pub origin: [f64; 2],
    pub cell: f64,
    pub nx: usize,
    pub nz: usize,
    pub data: Vec<[f32; 2]>,
}

impl WindGrid {
    /// A grid over `lo`..`hi` with cells of at most `cell` metres (and at most about 4 million).
    pub fn over(lo: [f64; 2], hi: [f64; 2], cell: f64) -> Self {
        let ext = [(hi[0] - lo[0]).max(0.0), (hi[1] - lo[1]).max(0.0)];
        let cell = cell.max((ext[0] * ext[1] / 4.0e6).sqrt()).max(1e-3);
        let nx = (ext[0] / cell).ceil() as usize + 2;
        let nz = (ext[1] / cell).ceil() as usize + 2;
        WindGrid { origin: lo, cell, nx, nz, data: vec![[0.0; 2]; nx * nz] }
    }

    /// Samples `wind` at every grid point (rows in parallel; each value depends on its point only).
    pub fn sample(&mut self, wind: impl Fn(f64, f64) -> [f64; 2] + Sync) {
        use rayon::prelude::*;
        let (o, c, nx) = (self.origin, self.cell, self.nx);
        self.data.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
            for (i, v) in row.iter_mut().enumerate() {
                let w = wind(o[0] + i as f64 * c, o[1] + j as f64 * c);
                *v = [w[0] as f32, w[1] as f32];
            }
        });
    }

    /// Bilinear interpolation at (x, z), clamped to the grid.
    #[inline(always)]
    pub fn at(&self, x: f32, z: f32) -> [f32; 2] {
        let inv = 1.0 / self.cell as f32;
        let fx = ((x - self.origin[0] as f32) * inv).clamp(0.0, (self.nx - 1) as f32 - 1e-3);
        let fz = ((z - self.origin[1] as f32) * inv).clamp(0.0, (self.nz - 1) as f32 - 1e-3);
        let (i, j) = (fx as usize, fz as usize);
        let (u, v) = (fx - i as f32, fz - j as f32);
        let k = j * self.nx + i;
        let (a, b, c, d) = (self.data[k], self.data[k + 1], self.data[k + self.nx], self.data[k + self.nx + 1]);
        let lerp = |p: f32, q: f32, r: f32, s: f32| (p + (q - p) * u) + ((r + (s - r) * u) - (p + (q - p) * u)) * v;
        [lerp(a[0], b[0], c[0], d[0]), lerp(a[1], b[1], c[1], d[1])]
    }

    /// For `LANES` points: the index of the grid point below and left of each, and where in its
    /// cell the point lies (u, v in 0..1). Clamped to the grid, as [`WindGrid::at`] is.
    #[inline(always)]
    pub fn cells<const LANES: usize>(&self, x: &[f32; LANES], z: &[f32; LANES]) -> ([usize; LANES], [[f32; LANES]; 2]) {
        let inv = 1.0 / self.cell as f32;
        let (ox, oz) = (self.origin[0] as f32, self.origin[1] as f32);
        let (mx, mz) = ((self.nx - 1) as f32 - 1e-3, (self.nz - 1) as f32 - 1e-3);
        let (mut cell, mut uv) = ([0usize; LANES], [[0.0f32; LANES]; 2]);
        for l in 0..LANES {
            let fx = ((x[l] - ox) * inv).clamp(0.0, mx);
            let fz = ((z[l] - oz) * inv).clamp(0.0, mz);
            let (i, j) = (fx as usize, fz as usize);
            cell[l] = j * self.nx + i;
            uv[0][l] = fx - i as f32;
            uv[1][l] = fz - j as f32;
        }
        (cell, uv)
    }

    /// The four samples around cell `k`: (i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1).
    #[inline(always)]
    pub fn corners(&self, k: usize) -> [[f32; 2]; 4] {
        let [a, b] = self.data[k..k + 2] else { unreachable!("cells are inside the grid") };
        let [c, d] = self.data[k + self.nx..k + self.nx + 2] else { unreachable!("cells are inside the grid") };
        [a, b, c, d]
    }

    /// The largest speed on the grid.
    pub fn max_speed(&self) -> f32 {
        self.data.iter().map(|w| (w[0] * w[0] + w[1] * w[1]).sqrt()).fold(0.0, f32::max)
    }
}
