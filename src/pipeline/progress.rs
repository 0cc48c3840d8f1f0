//! What a running job shows and measures: the stages' progress bars on a terminal, and the time
//! each stage took, summed across threads.

use std::path::Path;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::ProgressMode;
use crate::scene::Format;

/// The stages a frame goes through.
#[derive(Clone, Copy)]
pub(super) enum Stage {
    Simulate,
    Render,
    Encode,
}

/// How a stage waits: for a frame to work on, or for the next stage to take one it finished.
#[derive(Clone, Copy)]
pub(super) enum Wait {
    Idle,
    Blocked,
}

/// One stage's time, summed over its threads.
#[derive(Clone, Copy, Default)]
pub(super) struct StageTime {
    pub(super) busy: Duration,
    pub(super) idle: Duration,
    pub(super) blocked: Duration,
    /// Of the busy time, what the stage's thread spent on a CPU (where the system says):
    /// the rest it slept, on the GPU or a lock.
    pub(super) cpu: Option<Duration>,
}

/// The CPU time the calling thread has used so far, where the system keeps it.
pub(super) fn thread_cpu() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime writes the timespec it is given and nothing else
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
        ok.then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Stage times, accumulated across threads.
#[derive(Default)]
pub(super) struct StageClock {
    pub(super) simulate: StageTime,
    pub(super) render: StageTime,
    pub(super) encode: StageTime,
}

impl StageClock {
    fn stage(&mut self, stage: Stage) -> &mut StageTime {
        match stage {
            Stage::Simulate => &mut self.simulate,
            Stage::Render => &mut self.render,
            Stage::Encode => &mut self.encode,
        }
    }

    pub(super) fn add(&mut self, stage: Stage, d: Duration, cpu: Option<Duration>) {
        let s = self.stage(stage);
        s.busy += d;
        if let Some(c) = cpu {
            *s.cpu.get_or_insert(Duration::ZERO) += c;
        }
    }

    pub(super) fn wait(&mut self, stage: Stage, wait: Wait, d: Duration) {
        let s = self.stage(stage);
        *match wait {
            Wait::Idle => &mut s.idle,
            Wait::Blocked => &mut s.blocked,
        } += d;
    }
}

pub(super) struct Progress {
    pub(super) mode: ProgressMode,
    scene: String,
    multi: Option<MultiProgress>,
    pub(super) simulate: ProgressBar,
    pub(super) render: ProgressBar,
    pub(super) encode: ProgressBar,
}

/// A stage's or an animation's bar: name, what, bar, count, rate, time left.
fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{prefix:>24} {msg:>9} [{bar:30}] {pos:>5}/{len} {per_sec:>9} eta {eta}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

impl Progress {
    pub(super) fn new(mode: ProgressMode, scene: &str, total: u64) -> Self {
        let (multi, bars) = if mode == ProgressMode::Bars {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let style = bar_style();
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
        Progress { mode, scene: scene.to_string(), multi, simulate: bars.0, render: bars.1, encode: bars.2 }
    }

    pub(super) fn finish(&self) {
        for b in [&self.simulate, &self.render, &self.encode] {
            b.finish_and_clear();
        }
    }
}

/// The animations made after the frames: on a terminal a bar each (frames handed to ffmpeg, or
/// the time so far where the encoder is simreel's own), in JSON one line each when made.
impl super::whole::Watch for Progress {
    fn begin(&self, format: Format, path: &Path, frames: usize) -> ProgressBar {
        let Some(multi) = &self.multi else { return ProgressBar::hidden() };
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        let bar = if format.needs_ffmpeg() {
            let style = bar_style();
            ProgressBar::new(frames as u64).with_style(style)
        } else {
            let style = ProgressStyle::with_template("{prefix:>24} {msg:>9} {spinner} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            ProgressBar::new_spinner().with_style(style)
        };
        let bar = multi.add(bar.with_prefix(name).with_message(format.name()));
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    }

    fn end(&self, bar: ProgressBar, format: Format, path: &Path, seconds: f64) {
        bar.finish_and_clear();
        if self.mode == ProgressMode::Json {
            let line = serde_json::json!({"scene": self.scene, "animation": format.name(), "file": path.display().to_string(), "seconds": seconds});
            println!("{line}");
        }
    }
}
