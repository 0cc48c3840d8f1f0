//! What a render leaves in its output folder, for one scene, in one place: where its frames, its
//! saved states, its manifest and its animations live and what they are named, and the identity
//! each carries — a frame's is its manifest entry's `identity` ([`frame_identity`]), a saved
//! state's is in its header (the simulation's identity and the build), an animation's is the
//! frames it was made from ([`animation_source`], recorded in the manifest's `animations`).
//!
//! ```text
//! OUT/<name>/frame_0000.png …        the frames
//! OUT/<name>/manifest.json           what was written, frame by frame, with identities
//! OUT/<name>/shard-I-of-N.json       one shard's manifest of a split render
//! OUT/<name>/snapshots/frame_N.state saved simulation states
//! OUT/<name>.gif, .apng, .mp4, …    the animations of the whole scene
//! OUT/<name>.A-B.gif, .mp4, …        a clip of frames A..B (`--frames A..B`)
//! ```

use std::path::{Path, PathBuf};

use super::frame_file_name;
use crate::frame::Fnv;
use crate::scene::{Format, Identity, Scene};

/// The manifest's name in a scene's folder.
pub const MANIFEST: &str = "manifest.json";
/// The saved states' folder in a scene's folder.
pub const SNAPSHOTS: &str = "snapshots";

/// `shard-I-of-N`: the start of every name shard `index` of `count` writes.
pub fn shard_stem(index: u32, count: u32) -> String {
    format!("shard-{index}-of-{count}")
}

/// The shard a name starting `shard-I-of-N` names, and the rest of the name.
pub fn parse_shard_stem(name: &str) -> Option<(u32, u32, &str)> {
    let (i, rest) = name.strip_prefix("shard-")?.split_once("-of-")?;
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    Some((i.parse().ok()?, rest[..end].parse().ok()?, &rest[end..]))
}

/// The file a shard's manifest goes to, in the scene's frames folder.
pub fn shard_manifest_name(index: u32, count: u32) -> String {
    format!("{}.json", shard_stem(index, count))
}

/// Whether `name`, read back from a file such as a manifest, is a plain file name: one part, not
/// `.` or `..`, no separator. Only such a name is joined to a folder.
pub fn is_plain_name(name: &str) -> bool {
    let mut parts = Path::new(name).components();
    matches!((parts.next(), parts.next()), (Some(std::path::Component::Normal(_)), None)) && !name.contains(['/', '\\'])
}

/// A file of a scene's folder that simreel reads back (a frame), when it is a plain file there and
/// not a symbolic link to something elsewhere.
pub fn own_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let path = dir.join(name);
    (is_plain_name(name) && std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file())).then_some(path)
}

/// One scene's place in an output folder: `out/<name>/` and the animations beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneFolder {
    out: PathBuf,
    name: String,
    /// Frames in the scene (frame files are numbered to its width).
    frames: u32,
}

impl SceneFolder {
    pub fn new(out: &Path, name: &str, frames: u32) -> Self {
        SceneFolder { out: out.to_path_buf(), name: name.to_string(), frames }
    }

    /// The folder of `scene` (its name, its frame count) under `out`.
    pub fn of(out: &Path, scene: &Scene) -> Self {
        SceneFolder::new(out, &scene.name, scene.frames())
    }

    /// The output folder it is in.
    pub fn out(&self) -> &Path {
        &self.out
    }

    /// `out/<name>/`: the frames, the manifest, the saved states.
    pub fn dir(&self) -> PathBuf {
        self.out.join(&self.name)
    }

    /// The file name of frame `index`: `frame_0007.png`.
    pub fn frame_name(&self, index: u32) -> String {
        frame_file_name(index, self.frames)
    }

    pub fn frame(&self, index: u32) -> PathBuf {
        self.dir().join(self.frame_name(index))
    }

    /// The manifest of a whole render (or of a merge).
    pub fn manifest(&self) -> PathBuf {
        self.dir().join(MANIFEST)
    }

    /// Shard `i` of `n`'s manifest.
    pub fn shard_manifest(&self, i: u32, n: u32) -> PathBuf {
        self.dir().join(shard_manifest_name(i, n))
    }

    /// The saved states' folder.
    pub fn snapshots(&self) -> PathBuf {
        self.dir().join(SNAPSHOTS)
    }

    /// The saved state at frame `frame`.
    pub fn snapshot(&self, frame: u32) -> PathBuf {
        self.snapshots().join(self.frame_name(frame).replace(".png", ".state"))
    }

    /// The animation of `format` beside the folder (`out/<name>.gif`); `None` for PNG, which is
    /// the frames themselves.
    pub fn animation(&self, format: Format) -> Option<PathBuf> {
        (format != Format::Png).then(|| self.out.join(format!("{}.{}", self.name, format.name())))
    }

    /// The clip of `format` of frames `first..=last` beside the folder (`out/<name>.0-29.mp4`,
    /// as Blender and Remotion name a range); `None` for PNG.
    pub fn clip(&self, format: Format, first: u32, last: u32) -> Option<PathBuf> {
        (format != Format::Png).then(|| self.out.join(format!("{}.{first}-{last}.{}", self.name, format.name())))
    }

    /// The files written beside the folder for `formats` (the animations, the clip of frames
    /// `clip` when there is one, and the frame list ffmpeg read in earlier versions): what a killed run
    /// left of them as temporaries is this scene's to sweep.
    pub fn beside(&self, formats: &[Format], clip: Option<(u32, u32)>) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for &f in formats {
            let clip = clip.and_then(|(a, b)| self.clip(f, a, b));
            for path in self.animation(f).into_iter().chain(clip) {
                if f.needs_ffmpeg() {
                    out.push(path.with_extension("ffconcat"));
                }
                out.push(path);
            }
        }
        out
    }

    /// Files in the folder named like this scene's frames (`frame_<digits>.png`) that are not
    /// among its frames: frames past its end, or numbered to another width, left by a render of
    /// a longer version of it. Sorted.
    pub fn strays(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(self.dir()) else { return Vec::new() };
        let mut out: Vec<PathBuf> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                let digits = name.strip_prefix("frame_")?.strip_suffix(".png")?;
                let index: u32 = digits.bytes().all(|b| b.is_ascii_digit()).then(|| digits.parse().ok()).flatten()?;
                let ours = index < self.frames && self.frame_name(index) == name;
                (!ours && e.file_type().is_ok_and(|t| t.is_file())).then(|| e.path())
            })
            .collect();
        out.sort();
        out
    }

    /// Saved states past the scene's end or named for another frame count.
    pub fn stray_states(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(self.snapshots()) else { return Vec::new() };
        entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                let digits = name.strip_prefix("frame_")?.strip_suffix(".state")?;
                let index: u32 = digits.parse().ok()?;
                let ours = index < self.frames && self.frame_name(index).replace(".png", ".state") == name;
                (!ours).then(|| e.path())
            })
            .collect()
    }
}

/// The identity of one frame of a render: the scene's ([`Identity`]: what its simulation and its
/// drawing are made from), the settings that decide the pixels besides (size, samples, adapter,
/// build: the manifest's `settings_hash`) and the frame's number. A file whose manifest entry
/// carries another is another frame, whatever its name.
pub fn frame_identity(scene: Identity, settings: &str, frame: u32) -> String {
    let mut h = Fnv::new();
    h.bytes(&scene.simulation.to_le_bytes());
    h.bytes(&scene.drawing.to_le_bytes());
    h.bytes(settings.as_bytes());
    h.bytes(&frame.to_le_bytes());
    format!("{:016x}", h.finish())
}

/// What an animation is made from: every frame's identity in order, and the animation's own
/// settings (its format, frame rate, dithering). An animation recorded with the same source is
/// the same file.
pub fn animation_source<'a>(frames: impl IntoIterator<Item = &'a str>, format: Format, settings: &str) -> String {
    let mut h = Fnv::new();
    h.bytes(format.name().as_bytes());
    h.bytes(&[0]);
    h.bytes(settings.as_bytes());
    for f in frames {
        h.bytes(&[0]);
        h.bytes(f.as_bytes());
    }
    format!("{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scene_s_files_are_named_in_one_place() {
        let f = SceneFolder::new(Path::new("out"), "dice", 180);
        assert_eq!(f.frame(7), Path::new("out/dice/frame_0007.png"));
        assert_eq!(f.manifest(), Path::new("out/dice/manifest.json"));
        assert_eq!(f.shard_manifest(2, 4), Path::new("out/dice/shard-2-of-4.json"));
        assert_eq!(f.snapshot(12), Path::new("out/dice/snapshots/frame_0012.state"));
        assert_eq!(f.animation(Format::Gif), Some(PathBuf::from("out/dice.gif")));
        assert_eq!(f.animation(Format::Apng), Some(PathBuf::from("out/dice.apng")));
        assert_eq!(f.animation(Format::Png), None);
        assert_eq!(f.beside(&[Format::Png, Format::Mp4], None), [PathBuf::from("out/dice.ffconcat"), PathBuf::from("out/dice.mp4")]);
        assert_eq!(f.clip(Format::Webp, 0, 29), Some(PathBuf::from("out/dice.0-29.webp")));
        assert_eq!(f.beside(&[Format::Gif], Some((3, 9))), [PathBuf::from("out/dice.gif"), PathBuf::from("out/dice.3-9.gif")]);
        assert_eq!(SceneFolder::new(Path::new("o"), "long", 12_000).frame(3), Path::new("o/long/frame_00003.png"));
    }

    #[test]
    fn strays_are_frame_files_past_the_end_or_of_another_numbering() {
        let dir = std::env::temp_dir().join(format!("simreel-layout-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let f = SceneFolder::new(&dir, "s", 3);
        std::fs::create_dir_all(f.dir()).unwrap();
        for name in ["frame_0000.png", "frame_0002.png", "frame_0003.png", "frame_00001.png", "frame_x.png", "other.png", "manifest.json"] {
            std::fs::write(f.dir().join(name), b"x").unwrap();
        }
        let names: Vec<String> = f.strays().iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["frame_00001.png", "frame_0003.png"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn identities_follow_the_scene_the_settings_and_the_frame() {
        let id = Identity { simulation: 1, drawing: 2 };
        let base = frame_identity(id, "s", 3);
        assert_eq!(base, frame_identity(id, "s", 3));
        assert_ne!(base, frame_identity(Identity { simulation: 1, drawing: 3 }, "s", 3));
        assert_ne!(base, frame_identity(id, "t", 3));
        assert_ne!(base, frame_identity(id, "s", 4));
        let a = animation_source(["a", "b"], Format::Gif, "30");
        assert_ne!(a, animation_source(["b", "a"], Format::Gif, "30"));
        assert_ne!(a, animation_source(["a", "b"], Format::Apng, "30"));
        assert_ne!(a, animation_source(["a", "b"], Format::Gif, "25"));
    }
}
