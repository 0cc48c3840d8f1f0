//! Golden-image comparison that sees what a person sees.
//!
//! Two pictures are compared in layers: a per-channel threshold and a budget of differing
//! pixels, a spatial layer that fails any compact region of change beyond what anti-aliasing
//! explains, and the perceptual FLIP metric (LDR-FLIP, written here in Rust). A failure comes
//! with a report (an HTML page with side-by-side, slider and hover views, JUnit XML and
//! `summary.json`), and a review accepts or rejects each failure as `cargo insta review` does.
//!
//! ```
//! use simreel_compare::{Image, Tolerance, compare};
//!
//! let expected = Image::from_rgba(64, 32, [200u8, 210, 220, 255].repeat(64 * 32)).unwrap();
//! let mut actual = expected.clone();
//! actual.rgba[4 * (10 * 64 + 20)] = 201; // one channel of one pixel, one level off
//! let verdict = compare(&expected, &actual, &Tolerance::default());
//! assert!(verdict.passed(), "{}", verdict.describe());
//!
//! for y in 8..16 {
//!     for x in 30..40 {
//!         actual.rgba[4 * (y * 64 + x)..][..3].copy_from_slice(&[20, 20, 20]); // a dark patch
//!     }
//! }
//! let verdict = compare(&expected, &actual, &Tolerance::default());
//! assert!(!verdict.passed());
//! assert!(verdict.describe().contains("compact difference: 10×8 px at (30, 8)"), "{}", verdict.describe());
//! ```
//!
//! In tests, [`assert_image!`] compares with an approved PNG beside the test and leaves a
//! pending `<name>.new.png` to review when it differs; the `simreel-compare` command compares
//! files and folders and reviews what failed.
//!
//! The default `full` feature holds the command's report, review and summary and the JPEG, WebP
//! and TIFF readers; without it (`default-features = false`) the crate is the comparator and
//! `assert_image!` over PNG and BMP, which a test suite builds in a third of the time.

// one call into the C library (`fs::unix::me`, geteuid) and nothing else
#![deny(unsafe_code)]

pub mod assert;
pub mod compare;
mod error;
#[cfg(feature = "full")]
pub mod files;
pub mod flip;
pub mod fs;
#[cfg(feature = "full")]
pub mod hash;
pub mod image;
pub mod par;
pub mod regions;
#[cfg(feature = "full")]
pub mod report;
#[cfg(feature = "full")]
pub mod review;
#[cfg(feature = "full")]
pub mod summary;
pub mod text;
pub mod tolerance;
#[cfg(feature = "full")]
pub mod trust;

pub use compare::{Comparison, Verdict, compare};
pub use error::{Error, exit};
pub use image::{Format, Image};
#[cfg(feature = "full")]
pub use report::Accept;
pub use tolerance::{DEFAULT_MAX_REGION, PixelBudget, Tolerance, ToleranceKeys};

/// Reads a picture file (PNG, JPEG, WebP, BMP or TIFF; the format from its bytes).
pub fn read(path: impl AsRef<std::path::Path>) -> Result<Image, Error> {
    Image::read(path.as_ref())
}

/// The README's Rust examples, compiled by `cargo test` as printed.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExamples;
