//! Pure-Rust, std-only LDR-FLIP (Andersson et al., HPG 2020), following NVIDIA's C++ code
//! (as wrapped by the `nv-flip` crate) operation for operation in `f32`, so it reproduces it.
//!
//! Colour: sRGB -> linear -> XYZ -> YCxCz; separable CSF filters (clamp-to-edge); back to
//! linear RGB clamped to [0,1]; CIELab + Hunt; HyAB; `^0.7`, remapped with `cmax`/`pc`/`pt`.
//! Features: Gaussian 1st/2nd-derivative edge/point detectors on normalised luminance,
//! `(max(|dEdge|, |dPoint|) / sqrt 2)^0.5`. Error: `color^(1 - feature)`.
//!
//! Rows are split into bands, one per thread; each band keeps a ring of horizontally filtered
//! rows, so memory is the output plus O(width * filter height) per thread. Output rows whose
//! filter window holds no differing row are exactly 0 and skipped. Each value is computed by
//! the same float operations whatever the banding: results are identical for any `threads`.
// Constants are written exactly as in the reference so they round to the same f32 values.
#![allow(clippy::excessive_precision)]

use std::f32::consts::PI;

/// FLIP's default viewing condition (0.7 m from a 0.7 m wide 3840-pixel monitor, about 67
/// pixels per degree); the same value as `nv_flip::DEFAULT_PIXELS_PER_DEGREE`.
pub const DEFAULT_PIXELS_PER_DEGREE: f32 = 67.0;

const GQC: f32 = 0.7;
const GPC: f32 = 0.4;
const GPT: f32 = 0.95;
const GW: f32 = 0.082;
const GQF: f32 = 0.5;
const ILLUM: [f32; 3] = [0.950428545, 1.0, 1.088900371];
const INV_ILLUM: [f32; 3] = [1.052156925, 1.0, 0.918357670];
#[rustfmt::skip]
const RGB_TO_XYZ: [[f32; 3]; 3] = [
    [10135552.0 / 24577794.0, 8788810.0 / 24577794.0, 4435075.0 / 24577794.0],
    [2613072.0 / 12288897.0, 8788810.0 / 12288897.0, 887015.0 / 12288897.0],
    [1425312.0 / 73733382.0, 8788810.0 / 73733382.0, 70074185.0 / 73733382.0],
];
const XYZ_TO_RGB: [[f32; 3]; 3] =
    [[3.241003275, -1.537398934, -0.498615861], [-0.969224334, 1.875930071, 0.041554224], [0.055639423, -0.204011202, 1.057148933]];
/// Number of planes of one horizontally filtered row: per image, CSF Y, Cx, Cz (2 Gaussians),
/// then feature Gaussian-, 1st- and 2nd-derivative-filtered normalised luminance.
const PLANES: usize = 14;

/// Per-pixel LDR-FLIP error in `0..=1`, row-major, of two sRGB RGB8 images (3 bytes a pixel,
/// row-major, no padding) of the same `width` x `height`.
///
/// `pixels_per_degree` is the viewing condition (see [`DEFAULT_PIXELS_PER_DEGREE`]).
/// `threads` is how many threads to use (0 or 1 = the calling thread only); rows are split into
/// contiguous bands. The result is bit-for-bit the same for every `threads` value.
///
/// # Panics
/// If either slice is not `width * height * 3` bytes long.
pub fn flip_map(reference: &[u8], test: &[u8], width: usize, height: usize, pixels_per_degree: f32, threads: usize) -> Vec<f32> {
    let n = width * height;
    let sizes_ok = reference.len() == n * 3 && test.len() == n * 3;
    assert!(sizes_ok, "images must be width * height * 3 bytes");
    let mut out = vec![0.0f32; n];
    if n == 0 {
        return out;
    }
    let ctx = &Context::new(reference, test, width, height, pixels_per_degree);
    // work[y]: output rows before y that need computing (the others are exactly 0).
    let mut work = vec![0usize; height + 1];
    for y in 0..height {
        work[y + 1] = work[y] + ctx.is_dirty(y) as usize;
    }
    let total = work[height];
    if total == 0 {
        return out; // Identical images.
    }
    // Contiguous bands with equal numbers of rows to compute.
    let bands = threads.clamp(1, total);
    let mut bounds: Vec<usize> = (0..bands).map(|i| work.partition_point(|&c| c < total * i / bands)).collect();
    bounds.push(height);
    std::thread::scope(|scope| {
        let mut rest = &mut out[..];
        for b in bounds.windows(2) {
            let (band, tail) = std::mem::take(&mut rest).split_at_mut((b[1] - b[0]) * width);
            rest = tail;
            if rest.is_empty() {
                ctx.run_band(b[0], band); // The last band (never empty) runs on this thread.
            } else if !band.is_empty() {
                scope.spawn(move || ctx.run_band(b[0], band));
            }
        }
    });
    out
}

/// Everything shared (read-only) by the bands: inputs, filters and constants.
struct Context<'a> {
    images: [&'a [u8]; 2],
    w: usize,
    h: usize,
    /// sRGB byte -> linear value.
    linear: [f32; 256],
    /// CSF radius and weights for Y, Cx, Cz (first Gaussian), Cz (second Gaussian).
    csf_r: usize,
    csf: [Vec<f32>; 4],
    /// Feature radius and weights: Gaussian, 1st derivative, 2nd derivative.
    feat_r: usize,
    feat: [Vec<f32>; 3],
    /// Largest radius: rows kept, and padding of the horizontal source rows.
    big_r: usize,
    /// 0, 1, 2, ...: the tap offsets of a horizontal filter.
    taps: Vec<usize>,
    /// changed[s]: how many rows before `s` differ between reference and test.
    changed: Vec<usize>,
    cmax: f32,
}

impl<'a> Context<'a> {
    fn new(reference: &'a [u8], test: &'a [u8], w: usize, h: usize, ppd: f32) -> Self {
        let linear = std::array::from_fn(|i| srgb_to_linear(i as f32 / 255.0));
        let (csf_r, csf) = csf_filters(ppd);
        let (feat_r, feat) = feature_filters(ppd);
        let [green, blue] = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]].map(rgb_to_lab_hunt);
        let cmax = hyab(green, blue).powf(GQC);
        let big_r = csf_r.max(feat_r);
        let taps = (0..2 * big_r + 1).collect();
        let mut changed = vec![0usize; h + 1];
        for (s, (a, b)) in reference.chunks(w * 3).zip(test.chunks(w * 3)).enumerate() {
            changed[s + 1] = changed[s] + (a != b) as usize;
        }
        Context { images: [reference, test], w, h, linear, csf_r, csf, feat_r, feat, big_r, taps, changed, cmax }
    }

    /// Whether source rows `first..=last` contain a row that differs.
    fn any_changed(&self, first: usize, last: usize) -> bool {
        self.changed[last + 1] > self.changed[first]
    }

    /// Whether output row `y` has a differing row in its filter window. If not, its error is
    /// exactly 0 (identical inputs give 0 colour and 0 feature difference, and 0^1 = 0).
    fn is_dirty(&self, y: usize) -> bool {
        let (first, last) = self.window(y);
        self.any_changed(first, last)
    }

    /// The source rows `first..=last` (clamped) within the largest filter radius of row `y`.
    fn window(&self, y: usize) -> (usize, usize) {
        (y.saturating_sub(self.big_r), (y + self.big_r).min(self.h - 1))
    }

    /// Computes output rows `y0..` into `out` (whole rows; already zeroed). Rows that are not
    /// dirty are skipped; source rows that are identical are filtered once and copied.
    fn run_band(&self, y0: usize, out: &mut [f32]) {
        let (w, big_r) = (self.w, self.big_r);
        let slots = 2 * big_r + 1;
        let mut ring = vec![0.0f32; slots * PLANES * w];
        let mut pad = vec![0.0f32; 8 * (w + 2 * big_r)];
        let mut acc = vec![0.0f32; 16 * w];
        let mut next = 0;
        for (dy, out_row) in out.chunks_mut(w).enumerate() {
            let y = y0 + dy;
            let (first, last) = self.window(y);
            if !self.any_changed(first, last) {
                continue;
            }
            for s in next.max(first)..=last {
                let same = !self.any_changed(s, s);
                let slot = &mut ring[(s % slots) * PLANES * w..][..PLANES * w];
                self.filter_row_horizontally(s, same, &mut pad, slot);
            }
            next = last + 1;
            self.filter_vertically(y, &ring, &mut acc);
            self.finish_row(&acc, out_row);
        }
    }

    /// Converts source row `s` of both images (of the reference only when `same`) to YCxCz and
    /// filters it horizontally into `dst` (PLANES rows: 7 per image).
    fn filter_row_horizontally(&self, s: usize, same: bool, pad: &mut [f32], dst: &mut [f32]) {
        let (w, big_r) = (self.w, self.big_r);
        let pw = w + 2 * big_r;
        let images = if same { 1 } else { 2 };
        // Padded planes per image: Y, Cx, Cz, normalised Y (clamp-to-edge).
        for (img, bytes) in self.images[..images].iter().enumerate() {
            let row = &bytes[s * w * 3..][..w * 3];
            let planes = &mut pad[img * 4 * pw..][..4 * pw];
            for px in 0..pw {
                let x = px.saturating_sub(big_r).min(w - 1);
                let lin = &self.linear;
                let rgb = [0, 1, 2].map(|c| lin[row[3 * x + c] as usize]);
                let [y, cx, cz] = xyz_to_ycxcz(mat3(&RGB_TO_XYZ, rgb));
                planes[px] = y;
                planes[pw + px] = cx;
                planes[2 * pw + px] = cz;
                planes[3 * pw + px] = y * (1.0 / 116.0) + 16.0 / 116.0;
            }
        }
        // Destination planes: CSF Y, Cx, Cz1, Cz2 (from Y, Cx, Cz, Cz); g, dg, ddg (from Yn).
        for img in 0..images {
            for j in 0..7 {
                let kernel: &[f32] = if j < 4 { &self.csf[j] } else { &self.feat[j - 4] };
                let (src, r) = ([0, 1, 2, 2, 3, 3, 3][j], kernel.len() / 2);
                let src = &pad[(img * 4 + src) * pw + big_r - r..][..w + 2 * r];
                let taps = &self.taps[..kernel.len()];
                convolve(src, taps, kernel, &mut dst[(img * 7 + j) * w..][..w]);
            }
        }
        if same {
            dst.copy_within(0..7 * w, 7 * w);
        }
    }

    /// Vertical pass for output row `y`: 8 CSF planes then 8 feature planes
    /// (per image: dx, ddx, dy, ddy) into `acc`.
    fn filter_vertically(&self, y: usize, ring: &[f32], acc: &mut [f32]) {
        let (w, h) = (self.w, self.h);
        let slots = 2 * self.big_r + 1;
        // Offset in `ring` of the row for each tap of a filter of radius `r` (clamp-to-edge).
        let offsets = |r: usize| -> Vec<usize> {
            let rows = (0..2 * r + 1).map(|j| (y + j).saturating_sub(r).min(h - 1));
            rows.map(|s| (s % slots) * PLANES * w).collect()
        };
        let (csf_rows, feat_rows) = (offsets(self.csf_r), offsets(self.feat_r));
        let [g, dg, ddg] = &self.feat;
        for img in 0..2 {
            for p in 0..4 {
                let dst = &mut acc[(img * 4 + p) * w..][..w];
                convolve(&ring[(img * 7 + p) * w..], &csf_rows, &self.csf[p], dst);
            }
            // (source plane: 0 Gaussian, 1 first, 2 second x-derivative; y kernel) per output.
            let jobs: [(usize, &[f32]); 4] = [(1, g), (2, g), (0, dg), (0, ddg)];
            for (q, &(p, kernel)) in jobs.iter().enumerate() {
                let dst = &mut acc[(8 + img * 4 + q) * w..][..w];
                convolve(&ring[(img * 7 + 4 + p) * w..], &feat_rows, kernel, dst);
            }
        }
    }

    /// Combines the filtered planes of one row into final FLIP errors.
    fn finish_row(&self, acc: &[f32], out: &mut [f32]) {
        let w = self.w;
        let p = |i: usize, x: usize| acc[i * w + x];
        let pccmax = GPC * self.cmax;
        let norm = 1.0 / 2.0f32.sqrt();
        // Opaque, so LLVM cannot turn powf(x, 0.5) into sqrt(x) as the C++ compiler does not:
        // glibc's powf(x, 0.5) is occasionally 1 ulp away from sqrt(x).
        let gqf = std::hint::black_box(GQF);
        for (x, o) in out.iter_mut().enumerate() {
            let mut color = 0.0; // Identical filtered colours give exactly 0 in the reference too.
            if (0..4).any(|i| p(i, x) != p(i + 4, x)) {
                let lab = [0, 4].map(|b| ycxcz_to_lab_hunt(p(b, x), p(b + 1, x), p(b + 2, x) + p(b + 3, x)));
                color = hyab(lab[0], lab[1]).powf(GQC);
                if color < pccmax {
                    color *= GPT / pccmax;
                } else {
                    color = GPT + ((color - pccmax) / (self.cmax - pccmax)) * (1.0 - GPT);
                }
            }
            let mag = |a: f32, b: f32| (a * a + b * b).sqrt();
            let [edge, point] = [(8, 10), (9, 11)].map(|(i, j)| (mag(p(i, x), p(j, x)) - mag(p(i + 4, x), p(j + 4, x))).abs());
            let feature = (norm * if edge > point { edge } else { point }).powf(gqf);
            *o = color.powf(1.0 - feature);
        }
    }
}

/// `dst[x] = sum_j kernel[j] * src[offsets[j] + x]`, summed from `j = 0` up, starting from 0.0
/// (the reference's order, so rounding is identical); blocked over `x` to keep sums in registers.
fn convolve(src: &[f32], offsets: &[usize], kernel: &[f32], dst: &mut [f32]) {
    const B: usize = 16;
    let n = dst.len();
    let blocks = n / B * B;
    for (bi, chunk) in dst[..blocks].chunks_exact_mut(B).enumerate() {
        let x = bi * B;
        let mut a = [0.0f32; B];
        for (&off, &k) in offsets.iter().zip(kernel) {
            let s: &[f32; B] = src[off + x..off + x + B].try_into().unwrap();
            for i in 0..B {
                a[i] += k * s[i];
            }
        }
        chunk.copy_from_slice(&a);
    }
    for (x, d) in dst.iter_mut().enumerate().skip(blocks) {
        *d = offsets.iter().zip(kernel).fold(0.0, |a, (&off, &k)| a + k * src[off + x]);
    }
}

/// The separated CSF filters: radius and [Y, Cx, Cz Gaussian 1, Cz Gaussian 2] weights.
fn csf_filters(ppd: f32) -> (usize, [Vec<f32>; 4]) {
    // (a, b) of the sum-of-Gaussians CSFs; only Cz has a second Gaussian (a2 = 0 for Y and Cx).
    const Y: (f32, f32) = (1.0, 0.0047);
    const CX: (f32, f32) = (1.0, 0.0053);
    const CZ1: (f32, f32) = (34.1, 0.04);
    const CZ2: (f32, f32) = (13.5, 0.025);
    let pi_sq = PI * PI;
    let b_max = [Y.1, CX.1, CZ1.1, 1.0e-5, 1.0e-5, CZ2.1].into_iter().fold(0.0, f32::max);
    let r = (3.0 * (b_max / (2.0 * pi_sq)).sqrt() * ppd).ceil() as usize;
    let delta = 1.0 / ppd;
    let g = |x2: f32, (a, b): (f32, f32)| a * (PI / b).sqrt() * (-pi_sq * x2 / b).exp();
    let g_sqrt = |x2: f32, (a, b): (f32, f32)| (a * (PI / b).sqrt()).sqrt() * (-pi_sq * x2 / b).exp();
    let mut k: [Vec<f32>; 4] = Default::default();
    for i in 0..2 * r + 1 {
        let x = (i as f32 - r as f32) * delta;
        let x2 = x * x;
        let values = [g(x2, Y), g(x2, CX), g_sqrt(x2, CZ1), g_sqrt(x2, CZ2)];
        k.iter_mut().zip(values).for_each(|(kv, v)| kv.push(v));
    }
    let sum = |v: &[f32]| v.iter().fold(0.0f32, |s, &x| s + x);
    let (s0, s1, s2, s3) = (sum(&k[0]), sum(&k[1]), sum(&k[2]), sum(&k[3]));
    // Y and Cx each sum to 1; the two Cz filters are scaled so the 2D sum g1 g1' + g2 g2' is 1.
    let norms = [1.0 / s0, 1.0 / s1, 1.0 / (s2 * s2 + s3 * s3).sqrt()];
    for (c, v) in k.iter_mut().enumerate() {
        v.iter_mut().for_each(|x| *x *= norms[c.min(2)]);
    }
    (r, k)
}

/// The separated feature filters: radius and [Gaussian, 1st derivative, 2nd derivative] weights.
/// The Gaussian sums to 1; the positive and negative lobes of each derivative sum to +1 and -1.
fn feature_filters(ppd: f32) -> (usize, [Vec<f32>; 3]) {
    let sd = 0.5 * GW * ppd;
    let r = (3.0 * sd).ceil() as usize;
    let mut k: [Vec<f32>; 3] = Default::default();
    let (mut g_sum, mut sums) = (0.0f32, [[0.0f32; 2]; 2]); // sums[derivative][negative, positive]
    for i in 0..2 * r + 1 {
        let x = i as f32 - r as f32;
        let g = (-(x * x) / (2.0 * sd * sd)).exp();
        let dg = -x * g;
        let ddg = (x * x / (sd * sd) - 1.0) * g;
        g_sum += g;
        for (d, v) in [dg, ddg].into_iter().enumerate() {
            sums[d][(v > 0.0) as usize] += v.abs();
        }
        k.iter_mut().zip([g, dg, ddg]).for_each(|(kv, v)| kv.push(v));
    }
    k[0].iter_mut().for_each(|v| *v /= g_sum);
    for d in 0..2 {
        k[d + 1].iter_mut().for_each(|v| *v /= sums[d][(*v > 0.0) as usize]);
    }
    (r, k)
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

fn mat3(m: &[[f32; 3]; 3], v: [f32; 3]) -> [f32; 3] {
    m.map(|r| r[0] * v[0] + r[1] * v[1] + r[2] * v[2])
}

fn xyz_to_ycxcz(xyz: [f32; 3]) -> [f32; 3] {
    let [x, y, z] = [0, 1, 2].map(|i| xyz[i] * INV_ILLUM[i]);
    [116.0 * y - 16.0, 500.0 * (x - y), 200.0 * (y - z)]
}

/// Filtered YCxCz -> linear RGB clamped to [0,1] -> CIELab with Hunt-adjusted chroma.
fn ycxcz_to_lab_hunt(y: f32, cx: f32, cz: f32) -> [f32; 3] {
    let yy = (y + 16.0) / 116.0;
    let xyz = [yy + cx / 500.0, yy, yy - cz / 200.0];
    let rgb = mat3(&XYZ_TO_RGB, [0, 1, 2].map(|i| xyz[i] * ILLUM[i]));
    rgb_to_lab_hunt(rgb.map(|c| c.clamp(0.0, 1.0)))
}

fn rgb_to_lab_hunt(rgb: [f32; 3]) -> [f32; 3] {
    let delta = 6.0f32 / 29.0;
    let delta_cube = delta * (delta * delta);
    let factor = 1.0 / (3.0 * (delta * delta));
    let xyz = mat3(&RGB_TO_XYZ, rgb);
    let [fx, fy, fz] = [0, 1, 2].map(|i| {
        let v = xyz[i] * INV_ILLUM[i];
        if v > delta_cube { v.powf(1.0 / 3.0) } else { factor * v + 4.0 / 29.0 }
    });
    let l = 116.0 * fy - 16.0;
    let hunt = |chroma: f32| 0.01 * l * chroma;
    [l, hunt(500.0 * (fx - fy)), hunt(200.0 * (fy - fz))]
}

/// HyAB distance: |dL| + Euclidean distance in (a, b).
fn hyab(p: [f32; 3], q: [f32; 3]) -> f32 {
    let (da, db) = (p[1] - q[1], p[2] - q[2]);
    (p[0] - q[0]).abs() + (da * da + db * db).sqrt()
}

/// FLIP's magma colour scale as 256 RGB8 entries (entry `i` is for error `i / 255`), matching
/// `nv_flip::magma_lut()` to within 1 level per channel. It is evaluated from a degree-10
/// Chebyshev polynomial per channel on `t` in [0, 1] (near-minimax fit derived with
/// `examples/fit_magma.rs`), not from a copied table.
pub fn magma_lut() -> [[u8; 3]; 256] {
    #[rustfmt::skip]
    const COEF: [[f64; 11]; 3] = [
        [150.711, 140.669, -30.129, -15.740, 4.185, 2.011, 1.895, -1.263, -0.844, 0.823, 0.502],
        [94.370, 122.388, 36.767, 5.170, -5.025, -1.957, -0.771, 2.102, 1.075, -2.661, 0.084],
        [105.550, 62.728, -11.119, 39.086, 1.667, -6.911, 0.368, -1.896, 2.059, 1.901, -1.025],
    ];
    std::array::from_fn(|i| {
        let x = 2.0 * i as f64 / 255.0 - 1.0;
        COEF.map(|c| {
            // Clenshaw's recurrence for sum c[k] T_k(x).
            let (mut b1, mut b2) = (0.0, 0.0);
            for &ck in c[1..].iter().rev() {
                (b1, b2) = (2.0 * x * b1 - b2 + ck, b1);
            }
            (c[0] + x * b1 - b2).clamp(0.0, 255.0).round() as u8
        })
    })
}
