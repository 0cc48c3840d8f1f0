//! What accepting may touch. A report's `summary.json` (like every file simreel reads back) is
//! untrusted input: whoever can put a file in the output folder (a committed `out/`, a shared
//! `--out` on a cluster) writes it. So an accept writes only picture files, only under the
//! folders the person accepting works in ([`Folders`]: the review's or the studio's own, never
//! the folders a report names; never the home folder itself, nor a hidden folder below them),
//! never through a symbolic link, and only the content the comparison recorded ([`sha256`]).

use std::path::{Component, Path, PathBuf};

use crate::Error;
pub use crate::hash::sha256;

/// The folders an accept may read and write under: each as given (made absolute) and as the
/// system resolves it, so that a path recorded either way is recognised.
#[derive(Clone, Debug, Default)]
pub struct Folders {
    roots: Vec<PathBuf>,
    /// The home folder (or `/`) was given and left out: said when an accept is refused.
    left_out: Option<PathBuf>,
}

impl Folders {
    /// The folders `dirs` (relative ones from the current folder); those that do not exist yet
    /// are kept as given. `/` is never one; nor is `home`, the home folder itself, where given:
    /// a review run from `~` accepts into its `--out` and `--goldens`, not anywhere in the home
    /// folder (the command lines give it; the library reads no variable).
    pub fn new<'a>(dirs: impl IntoIterator<Item = &'a Path>, home: Option<&Path>) -> Folders {
        let same = |a: &Path, b: &Path| a == b || std::fs::canonicalize(a).is_ok_and(|a| std::fs::canonicalize(b).is_ok_and(|b| a == b));
        let (mut roots, mut left_out) = (Vec::new(), None);
        for d in dirs {
            let Ok(abs) = std::path::absolute(d) else { continue };
            if abs.parent().is_none() || home.is_some_and(|h| same(&abs, h)) {
                left_out = Some(abs);
                continue;
            }
            if let Ok(real) = std::fs::canonicalize(&abs) {
                roots.push(real);
            }
            roots.push(abs);
        }
        roots.sort();
        roots.dedup();
        Folders { roots, left_out }
    }

    /// The folders a review run here works in: the current folder and the output and golden
    /// folders it was given.
    pub fn of_review(out: &Path, goldens: &Path, home: Option<&Path>) -> Folders {
        let here = std::env::current_dir().unwrap_or_default();
        Folders::new([here.as_path(), out, goldens], home)
    }

    /// The folders, for messages.
    fn list(&self) -> String {
        self.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
    }

    /// `path` itself when an accept may touch it: absolute, made of plain names (no `..`), a
    /// picture by its name, under one of the folders, with no symbolic link below that folder,
    /// and a plain file where it exists. `what` names it in the refusal ("the expected file").
    pub fn check<'p>(&self, path: &'p Path, what: &str) -> Result<&'p Path, Error> {
        let refuse = |why: String| Error::Untrusted(format!("{what} {}: {why}", path.display()));
        if !path.is_absolute() || path.components().any(|c| matches!(c, Component::ParentDir | Component::CurDir)) {
            return Err(refuse("not an absolute path of plain names".into()));
        }
        if !crate::image::is_picture(path) {
            return Err(refuse(
                "not a picture's name (.png, .jpg, .jpeg, .webp, .bmp, .tif, .tiff): an accept writes pictures only".into(),
            ));
        }
        let root =
            self.roots.iter().filter(|r| path.starts_with(r) && path != r.as_path()).max_by_key(|r| r.as_os_str().len()).ok_or_else(
                || {
                    let why = match &self.left_out {
                        Some(d) => format!(
                            "; {} is never one (the home folder itself, or /): review from the project's own folder, or give --out",
                            d.display()
                        ),
                        None => String::new(),
                    };
                    refuse(format!("outside the folders this accept works in ({}){why}", self.list()))
                },
            )?;
        let mut at = root.clone();
        for part in path.strip_prefix(root).expect("under the root").components() {
            at.push(part);
            if part.as_os_str().to_string_lossy().starts_with('.') {
                return Err(refuse(format!("{} is hidden: an accept never writes into a hidden folder or file", at.display())));
            }
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(refuse(format!("{} is a symbolic link: an accept never writes through one", at.display())));
                }
                Ok(m) if at.as_path() == path && !m.is_file() => return Err(refuse("not a plain file".into())),
                Ok(_) => {}
                // what does not exist yet cannot be a link; an accept makes it
                Err(_) => break,
            }
        }
        Ok(path)
    }
}

/// The SHA-256 of a picture's pixels (its size, then RGBA8 rows): what a golden check records of
/// the frame it rendered.
pub fn pixels_sha256(image: &crate::Image) -> String {
    let mut h = crate::hash::Sha256::default();
    h.update(&image.width.to_le_bytes());
    h.update(&image.height.to_le_bytes());
    h.update(&image.rgba);
    h.hex()
}

/// Whether `path` lies under `dir` (both absolute, compared by their plain names): a recorded
/// file is under the folder its comparison was given.
pub fn lies_under(path: &Path, dir: &Path) -> bool {
    path == dir || path.starts_with(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn only_pictures_below_the_folders_and_never_through_a_link() {
        let base = std::env::temp_dir().join(format!("simreel-trust-{}", std::process::id()));
        let (inside, outside) = (base.join("project"), base.join("elsewhere"));
        std::fs::create_dir_all(inside.join("shots")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(inside.join("shots/a.png"), b"x").unwrap();
        std::os::unix::fs::symlink(&outside, inside.join("shots/out")).unwrap();
        std::os::unix::fs::symlink(outside.join("b.png"), inside.join("shots/b.png")).unwrap();
        std::fs::create_dir_all(inside.join("shots/dir.png")).unwrap();
        let f = Folders::new([inside.as_path()], None);
        assert!(f.check(&inside.join("shots/a.png"), "x").is_ok());
        assert!(f.check(&inside.join("shots/new/c.png"), "x").is_ok(), "a file an accept makes");
        for bad in [
            outside.join("a.png"),
            inside.join("shots/../../elsewhere/a.png"),
            inside.join("shots/out/a.png"),
            inside.join("shots/b.png"),
            inside.join("shots/dir.png"),
            inside.join(".bashrc"),
            inside.join(".local/share/planted/evil.png"),
            inside.join("shots/.hidden/a.png"),
            PathBuf::from("shots/a.png"),
            inside.clone(),
        ] {
            assert!(f.check(&bad, "x").is_err(), "{}", bad.display());
        }
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn the_home_folder_itself_is_never_a_folder_an_accept_works_in() {
        let base = std::env::temp_dir().join(format!("simreel-trust-home-{}", std::process::id()));
        let home = base.join("home/victim");
        std::fs::create_dir_all(home.join("Pictures")).unwrap();
        std::fs::create_dir_all(home.join("project/out")).unwrap();
        // a review run from the home folder: its --out and --goldens only
        let f = Folders::new([home.as_path(), home.join("out").as_path(), home.join("tests/golden").as_path()], Some(&home));
        assert!(f.check(&home.join("Pictures/holiday.png"), "x").is_err());
        assert!(f.check(&home.join("holiday.png"), "x").is_err());
        assert!(f.check(&home.join("out/a.png"), "x").is_ok());
        assert!(f.check(&home.join("tests/golden/flock/frame_0000.png"), "x").is_ok());
        // from a project folder in it: that folder
        let f = Folders::new([home.join("project").as_path()], Some(&home));
        assert!(f.check(&home.join("project/cmp/a.png"), "x").is_ok());
        assert!(f.check(&home.join("Pictures/holiday.png"), "x").is_err());
        // and / never
        assert!(Folders::new([Path::new("/")], None).check(&home.join("project/cmp/a.png"), "x").is_err());
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn the_hash_is_sha256() {
        assert_eq!(sha256(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
