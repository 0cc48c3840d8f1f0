//! After the frames: the GIF assembled in frame order from quantized frames (a render's, a merge's
//! and `simreel gif`'s), and the APNG and videos made from the PNG frames.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use super::{Job, Outputs, PipelineError};
use crate::output::gif::{GifSettings, GifWriter, Quantized};
use crate::output::{self, AtomicFile, OutputError};
use crate::scene::Format;

/// The APNG, MP4 and WebM files the job asks for, made from its PNG frames in order, at the
/// scene's frame rate; next to the GIF (`out_dir/<name>.apng`, …).
pub(super) fn write_animations(job: &Job, out: &Outputs, ffmpeg: Option<&Path>) -> Result<Vec<PathBuf>, PipelineError> {
    let frames: Vec<PathBuf> = job.frames.iter().map(|&f| out.frame_path(f)).collect();
    let fps = job.scene.render.fps as f64;
    let mut written = Vec::new();
    for f in &job.formats {
        let (ext, video) = match f {
            Format::Apng => ("apng", None),
            Format::Mp4 => ("mp4", Some(output::animation::Video::Mp4)),
            Format::Webm => ("webm", Some(output::animation::Video::Webm)),
            Format::Png | Format::Gif => continue,
        };
        let path = job.out_dir.join(format!("{}.{ext}", job.scene.name));
        match (video, ffmpeg) {
            (None, _) => output::animation::write_apng(&frames, &path, fps)?,
            (Some(kind), Some(ffmpeg)) => output::animation::write_video(ffmpeg, &frames, &path, fps, kind)?,
            (Some(_), None) => return Err(OutputError::NoFfmpeg.into()),
        }
        written.push(path);
    }
    Ok(written)
}

/// Receives quantized frames in any order and writes them in order. Returns whether all `total`
/// frames arrived (the file is only put in place then).
pub(super) fn write_gif(
    path: &Path,
    rx: Receiver<(usize, Quantized)>,
    total: usize,
    width: u32,
    height: u32,
    fps: f64,
) -> Result<bool, PipelineError> {
    let gif_err = |e: gif::EncodingError| OutputError::Gif { path: path.to_path_buf(), reason: e.to_string() };
    let mut writer = GifWriter::new(AtomicFile::create(path)?, width, height, fps).map_err(gif_err)?;
    let mut pending: BTreeMap<usize, Quantized> = BTreeMap::new();
    let mut next = 0;
    for (pos, q) in rx {
        pending.insert(pos, q);
        while let Some(q) = pending.remove(&next) {
            writer.push(&q).map_err(gif_err)?;
            next += 1;
        }
    }
    if next < total {
        return Ok(false); // dropping the writer removes the temporary file
    }
    writer.finish().map_err(gif_err)?.commit()?;
    Ok(true)
}

/// The GIF of `files` into `out` at `width`×`height`: each file loaded by `load` (its RGBA, at
/// that size) and quantized on all cores, then written in order.
fn gif_of_files(
    files: &[PathBuf],
    out: &Path,
    (width, height): (u32, u32),
    (fps, dither): (f64, bool),
    load: impl Fn(&PathBuf) -> Result<Vec<u8>, PipelineError> + Sync,
) -> Result<(), PipelineError> {
    use rayon::prelude::*;
    let (tx, rx) = sync_channel::<(usize, Quantized)>(rayon::current_num_threads() * 2);
    let total = files.len();
    let complete = std::thread::scope(|s| {
        let writer = s.spawn(move || write_gif(out, rx, total, width, height, fps));
        let produced: Result<(), PipelineError> =
            files.par_iter().enumerate().try_for_each_with(tx, |tx: &mut SyncSender<(usize, Quantized)>, (i, f)| {
                let rgba = load(f)?;
                let _ = tx.send((i, output::gif::quantize(&rgba, width, height, dither)));
                Ok(())
            });
        let wrote = writer.join().unwrap_or(Ok(false));
        produced.and(wrote)
    })?;
    if !complete {
        return Err(OutputError::Gif { path: out.to_path_buf(), reason: "not every frame could be encoded".into() }.into());
    }
    Ok(())
}

/// The GIF of the PNG `frames` (in this order, all `width`×`height`) into `out`, quantized as a
/// render quantizes its frames: the same pixels give the same bytes.
pub fn gif_from_frames(frames: &[PathBuf], out: &Path, width: u32, height: u32, fps: f64, dither: bool) -> Result<(), PipelineError> {
    gif_of_files(frames, out, (width, height), (fps, dither), |f| {
        let d = output::png::read(f)?;
        if (d.width, d.height) != (width, height) {
            let reason = format!("{}×{} differs from the render's {width}×{height}", d.width, d.height);
            return Err(OutputError::BadPicture { path: f.clone(), reason }.into());
        }
        Ok(d.rgba)
    })
}

/// The APNG, MP4 and WebM files `job` asks for, from its PNG frames (for `simreel merge`).
pub fn animations_of(job: &Job) -> Result<Vec<PathBuf>, PipelineError> {
    let ffmpeg =
        if job.formats.iter().any(|f| matches!(f, Format::Mp4 | Format::Webm)) { Some(output::animation::ffmpeg()?) } else { None };
    write_animations(job, &Outputs::of(job), ffmpeg.as_deref())
}

/// `simreel gif`: every picture in `dir` (PNG, JPEG, WebP; sorted by name) into `out`, quantized on
/// all cores, scaled to `width` (keeping the aspect) when given.
pub fn gif_from_folder(dir: &Path, out: &Path, settings: GifSettings, width: Option<u32>) -> Result<usize, PipelineError> {
    let read_err = |source| OutputError::Read { path: dir.to_path_buf(), source };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(read_err)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| output::picture::is_picture(p))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(OutputError::Read {
            path: dir.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no PNG, JPEG or WebP files in this folder"),
        }
        .into());
    }
    let first = output::picture::read(&files[0])?;
    let (fw, fh) = (first.width, first.height);
    // `width` scales every frame, keeping the first frame's aspect
    let (w, h) = match width {
        Some(w) => (w, ((fh as f64 * w as f64 / fw as f64).round() as u32).max(1)),
        None => (fw, fh),
    };
    gif_of_files(&files, out, (w, h), (settings.fps, settings.dither), |f| {
        let d = output::picture::read(f)?;
        if (d.width, d.height) != (fw, fh) {
            let reason = format!("{}×{} differs from the first frame's {fw}×{fh}", d.width, d.height);
            return Err(OutputError::BadPicture { path: f.clone(), reason }.into());
        }
        Ok(if width.is_some() { output::picture::resize(&d, w, h).rgba } else { d.rgba })
    })?;
    Ok(files.len())
}
