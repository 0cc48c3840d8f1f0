//! Golden images in `cargo test`, for a project with its own renderer, as insta asserts values:
//! [`assert_image!`](crate::assert_image) compares an image with the approved PNG beside the test
//! (`goldens/<name>.png` in the test file's folder) through the golden check's comparator. On a
//! mismatch, or with no approved image yet, it writes the image as `goldens/<name>.new.png`, a
//! pending image, and fails, saying why and how to review. `simreel-compare review --pending DIR`
//! (or `simreel golden review --pending DIR`) walks the pending images: accepting one moves it
//! over the approved image.
//!
//! `SIMREEL_UPDATE` takes insta's `INSTA_UPDATE` values, and `INSTA_UPDATE` is read where it is
//! not set: `auto` (the default) writes pending images, and nothing on CI; `new` writes pending
//! images, on CI too; `always` (or `1`) writes the approved image itself and passes; `unseen`
//! writes the approved image of a name that has none and a pending image of a changed one; `no`
//! writes nothing. On CI (`CI` set to anything but `false`, `0` or nothing, as insta reads it),
//! approved images are never written: `always` and `unseen` write pending images there.
//!
//! ```
//! use simreel_compare::{Image, Tolerance};
//! # let dir = std::env::temp_dir().join(format!("simreel-compare-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(dir.join("goldens")).unwrap();
//! let frame = Image::from_rgba(4, 2, [200, 40, 40, 255].repeat(8)).unwrap();
//! # std::fs::write(dir.join("goldens/red.png"), simreel_compare::image::encode_png(&frame)).unwrap();
//! # let here = dir.join("test.rs");
//! // in a test: simreel_compare::assert_image!("red", &frame);
//! // which is, with the test file's folder spelled out:
//! simreel_compare::assert::check(&here, "red", &frame, &Tolerance::default()).expect("the frame is the approved one");
//! ```

use std::path::{Path, PathBuf};

use crate::compare;
use crate::image::Image;
use crate::tolerance::Tolerance;

/// An image a test asserts: RGBA8 rows, tightly packed.
pub trait Pixels {
    fn size(&self) -> (u32, u32);
    fn rgba(&self) -> &[u8];
}

impl Pixels for Image {
    fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }
    fn rgba(&self) -> &[u8] {
        &self.rgba
    }
}

/// Width, height and RGBA8 rows.
impl<T: AsRef<[u8]>> Pixels for (u32, u32, T) {
    fn size(&self) -> (u32, u32) {
        (self.0, self.1)
    }
    fn rgba(&self) -> &[u8] {
        self.2.as_ref()
    }
}

/// What to write when an image is not the approved one (`SIMREEL_UPDATE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Update {
    /// Write the image as the approved one, and pass.
    Always,
    /// Write it as a pending image, `<name>.new.png`, and fail.
    New,
    /// Write nothing, and fail.
    No,
    /// Write the approved image of a name that has none (and pass), a pending image of a changed
    /// one (and fail).
    Unseen,
}

impl Update {
    /// From `SIMREEL_UPDATE` (or `INSTA_UPDATE`'s value where it is not set) and `CI` (read once
    /// by the caller), as insta reads them: where `CI` is set, `auto` writes nothing and approved
    /// images are never written.
    pub fn from_env(update: Option<&str>, ci: bool) -> Result<Update, String> {
        let u = match update.map(str::trim) {
            None | Some("") | Some("auto") => {
                if ci {
                    Update::No
                } else {
                    Update::New
                }
            }
            Some("new") => Update::New,
            Some("always") | Some("1") => Update::Always,
            Some("unseen") => Update::Unseen,
            Some("no") | Some("0") => Update::No,
            Some(other) => {
                return Err(format!(
                    "SIMREEL_UPDATE={other}: it is one of auto (the default: pending images, none on CI), new (pending images), \
                     always or 1 (approved images), unseen (approved images of new names, pending images of changed ones), no"
                ));
            }
        };
        Ok(if ci && matches!(u, Update::Always | Update::Unseen) { Update::New } else { u })
    }

    /// The setting the environment gives: `SIMREEL_UPDATE`, else `INSTA_UPDATE` (said in
    /// `note`), as [`Update::from_env`] reads them.
    pub fn from_vars(simreel: Option<&str>, insta: Option<&str>, ci: bool) -> Result<(Update, Option<String>), String> {
        match (simreel, insta) {
            (None, Some(i)) if !i.trim().is_empty() => {
                let u = Update::from_env(Some(i), ci).map_err(|e| e.replacen("SIMREEL_UPDATE", "INSTA_UPDATE", 1))?;
                Ok((u, Some(format!("INSTA_UPDATE={} read as SIMREEL_UPDATE", i.trim()))))
            }
            _ => Ok((Update::from_env(simreel, ci)?, None)),
        }
    }
}

/// Whether `CI` (its value) says the tests run on CI, as insta reads it: set, and not `false`,
/// `0` or empty.
pub fn is_ci(ci: Option<&str>) -> bool {
    ci.is_some_and(|v| !matches!(v.trim(), "" | "0" | "false" | "FALSE" | "False"))
}

/// Where the approved image `name` of the test in `test_file` lives, and its pending image.
pub fn paths(test_file: &Path, name: &str) -> (PathBuf, PathBuf) {
    let dir = test_file.parent().unwrap_or(Path::new(".")).join("goldens");
    (dir.join(format!("{name}.png")), dir.join(format!("{name}.new.png")))
}

/// The test file as the compiler named it (`file!()`: relative to the workspace root) found from
/// the crate's folder (`CARGO_MANIFEST_DIR`), looking up the folders above for the workspace.
pub fn test_file(manifest_dir: &str, file: &str) -> PathBuf {
    let file = Path::new(file);
    if file.is_absolute() {
        return file.to_path_buf();
    }
    let mut dir = Some(Path::new(manifest_dir));
    while let Some(d) = dir {
        if d.join(file).is_file() {
            return d.join(file);
        }
        dir = d.parent();
    }
    Path::new(manifest_dir).join(file)
}

/// Compares `image` with the approved image `name` beside `test_file` under `tol`, writing as
/// `SIMREEL_UPDATE` and `CI` say. `Err` says what failed and what was written.
pub fn check(test_file: &Path, name: &str, image: &dyn Pixels, tol: &Tolerance) -> Result<(), String> {
    let (simreel, insta) = (std::env::var("SIMREEL_UPDATE").ok(), std::env::var("INSTA_UPDATE").ok());
    let (update, note) = Update::from_vars(simreel.as_deref(), insta.as_deref(), is_ci(std::env::var("CI").ok().as_deref()))?;
    check_with(test_file, name, image, tol, update).map_err(|e| match note {
        Some(n) => format!("{e}\n  ({n})"),
        None => e,
    })
}

/// [`check`] with the update mode given.
pub fn check_with(test_file: &Path, name: &str, image: &dyn Pixels, tol: &Tolerance, update: Update) -> Result<(), String> {
    if name.is_empty() || name.contains(['/', '\\', ':']) || name.starts_with('.') || name.ends_with(".new") {
        return Err(format!(
            "{name:?} is not an image name: a file name without folders (and not ending in .new, which marks pending images)"
        ));
    }
    let (width, height) = image.size();
    if width == 0 || height == 0 {
        return Err(format!("{name}: a {width}×{height} image has no pixels"));
    }
    if image.rgba().len() as u64 != width as u64 * height as u64 * 4 {
        return Err(format!("{name}: {} bytes are not {width}×{height} RGBA8 pixels", image.rgba().len()));
    }
    let actual = Image { width, height, rgba: image.rgba().to_vec() };
    let (approved, pending) = paths(test_file, name);
    let why = match std::fs::read(&approved) {
        Err(_) => format!("no approved image {}", approved.display()),
        Ok(bytes) => match crate::image::decode(&bytes) {
            // an approved file that is not a PNG (a Git LFS pointer not pulled) is replaced as a
            // differing one would be
            Err(e) => format!("the approved image {} cannot be read: {e}", approved.display()),
            Ok(expected) if (expected.width, expected.height) != (width, height) => {
                format!("size mismatch: {} is {}×{}, the image is {width}×{height}", approved.display(), expected.width, expected.height)
            }
            Ok(expected) => {
                let c = compare::compare(&expected, &actual, tol);
                if c.verdict.passed() {
                    // a pending image of an earlier failure is stale now
                    let _ = crate::fs::remove_stale(&pending);
                    return Ok(());
                }
                format!("{} differs from {}: {}", name, approved.display(), c.describe())
            }
        },
    };
    let write =
        |to: &Path| -> Result<(), String> { crate::fs::atomic(to, &crate::image::encode_png_small(&actual)).map_err(|e| e.to_string()) };
    // `unseen`: approved where there is none yet, pending where one changed
    let update = match (update, approved.exists()) {
        (Update::Unseen, false) => Update::Always,
        (Update::Unseen, true) => Update::New,
        (u, _) => u,
    };
    match update {
        Update::Always => {
            write(&approved)?;
            let _ = crate::fs::remove_stale(&pending);
            Ok(())
        }
        Update::New => {
            write(&pending)?;
            let dir = pending.parent().unwrap_or(Path::new("."));
            Err(format!(
                "{why}\n  the image is pending in {}\n  review: simreel-compare review --pending {} (or SIMREEL_UPDATE=always cargo test)",
                pending.display(),
                crate::text::sh(&dir.display().to_string())
            ))
        }
        Update::No => Err(format!("{why}\n  nothing written (SIMREEL_UPDATE=no, or auto on CI); to see it: SIMREEL_UPDATE=new cargo test")),
        Update::Unseen => unreachable!("taken as always or new above"),
    }
}

/// Asserts an image against its approved PNG beside the test: `assert_image!("name", &image)`,
/// or with a tolerance: `assert_image!("name", &image, &tolerance)`. See [`assert`](crate::assert).
#[macro_export]
macro_rules! assert_image {
    ($name:expr, $image:expr $(,)?) => {
        $crate::assert_image!($name, $image, &$crate::Tolerance::default())
    };
    ($name:expr, $image:expr, $tolerance:expr $(,)?) => {
        if let Err(why) = $crate::assert::check(&$crate::assert::test_file(env!("CARGO_MANIFEST_DIR"), file!()), $name, $image, $tolerance)
        {
            panic!("assert_image!({:?}): {}", $name, why);
        }
    };
}

/// The pending images under `dir` (any depth): each `<name>.new.png` with its approved
/// `<name>.png` (which may not exist yet), sorted.
#[cfg(feature = "full")]
pub fn pending(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    // a folder that cannot be listed holds nothing to review
    let files = crate::files::files_under(dir, Path::new("")).unwrap_or_default();
    let mut found: Vec<(PathBuf, PathBuf)> = files
        .into_iter()
        // assert_image! writes plain files: a link of that name is someone else's
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()))
        .filter_map(|p| {
            let stem = p.file_name()?.to_str()?.strip_suffix(".new.png")?.to_string();
            Some((p.with_file_name(format!("{stem}.png")), p))
        })
        .collect();
    found.sort();
    found
}
