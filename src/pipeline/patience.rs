//! The time twin of the memory check ([`crate::scene::Scene::check_memory`]): what a frame of a
//! job is estimated to cost on a software adapter (its pixels, the 2-D shapes it draws and the
//! pixels their quads cover, its simulation: [`crate::scene::Scene::costs`]). On a software adapter a
//! scene whose frame would take longer than [`REFUSE_FRAME_SECONDS`] is refused up front, and a
//! render estimated past [`WARN_SECONDS`] is said before it starts; on any adapter the GPU
//! watchdog waits for a frame in proportion to that estimate ([`patience`]).

use std::time::Duration;

use crate::render::AdapterSummary;

use super::{Job, PipelineError};

/// A frame estimated to take longer than this on a software adapter is refused.
pub const REFUSE_FRAME_SECONDS: f64 = 600.0;
/// A render estimated to take longer than this on a software adapter is said before it starts.
pub const WARN_SECONDS: f64 = 600.0;
/// The GPU watchdog waits at least this long for a frame…
const LEAST_PATIENCE_SECONDS: f64 = 120.0;
/// …and this many times its estimated drawing on the software adapter.
const PATIENCE_FACTOR: f64 = 8.0;
/// The cores the costs were measured with ([`crate::scene::Scene::costs`]): lavapipe draws on every
/// core, so a machine with more is counted faster in proportion.
const MEASURED_CORES: f64 = 2.0;

/// What a frame of a job is estimated to take on the software adapter of this machine.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Drawing one frame, and simulating it, seconds.
    pub draw: f64,
    pub simulate: f64,
    /// The frames the job renders.
    pub frames: usize,
    /// What the scene's frames hold, in words ("100000 agents drawn as 2300000 shapes").
    pub what: String,
}

impl Estimate {
    pub fn of(job: &Job) -> Estimate {
        let r = &job.scene.look;
        let (draw, simulate) = job.scene.costs(r.width, r.height);
        let cores = std::thread::available_parallelism().map_or(1.0, |n| n.get() as f64);
        let load = job.scene.load(r.width, r.height);
        let what = if load.shapes > 0.0 {
            format!(
                "{} drawn as {} shapes over {} pixels",
                load.what,
                crate::text::number(load.shapes),
                crate::text::number(load.shape_pixels)
            )
        } else {
            format!("{}×{} pixels", r.width, r.height)
        };
        Estimate { draw: draw * MEASURED_CORES / cores.max(1.0), simulate, frames: job.frames.len(), what }
    }

    /// One frame, drawn and simulated, seconds.
    pub fn per_frame(&self) -> f64 {
        self.draw + self.simulate
    }
}

/// Whether `adapter` draws on the CPU (lavapipe, llvmpipe, WARP).
pub fn is_software(adapter: &AdapterSummary) -> bool {
    adapter.device_type == "CPU (software)"
}

/// On a software adapter: an error when a frame of `job` is estimated past
/// [`REFUSE_FRAME_SECONDS`], else a warning to say when the render is estimated past
/// [`WARN_SECONDS`]. Nothing on other adapters.
pub fn check(job: &Job, adapter: &AdapterSummary) -> Result<Option<String>, PipelineError> {
    if !is_software(adapter) {
        return Ok(None);
    }
    let e = Estimate::of(job);
    let on = format!("{} (a software adapter)", adapter.name);
    let r = &job.scene.look;
    if e.per_frame() > REFUSE_FRAME_SECONDS {
        return Err(PipelineError::TooSlow {
            path: job.scene.path.clone(),
            why: format!(
                "a frame at {}×{} is estimated to take {} on {on}: {}; more than the {} a frame may take on one",
                r.width,
                r.height,
                crate::text::duration(e.per_frame()),
                e.what,
                crate::text::duration(REFUSE_FRAME_SECONDS),
            ),
        });
    }
    let total = e.per_frame() * e.frames as f64;
    Ok((total > WARN_SECONDS).then(|| {
        format!(
            "{}: {} at {}×{} estimated to take about {} on {on} ({} a frame: {}); a GPU adapter, --draft or a smaller --size is faster",
            job.scene.name,
            crate::text::count(e.frames as u64, "frame", "frames"),
            r.width,
            r.height,
            crate::text::duration(total),
            crate::text::duration(e.per_frame()),
            e.what
        )
    }))
}

/// How long the GPU watchdog waits for a frame of `job`: [`PATIENCE_FACTOR`] times its estimated
/// drawing on the software adapter, and never less than [`LEAST_PATIENCE_SECONDS`].
pub fn patience(job: &Job) -> Duration {
    let e = Estimate::of(job);
    Duration::from_secs_f64((e.draw * PATIENCE_FACTOR).clamp(LEAST_PATIENCE_SECONDS, REFUSE_FRAME_SECONDS * PATIENCE_FACTOR))
}

/// Before a command's jobs start: [`check`] of each on the adapter it will draw on (picked once
/// a request), the first refusal, or the warnings to say. A job whose adapter cannot be picked is
/// left to its render, which says why.
pub fn check_all(jobs: &[Job]) -> Result<Vec<String>, PipelineError> {
    let mut adapters: Vec<(crate::render::AdapterRequest, Option<AdapterSummary>)> = Vec::new();
    let mut warnings = Vec::new();
    for job in jobs {
        let known = adapters.iter().find(|(r, _)| *r == job.adapter).map(|(_, a)| a.clone());
        let adapter = known.unwrap_or_else(|| {
            let a = crate::render::device::pick(&job.adapter).ok().map(|a| AdapterSummary::of(&a.get_info()));
            adapters.push((job.adapter.clone(), a.clone()));
            a
        });
        if let Some(adapter) = adapter {
            warnings.extend(check(job, &adapter)?);
        }
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flock of `agents` at `size`² on a `canvas`² canvas, `frames` frames at 10 fps.
    fn flock(agents: u32, size: u32, canvas: u32, frames: u32) -> Job {
        let text = format!(
            "kind = \"flock\"\nname = \"f\"\n[render]\nwidth = {size}\nheight = {size}\nfps = 10\nduration = {}\n[flock]\nagents = {agents}\ncanvas = [{canvas}.0, {canvas}.0]\n",
            frames as f64 / 10.0
        );
        let scene = crate::scene::parse(&text, std::path::Path::new("f.toml")).expect("a valid scene");
        Job::new(scene, "out")
    }

    fn adapter(device_type: &str) -> AdapterSummary {
        AdapterSummary { name: "llvmpipe".into(), device_type: device_type.into(), ..Default::default() }
    }

    #[test]
    fn the_estimate_grows_with_agents_and_with_how_large_each_is_drawn() {
        let small = Estimate::of(&flock(1_000, 256, 256, 10));
        let more = Estimate::of(&flock(100_000, 256, 256, 10));
        let larger = Estimate::of(&flock(1_000, 2048, 256, 10));
        assert!(more.draw > 50.0 * small.draw, "{small:?} {more:?}");
        assert!(more.simulate > 50.0 * small.simulate, "{small:?} {more:?}");
        // eight times the scale: each shape's quad some 20 times the pixels (its margin stays
        // 1.5 px), the image 64 times
        assert!(larger.draw > 10.0 * small.draw, "{small:?} {larger:?}");
        assert!(more.what.contains("100,000 agents"), "{}", more.what);
    }

    #[test]
    fn a_software_adapter_refuses_a_frame_of_hours_and_warns_of_a_long_render() {
        let soft = adapter("CPU (software)");
        // 200 000 agents drawn as discs 800 px across: hours a frame
        let huge = flock(200_000, 2048, 16, 10);
        let e = check(&huge, &soft).unwrap_err();
        assert!(matches!(e, PipelineError::TooSlow { .. }) && e.exit_class() == crate::exit::ExitClass::BadInput);
        let said = e.to_string();
        assert!(said.starts_with("f.toml: a frame at 2048×2048 is estimated to take "), "{said}");
        assert!(said.contains("200,000 agents drawn as") && said.contains("--size"), "{said}");
        // a GPU is not judged by the software adapter's speed
        assert_eq!(check(&huge, &adapter("discrete GPU")).unwrap(), None);
        // a small scene: nothing to say
        assert_eq!(check(&flock(1_000, 256, 256, 10), &soft).unwrap(), None);
        // seconds a frame, but many frames: said, not refused
        let long = flock(15_000, 1024, 16, 400);
        let e = Estimate::of(&long);
        assert!(e.per_frame() < REFUSE_FRAME_SECONDS && e.per_frame() * 400.0 > WARN_SECONDS, "{e:?}");
        let warning = check(&long, &soft).unwrap().expect("a warning");
        assert!(warning.starts_with("f: 400 frames at 1024×1024 estimated to take about "), "{warning}");
    }

    #[test]
    fn the_watchdog_waits_in_proportion_to_the_estimate() {
        let small = flock(1_000, 256, 256, 10);
        assert_eq!(patience(&small), Duration::from_secs(120));
        let heavy = flock(15_000, 1024, 16, 10);
        let e = Estimate::of(&heavy);
        assert!(e.draw * PATIENCE_FACTOR > 120.0, "{e:?}");
        assert_eq!(patience(&heavy), Duration::from_secs_f64(e.draw * PATIENCE_FACTOR));
    }
}
