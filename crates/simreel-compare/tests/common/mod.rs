//! Shared helpers for the accuracy tests and the bench: PNG loading, perturbations,
//! synthetic images, the nv-flip reference and the statistics compared.
#![allow(dead_code)]

use simreel_compare::flip::{DEFAULT_PIXELS_PER_DEGREE, flip_map};
use std::path::{Path, PathBuf};

/// An RGB8 image.
#[derive(Clone)]
pub struct Img {
    pub w: usize,
    pub h: usize,
    pub px: Vec<u8>,
}

impl Img {
    pub fn new(w: usize, h: usize, c: [u8; 3]) -> Img {
        Img { w, h, px: c.repeat(w * h) }
    }
    pub fn set(&mut self, x: usize, y: usize, c: [u8; 3]) {
        if x < self.w && y < self.h {
            let i = (y * self.w + x) * 3;
            self.px[i..i + 3].copy_from_slice(&c);
        }
    }
    pub fn fill_rect(&mut self, x0: usize, y0: usize, rw: usize, rh: usize, c: [u8; 3]) {
        for y in y0..(y0 + rh).min(self.h) {
            for x in x0..(x0 + rw).min(self.w) {
                self.set(x, y, c);
            }
        }
    }
}

/// Small deterministic RNG (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform integer in `lo..=hi`.
    pub fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i32
    }
    /// Gaussian-ish integer in -12..=12: sum of three uniforms in -4..=4.
    pub fn noise12(&mut self) -> i32 {
        self.range(-4, 4) + self.range(-4, 4) + self.range(-4, 4)
    }
}

/// Loads a PNG as RGB8; alpha is composited over mid grey (128): (c*a + 128*(255-a)) / 255 rounded.
pub fn load_png_rgb(path: &Path) -> Img {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut dec = png::Decoder::new(file);
    dec.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0u8; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let (w, h) = (info.width as usize, info.height as usize);
    let chans = info.color_type.samples();
    let over = |c: u8, a: u8| ((c as u32 * a as u32 + 128 * (255 - a as u32) + 127) / 255) as u8;
    let mut px = Vec::with_capacity(w * h * 3);
    for p in buf[..info.buffer_size()].chunks_exact(chans) {
        let (rgb, a) = match chans {
            1 => ([p[0]; 3], 255),
            2 => ([p[0]; 3], p[1]),
            3 => ([p[0], p[1], p[2]], 255),
            _ => ([p[0], p[1], p[2]], p[3]),
        };
        px.extend(rgb.map(|c| over(c, a)));
    }
    Img { w, h, px }
}

/// Every PNG under `dir`, recursively, sorted.
pub fn pngs_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Shifted right by one pixel (column 0 repeats).
pub fn shift_right(img: &Img) -> Img {
    let mut out = img.clone();
    for y in 0..img.h {
        let row = &mut out.px[y * img.w * 3..(y + 1) * img.w * 3];
        row.copy_within(0..(img.w - 1) * 3, 3);
    }
    out
}

/// Gaussian-ish noise of up to +-12 levels per channel, seeded.
pub fn add_noise(img: &Img, seed: u64) -> Img {
    let mut rng = Rng(seed);
    let px = img.px.iter().map(|&c| (c as i32 + rng.noise12()).clamp(0, 255) as u8).collect();
    Img { px, ..*img }
}

/// Brightness + `d`, clamped.
pub fn brighten(img: &Img, d: i32) -> Img {
    let px = img.px.iter().map(|&c| (c as i32 + d).clamp(0, 255) as u8).collect();
    Img { px, ..*img }
}

/// Uniform random noise image.
pub fn random_image(w: usize, h: usize, seed: u64) -> Img {
    let mut rng = Rng(seed);
    Img { w, h, px: (0..w * h * 3).map(|_| rng.next_u64() as u8).collect() }
}

/// Horizontal-ish colour gradient; `k` tweaks the slope.
pub fn gradient(w: usize, h: usize, k: f32) -> Img {
    let mut img = Img::new(w, h, [0; 3]);
    for y in 0..h {
        for x in 0..w {
            let fx = x as f32 / w.max(2) as f32;
            let fy = y as f32 / h.max(2) as f32;
            let c = [255.0 * fx * k, 255.0 * fy, 255.0 * (1.0 - fx) * (0.5 + 0.5 * fy)];
            img.set(x, y, c.map(|v| v.clamp(0.0, 255.0) as u8));
        }
    }
    img
}

/// Text-like image: lines of 1-px black strokes and small glyph blocks on white.
/// `seed` picks the glyphs; rows `changed` (a range of text lines) use a different seed.
pub fn text_like(w: usize, h: usize, seed: u64, changed: std::ops::Range<usize>) -> Img {
    let mut img = Img::new(w, h, [255; 3]);
    let line_h = 18;
    for line in 0..h / line_h {
        let s = if changed.contains(&line) { seed ^ 0xDEAD_BEEF } else { seed };
        let mut rng = Rng(s.wrapping_mul(1_000_003).wrapping_add(line as u64));
        let y0 = line * line_h + 4;
        let mut x = 8 + rng.range(0, 4) as usize;
        while x + 10 < w.saturating_sub(8) {
            let gw = rng.range(4, 8) as usize;
            match rng.range(0, 3) {
                0 => img.fill_rect(x, y0, 1, 10, [0; 3]),
                1 => img.fill_rect(x, y0 + 9, gw, 1, [0; 3]),
                2 => img.fill_rect(x, y0 + 3, gw, 5, [20, 20, 20]),
                _ => {
                    for i in 0..gw.min(8) {
                        img.set(x + i, y0 + 2 + i, [0; 3]);
                    }
                }
            }
            x += gw + rng.range(1, 3) as usize;
            if rng.range(0, 9) == 0 {
                x += 6; // word gap
            }
        }
    }
    img
}

/// Web-page-like image: text-like with a few coloured blocks; `changed` lines differ.
pub fn web_page(w: usize, h: usize, changed: std::ops::Range<usize>) -> Img {
    let mut img = text_like(w, h, 7, changed);
    let mut rng = Rng(99);
    for _ in 0..12 {
        let (bw, bh) = (rng.range(100, 900) as usize, rng.range(40, 500) as usize);
        let (x, y) = (rng.range(0, w as i32 - 1) as usize, rng.range(0, h as i32 - 1) as usize);
        let c = [rng.range(0, 255) as u8, rng.range(0, 255) as u8, rng.range(0, 255) as u8];
        img.fill_rect(x, y, bw, bh, c);
    }
    img
}

/// The reference: nv-flip's error map.
pub fn reference_map(a: &Img, b: &Img) -> Vec<f32> {
    let ra = nv_flip::FlipImageRgb8::with_data(a.w as u32, a.h as u32, &a.px);
    let rb = nv_flip::FlipImageRgb8::with_data(b.w as u32, b.h as u32, &b.px);
    nv_flip::flip(ra, rb, DEFAULT_PIXELS_PER_DEGREE).to_vec()
}

/// Ours.
pub fn our_map(a: &Img, b: &Img, threads: usize) -> Vec<f32> {
    flip_map(&a.px, &b.px, a.w, a.h, DEFAULT_PIXELS_PER_DEGREE, threads)
}

pub const QUANTILES: [f64; 5] = [0.5, 0.9, 0.95, 0.99, 0.999];

/// Mean (summed in f64) and percentiles p50, p90, p95, p99, p99.9, where the q-percentile is
/// the value at index floor(q * (n - 1)) of the values sorted ascending.
pub fn stats(map: &[f32]) -> [f64; 6] {
    let mean = map.iter().map(|&v| v as f64).sum::<f64>() / map.len() as f64;
    let mut s = map.to_vec();
    s.sort_by(f32::total_cmp);
    let mut out = [mean; 6];
    for (i, q) in QUANTILES.iter().enumerate() {
        out[i + 1] = s[(q * (s.len() - 1) as f64).floor() as usize] as f64;
    }
    out
}

/// Differences between ours and the reference for one pair.
#[derive(Default, Clone, Copy, Debug)]
pub struct Diff {
    pub mean: f64,
    pub p99: f64,
    /// Largest |difference| over all five percentiles.
    pub pct: f64,
    pub pixel: f64,
}

impl Diff {
    pub fn worst(self, o: Diff) -> Diff {
        Diff { mean: self.mean.max(o.mean), p99: self.p99.max(o.p99), pct: self.pct.max(o.pct), pixel: self.pixel.max(o.pixel) }
    }
}

/// Compares ours (with `threads`) to nv-flip on one pair, asserting the acceptance bar.
pub fn check_pair(name: &str, a: &Img, b: &Img, threads: usize) -> Diff {
    let ours = our_map(a, b, threads);
    let theirs = reference_map(a, b);
    assert_eq!(ours.len(), theirs.len());
    assert!(ours.iter().all(|v| (0.0..=1.0).contains(v)), "{name}: value out of 0..=1");
    let (so, st) = (stats(&ours), stats(&theirs));
    let pct = (1..6).map(|i| (so[i] - st[i]).abs()).fold(0.0, f64::max);
    let pixel = ours.iter().zip(&theirs).map(|(o, t)| (o - t).abs() as f64).fold(0.0, f64::max);
    let d = Diff { mean: (so[0] - st[0]).abs(), p99: (so[4] - st[4]).abs(), pct, pixel };
    assert!(d.mean <= 1e-4, "{name}: mean ours {} ref {}", so[0], st[0]);
    assert!(d.pct <= 1e-4, "{name}: percentiles ours {so:?} ref {st:?}");
    assert!(d.pixel <= 1e-3, "{name}: max per-pixel diff {}", d.pixel);
    d
}
