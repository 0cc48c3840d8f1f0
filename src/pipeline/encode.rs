//! The encoder stage: each frame's PNG written and, for a frame its GIF shows, its palette made;
//! and the GIF stage, which writes the quantized frames in order.

use std::path::Path;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender};

use super::assemble::write_gif;
use super::{PipelineError, ProgressMode, Shared, Stage, Wait, Work};
use crate::output::gif::Quantized;
use crate::output::{self, OutputError};

/// An encoder thread: takes frames off the shared queue until it closes, writes each PNG and
/// quantizes each frame for the GIF.
pub(super) fn encode(shared: &Shared, rx: &Mutex<Receiver<Work>>, gif: SyncSender<(usize, Quantized)>) {
    loop {
        let item = shared.waiting(Stage::Encode, Wait::Idle, || rx.lock().expect("work queue").recv());
        let Ok(item) = item else { break };
        match shared.timed(Stage::Encode, || encode_one(shared, item)) {
            Ok((frame, quantized)) => {
                if let Some(q) = quantized {
                    // the GIF writer has stopped only after a failure, which is recorded
                    let _ = shared.waiting(Stage::Encode, Wait::Blocked, || gif.send(q));
                }
                shared.finished(frame);
                shared.checkpoint();
                let p = &shared.progress;
                p.encode.inc(1);
                if p.mode == ProgressMode::Json {
                    let file = shared.out.png.then(|| shared.out.frame_path(frame).display().to_string());
                    let (scene, done, total) = (&shared.job.scene.name, p.encode.position(), shared.job.frames.len());
                    println!("{}", serde_json::json!({"scene": scene, "frame": frame, "done": done, "total": total, "file": file}));
                }
            }
            Err(e) => shared.fail(e),
        }
    }
}

/// Writes the PNG of one frame and/or quantizes it for the GIF (with its place in the GIF).
fn encode_one(shared: &Shared, work: Work) -> Result<(u32, Option<(usize, Quantized)>), PipelineError> {
    let (out, dither) = (&shared.out, shared.job.scene.output.gif_dither);
    let quantize = |index: u32, rgba: &[u8], width: u32, height: u32| -> Result<_, PipelineError> {
        let Some(gif) = &out.gif else { return Ok(None) };
        let position = shared.position(index)?;
        if !shared.gif_sampling.keeps(position) {
            return Ok(None);
        }
        let q = output::gif::quantize(rgba, width, height, dither)
            .map_err(|e| OutputError::Gif { path: gif.clone(), reason: format!("frame {index}: {e}") })?;
        Ok(Some((position, q)))
    };
    match work {
        Work::Rendered(img) => {
            let index = img.index;
            // the PNG and the GIF's frame made straight from the staging buffer, which goes back
            // to the renderer before the file is written
            let made = img.with_rgba(|rgba| -> Result<_, PipelineError> {
                let png = out.png.then(|| output::png::encode(rgba, img.width, img.height, output::png::Effort::Fast));
                Ok((png, quantize(index, rgba, img.width, img.height)?))
            });
            drop(img);
            let (png, quantized) = made??;
            if let Some(bytes) = png {
                let path = out.frame_path(index);
                let name = path.file_name().expect("a frame has a file name");
                shared.frames.write(name, &bytes, true).map_err(|source| OutputError::Write { path: path.clone(), source })?;
                let hash = output::manifest::content_hash(&bytes);
                shared.hashes.lock().expect("hashes").insert(index, hash);
            }
            Ok((index, quantized))
        }
        Work::Kept(f) => {
            if out.gif.is_none() || !shared.gif_sampling.keeps(shared.position(f)?) {
                return Ok((f, None));
            }
            let d = output::png::read(&out.frame_path(f))?;
            Ok((f, quantize(f, &d.rgba, d.width, d.height)?))
        }
    }
}

/// The GIF stage: frames in job order into `path`, put in place when every frame arrived. Returns
/// whether the GIF is complete and the job was not stopped meanwhile (a stop after the last frame
/// leaves the finished GIF in place, but the manifest does not list it).
pub(super) fn assemble_gif(shared: &Shared, path: &Path, rx: Receiver<(usize, Quantized)>) -> bool {
    let r = &shared.job.scene.look;
    match write_gif(path, rx, shared.job.frames.len(), r.width, r.height, &shared.gif_sampling) {
        Ok(complete) => complete && !shared.stopped(),
        Err(e) => {
            shared.fail(e);
            false
        }
    }
}
