//! Synthetic pairs vs nv-flip, including odd sizes and exact-zero checks.

// the command, its report and every format: the default `full` feature
#![cfg(feature = "full")]
mod common;
use common::*;

fn pairs() -> Vec<(String, Img, Img)> {
    let mut v = Vec::new();
    let mut add = |name: &str, a: Img, b: Img| v.push((name.to_string(), a, b));
    add("text", text_like(320, 200, 1, 0..0), text_like(320, 200, 1, 3..5));
    let text = text_like(300, 120, 2, 0..0);
    add("text-shift", text.clone(), shift_right(&text));
    add("gradient", gradient(256, 160, 1.0), gradient(256, 160, 1.05));
    add("noise", random_image(200, 150, 1), random_image(200, 150, 2));
    let mut dot = Img::new(64, 48, [90, 140, 200]);
    let flat = dot.clone();
    dot.set(31, 20, [255 - 90, 255 - 140, 255 - 200]);
    add("single-pixel", flat, dot);
    add("black-white", Img::new(40, 30, [0; 3]), Img::new(40, 30, [255; 3]));
    for (w, h) in [(1, 1), (1, 37), (29, 1), (3, 2), (17, 5), (250, 3), (5, 250)] {
        add(&format!("noise-{w}x{h}"), random_image(w, h, 3), random_image(w, h, 4));
        add(&format!("text-{w}x{h}"), text_like(w, h, 5, 0..0), add_noise(&text_like(w, h, 5, 0..0), 6));
    }
    // Sparse changes at the very first/last rows and mid-image (row skipping + edge clamping).
    let page = web_page(300, 200, 0..0);
    let mut edits = page.clone();
    for (x, y) in [(0, 0), (299, 199), (150, 100), (7, 57)] {
        edits.set(x, y, [255, 0, 0]);
    }
    add("sparse-edits", page, edits);
    add("web-1280x800", web_page(1280, 800, 0..0), web_page(1280, 800, 20..24));
    v
}

#[test]
fn synthetic_pairs_match_nv_flip() {
    let mut worst = Diff::default();
    for (i, (name, a, b)) in pairs().iter().enumerate() {
        let d = check_pair(name, a, b, 1 + i % 4);
        println!("{name:>16}: {d:?}");
        worst = worst.worst(d);
    }
    println!("synthetic worst {worst:?}");
}

#[test]
fn identical_images_give_exact_zero() {
    for (w, h, c) in [(50, 40, [128, 128, 128]), (1, 1, [0, 0, 0]), (7, 3, [255, 10, 3])] {
        let a = Img::new(w, h, c);
        assert!(our_map(&a, &a, 2).iter().all(|&v| v == 0.0));
        assert!(reference_map(&a, &a).iter().all(|&v| v == 0.0));
    }
    let a = text_like(120, 90, 3, 0..0);
    assert!(our_map(&a, &a, 3).iter().all(|&v| v == 0.0));
}

#[test]
fn black_vs_white_is_near_one() {
    let m = our_map(&Img::new(40, 30, [0; 3]), &Img::new(40, 30, [255; 3]), 1);
    assert!(m.iter().all(|&v| v > 0.9));
}

#[test]
fn deterministic_for_any_thread_count() {
    let cases = [
        (text_like(333, 257, 4, 0..0), text_like(333, 257, 4, 2..6)),
        (random_image(17, 5, 1), random_image(17, 5, 2)),
        (random_image(64, 2, 3), random_image(64, 2, 4)),
        (web_page(1280, 800, 0..0), web_page(1280, 800, 10..12)),
    ];
    for (a, b) in &cases {
        let one = our_map(a, b, 1);
        for t in [2, 3, 7] {
            let m = our_map(a, b, t);
            assert!(one.iter().zip(&m).all(|(x, y)| x.to_bits() == y.to_bits()), "threads {t}");
        }
    }
}

#[test]
fn empty_image_is_empty() {
    assert!(simreel_compare::flip::flip_map(&[], &[], 0, 5, 67.0, 2).is_empty());
}

#[test]
fn other_viewing_conditions_match_nv_flip() {
    let (a, b) = (text_like(160, 90, 8, 0..0), text_like(160, 90, 8, 1..3));
    let (c, d) = (gradient(70, 40, 1.0), add_noise(&gradient(70, 40, 1.0), 9));
    for ppd in [10.0f32, 33.5, 150.0] {
        for (x, y) in [(&a, &b), (&c, &d)] {
            let ours = simreel_compare::flip::flip_map(&x.px, &y.px, x.w, x.h, ppd, 3);
            let rx = nv_flip::FlipImageRgb8::with_data(x.w as u32, x.h as u32, &x.px);
            let ry = nv_flip::FlipImageRgb8::with_data(y.w as u32, y.h as u32, &y.px);
            let theirs = nv_flip::flip(rx, ry, ppd).to_vec();
            let worst = ours.iter().zip(&theirs).map(|(o, t)| (o - t).abs()).fold(0.0, f32::max);
            println!("ppd {ppd}: max per-pixel diff {worst}");
            assert!(worst <= 1e-3);
        }
    }
}
