//! Why simreel decodes through `image` and encodes through the `png` crate: decoding an 8-bit PNG
//! (what `--resume`, `simreel gif` and golden checks read back) with the `png` crate directly
//! against `image`, and encoding a frame with simreel's encoder (the `png` crate with fdeflate,
//! `Effort::Fast`) against `image`'s fast PNG encoder, on a 640 × 360 frame like a render (smooth
//! gradients, a textured band). Run: `cargo bench --bench decode`.
// test pictures and references may use the platform's math: only what simreel computes must be
// the same bits everywhere (src/portable.rs)
#![allow(clippy::disallowed_methods)]

use criterion::{Criterion, criterion_group, criterion_main};
use simreel::output::png;

fn frame() -> (Vec<u8>, u32, u32) {
    let (w, h) = (640u32, 360u32);
    let mut rgba = Vec::with_capacity((w * h * 4) as usize);
    let mut state = 0x9E37_79B9u32;
    for y in 0..h {
        for x in 0..w {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let ground = y > h / 2 + (((x as f32) * 0.03).sin() * 20.0) as u32;
            let grain = if ground { (state % 24) as u8 } else { 0 };
            let (r, g, b) = if ground { (90 + grain, 120 + grain / 2, 60) } else { (110 + (y / 3) as u8, 150 + (y / 4) as u8, 215) };
            rgba.extend_from_slice(&[r, g, b, 255]);
        }
    }
    (rgba, w, h)
}

/// The `png` crate's reader, expanded to RGBA8 (what simreel used before `image`).
fn decode_with_png_crate(bytes: &[u8]) -> Vec<u8> {
    let mut dec = ::png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(::png::Transformations::EXPAND);
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    match info.color_type {
        ::png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        _ => buf,
    }
}

fn paths(c: &mut Criterion) {
    let (rgba, w, h) = frame();
    let encoded = png::encode(&rgba, w, h, png::Effort::Fast);
    let mut group = c.benchmark_group("png_640x360");
    group.sample_size(30);
    group.bench_function("decode/png crate", |b| b.iter(|| decode_with_png_crate(&encoded)));
    group.bench_function("decode/image (simreel)", |b| b.iter(|| png::decode(&encoded).unwrap()));
    group.bench_function("encode/png crate fast (simreel)", |b| b.iter(|| png::encode(&rgba, w, h, png::Effort::Fast)));
    group.bench_function("encode/image png fast", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            let rgb: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
            let enc = image::codecs::png::PngEncoder::new_with_quality(
                &mut out,
                image::codecs::png::CompressionType::Fast,
                image::codecs::png::FilterType::Adaptive,
            );
            image::ImageEncoder::write_image(enc, &rgb, w, h, image::ExtendedColorType::Rgb8).unwrap();
            out
        })
    });
    group.finish();
}

criterion_group!(benches, paths);
criterion_main!(benches);
