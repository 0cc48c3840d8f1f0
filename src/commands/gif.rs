//! `simreel gif`: a folder of PNG frames as one GIF.

use std::path::Path;

use simreel::pipeline;
use simreel::text::count;

/// Encodes the frames in `frames_dir` into `output` at `fps`, scaled to `width` where given.
pub fn run(frames_dir: &Path, output: &Path, fps: f64, width: Option<u32>, dither: bool, threads: Option<u32>) -> anyhow::Result<()> {
    let settings = simreel::output::gif::GifSettings { fps, dither };
    let pool = super::worker_pool(threads)?;
    let n = pool.install(|| pipeline::gif_from_folder(frames_dir, output, settings, width))?;
    eprintln!("wrote {} ({} at {fps} fps)", output.display(), count(n as u64, "frame", "frames"));
    Ok(())
}
