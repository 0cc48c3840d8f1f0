//! A scene being played in a page, apart from the page: its simulation at some frame, moved
//! forward one frame at a time or sent to any frame (back to the nearest saved state and forward
//! from there), and the state line a render's manifest shows for that frame. Plain Rust, tested
//! natively; `web.rs` drives it from the browser's frame clock.

use std::path::Path;

use simreel::frame::FrameData;
use simreel::scene::{self, Scene};
use simreel::sim::Player;

/// Frames between the states kept for going back: a scrub back to any frame replays at most this
/// many frames (a dice step is ~0.3 ms a frame in a browser's WebAssembly, so ≤ 10 ms).
pub const KEEP_EVERY: u32 = 30;

pub struct Session {
    scene: Scene,
    player: Player,
    /// The frame the simulation has advanced to; `None` before the first.
    at: Option<u32>,
    /// (frame, state) saved on the way, in increasing frame order, for kinds that save states.
    kept: Vec<(u32, Vec<u8>)>,
}

impl Session {
    /// Reads scene text (`name` names it in messages and gives the scene its default name).
    pub fn open(text: &str, name: &str) -> Result<Session, String> {
        let scene = scene::parse(text, Path::new(name)).map_err(|e| e.to_string())?;
        if scene.kind_name() == "figure" {
            return Err(format!("{name}: a figure's panels are scene files of their own; embed one of its scenes instead"));
        }
        let player = simreel::kinds::build(&scene);
        Ok(Session { scene, player, at: None, kept: Vec::new() })
    }

    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// Frames in the scene.
    pub fn frames(&self) -> u32 {
        self.scene.frames()
    }

    pub fn fps(&self) -> u32 {
        self.scene.sim.timing.fps
    }

    /// The frame the simulation is at (0 before the first step).
    pub fn frame(&self) -> u32 {
        self.at.unwrap_or(0)
    }

    /// Moves the simulation to `frame` (clamped to the scene's last) and describes it. Forward,
    /// it steps from where it is; back, from the nearest state kept at or before `frame`, or
    /// from the start: the state at a frame never depends on the way there.
    pub fn seek(&mut self, frame: u32) -> FrameData {
        let frame = self.go(frame);
        self.player.frame(frame)
    }

    /// [`Session::seek`] without describing the frame (a page catching up draws only the last
    /// frame due); returns the frame reached.
    pub fn go(&mut self, frame: u32) -> u32 {
        let frame = frame.min(self.frames().saturating_sub(1));
        if self.at.is_some_and(|at| frame < at) {
            self.rewind(frame);
        }
        // states are kept on the way forward, at every KEEP_EVERY-th frame passed
        let from = self.at.map_or(0, |at| at + 1);
        for f in (from..frame).filter(|f| f.is_multiple_of(KEEP_EVERY) && *f > 0) {
            self.player.sim_mut().advance(f);
            self.keep(f);
        }
        self.at = Some(frame);
        self.player.sim_mut().advance(frame);
        if frame.is_multiple_of(KEEP_EVERY) && frame > 0 {
            self.keep(frame);
        }
        frame
    }

    fn keep(&mut self, frame: u32) {
        if self.kept.last().is_none_or(|(f, _)| *f < frame)
            && let Some(state) = self.player.snapshot()
        {
            self.kept.push((frame, state));
        }
    }

    fn rewind(&mut self, frame: u32) {
        while let Some((f, state)) = self.kept.last() {
            if *f <= frame && self.player.restore(*f, state) {
                // a painter built afresh, as a shard's is for a state it did not see made
                simreel::kinds::repaint(&mut self.player, &self.scene);
                self.at = Some(*f);
                return;
            }
            self.kept.pop();
        }
        self.player = simreel::kinds::build(&self.scene);
        self.at = None;
    }

    /// The state line of the current frame, as a render's manifest and a golden's `.state.txt`
    /// give it: `hash 0123456789abcdef, time …, …`.
    pub fn state(&self) -> String {
        self.player.digest().to_string()
    }

    /// A fault the simulation found (a non-finite value), as the command line words it.
    pub fn fault(&self) -> Option<String> {
        self.player.fault().map(|f| format!("frame {}: {}", f.frame, f.what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> String {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes").join(name)).unwrap()
    }

    /// The states a page shows are the command line's: any order of seeks gives, at each frame,
    /// the state of a simulation stepped straight there.
    #[test]
    fn a_frame_reached_by_any_path_has_the_state_of_a_straight_run() {
        for name in ["flock_crowd.toml", "dice.toml", "cargo_walk.toml", "wind_meadow.toml", "terrain.toml"] {
            let text = shipped(name);
            let mut straight = Session::open(&text, name).unwrap();
            let last = straight.frames() - 1;
            let probes = [0, 1, KEEP_EVERY - 1, KEEP_EVERY, KEEP_EVERY + 7, 2 * KEEP_EVERY + 3, last / 2, last];
            let mut want = std::collections::BTreeMap::new();
            for &f in probes.iter().collect::<std::collections::BTreeSet<_>>() {
                straight.seek(f);
                want.insert(f, straight.state());
            }
            let mut scrub = Session::open(&text, name).unwrap();
            for &f in [last, 0, last / 2, KEEP_EVERY + 7, 1, 2 * KEEP_EVERY + 3, KEEP_EVERY, last, KEEP_EVERY - 1].iter() {
                scrub.seek(f);
                assert_eq!(scrub.state(), want[&f], "{name}: frame {f} after scrubbing");
                assert_eq!(scrub.frame(), f);
            }
        }
    }

    #[test]
    fn a_seek_past_the_end_stops_at_the_last_frame_and_a_figure_is_refused() {
        let mut s = Session::open(&shipped("flock.toml"), "flock.toml").unwrap();
        s.seek(u32::MAX);
        assert_eq!(s.frame(), s.frames() - 1);
        let bad = Session::open("kind = \"flock\"\n[render]\nframes = -3\n", "bad.toml").err().unwrap();
        assert!(bad.contains("bad.toml") && bad.contains("frames"), "{bad}");
        let figure = shipped("figures/flock_inset.toml");
        assert!(Session::open(&figure, "flock_inset.toml").err().unwrap().contains("figure"));
    }
}
