//! The magma fit against nv-flip's table.

// the command, its report and every format: the default `full` feature
#![cfg(feature = "full")]
#[test]
fn magma_within_two_levels_of_nv_flip() {
    let theirs = nv_flip::magma_lut().to_vec();
    let ours = simreel_compare::flip::magma_lut();
    let mut worst = 0;
    for (i, rgb) in ours.iter().enumerate() {
        for c in 0..3 {
            let d = (rgb[c] as i32 - theirs[i * 3 + c] as i32).abs();
            assert!(d <= 2, "entry {i} channel {c}: ours {} theirs {}", rgb[c], theirs[i * 3 + c]);
            worst = worst.max(d);
        }
    }
    println!("magma: worst difference {worst} level(s)");
}
