//! Every golden PNG of the main project against three perturbations of itself, vs nv-flip.

// the command, its report and every format: the default `full` feature
#![cfg(feature = "full")]
mod common;
use common::*;
use std::path::Path;

#[test]
fn golden_images_match_nv_flip() {
    let files = pngs_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden"));
    assert!(!files.is_empty(), "no golden PNGs found");
    let mut worst = Diff::default();
    for (i, f) in files.iter().enumerate() {
        let img = load_png_rgb(f);
        let variants = [("shift", shift_right(&img)), ("noise", add_noise(&img, 1000 + i as u64)), ("bright", brighten(&img, 20))];
        for (j, (kind, test)) in variants.iter().enumerate() {
            let name = format!("{}:{kind}", f.display());
            // Alternate thread counts to exercise the banding too.
            worst = worst.worst(check_pair(&name, &img, test, 1 + (i + j) % 3));
        }
    }
    println!("golden: {} files x 3 pairs, worst {worst:?}", files.len());
}
