//! The comparator's judgement on pictures no golden check of ours made: a small sign-up page
//! screenshot by Chromium, with eight real changes, through JPEG and lossless WebP, and two pairs
//! drawn to test alpha (`tests/fixtures/pages/regen.py` makes them all). Each pair's verdict under
//! the default tolerance, and the criterion that decides it, is today's judgement: a change here
//! is a change of judgement, to make on purpose.

// the command, its report and every format: the default `full` feature
#![cfg(feature = "full")]

use simreel_compare::{Comparison, Image, Tolerance, Verdict, compare, read};

fn fixture(name: &str) -> Image {
    read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pages").join(name)).unwrap()
}

fn judged(actual: &str, tol: &Tolerance) -> Comparison {
    compare(&fixture("base.png"), &fixture(actual), tol)
}

/// The eight changes, and the layer that fails each by default: `Region` where the pixel counts
/// alone would pass it (a few letters), `Different` where the pixel counts fail it too.
const CHANGES: [(&str, Verdict); 8] = [
    ("change-word.png", Verdict::Region),
    ("change-email.png", Verdict::Region),
    ("change-button-colour.png", Verdict::Different),
    ("change-heading-colour.png", Verdict::Different),
    ("change-label-weight.png", Verdict::Different),
    ("change-missing-field.png", Verdict::Different),
    ("change-padding.png", Verdict::Different),
    ("change-corners.png", Verdict::Different),
];

#[test]
fn every_real_change_to_the_page_fails_by_default_with_its_region_named() {
    for (name, verdict) in CHANGES {
        let c = judged(name, &Tolerance::default());
        assert_eq!(c.verdict, verdict, "{name}: {}", c.describe());
        assert!(!c.regions.is_empty(), "{name}: a person sees where: {}", c.describe());
        assert!(c.describe().contains("compact difference: "), "{name}: {}", c.describe());
    }
}

#[test]
fn the_same_page_again_or_through_a_lossless_format_is_identical() {
    for name in ["again.png", "base-lossless.webp"] {
        assert_eq!(judged(name, &Tolerance::default()).verdict, Verdict::Identical, "{name}");
    }
}

#[test]
fn a_jpeg_of_the_page_is_another_picture_by_default_and_passes_a_tolerance_for_lossy_files() {
    // JPEG at quality 95: up to 17 levels off, most around the button's white letters on blue
    let c = judged("base-q95.jpg", &Tolerance::default());
    assert_eq!(c.verdict, Verdict::Different, "{}", c.describe());
    assert_eq!(c.max_channel_diff, 17);
    // a tolerance for lossy screenshots: the JPEG passes, seven of the eight changes still fail
    let lossy = Tolerance { channel: 17, max_region: 20, ..Tolerance::default() };
    let c = judged("base-q95.jpg", &lossy);
    assert!(c.passed(), "{}", c.describe());
    for (name, _) in CHANGES {
        let c = judged(name, &lossy);
        // the card's corners go from white to the page's #f8fafc (7 levels) and its shadow
        // moves (34 pixels beyond 17 levels, up to 24): within what a JPEG's own noise needs
        // allowed, so no channel threshold tells the two apart
        assert_eq!(c.passed(), name == "change-corners.png", "{name}: {}", c.describe());
    }
}

#[test]
fn a_hard_edge_against_an_anti_aliased_one_fails_where_the_rim_was_lost() {
    // the same disc without its half-transparent rim: anti-aliasing lost (what a renderer that
    // drops MSAA does) fails by the pixel budget and as a region around the disc: the rim's
    // transparent pixels change colour and alpha by more than half a pixel's move explains
    let c = compare(&fixture("edge-soft.png"), &fixture("edge-hard.png"), &Tolerance::default());
    assert_eq!(c.verdict, Verdict::Different, "{}", c.describe());
    let r = c.regions[0];
    assert!((r.x, r.y, r.width, r.height) == (8, 8, 49, 49) && r.weight > 40, "{}", c.describe());
    assert!(c.describe().contains("over the budget of 4 pixels"), "{}", c.describe());
}

#[test]
fn opaque_white_against_transparent_white_fails_though_every_colour_is_equal() {
    let (white, clear) = (fixture("white-opaque.png"), fixture("white-transparent.png"));
    assert!(white.rgba.chunks_exact(4).zip(clear.rgba.chunks_exact(4)).all(|(p, q)| p[..3] == q[..3]));
    let c = compare(&white, &clear, &Tolerance::default());
    assert_eq!((c.verdict, c.max_channel_diff), (Verdict::Different, 255), "{}", c.describe());
}
