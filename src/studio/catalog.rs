//! The scenes a studio serves: the files named on the command line and the scene files under the
//! folders named there, each with its last good scene (kept on screen while the file has
//! problems), its problems, and the files it is read from (a figure's panels and data).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::scene::{self, Diagnostic, Scene, SceneError};

/// One served scene file.
#[derive(Clone, Debug)]
pub struct Entry {
    pub path: PathBuf,
    /// The last version of the file that loaded.
    pub scene: Option<Arc<Scene>>,
    /// What is wrong with the file as it is now.
    pub problem: Option<Problem>,
    /// The files it was read from the last time it loaded (itself when it never did), resolved
    /// (as file events name them).
    pub files: Vec<PathBuf>,
}

/// A scene file's problems, for the page's overlay.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Problem {
    /// The whole message, as the command line prints it.
    pub text: String,
    pub items: Vec<Item>,
}

/// One problem: where and what.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Item {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub key: String,
    pub message: String,
    pub hint: Option<String>,
}

impl Problem {
    fn of(e: &SceneError) -> Problem {
        let items = match e {
            SceneError::Invalid { path, diagnostics, .. } => diagnostics
                .iter()
                .map(|d: &Diagnostic| Item {
                    file: path.display().to_string(),
                    line: d.line,
                    col: d.col,
                    key: d.key.clone(),
                    message: d.message.clone(),
                    hint: d.hint.clone(),
                })
                .collect(),
            // a file that cannot be read, or a scene too big: said as a whole
            SceneError::Read { .. } | SceneError::TooBig { .. } | SceneError::Overridden { .. } => Vec::new(),
        };
        Problem { text: e.to_string(), items }
    }
}

/// The served scene files, by path.
pub struct Catalog {
    /// What the command line named: scene files and folders.
    inputs: Vec<PathBuf>,
    /// Folders whose scene files are not served (the output folder, inside a served folder).
    skip: Vec<PathBuf>,
    pub entries: BTreeMap<PathBuf, Entry>,
}

impl Catalog {
    pub fn new(inputs: Vec<PathBuf>, skip: Vec<PathBuf>) -> Catalog {
        let mut c = Catalog { inputs, skip, entries: BTreeMap::new() };
        c.reload();
        c
    }

    /// The folders to watch and whether to watch below them: the named folders (with their
    /// subfolders), the folders of named files and of the files the scenes are read from.
    pub fn watched(&self) -> Vec<(PathBuf, bool)> {
        let mut dirs: BTreeMap<PathBuf, bool> = BTreeMap::new();
        for i in &self.inputs {
            if i.is_dir() {
                dirs.insert(i.clone(), true);
            }
        }
        for e in self.entries.values() {
            for f in &e.files {
                let dir = f.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
                dirs.entry(dir).or_insert(false);
            }
        }
        dirs.into_iter().collect()
    }

    /// Finds the scene files again and reads each; returns the paths whose scene or problems
    /// changed (a file that loads to the same fingerprints and has the same problems is not).
    pub fn reload(&mut self) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = Vec::new();
        for i in &self.inputs {
            if i.is_dir() {
                let files = scene::scene_files(i).unwrap_or_default();
                found.extend(files.into_iter().filter(|f| !self.skip.iter().any(|s| f.starts_with(s))));
            } else {
                found.push(i.clone());
            }
        }
        let mut changed: Vec<PathBuf> = self.entries.keys().filter(|p| !found.contains(p)).cloned().collect();
        self.entries.retain(|p, _| found.contains(p));
        for path in found {
            let (scene, problem) = match scene::load(&path) {
                Ok(s) => (Some(s), None),
                Err(e) => (None, Some(Problem::of(&e))),
            };
            let entry = self.entries.entry(path.clone()).or_insert_with(|| Entry {
                path: path.clone(),
                scene: None,
                problem: None,
                files: vec![path.clone()],
            });
            let mut differs = entry.problem != problem;
            entry.problem = problem;
            if let Some(s) = scene {
                let same = entry.scene.as_ref().is_some_and(|old| **old == s);
                entry.files = s.files().iter().map(|f| resolved(f)).collect();
                if !same {
                    entry.scene = Some(Arc::new(s));
                    differs = true;
                }
            }
            if differs {
                changed.push(path);
            }
        }
        changed
    }

    /// The served scenes that loaded, by path.
    pub fn scenes(&self) -> std::collections::HashMap<PathBuf, Arc<Scene>> {
        self.entries.iter().filter_map(|(p, e)| e.scene.clone().map(|s| (p.clone(), s))).collect()
    }

    /// Whether any served scene is read from `path` (or `path` is a scene file in a served folder).
    pub fn concerns(&self, path: &Path) -> bool {
        if self.skip.iter().any(|s| path.starts_with(s)) {
            return false;
        }
        let is_scene_like = path.extension().is_some_and(|x| x == "toml" || x == "json");
        is_scene_like || {
            let path = resolved(path);
            self.entries.values().any(|e| e.files.contains(&path))
        }
    }
}

/// The real path of a file (either may be relative to the working folder), or its absolute path
/// when it cannot be resolved (it was removed).
fn resolved(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).or_else(|_| std::path::absolute(p)).unwrap_or_else(|_| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = "kind = \"terrain\"\nseed = 3\n[render]\nwidth = 64\nheight = 48\nframes = 4\n[camera]\nposition = [6, 4, 8]\n[terrain]\nresolution = 8\n";

    #[test]
    fn a_reload_reports_only_the_files_whose_frames_or_problems_changed() {
        let dir = std::env::temp_dir().join(format!("simreel-catalog-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("out")).unwrap();
        let a = dir.join("a.toml");
        std::fs::write(&a, SCENE).unwrap();
        std::fs::write(dir.join("out/ignored.toml"), "not a scene").unwrap();
        let mut c = Catalog::new(vec![dir.clone()], vec![dir.join("out")]);
        assert_eq!(c.entries.keys().collect::<Vec<_>>(), [&a], "the output folder is not served");
        let first = c.entries[&a].scene.clone().unwrap();
        // a comment and another order of keys: nothing to redo
        std::fs::write(&a, format!("# note\nseed   =  3\n{}", SCENE.replace("seed = 3\n", ""))).unwrap();
        assert!(c.reload().is_empty());
        // a camera edit: news, with the same simulation
        std::fs::write(&a, SCENE.replace("[6, 4, 8]", "[7, 4, 8]")).unwrap();
        assert_eq!(c.reload(), vec![a.clone()]);
        let moved = c.entries[&a].scene.clone().unwrap();
        assert_eq!(moved.identity().simulation, first.identity().simulation);
        assert_ne!(moved.identity().drawing, first.identity().drawing);
        // what changes no frame is news too: the page's golden check and outputs read it
        for (edit, what) in [
            ("[golden]\nframes = [1]\n[golden.tolerance]\nreason = \"r\"\n", "a golden table"),
            ("[output]\nformats = [\"png\"]\n", "the formats"),
            ("", "a description"),
        ] {
            let text = if edit.is_empty() {
                format!("description = \"the block\"\n{}", SCENE.replace("[6, 4, 8]", "[7, 4, 8]"))
            } else {
                format!("{}{edit}", SCENE.replace("[6, 4, 8]", "[7, 4, 8]"))
            };
            std::fs::write(&a, text).unwrap();
            assert_eq!(c.reload(), vec![a.clone()], "{what}");
            assert_eq!(c.entries[&a].scene.as_ref().unwrap().identity(), moved.identity(), "{what} changes no frame");
        }
        std::fs::write(&a, SCENE.replace("[6, 4, 8]", "[7, 4, 8]")).unwrap();
        assert_eq!(c.reload(), vec![a.clone()]);
        // broken: the problem with its place, the last good scene kept
        std::fs::write(&a, SCENE.replace("seed = 3", "seed = ")).unwrap();
        assert_eq!(c.reload(), vec![a.clone()]);
        let e = &c.entries[&a];
        assert_eq!(e.scene.as_ref().unwrap().identity(), moved.identity());
        let p = e.problem.as_ref().unwrap();
        assert_eq!((p.items[0].line, p.items[0].file.as_str()), (2, a.to_str().unwrap()), "{p:?}");
        // a new file appears, a removed one goes
        let b = dir.join("b.toml");
        std::fs::write(&b, SCENE).unwrap();
        assert_eq!(c.reload(), vec![b.clone()]);
        std::fs::remove_file(&a).unwrap();
        assert_eq!(c.reload(), vec![a.clone()]);
        assert!(!c.entries.contains_key(&a));
        assert!(c.concerns(&dir.join("c.toml")) && !c.concerns(&dir.join("out/x.toml")) && !c.concerns(&dir.join("notes.txt")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_syntax_error_is_the_only_problem_shown() {
        let dir = std::env::temp_dir().join(format!("simreel-catalog-syntax-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.toml");
        // a value left out: what the parser recovers reads `fov` as 0, out of range, at 1:1
        std::fs::write(&a, SCENE.replace("[camera]\n", "[camera]\nfov = \n")).unwrap();
        let c = Catalog::new(vec![a.clone()], Vec::new());
        let p = c.entries[&a].problem.as_ref().unwrap();
        assert_eq!(p.items.len(), 1, "{p:?}");
        assert_eq!((p.items[0].line, p.items[0].col), (8, 7), "{p:?}");
        assert!(p.items[0].message.starts_with("TOML syntax"), "{p:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_figure_is_news_when_its_panel_scene_changes_even_outside_the_served_folders() {
        let dir = std::env::temp_dir().join(format!("simreel-catalog-figure-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("figures")).unwrap();
        std::fs::create_dir_all(dir.join("parts")).unwrap();
        let part = dir.join("parts/a.toml");
        std::fs::write(&part, SCENE).unwrap();
        let figure = dir.join("figures/f.toml");
        std::fs::write(
            &figure,
            "kind = \"figure\"\n[render]\nwidth = 200\nheight = 100\nframes = 1\n[[figure.panel]]\nscene = \"../parts/a.toml\"\n",
        )
        .unwrap();
        let mut c = Catalog::new(vec![dir.join("figures")], Vec::new());
        assert!(c.entries[&figure].problem.is_none(), "{:?}", c.entries[&figure].problem);
        assert!(c.watched().iter().any(|(d, _)| d.ends_with("parts")), "the panel's folder is watched: {:?}", c.watched());
        assert!(c.concerns(&part));
        std::fs::write(&part, SCENE.replace("[6, 4, 8]", "[7, 4, 8]")).unwrap();
        assert_eq!(c.reload(), vec![figure.clone()], "the panel's camera changes the figure's frames");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
