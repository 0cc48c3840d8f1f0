//! Headers read before decoding: the size every format's header gives is the decoded one; a
//! header that claims more than the pixel cap is refused with no more memory than the file's
//! own; and mutated JPEG and WebP files decode or are refused, never panic, within a memory cap.
//! Memory is counted per thread by the allocator of this test binary.

// the command, its report and every format: the default `full` feature
#![cfg(feature = "full")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Cursor;

use simreel_compare::image::{self, Format, header};

struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = LIVE.try_with(|l| {
            l.set(l.get() + layout.size());
            let _ = PEAK.try_with(|p| p.set(p.get().max(l.get())));
        });
        // SAFETY: the layout is the caller's, passed on as it is
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = LIVE.try_with(|l| l.set(l.get().saturating_sub(layout.size())));
        // SAFETY: `ptr` was allocated by `System` with this layout (above)
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The most memory this thread held at once while `f` ran, beyond what it held before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let out = f();
    (out, PEAK.with(Cell::get) - before)
}

fn picture(w: u32, h: u32) -> ::image::RgbaImage {
    ::image::RgbaImage::from_fn(w, h, |x, y| ::image::Rgba([(x * 7) as u8, (y * 5) as u8, ((x + y) * 3) as u8, 255]))
}

/// `img` in every format the comparator reads.
fn encodings(img: &::image::RgbaImage) -> Vec<(Format, Vec<u8>)> {
    let (w, h) = img.dimensions();
    let rgb = ::image::DynamicImage::ImageRgba8(img.clone()).to_rgb8();
    let mut out = vec![(Format::Png, image::encode_png(&image::Image { width: w, height: h, rgba: img.to_vec() }))];
    let mut with = |format: Format, f: &dyn Fn(&mut Cursor<Vec<u8>>)| {
        let mut c = Cursor::new(Vec::new());
        f(&mut c);
        out.push((format, c.into_inner()));
    };
    with(Format::Jpeg, &|c| rgb.write_to(c, ::image::ImageFormat::Jpeg).unwrap());
    with(Format::WebP, &|c| img.write_to(c, ::image::ImageFormat::WebP).unwrap());
    with(Format::Bmp, &|c| img.write_to(c, ::image::ImageFormat::Bmp).unwrap());
    with(Format::Tiff, &|c| img.write_to(c, ::image::ImageFormat::Tiff).unwrap());
    out
}

#[test]
fn every_formats_header_gives_the_decoded_size() {
    for (w, h) in [(1, 1), (37, 23), (300, 7), (1, 1000), (640, 480)] {
        for (format, bytes) in encodings(&picture(w, h)) {
            let head = header::read(&bytes).unwrap_or_else(|| panic!("{format:?} {w}×{h}: no header read"));
            let decoded = image::decode(&bytes).unwrap();
            assert_eq!((head.format, head.width, head.height), (format, decoded.width, decoded.height), "{format:?} {w}×{h}");
            assert!(!head.animated && !head.cmyk);
        }
    }
}

/// Writes `w`×`h` over the size fields of `format`'s header.
fn claim(format: Format, bytes: &mut [u8], w: u32, h: u32) {
    match format {
        Format::Png => {
            bytes[16..20].copy_from_slice(&w.to_be_bytes());
            bytes[20..24].copy_from_slice(&h.to_be_bytes());
        }
        Format::Jpeg => {
            let sof = (2..bytes.len() - 1).find(|&i| bytes[i] == 0xFF && bytes[i + 1] == 0xC0).expect("a baseline frame header");
            bytes[sof + 5..sof + 7].copy_from_slice(&(h as u16).to_be_bytes());
            bytes[sof + 7..sof + 9].copy_from_slice(&(w as u16).to_be_bytes());
        }
        Format::WebP => {
            assert_eq!(&bytes[12..16], b"VP8L", "the encoder's lossless WebP");
            let bits = u32::from_le_bytes(bytes[21..25].try_into().unwrap()) & !0x0FFF_FFFF | (w - 1) | (h - 1) << 14;
            bytes[21..25].copy_from_slice(&bits.to_le_bytes());
        }
        Format::Bmp => {
            bytes[18..22].copy_from_slice(&w.to_le_bytes());
            bytes[22..26].copy_from_slice(&h.to_le_bytes());
        }
        Format::Tiff => unreachable!("not claimed here"),
    }
}

#[test]
fn a_header_claiming_more_than_the_cap_is_refused_with_no_more_memory_than_the_file() {
    for (format, bytes) in encodings(&picture(37, 23)) {
        if format == Format::Tiff {
            continue;
        }
        let (w, h) = match format {
            Format::Jpeg => (65535, 65535),
            Format::WebP => (16383, 16383),
            _ => (20000, 20000),
        };
        let mut lying = bytes.clone();
        claim(format, &mut lying, w, h);
        let t0 = std::time::Instant::now();
        let (said, peak) = peak_of(|| image::decode(&lying));
        let why = said.expect_err("a lie beyond the cap decoded");
        assert!(why.contains("megapixels") && why.contains(&format!("{w}×{h}")), "{format:?}: {why}");
        assert!(peak < 1 << 20, "{format:?}: {peak} bytes held to refuse it");
        assert!(t0.elapsed().as_millis() < 200, "{format:?}: {:?}", t0.elapsed());
    }
}

#[test]
fn the_cap_can_be_raised_and_a_cmyk_jpeg_is_refused_by_name() {
    // a four-component frame header: refused before decoding, with what to do
    let jpeg = encodings(&picture(8, 8)).into_iter().find(|(f, _)| *f == Format::Jpeg).unwrap().1;
    let sof = (2..jpeg.len() - 1).find(|&i| jpeg[i] == 0xFF && jpeg[i + 1] == 0xC0).unwrap();
    let mut cmyk = jpeg.clone();
    cmyk[sof + 9] = 4;
    assert!(header::read(&cmyk).unwrap().cmyk);
    assert!(image::decode(&cmyk).unwrap_err().contains("CMYK JPEG"));
    assert_eq!(header::DEFAULT_PIXEL_CAP, header::pixel_cap());
    assert!(
        header::check_cap(&header::Header {
            format: Format::Png,
            width: 10_001,
            height: 10_000,
            animated: false,
            cmyk: false,
            orientation: 1
        })
        .is_err()
    );
    assert!(
        header::check_cap(&header::Header {
            format: Format::Png,
            width: 10_000,
            height: 10_000,
            animated: false,
            cmyk: false,
            orientation: 1
        })
        .is_ok()
    );
}

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1) as u64) as usize
    }
}

/// Mutated JPEG and WebP files (bytes flipped or set to boundary values, in the header area
/// most): each decodes to a whole picture or is refused, never panics, and a JPEG never holds more
/// than 64 MiB (the cap of 100 megapixels would allow 400 MB: what its data can hold bounds it).
#[test]
fn mutated_jpeg_and_webp_headers_are_refused_within_a_memory_cap() {
    let sources: Vec<(Format, Vec<u8>)> = encodings(&picture(37, 23))
        .into_iter()
        .chain(encodings(&picture(64, 48)))
        .filter(|(f, _)| matches!(f, Format::Jpeg | Format::WebP))
        .collect();
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    let iters = std::env::var("SIMREEL_COMPARE_FUZZ_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(6000);
    let (mut ok, mut refused, mut worst) = (0, 0, 0);
    for i in 0..iters {
        let (format, src) = &sources[rng.below(sources.len())];
        let mut b = src.clone();
        for _ in 0..1 + rng.below(3) {
            let at = if rng.below(3) > 0 { rng.below(64.min(b.len())) } else { rng.below(b.len()) };
            b[at] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF, b[at] ^ 0x10, b[at].wrapping_add(1)][rng.below(8)];
        }
        let (said, peak) = match std::panic::catch_unwind(|| peak_of(|| image::decode(&b))) {
            Ok(r) => r,
            Err(_) => {
                let path = std::env::temp_dir().join(format!("simreel-compare-header-crash-{i}"));
                std::fs::write(&path, &b).unwrap();
                panic!("{format:?} mutation {i} panicked; saved to {}", path.display());
            }
        };
        worst = worst.max(peak);
        // a JPEG is held to what its data can hold; a WebP's data can hold any size (a lossless
        // one may spend no bit on a pixel), so only the cap of 100 megapixels (400 MB) holds it
        let cap = if *format == Format::Jpeg { 64 << 20 } else { 4 * header::DEFAULT_PIXEL_CAP as usize + (64 << 20) };
        assert!(peak < cap, "{format:?} mutation {i} held {peak} bytes");
        match said {
            Ok(img) => {
                assert_eq!(img.rgba.len() as u64, img.width as u64 * img.height as u64 * 4);
                ok += 1;
            }
            Err(_) => refused += 1,
        }
    }
    eprintln!("{ok} decoded, {refused} refused; at most {worst} bytes held");
    assert!(ok > iters / 20 && refused > iters / 20, "mutations too mild or too harsh: {ok} ok, {refused} refused");
}
