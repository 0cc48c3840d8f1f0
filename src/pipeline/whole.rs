//! What a render (or a merge) does to the scene as a whole once its frames are written: the
//! manifest keeps the entries of the frames it did not render, as they are; the animations (GIF,
//! APNG, MP4, WebM) are made only when every frame of the scene is in the folder and of the
//! scene as it is now, and made again only when the frames they hold changed; a render of every
//! frame removes the frames a longer version of the scene left past its end. Partial renders
//! leave the whole alone, and say what they left; a render of a run of frames (`--frames 0..29`)
//! makes a clip of them beside it (`<name>.0-29.mp4`).

use std::path::{Path, PathBuf};

use super::PipelineError;
use crate::output::gif::Sampling;
use crate::output::layout::{SceneFolder, animation_source};
use crate::output::manifest::{AnimationEntry, FrameEntry, Manifest};
use crate::output::{self, OutputError};
use crate::scene::common::Quality;
use crate::scene::{Format, Scene};

/// The animations of a scene's folder: which are asked for, what each would be made from now,
/// and what the folder's manifest says the files there were made from.
pub struct Animations {
    folder: SceneFolder,
    /// Every frame's identity, frame by frame, as this render makes them.
    expected: Vec<String>,
    /// The animations asked for, each with its file and what it would be made from now.
    wanted: Vec<(Format, PathBuf, String)>,
    /// The records of the animations the folder held (those whose files are still there).
    records: Vec<AnimationEntry>,
    fps: f64,
    gif: (crate::output::gif::Sampling, bool),
    /// The GIF's budget in bytes (`gif_max_size`).
    budget: Option<u64>,
    size: (u32, u32),
    /// The GIF's rate as the scene asks (the render's when it does not).
    gif_fps: f64,
    quality: Quality,
    /// The run of frames this render makes a clip of, first and last.
    clip: Option<(u32, u32)>,
}

/// What became of the scene's animations and leftovers.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Animations written now.
    pub written: Vec<PathBuf>,
    /// Animations already made from these very frames: kept as they were.
    pub current: Vec<PathBuf>,
    /// What was not made, and why ("out/dice.gif left as it was: …").
    pub left: Vec<String>,
    /// The manifest's records of the animations in the folder after this.
    pub records: Vec<AnimationEntry>,
    /// What the GIF gave up to fit its budget, when it had to.
    pub fitted: Option<String>,
    /// Clips written of the frames this render made.
    pub clips: Vec<PathBuf>,
    /// Seconds each animation made now took, by format (a GIF written as the frames came is
    /// timed with them: it is not here, unless its budget made it again).
    pub seconds: std::collections::BTreeMap<String, f64>,
}

/// What the making of each animation shows as it goes: a bar fed one tick per frame handed to
/// its encoder, and the time it took when it is made.
pub trait Watch {
    /// `path`, of `format`, from `frames` frames, is begun.
    fn begin(&self, format: Format, path: &Path, frames: usize) -> indicatif::ProgressBar;
    /// `path` is made, in `seconds`.
    fn end(&self, bar: indicatif::ProgressBar, format: Format, path: &Path, seconds: f64);
}

/// Nothing shown.
pub struct Unwatched;

impl Watch for Unwatched {
    fn begin(&self, _: Format, _: &Path, _: usize) -> indicatif::ProgressBar {
        indicatif::ProgressBar::hidden()
    }
    fn end(&self, _: indicatif::ProgressBar, _: Format, _: &Path, _: f64) {}
}

/// The clips written, what the GIF's gave up to fit its budget, and the seconds each took.
type Clips = (Vec<PathBuf>, Option<String>, std::collections::BTreeMap<String, f64>);

/// The run `first..=last` that `frames` (sorted) are, of a scene of `total` frames, when it is a
/// run of two or more and not the whole: what a clip is made of.
pub fn clip_of(frames: &[u32], total: u32) -> Option<(u32, u32)> {
    let (&first, &last) = (frames.first()?, frames.last()?);
    let run = frames.len() >= 2 && (last - first) as usize + 1 == frames.len();
    (run && frames.len() < total as usize).then_some((first, last))
}

impl Animations {
    /// The animations `formats` asks for of `scene` (rendered with `settings`, the manifest's
    /// settings hash) in `folder`, against what `old` (the folder's manifest) recorded.
    /// `rendered` are the frames this render makes (a run of them makes a clip).
    pub fn new(scene: &Scene, folder: &SceneFolder, formats: &[Format], settings: &str, old: Option<&Manifest>, rendered: &[u32]) -> Self {
        let identity = scene.identity();
        let expected: Vec<String> = (0..scene.frames()).map(|f| output::layout::frame_identity(identity, settings, f)).collect();
        let fps = scene.sim.timing.fps as f64;
        let gif = (super::assemble::gif_sampling(scene, scene.frames() as usize), scene.output.gif_dither);
        let wanted = formats
            .iter()
            .filter_map(|&f| {
                let path = folder.animation(f)?;
                let own = match f {
                    // the rate it plays at and the render's it samples
                    Format::Gif => match scene.output.gif_max_size {
                        None => format!("{} fps of {fps}, dither {}", gif.0.fps, gif.1),
                        Some(b) => format!("{} fps of {fps}, dither {}, at most {b} bytes", gif.0.fps, gif.1),
                    },
                    _ => match scene.output.quality.of(f) {
                        Some(q) => format!("{fps} fps, {q}"),
                        None => format!("{fps} fps"),
                    },
                };
                Some((f, path, animation_source(expected.iter().map(String::as_str), f, &own)))
            })
            .collect();
        // by format: the folder names the file (a record's path is as the command gave it)
        let there = |a: &AnimationEntry| Format::from_name(&a.format).and_then(|f| folder.animation(f)).is_some_and(|p| p.is_file());
        let records = old.map(|m| m.animations.iter().filter(|a| there(a)).cloned().collect()).unwrap_or_default();
        let budget = scene.output.gif_max_size;
        Animations {
            folder: folder.clone(),
            expected,
            wanted,
            records,
            fps,
            gif,
            budget,
            size: (scene.look.width, scene.look.height),
            gif_fps: scene.output.gif_fps.map_or(fps, f64::from),
            quality: scene.output.quality,
            clip: clip_of(rendered, scene.frames()),
        }
    }

    /// The identity every frame of the scene has when rendered now.
    pub fn expected(&self) -> &[String] {
        &self.expected
    }

    /// Whether the animation of `format` in the folder was made from the frames this render
    /// makes (so it need not be made again).
    pub fn is_current(&self, format: Format) -> bool {
        self.wanted.iter().any(|(f, path, source)| *f == format && self.recorded(*f, path, source))
    }

    fn recorded(&self, format: Format, path: &Path, source: &str) -> bool {
        self.records.iter().any(|r| r.format == format.name() && r.source == source) && path.is_file()
    }

    /// The records of the animations in the folder, before this render changes any.
    pub fn records(&self) -> Vec<AnimationEntry> {
        self.records.clone()
    }

    /// The GIF among `records`, as the manifest's `gif` names it (the path the command gave).
    pub fn gif(&self, records: &[AnimationEntry]) -> Option<String> {
        records
            .iter()
            .any(|r| r.format == Format::Gif.name())
            .then(|| self.folder.animation(Format::Gif))
            .flatten()
            .map(|p| p.display().to_string())
    }

    /// Makes the animations asked for from the frames `frames` (the manifest's, after this
    /// render) when every frame of the scene is there and of the scene as it is now; `streamed`
    /// says which of them this render wrote as its frames came (a GIF). Leaves them alone
    /// otherwise, saying why. A render of a run of frames makes the clip of each instead (its
    /// streamed GIF is the clip's), and leaves the whole's alone, unsaid.
    /// `watch` shows each as it is made.
    pub fn finish(
        &self,
        frames: &[FrameEntry],
        streamed: &[Format],
        ffmpeg: Option<&Path>,
        watch: &dyn Watch,
    ) -> Result<Outcome, PipelineError> {
        let mut out = Outcome { records: self.records.clone(), ..Outcome::default() };
        if self.wanted.is_empty() {
            return Ok(out);
        }
        // a render of a run of frames makes their clip and leaves the whole's animations alone
        if self.clip.is_some() {
            (out.clips, out.fitted, out.seconds) = self.clips(streamed, ffmpeg, watch)?;
            return Ok(out);
        }
        let (missing, other) = self.gaps(frames);
        let files: Vec<PathBuf> = (0..self.expected.len() as u32).map(|f| self.folder.frame(f)).collect();
        for (format, path, source) in &self.wanted {
            // one written as this render's frames came holds every frame as it is now
            if (missing > 0 || other > 0) && !streamed.contains(format) {
                let n = self.expected.len() as u64;
                let mut why = Vec::new();
                if missing > 0 {
                    why.push(format!("{missing} of its {n} frames not rendered"));
                }
                if other > 0 {
                    why.push(format!("{other} of its {n} frames from another version of the scene or another build"));
                }
                let what = if path.is_file() { "left as it was" } else { "not written" };
                out.left.push(format!(
                    "{} {what}: {} (render every frame to make it, or `simreel gif` a folder of frames)",
                    path.display(),
                    why.join(", ")
                ));
                continue;
            }
            if streamed.contains(format) || !self.recorded(*format, path, source) {
                let made = self.make(*format, path, &files, &self.gif.0, (ffmpeg, watch), streamed.contains(format))?;
                out.fitted = made.1.or(out.fitted);
                if let Some(seconds) = made.0 {
                    out.seconds.insert(format.name().to_string(), seconds);
                }
                out.written.push(path.clone());
            } else {
                out.current.push(path.clone());
            }
            out.records.retain(|r| r.format != format.name());
            let file = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
            out.records.push(AnimationEntry { format: format.name().to_string(), file, source: source.clone() });
        }
        out.records.sort_by(|a, b| a.format.cmp(&b.format));
        Ok(out)
    }

    /// The clips of the run of frames this render made, one per format asked for (made again each
    /// time: they are a render's own output, not the scene's).
    /// `streamed` says which this render wrote as its frames came. Returns them, what the GIF's
    /// gave up to fit its budget, and the seconds each took.
    fn clips(&self, streamed: &[Format], ffmpeg: Option<&Path>, watch: &dyn Watch) -> Result<Clips, PipelineError> {
        let Some((first, last)) = self.clip else { return Ok(Clips::default()) };
        let files: Vec<PathBuf> = (first..=last).map(|f| self.folder.frame(f)).collect();
        let (mut written, mut fitted, mut seconds) = (Vec::new(), None, std::collections::BTreeMap::new());
        for (format, _, _) in &self.wanted {
            let Some(path) = self.folder.clip(*format, first, last) else { continue };
            let sampling = Sampling::of(files.len(), self.fps, self.gif_fps);
            let made = self.make(*format, &path, &files, &sampling, (ffmpeg, watch), streamed.contains(format))?;
            fitted = made.1.or(fitted);
            if let Some(s) = made.0 {
                seconds.insert(format.name().to_string(), s);
            }
            written.push(path);
        }
        Ok((written, fitted, seconds))
    }

    /// Makes the animation of `format` at `path` (unless `streamed`: written as the frames
    /// came) and fits a GIF to its budget, shown to `watch`. Returns the seconds it took
    /// (none when nothing was done) and what the GIF gave up.
    fn make(
        &self,
        format: Format,
        path: &Path,
        files: &[PathBuf],
        sampling: &Sampling,
        (ffmpeg, watch): (Option<&Path>, &dyn Watch),
        streamed: bool,
    ) -> Result<(Option<f64>, Option<String>), PipelineError> {
        let start = std::time::Instant::now();
        let budgeted = format == Format::Gif && self.budget.is_some();
        if streamed && !budgeted {
            return Ok((None, None));
        }
        let bar = watch.begin(format, path, files.len());
        if !streamed {
            self.write(format, path, files, sampling, ffmpeg, &bar)?;
        }
        let fitted = if format == Format::Gif { self.fit_gif(path, files)? } else { None };
        let seconds = start.elapsed().as_secs_f64();
        watch.end(bar, format, path, seconds);
        Ok((Some(seconds), fitted))
    }

    /// Frames of the scene not in the folder, and frames there of another identity.
    fn gaps(&self, frames: &[FrameEntry]) -> (usize, usize) {
        let (mut missing, mut other) = (0, 0);
        for (f, want) in self.expected.iter().enumerate() {
            match frames.iter().find(|e| e.index == f as u32) {
                Some(e) if output::layout::own_file(&self.folder.dir(), &e.file).is_none() => missing += 1,
                Some(e) if e.identity != *want => other += 1,
                Some(_) => {}
                None => missing += 1,
            }
        }
        (missing, other)
    }

    /// Makes the GIF at `path` again from `files` when it is over its budget; says what it gave up.
    fn fit_gif(&self, path: &Path, files: &[PathBuf]) -> Result<Option<String>, PipelineError> {
        let Some(budget) = self.budget else { return Ok(None) };
        let full = super::budget::Plan { fps: self.gif.0.fps, scale: 1.0, colors: crate::output::gif::MAX_COLORS };
        let fitted = super::budget::fit(files, path, self.size, self.fps, (full, self.gif.1), budget)?;
        Ok(fitted.map(|f| format!("{}: {}", path.display(), f.said(budget, &full, self.size))))
    }

    /// Writes the animation of `format` of `files` to `path` (a GIF of those `sampling` keeps),
    /// `bar` ticked per frame handed to ffmpeg.
    fn write(
        &self,
        format: Format,
        path: &Path,
        files: &[PathBuf],
        sampling: &Sampling,
        ffmpeg: Option<&Path>,
        bar: &indicatif::ProgressBar,
    ) -> Result<(), PipelineError> {
        let (w, h) = self.size;
        match format {
            Format::Gif => super::gif_from_frames(files, path, w, h, sampling, self.gif.1),
            Format::Apng => Ok(output::animation::write_apng(files, path, self.fps)?),
            Format::Png => Ok(()),
            f => {
                let ffmpeg = ffmpeg.ok_or(OutputError::NoFfmpeg)?;
                let how = output::animation::Encoding::animation(f, self.quality);
                Ok(output::animation::write_video(ffmpeg, files, path, self.fps, how, &|| bar.inc(1))?)
            }
        }
    }
}

/// The entries of `old` (the folder's manifest) that a render of `rendered` leaves as they are:
/// frames it did not render, within the scene, whose files are still there.
pub fn carried(old: Option<&Manifest>, folder: &SceneFolder, frames_in_scene: u32, rendered: &[u32]) -> Vec<FrameEntry> {
    let Some(m) = old else { return Vec::new() };
    m.frames
        .iter()
        .filter(|e| e.index < frames_in_scene && rendered.binary_search(&e.index).is_err())
        .filter(|e| e.file == folder.frame_name(e.index) && output::layout::own_file(&folder.dir(), &e.file).is_some())
        .cloned()
        .collect()
}

/// Removes what a longer version of the scene left in its folder: frames past its end (or
/// numbered to another width) and their saved states. Returns how many frames.
pub fn remove_strays(folder: &SceneFolder) -> Result<usize, OutputError> {
    let frames = folder.strays();
    for f in frames.iter().chain(&folder.stray_states()) {
        output::remove_stale(f)?;
    }
    Ok(frames.len())
}
