//! Fuzz-ish robustness: 20,000 deterministic mutations or truncations of the valid fixtures
//! of each format must decode to `Ok` or `Err`, never panic.

// the command, its report and every format: the default `full` feature
#![cfg(feature = "full")]

use std::path::Path;

/// xorshift64* — small, deterministic, good enough to pick bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn fixtures(ext: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pictures");
    let mut names: Vec<_> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == ext)).collect();
    names.sort();
    names.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// One random damage: truncation, byte flips, header/IFD-area overwrites with "interesting"
/// values, a copied or deleted span.
fn mutate(rng: &mut Rng, src: &[u8]) -> Vec<u8> {
    let mut b = src.to_vec();
    let interesting: [u8; 8] = [0, 1, 2, 0x7f, 0x80, 0xfe, 0xff, 0x10];
    for _ in 0..1 + rng.below(3) {
        let len = b.len().max(1);
        match rng.below(7) {
            0 => b.truncate(rng.below(len)),
            1 => {
                for _ in 0..1 + rng.below(8) {
                    let i = rng.below(len);
                    if let Some(v) = b.get_mut(i) {
                        *v ^= 1 << rng.below(8);
                    }
                }
            }
            2 | 3 => {
                // Headers, masks, palettes and IFDs live near the start (ImageMagick puts TIFF
                // IFDs at the end, so hit the last 300 bytes too).
                let region = if rng.below(2) == 0 { rng.below(160.min(len)) } else { len.saturating_sub(1 + rng.below(300)) };
                if let Some(v) = b.get_mut(region) {
                    *v = if rng.below(2) == 0 { interesting[rng.below(8)] } else { rng.next() as u8 };
                }
            }
            4 => {
                let (from, to) = (rng.below(len), rng.below(len));
                let n = rng.below(64).min(len - from.max(to));
                let chunk = b.get(from..from + n).unwrap_or_default().to_vec();
                b.splice(to..to, chunk);
            }
            5 => overwrite_field(rng, &mut b),
            _ => {
                let at = rng.below(len);
                let end = (at + rng.below(32)).min(b.len());
                b.drain(at.min(end)..end);
            }
        }
    }
    b
}

/// Writes a boundary value over a 2- or 4-byte header field or TIFF IFD entry field, in the
/// file's byte order: sizes, offsets, counts, bit depths and types are where decoders break.
fn overwrite_field(rng: &mut Rng, b: &mut [u8]) {
    let len = b.len() as u32;
    let values = [0, 1, 2, 3, 4, 5, 7, 8, 16, 255, 256, 0x7fff, 0x8000, 0xffff, 0x1_0000, 0x7fff_ffff, 0x8000_0000, u32::MAX];
    let value = if rng.below(4) == 0 { len.wrapping_sub(rng.below(16) as u32) } else { values[rng.below(values.len())] };
    let be = b.starts_with(b"MM");
    let u32_at = |b: &[u8], o: usize| b.get(o..o + 4).map(|s| <[u8; 4]>::try_from(s).unwrap());
    let pos = match u32_at(b, 4) {
        Some(ifd) if b.starts_with(b"II") || be => {
            let ifd = if be { u32::from_be_bytes(ifd) } else { u32::from_le_bytes(ifd) } as usize;
            ifd + 2 + 12 * rng.below(24) + [0, 2, 4, 8][rng.below(4)]
        }
        _ => 2 * rng.below(40),
    };
    let bytes = if be { value.to_be_bytes() } else { value.to_le_bytes() };
    let n = if rng.below(2) == 0 { 2 } else { 4 };
    let src = if be && n == 2 { &bytes[2..] } else { &bytes[..n] };
    if let Some(dst) = b.get_mut(pos..pos + n) {
        dst.copy_from_slice(src);
    }
}

fn run(ext: &str, seed: u64, decode: fn(&[u8]) -> Result<simreel_compare::Image, String>) {
    let files = fixtures(ext);
    assert!(!files.is_empty());
    let (mut ok, mut err) = (0, 0);
    // SIMREEL_COMPARE_FUZZ_ITERS / SIMREEL_COMPARE_FUZZ_SEED allow longer or different runs by hand.
    let iters = std::env::var("SIMREEL_COMPARE_FUZZ_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let seed = std::env::var("SIMREEL_COMPARE_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(seed);
    let mut rng = Rng(seed.max(1));
    for i in 0..iters {
        let src = &files[rng.below(files.len())];
        let data = mutate(&mut rng, src);
        match std::panic::catch_unwind(|| decode(&data)) {
            Ok(Ok(img)) => {
                assert_eq!(img.rgba.len() as u64, u64::from(img.width) * u64::from(img.height) * 4);
                ok += 1;
            }
            Ok(Err(e)) => {
                assert!(e.starts_with(if ext == "bmp" { "BMP: " } else { "TIFF: " }), "{e}");
                err += 1;
            }
            Err(_) => {
                let path = std::env::temp_dir().join(format!("simreel-compare-fuzz-crash-{i}.{ext}"));
                std::fs::write(&path, &data).unwrap();
                panic!("iteration {i} panicked; input saved to {}", path.display());
            }
        }
    }
    eprintln!("{ext}: {ok} decoded, {err} refused");
    assert!(ok > iters / 20 && err > iters / 20, "mutations too mild or too harsh: {ok} ok, {err} err");
}

#[test]
fn fuzz_bmp_never_panics() {
    run("bmp", 0x9E37_79B9_7F4A_7C15, simreel_compare::image::bmp::decode);
}

#[test]
fn fuzz_tiff_never_panics() {
    run("tif", 0xD1B5_4A32_D192_ED03, simreel_compare::image::tiff::decode);
}
