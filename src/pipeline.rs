//! One render job, stage by stage and concurrently: the simulation thread produces frame N + 1
//! while the GPU renders frame N and encoder threads write frame N − 1 (bounded channels between
//! them). PNG files are written as frames arrive; GIF frames are quantized in parallel and written
//! in frame order. Progress bars on a terminal, JSON lines on request; Ctrl-C stops cleanly and
//! keeps every finished frame for `--resume`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::frame::{Fnv, FrameData};
use crate::output::gif::{GifSettings, GifWriter, Quantized};
use crate::output::manifest::{FrameEntry, Manifest, Timings};
use crate::output::{self, OutputError};
use crate::render::{AdapterRequest, Image, RenderError, Renderer};
use crate::scene::{Format, Scene};

/// What to render, validated.
#[derive(Clone, Debug)]
pub struct Job {
    pub scene: Scene,
    /// Sorted, unique, within the scene.
    pub frames: Vec<u32>,
    /// Frames go to `out_dir/<name>/`, the GIF to `out_dir/<name>.gif`.
    pub out_dir: PathBuf,
    pub formats: Vec<Format>,
    pub adapter: AdapterRequest,
    pub resume: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// Bars on stderr when it is a terminal.
    Bars,
    /// One JSON line per finished frame on stdout.
    Json,
    Quiet,
}

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("scene {scene}: the simulation broke at frame {frame}: {what}")]
    Simulation { scene: String, frame: u32, what: String },
    #[error("interrupted: {done} of {total} frames of {scene} are written; rerun with --resume to finish")]
    Interrupted { scene: String, done: usize, total: usize },
}

/// What a finished job wrote.
#[derive(Debug)]
pub struct Outcome {
    pub manifest: Manifest,
    pub adapter: crate::render::AdapterSummary,
    pub frames_dir: PathBuf,
    pub gif: Option<PathBuf>,
    /// Frames kept from an earlier run (`--resume`).
    pub reused: usize,
}

enum Work {
    Rendered(usize, Image),
    /// A frame a previous run finished: its PNG is read back if the GIF needs it.
    Existing(usize, u32),
}

/// Stage times, accumulated across threads.
#[derive(Default)]
struct StageClock {
    simulate: Duration,
    render: Duration,
    encode: Duration,
}

struct Progress {
    mode: ProgressMode,
    _multi: Option<MultiProgress>,
    simulate: ProgressBar,
    render: ProgressBar,
    encode: ProgressBar,
}

impl Progress {
    fn new(mode: ProgressMode, scene: &str, total: u64) -> Self {
        let (multi, bars) = if mode == ProgressMode::Bars {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template("{prefix:>24} {msg:>9} [{bar:30}] {pos:>5}/{len} {per_sec:>9} eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
            let bar = |msg: &'static str| {
                let b = multi.add(ProgressBar::new(total).with_style(style.clone()).with_prefix(scene.to_string()).with_message(msg));
                b.enable_steady_tick(Duration::from_millis(200));
                b
            };
            let b = (bar("simulate"), bar("render"), bar("encode"));
            (Some(multi), b)
        } else {
            (None, (ProgressBar::hidden(), ProgressBar::hidden(), ProgressBar::hidden()))
        };
        Progress { mode, _multi: multi, simulate: bars.0, render: bars.1, encode: bars.2 }
    }

    fn finish(&self) {
        for b in [&self.simulate, &self.render, &self.encode] {
            b.finish_and_clear();
        }
    }
}

/// The settings besides the scene file that decide the pixels: a resumed run must match them.
fn settings_hash(job: &Job, adapter: &str) -> String {
    let mut h = Fnv::new();
    let r = &job.scene.render;
    h.bytes(format!("{}x{} msaa{} {} {}", r.width, r.height, r.msaa, adapter, env!("CARGO_PKG_VERSION")).as_bytes());
    format!("{:016x}", h.finish())
}

/// Runs `job`: simulate, render, encode, write. `cancel` (Ctrl-C) stops it between frames.
pub fn run(job: &Job, mode: ProgressMode, cancel: &AtomicBool) -> Result<Outcome, PipelineError> {
    let wall = Instant::now();
    let scene = &job.scene;
    let r = &scene.render;
    let mut renderer = Renderer::new(&job.adapter, r.width, r.height, r.msaa)?;
    let adapter_summary = renderer.adapter().clone();
    let adapter = adapter_summary.to_string();
    let frames_dir = job.out_dir.join(&scene.name);
    let manifest_path = frames_dir.join("manifest.json");
    let gif_path = job.formats.contains(&Format::Gif).then(|| job.out_dir.join(format!("{}.gif", scene.name)));
    let png = job.formats.contains(&Format::Png);
    let scene_hash = format!("{:016x}", scene.source_hash);
    let settings = settings_hash(job, &adapter);
    let file_of = |f: u32| output::frame_file_name(f, r.frames);

    // Frames an earlier run of the same scene and settings finished.
    // (with their state digests, which the manifest carries over)
    let kept: BTreeMap<u32, String> = match (job.resume && png, Manifest::read(&manifest_path)) {
        (true, Some(m)) if m.scene_hash == scene_hash && m.settings_hash == settings => {
            m.frames.into_iter().filter(|e| frames_dir.join(&e.file).is_file()).map(|e| (e.index, e.state)).collect()
        }
        _ => BTreeMap::new(),
    };
    let done: HashSet<u32> = kept.keys().copied().collect();
    let total = job.frames.len();
    let progress = Progress::new(mode, &scene.name, total as u64);
    let clock = Mutex::new(StageClock::default());
    let failure: Mutex<Option<PipelineError>> = Mutex::new(None);
    let abort = AtomicBool::new(false);
    let fail = |e: PipelineError| {
        abort.store(true, Ordering::SeqCst);
        failure.lock().expect("failure slot").get_or_insert(e);
    };
    let stopped = || abort.load(Ordering::SeqCst) || cancel.load(Ordering::SeqCst);
    let written: Mutex<Vec<u32>> = Mutex::new(Vec::new());
    let final_state: Mutex<String> = Mutex::new(String::new());
    let states: Mutex<BTreeMap<u32, String>> = Mutex::new(kept);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 16);
    let settings_gif = GifSettings { fps: scene.output.gif_fps.map_or(r.fps as f64, f64::from), dither: scene.output.gif_dither };
    let gif_ok = AtomicBool::new(false);

    std::thread::scope(|s| {
        // Simulation: frames in order; skipped (resumed) frames are not simulated on their own.
        let (sim_tx, sim_rx) = sync_channel::<Result<(usize, Option<FrameData>), PipelineError>>(2);
        let (done, progress, clock, final_state, states) = (&done, &progress, &clock, &final_state, &states);
        s.spawn(move || {
            let mut sim = crate::sim::build(scene);
            for (pos, &f) in job.frames.iter().enumerate() {
                if stopped() {
                    break;
                }
                if done.contains(&f) {
                    progress.simulate.inc(1);
                    if sim_tx.send(Ok((pos, None))).is_err() {
                        break;
                    }
                    continue;
                }
                let t = Instant::now();
                let data = sim.frame(f);
                clock.lock().expect("clock").simulate += t.elapsed();
                states.lock().expect("states").insert(f, sim.digest().to_string());
                progress.simulate.inc(1);
                let msg = match sim.fault() {
                    Some(fault) => Err(PipelineError::Simulation { scene: scene.name.clone(), frame: fault.frame, what: fault.what }),
                    None => Ok((pos, Some(data))),
                };
                let broken = msg.is_err();
                if sim_tx.send(msg).is_err() || broken {
                    break;
                }
            }
            *final_state.lock().expect("state") = sim.digest().to_string();
        });

        // Encoders: PNG files and GIF quantization, several frames at once.
        let (work_tx, work_rx) = sync_channel::<Work>(workers * 2);
        let work_rx = Arc::new(Mutex::new(work_rx));
        let (gif_tx, gif_rx) = sync_channel::<(usize, Quantized)>(workers * 2);
        for _ in 0..workers {
            let work_rx = work_rx.clone();
            let gif_tx = gif_tx.clone();
            let (written, frames_dir, fail, file_of) = (&written, &frames_dir, &fail, &file_of);
            let want_gif = gif_path.is_some();
            s.spawn(move || {
                loop {
                    let item = { work_rx.lock().expect("work queue").recv() };
                    let Ok(item) = item else { break };
                    let t = Instant::now();
                    let result = encode_one(item, png, want_gif, settings_gif.dither, frames_dir, &file_of, &job.frames);
                    clock.lock().expect("clock").encode += t.elapsed();
                    match result {
                        Ok((pos, f, q)) => {
                            if let Some(q) = q {
                                let _ = gif_tx.send((pos, q));
                            }
                            written.lock().expect("written").push(f);
                            progress.encode.inc(1);
                            if progress.mode == ProgressMode::Json {
                                let file = png.then(|| frames_dir.join(file_of(f)).display().to_string());
                                println!("{}", serde_json::json!({"scene": scene.name, "frame": f, "done": progress.encode.position(), "total": total, "file": file}));
                            }
                        }
                        Err(e) => fail(e),
                    }
                }
            });
        }
        drop(gif_tx);

        // GIF: frames in order into a temporary file, renamed when complete.
        if let Some(path) = &gif_path {
            let (gif_ok, stopped, fail) = (&gif_ok, &stopped, &fail);
            s.spawn(move || match write_gif(path, gif_rx, total, r.width, r.height, settings_gif.fps) {
                Ok(true) if !stopped() => gif_ok.store(true, Ordering::SeqCst),
                Ok(_) => {}
                Err(e) => fail(e),
            });
        } else {
            drop(gif_rx);
        }

        // Rendering, on this thread: submissions overlap readback through the renderer's ring.
        let forward = |work: Work| {
            if work_tx.send(work).is_err() {
                fail(PipelineError::Render(RenderError::DeviceLost("encoders stopped".into())));
            }
        };
        let mut positions: BTreeMap<u32, usize> = BTreeMap::new();
        let take = |img: Image, positions: &mut BTreeMap<u32, usize>| {
            progress.render.inc(1);
            let pos = positions.remove(&img.index).unwrap_or(0);
            forward(Work::Rendered(pos, img));
        };
        for msg in sim_rx {
            if stopped() {
                break;
            }
            match msg {
                Err(e) => {
                    fail(e);
                    break;
                }
                Ok((pos, None)) => {
                    progress.render.inc(1);
                    forward(Work::Existing(pos, job.frames[pos]));
                }
                Ok((pos, Some(data))) => {
                    positions.insert(data.index, pos);
                    let t = Instant::now();
                    let out = renderer.submit(&data);
                    clock.lock().expect("clock").render += t.elapsed();
                    match out {
                        Ok(Some(img)) => take(img, &mut positions),
                        Ok(None) => {}
                        Err(e) => {
                            fail(e.into());
                            break;
                        }
                    }
                }
            }
        }
        loop {
            let t = Instant::now();
            let out = renderer.next_image();
            clock.lock().expect("clock").render += t.elapsed();
            match out {
                Ok(Some(img)) => take(img, &mut positions),
                Ok(None) => break,
                Err(e) => {
                    fail(e.into());
                    break;
                }
            }
        }
        drop(work_tx);
    });
    progress.finish();

    let mut written = written.into_inner().expect("written");
    written.sort_unstable();
    let clock = clock.into_inner().expect("clock");
    let wall_s = wall.elapsed().as_secs_f64();
    let stages = [("simulate", clock.simulate), ("render", clock.render), ("encode", clock.encode)];
    let slowest = stages.iter().max_by_key(|(_, d)| *d).map_or("", |(n, _)| n).to_string();
    let manifest = Manifest {
        simreel: env!("CARGO_PKG_VERSION").to_string(),
        scene: scene.name.clone(),
        scene_file: scene.path.display().to_string(),
        scene_hash,
        settings_hash: settings,
        kind: scene.kind.name().to_string(),
        seed: scene.seed,
        adapter,
        adapter_info: adapter_summary.clone(),
        width: r.width,
        height: r.height,
        fps: r.fps,
        frames_in_scene: r.frames,
        frames: if png {
            let states = states.into_inner().expect("states");
            written.iter().map(|&f| FrameEntry { index: f, file: file_of(f), state: states.get(&f).cloned().unwrap_or_default() }).collect()
        } else {
            Vec::new()
        },
        gif: gif_path.as_ref().filter(|_| gif_ok.load(Ordering::SeqCst)).map(|p| p.display().to_string()),
        timings: Timings {
            wall_s,
            simulate_s: clock.simulate.as_secs_f64(),
            render_s: clock.render.as_secs_f64(),
            encode_s: clock.encode.as_secs_f64(),
            frames_per_second: written.len() as f64 / wall_s.max(1e-9),
            slowest_stage: slowest,
        },
        final_state: final_state.into_inner().expect("state"),
    };
    if png {
        manifest.write(&manifest_path)?;
    }
    if let Some(e) = failure.into_inner().expect("failure slot") {
        return Err(e);
    }
    if cancel.load(Ordering::SeqCst) {
        return Err(PipelineError::Interrupted { scene: scene.name.clone(), done: written.len(), total });
    }
    Ok(Outcome {
        manifest,
        adapter: adapter_summary,
        frames_dir,
        gif: gif_path.filter(|_| gif_ok.load(Ordering::SeqCst)),
        reused: done.len(),
    })
}

/// Writes the PNG of one frame and/or quantizes it for the GIF.
fn encode_one(
    work: Work,
    png: bool,
    gif: bool,
    dither: bool,
    frames_dir: &Path,
    file_of: &dyn Fn(u32) -> String,
    frames: &[u32],
) -> Result<(usize, u32, Option<Quantized>), PipelineError> {
    match work {
        Work::Rendered(pos, img) => {
            if png {
                let bytes = output::png::encode(&img.rgba, img.width, img.height, output::png::Effort::Fast);
                output::write_atomic(&frames_dir.join(file_of(img.index)), &bytes)?;
            }
            let q = gif.then(|| output::gif::quantize(&img.rgba, img.width, img.height, dither));
            Ok((pos, img.index, q))
        }
        Work::Existing(pos, f) => {
            let q = if gif {
                let d = output::png::read(&frames_dir.join(file_of(f)))?;
                Some(output::gif::quantize(&d.rgba, d.width, d.height, dither))
            } else {
                None
            };
            Ok((pos, frames[pos], q))
        }
    }
}

/// Receives quantized frames in any order and writes them in order. Returns whether all `total`
/// frames arrived (the file is only put in place then).
fn write_gif(
    path: &Path,
    rx: Receiver<(usize, Quantized)>,
    total: usize,
    width: u32,
    height: u32,
    fps: f64,
) -> Result<bool, PipelineError> {
    let gif_err = |e: gif::EncodingError| OutputError::Gif { path: path.to_path_buf(), reason: e.to_string() };
    let tmp = output::temp_path(path);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| OutputError::Write { path: dir.to_path_buf(), source })?;
    }
    let file = std::fs::File::create(&tmp).map_err(|source| OutputError::Write { path: tmp.clone(), source })?;
    let mut writer = GifWriter::new(std::io::BufWriter::new(file), width, height, fps).map_err(gif_err)?;
    let mut pending: BTreeMap<usize, Quantized> = BTreeMap::new();
    let mut next = 0;
    let result = (|| {
        for (pos, q) in rx {
            pending.insert(pos, q);
            while let Some(q) = pending.remove(&next) {
                writer.push(&q).map_err(gif_err)?;
                next += 1;
            }
        }
        Ok::<_, OutputError>(())
    })();
    if result.is_err() || next < total {
        let _ = std::fs::remove_file(&tmp);
        result?;
        return Ok(false);
    }
    let file =
        writer.finish().map_err(gif_err)?.into_inner().map_err(|e| OutputError::Write { path: tmp.clone(), source: e.into_error() })?;
    file.sync_data().map_err(|source| OutputError::Write { path: tmp.clone(), source })?;
    std::fs::rename(&tmp, path).map_err(|source| OutputError::Write { path: path.to_path_buf(), source })?;
    Ok(true)
}

/// `simreel gif`: every `*.png` in `dir` (sorted by name) into `out`, quantized on all cores.
pub fn gif_from_folder(dir: &Path, out: &Path, settings: GifSettings) -> Result<usize, PipelineError> {
    use rayon::prelude::*;
    let read_err = |source| OutputError::Read { path: dir.to_path_buf(), source };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(read_err)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("png")))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(OutputError::Read {
            path: dir.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no PNG files in this folder"),
        }
        .into());
    }
    let first = output::png::read(&files[0])?;
    let (w, h) = (first.width, first.height);
    let (tx, rx) = sync_channel::<(usize, Quantized)>(rayon::current_num_threads() * 2);
    let total = files.len();
    let result = std::thread::scope(|s| {
        let writer = s.spawn(move || write_gif(out, rx, total, w, h, settings.fps));
        let produced: Result<(), PipelineError> =
            files.par_iter().enumerate().try_for_each_with(tx, |tx: &mut SyncSender<(usize, Quantized)>, (i, f)| {
                let d = output::png::read(f)?;
                if (d.width, d.height) != (w, h) {
                    return Err(OutputError::BadPng {
                        path: f.clone(),
                        reason: format!("{}×{} differs from the first frame's {w}×{h}", d.width, d.height),
                    }
                    .into());
                }
                let _ = tx.send((i, output::gif::quantize(&d.rgba, w, h, settings.dither)));
                Ok(())
            });
        let wrote = writer.join().unwrap_or(Ok(false));
        produced.and(wrote)
    })?;
    if !result {
        return Err(OutputError::Gif { path: out.to_path_buf(), reason: "not every frame could be encoded".into() }.into());
    }
    Ok(total)
}
