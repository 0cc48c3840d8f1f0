//! After the frames: the GIF assembled in frame order from quantized frames (a render's, a merge's
//! and `simreel gif`'s).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, sync_channel};

use super::PipelineError;
use crate::output::gif::{GifSettings, GifWriter, MAX_COLORS, Quantized, Sampling};
use crate::output::{self, AtomicFile, OutputError};

/// Receives quantized frames in any order and writes them in order: this thread dithers them,
/// a second one LZW-encodes and appends them. Returns whether all `total` frames arrived (the
/// file is only put in place then).
pub(super) fn write_gif(
    path: &Path,
    rx: Receiver<(usize, Quantized)>,
    total: usize,
    width: u32,
    height: u32,
    sampling: &Sampling,
) -> Result<bool, PipelineError> {
    let gif_err = |e: gif::EncodingError| OutputError::Gif { path: path.to_path_buf(), reason: e.to_string() };
    let (mut maker, mut stream) = GifWriter::new(AtomicFile::create(path)?, width, height, sampling.fps).map_err(gif_err)?.split();
    let (frames_tx, frames_rx) = sync_channel::<gif::Frame<'static>>(2);
    let (next, stream) = std::thread::scope(|s| {
        let encoder = s.spawn(move || {
            for frame in frames_rx {
                stream.write(frame)?;
            }
            Ok::<_, gif::EncodingError>(stream)
        });
        // positions the GIF does not show never come: passed over
        let shown_from = |mut k: usize| {
            while k < total && !sampling.keeps(k) {
                k += 1;
            }
            k
        };
        let mut pending: BTreeMap<usize, Quantized> = BTreeMap::new();
        let mut next = shown_from(0);
        'frames: for (pos, q) in rx {
            if !sampling.keeps(pos) {
                continue;
            }
            pending.insert(pos, q);
            while let Some(q) = pending.remove(&next) {
                if frames_tx.send(maker.frame(&q)).is_err() {
                    break 'frames; // the encoder stopped on an error, which join returns
                }
                next = shown_from(next + 1);
            }
        }
        drop(frames_tx);
        (next, encoder.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    });
    let stream = stream.map_err(gif_err)?;
    if next < total {
        return Ok(false); // dropping the stream removes the temporary file
    }
    stream.finish().map_err(gif_err)?.commit()?;
    Ok(true)
}

/// The GIF of `files` into `out` at `width`×`height`: each file loaded by `load` (its RGBA, at
/// that size) and quantized on all cores, then written in order. Workers take the files in
/// order, so the writer can start on the first frames while the others are quantized.
fn gif_of_files(
    files: &[PathBuf],
    out: &Path,
    (width, height): (u32, u32),
    (fps, dither, colors): (f64, bool, u16),
    load: impl Fn(&PathBuf) -> Result<Vec<u8>, PipelineError> + Sync,
) -> Result<(), PipelineError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = rayon::current_num_threads().clamp(1, files.len().max(1));
    let (tx, rx) = sync_channel::<(usize, Quantized)>(workers * 2);
    let (total, next, load) = (files.len(), AtomicUsize::new(0), &load);
    let complete = std::thread::scope(|s| {
        let writer = s.spawn(move || write_gif(out, rx, total, width, height, &Sampling::every(total, fps)));
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let (tx, next) = (tx.clone(), &next);
                s.spawn(move || -> Result<(), PipelineError> {
                    // a worker that leaves on an error or a panic takes the files left from the others
                    let stop = StopOthers { next, total, finished: false };
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(f) = files.get(i) else { return stop.finish() };
                        let rgba = load(f)?;
                        let q = output::gif::quantize_to(&rgba, width, height, dither, colors)
                            .map_err(|e| OutputError::Gif { path: out.to_path_buf(), reason: format!("{}: {e}", f.display()) })?;
                        if tx.send((i, q)).is_err() {
                            return stop.finish(); // the writer stopped; it says why
                        }
                    }
                })
            })
            .collect();
        drop(tx);
        let produced: Result<(), PipelineError> =
            handles.into_iter().try_for_each(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        let wrote = writer.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        produced.and(wrote)
    })?;
    if !complete {
        return Err(OutputError::Gif { path: out.to_path_buf(), reason: "not every frame could be encoded".into() }.into());
    }
    Ok(())
}

/// Left by a worker of [`gif_of_files`] before it finishes (an error or a panic), sets the file
/// counter past the end so the other workers stop.
struct StopOthers<'a> {
    next: &'a std::sync::atomic::AtomicUsize,
    total: usize,
    finished: bool,
}

impl StopOthers<'_> {
    fn finish(mut self) -> Result<(), PipelineError> {
        self.finished = true;
        Ok(())
    }
}

impl Drop for StopOthers<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.next.store(self.total, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// The frames of `scene`'s animation of `frames` frames its GIF shows, at its `gif_fps` (the
/// render's rate when not given).
pub(super) fn gif_sampling(scene: &crate::scene::Scene, frames: usize) -> Sampling {
    let fps = scene.sim.timing.fps as f64;
    Sampling::of(frames, fps, scene.output.gif_fps.map_or(fps, f64::from))
}

/// The GIF of the PNG `frames` (in this order, all `width`×`height`, sampled by `sampling`) into
/// `out`, quantized as a render quantizes its frames: the same pixels give the same bytes.
pub fn gif_from_frames(
    frames: &[PathBuf],
    out: &Path,
    width: u32,
    height: u32,
    sampling: &Sampling,
    dither: bool,
) -> Result<(), PipelineError> {
    let kept: Vec<PathBuf> = frames.iter().enumerate().filter(|&(k, _)| sampling.keeps(k)).map(|(_, f)| f.clone()).collect();
    gif_scaled(&kept, out, (width, height), (width, height), (sampling.fps, dither, MAX_COLORS))
}

/// The GIF of the PNG `files` (all `size`, the render's) into `out`, each scaled to `scaled`,
/// at `fps`, dithered or not, of at most `colors` colours a frame.
pub(super) fn gif_scaled(
    files: &[PathBuf],
    out: &Path,
    (width, height): (u32, u32),
    scaled: (u32, u32),
    how: (f64, bool, u16),
) -> Result<(), PipelineError> {
    gif_of_files(files, out, scaled, how, |f| {
        let d = output::png::read(f)?;
        if (d.width, d.height) != (width, height) {
            let reason = format!("{}×{} differs from the render's {width}×{height}", d.width, d.height);
            return Err(OutputError::BadPicture { path: f.clone(), reason }.into());
        }
        Ok(if scaled == (width, height) { d.rgba } else { output::picture::resize(&d, scaled.0, scaled.1).rgba })
    })
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
    gif_of_files(&files, out, (w, h), (settings.fps, settings.dither, MAX_COLORS), |f| {
        let d = output::picture::read(f)?;
        if (d.width, d.height) != (fw, fh) {
            let reason = format!("{}×{} differs from the first frame's {fw}×{fh}", d.width, d.height);
            return Err(OutputError::BadPicture { path: f.clone(), reason }.into());
        }
        Ok(if width.is_some() { output::picture::resize(&d, w, h).rgba } else { d.rgba })
    })?;
    Ok(files.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Five frames of a gradient with a square moving across it.
    fn frames() -> Vec<Quantized> {
        let (w, h) = (48u32, 32u32);
        (0..5)
            .map(|k| {
                let mut rgba = Vec::new();
                for y in 0..h {
                    for x in 0..w {
                        let inside = (x as i32 - 8 * k - 4).abs() < 6 && (y as i32 - 16).abs() < 6;
                        rgba.extend(if inside { [230, 40, 30, 255] } else { [(x * 5) as u8, (y * 7) as u8, 120, 255] });
                    }
                }
                output::gif::quantize(&rgba, w, h, true).unwrap()
            })
            .collect()
    }

    #[test]
    fn frames_arriving_in_any_order_are_written_as_in_order() {
        let frames = frames();
        let mut writer = GifWriter::new(Vec::new(), 48, 32, 12.0).unwrap();
        for q in &frames {
            writer.push(q).unwrap();
        }
        let in_order = writer.finish().unwrap();
        let dir = std::env::temp_dir().join(format!("simreel-assemble-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("shuffled.gif");
        let (tx, rx) = sync_channel(8);
        for i in [3, 0, 4, 1, 2] {
            tx.send((i, frames[i].clone())).unwrap();
        }
        drop(tx);
        assert!(write_gif(&path, rx, 5, 48, 32, &Sampling::every(5, 12.0)).unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), in_order);

        // a frame that never comes: no file
        let missing = dir.join("missing.gif");
        let (tx, rx) = sync_channel(8);
        for i in [0, 1, 3, 4] {
            tx.send((i, frames[i].clone())).unwrap();
        }
        drop(tx);
        assert!(!write_gif(&missing, rx, 5, 48, 32, &Sampling::every(5, 12.0)).unwrap());
        assert!(!missing.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_cannot_be_read_stops_the_workers_and_leaves_no_gif() {
        let frames: Vec<PathBuf> = (0..400).map(|i| PathBuf::from(format!("frame_{i:03}.png"))).collect();
        let dir = std::env::temp_dir().join(format!("simreel-assemble-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("bad.gif");
        let loaded = std::sync::atomic::AtomicUsize::new(0);
        let result = gif_of_files(&frames, &out, (16, 8), (10.0, true, MAX_COLORS), |f| {
            loaded.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if f.ends_with("frame_005.png") {
                return Err(OutputError::BadPicture { path: f.clone(), reason: "unreadable".into() }.into());
            }
            Ok(vec![128; 16 * 8 * 4])
        });
        let err = result.expect_err("an unreadable frame fails the GIF").to_string();
        assert!(err.contains("frame_005.png"), "the error names the file: {err}");
        assert!(!out.exists(), "no GIF is left behind");
        let n = loaded.into_inner();
        assert!(n < frames.len(), "the workers stop taking files after the failure ({n} of {} loaded)", frames.len());

        // a panic comes out of the call and leaves no GIF either (the guard that stopped the
        // workers above also runs on unwinding, after the panic message is printed)
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            gif_of_files(&frames, &out, (16, 8), (10.0, true, MAX_COLORS), |f| {
                assert!(!f.ends_with("frame_005.png"), "a loader bug");
                Ok(vec![128; 16 * 8 * 4])
            })
        }));
        assert!(panicked.is_err(), "the panic reaches the caller");
        assert!(!out.exists(), "no GIF is left behind");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
