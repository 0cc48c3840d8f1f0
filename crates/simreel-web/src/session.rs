//! A scene being played in a page, apart from the page: its simulation at some frame, moved
//! forward one frame at a time or sent to any frame (back to the nearest saved state and forward
//! from there), and the state line a render's manifest shows for that frame. Plain Rust, tested
//! natively; `web.rs` drives it from the browser's frame clock.

use std::path::Path;

use simreel::frame::FrameData;
use simreel::scene::eye::Eye;
use simreel::scene::{self, KindSpec, Scene};
use simreel::sim::Player;
use toml_edit::DocumentMut;

use crate::take::{self, Input};

/// Frames between the states kept for going back: a scrub back to any frame replays at most this
/// many frames (a dice step is about 1.2 ms a frame in a browser's WebAssembly, so ≤ 40 ms).
pub const KEEP_EVERY: u32 = 30;

pub struct Session {
    /// The scene file's name (for messages, and the take's default name).
    name: String,
    /// The scene as the page got it, as text and as read.
    original: DocumentMut,
    base: Scene,
    /// What the reader did, at which frame, in frame order.
    inputs: Vec<(u32, Input)>,
    /// The scene being played: the original with the inputs written in.
    scene: Scene,
    /// A reader's hand on a die: the die's centre and the point under the pointer when it closed.
    hand: Option<([f64; 3], [f64; 3])>,
    /// A reader's hand on the carrier, and the ground it was last drawn over.
    lead: Option<Option<[f64; 2]>>,
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
        let original: DocumentMut = text.parse().map_err(|e| format!("{name}: {e}"))?;
        let player = crate::kinds::build(&scene).ok_or_else(|| {
            format!(
                "{name}: a {} scene, and this player plays {} only (`scripts/build-web --kinds` builds one of other kinds)",
                scene.kind_name(),
                crate::kinds::KINDS.join(", ")
            )
        })?;
        Ok(Session {
            name: name.to_string(),
            original,
            base: scene.clone(),
            inputs: Vec::new(),
            scene,
            hand: None,
            lead: None,
            player,
            at: None,
            kept: Vec::new(),
        })
    }

    /// What a reader may do to this scene, as the page says it.
    pub fn controls(&self) -> &'static str {
        take::controls(&self.base)
    }

    /// The scene time of the current frame, seconds.
    pub fn time(&self) -> f64 {
        self.scene.sim.timing.time_of(self.frame())
    }

    /// The pointer at pixel (x, y) of the picture: a flock's cursor. False where the kind has no
    /// cursor.
    pub fn pointer(&mut self, x: f64, y: f64) -> Result<bool, String> {
        match take::canvas_at(&self.scene, x, y) {
            Some([x, y]) => self.input(Input::Cursor { x, y }).map(|()| true),
            None => Ok(false),
        }
    }

    /// A press at pixel (x, y): a flock's shockwave, a gust where the wind's ground is, a throw
    /// of the dice. False where it does nothing (no such input, or the sky clicked).
    pub fn press(&mut self, x: f64, y: f64) -> Result<bool, String> {
        let input = match &self.scene.sim.kind {
            KindSpec::Flock(_) => take::canvas_at(&self.scene, x, y).map(|[x, y]| Input::Shock { x, y }),
            KindSpec::Wind(_) => Eye::of(&self.scene, self.time()).on_ground(x, y).map(|[x, z]| Input::Gust { x, z }),
            KindSpec::Dice(_) => Some(Input::Throw),
            _ => None,
        };
        match input {
            Some(input) => self.input(input).map(|()| true),
            None => Ok(false),
        }
    }

    /// A drag across the picture by `dx` pixels: the eye turned about its target (3-D kinds;
    /// the picture's width is half a turn). False for a flat kind.
    pub fn drag(&mut self, dx: f64) -> Result<bool, String> {
        if matches!(self.scene.sim.kind, KindSpec::Flock(_)) || dx == 0.0 {
            return Ok(false);
        }
        let cam = &self.scene.look.camera;
        let now = cam.turn.partition_point(|k| k[0] <= self.time()).checked_sub(1).map_or(0.0, |i| cam.turn[i][1]);
        let degrees = ((now - 180.0 * dx / self.scene.look.width as f64) * 10.0).round() / 10.0;
        self.input(Input::Turn { degrees }).map(|()| true)
    }

    /// A drag that starts at pixel (x, y): on a die (its centre within a tenth of the picture's
    /// height), a hand takes its top corner and the drag pulls it (`pull_to`, `let_go`); on the
    /// carrier (its hips within a sixth), the drag picks the spot on the ground it is led to when
    /// the hand lets go; false elsewhere (the drag turns the camera).
    pub fn grab(&mut self, x: f64, y: f64) -> Result<bool, String> {
        if let KindSpec::Cargo(cargo) = &self.scene.sim.kind {
            // on the carrier (its hips within a sixth of the picture's height): the drag leads it
            let hips = simreel::sim::cargo::route::hips_at(&cargo.route, &cargo.ground, self.time());
            let eye = Eye::of(&self.scene, self.time());
            let on = eye.pixel(hips).is_some_and(|p| simreel::portable::hypot(p[0] - x, p[1] - y) <= self.scene.look.height as f64 / 6.0);
            if on {
                self.lead = Some(None);
            }
            return Ok(on);
        }
        let Some(dice) = self.player.sim().as_any().downcast_ref::<simreel::sim::dice::DiceSim>() else { return Ok(false) };
        let eye = Eye::of(&self.scene, self.time());
        let reach = self.scene.look.height as f64 / 10.0;
        let near = dice
            .centres()
            .into_iter()
            .enumerate()
            .filter_map(|(i, c)| eye.pixel(c).map(|p| (i, c, simreel::portable::hypot(p[0] - x, p[1] - y))))
            .filter(|&(_, _, d)| d <= reach)
            .min_by(|a, b| a.2.total_cmp(&b.2));
        let Some((die, centre, _)) = near else { return Ok(false) };
        let Some(start) = eye.on_plane(x, y, centre) else { return Ok(false) };
        self.input(Input::Grab { die })?;
        self.hand = Some((centre, start));
        Ok(true)
    }

    /// The held die pulled toward pixel (x, y): the grabbed corner moved as far as the pointer on
    /// the plane through the die facing the camera (at most 3 m each way).
    pub fn pull_to(&mut self, x: f64, y: f64) -> Result<bool, String> {
        if self.lead.is_some() {
            // where the carrier is led: the ground under the pointer, taken when the hand lets go
            if let Some(p) = Eye::of(&self.scene, self.time()).on_ground(x, y) {
                self.lead = Some(Some(p));
            }
            return Ok(true);
        }
        let Some((centre, start)) = self.hand else { return Ok(false) };
        let Some(p) = Eye::of(&self.scene, self.time()).on_plane(x, y, centre) else { return Ok(false) };
        let offset: [f64; 3] = std::array::from_fn(|i| (((p[i] - start[i]) * 1000.0).round() / 1000.0).clamp(-3.0, 3.0));
        self.input(Input::Pull { offset }).map(|()| true)
    }

    /// The hand lets go of the die it holds.
    pub fn let_go(&mut self) -> Result<bool, String> {
        if let Some(lead) = self.lead.take() {
            // the carrier is led to where the hand let go: it stops, turns and walks there
            return match lead {
                Some([x, z]) => self.input(Input::Lead { x, z }).map(|()| true),
                None => Ok(false),
            };
        }
        if self.hand.take().is_none() {
            return Ok(false);
        }
        self.input(Input::LetGo).map(|()| true)
    }

    /// The wheel: the terrain's iso level moved by `steps` tenths of a unit. False where the
    /// scene keeps its own iso level.
    pub fn wheel(&mut self, steps: f64) -> Result<bool, String> {
        let KindSpec::Terrain(t) = &self.base.sim.kind else { return Ok(false) };
        if !take::iso_is_ours(t) || steps == 0.0 {
            return Ok(false);
        }
        let KindSpec::Terrain(now) = &self.scene.sim.kind else { return Ok(false) };
        let level = ((now.iso.scalar_at(self.time(), self.scene.sim.timing.duration()) + steps * 0.1) * 100.0).round() / 100.0;
        self.input(Input::Iso { level }).map(|()| true)
    }

    /// Records `input` at the current frame (what was recorded after it goes: a new take from
    /// here) and carries the simulation over to the scene with it written in: the state at this
    /// frame stays as it is, and from the next frame on the scene's text is what plays.
    pub fn input(&mut self, input: Input) -> Result<(), String> {
        let frame = self.frame();
        let before = self.inputs.clone();
        self.inputs.retain(|(f, _)| *f <= frame);
        match self.inputs.last_mut() {
            // a pointer, a turn, a level: the last of a frame counts; a second throw in one frame is one
            Some((f, last)) if *f == frame && std::mem::discriminant(last) == std::mem::discriminant(&input) => {
                if !matches!(input, Input::Shock { .. } | Input::Gust { .. }) {
                    *last = input;
                } else {
                    self.inputs.push((frame, input));
                }
            }
            _ => self.inputs.push((frame, input)),
        }
        let text = take::write(&self.original, &self.base, &self.inputs).to_string();
        let scene = match scene::parse(&text, Path::new(&self.name)) {
            Ok(scene) => scene,
            Err(e) => {
                self.inputs = before;
                return Err(e.to_string());
            }
        };
        if scene.sim == self.scene.sim {
            // only the drawing changed (a turn of the camera): the simulation goes on as it is
            self.scene = scene;
            crate::kinds::repaint(&mut self.player, &self.scene);
            return Ok(());
        }
        let state = self.at.and_then(|_| self.player.snapshot());
        self.kept.retain(|(f, _)| *f <= frame);
        self.scene = scene;
        self.player = crate::kinds::build(&self.scene).expect("the kind the session opened with");
        let at = self.at.take();
        if let Some(at) = at {
            if let Some(bytes) = state.filter(|b| self.player.restore(at, b)) {
                crate::kinds::repaint(&mut self.player, &self.scene);
                self.at = Some(at);
                if self.kept.last().is_none_or(|(f, _)| *f < at) {
                    self.kept.push((at, bytes));
                }
            } else {
                // a kind that keeps no states: from the nearest kept one, or from the start
                self.go(at);
            }
        }
        Ok(())
    }

    /// Inputs recorded so far.
    pub fn inputs(&self) -> usize {
        self.inputs.len()
    }

    /// The take: the scene file with what the reader did written in as its scripted inputs,
    /// named `<name>-take`, without the original's `[golden]` frames (they are the original's).
    pub fn take(&self) -> String {
        let mut doc = take::write(&self.original, &self.base, &self.inputs);
        if doc.contains_key("name") {
            doc["name"] = toml_edit::value(format!("{}-take", self.base.name));
        }
        doc.remove("golden");
        format!(
            "# A take of {} recorded in simreel's web player: {} inputs of a reader written in as the\n\
             # scene's scripted inputs. `simreel render` plays it as the page did.\n{doc}",
            self.name,
            self.inputs.len()
        )
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
                crate::kinds::repaint(&mut self.player, &self.scene);
                self.at = Some(*f);
                return;
            }
            self.kept.pop();
        }
        self.player = crate::kinds::build(&self.scene).expect("the kind the session opened with");
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

    /// What a reader does at a frame, in the picture's pixels.
    #[derive(Clone, Copy, Debug)]
    enum Act {
        Pointer(f64, f64),
        Press(f64, f64),
        Drag(f64),
        Wheel(f64),
        /// Back to this frame (a scrub), to take again from there.
        Back(u32),
        /// A drag from a die's centre as the picture shows it (`grab`), …
        GrabDie(usize),
        /// A drag from the carrier's hips as the picture shows them (`grab`), …
        GrabCarrier,
        PullTo(f64, f64),
        LetGo,
    }

    fn act(s: &mut Session, a: Act) -> bool {
        match a {
            Act::Pointer(x, y) => s.pointer(x, y),
            Act::Press(x, y) => s.press(x, y),
            Act::Drag(dx) => s.drag(dx),
            Act::Wheel(steps) => s.wheel(steps),
            Act::GrabDie(d) => {
                let dice = s.player.sim().as_any().downcast_ref::<simreel::sim::dice::DiceSim>().unwrap();
                let at = Eye::of(&s.scene, s.time()).pixel(dice.centres()[d]).unwrap();
                s.grab(at[0], at[1])
            }
            Act::GrabCarrier => {
                let KindSpec::Cargo(cargo) = &s.scene.sim.kind else { panic!("not a cargo scene") };
                let hips = simreel::sim::cargo::route::hips_at(&cargo.route, &cargo.ground, s.time());
                let at = Eye::of(&s.scene, s.time()).pixel(hips).unwrap();
                s.grab(at[0] + 5.0, at[1] - 5.0)
            }
            Act::PullTo(x, y) => s.pull_to(x, y),
            Act::LetGo => s.let_go(),
            Act::Back(f) => {
                s.seek(f);
                return true;
            }
        }
        .unwrap()
    }

    /// Plays `name` to `end`, doing `acts` on the way (each at its frame, in order), and checks
    /// that no input changes the state it is given at, that every frame shown comes back the same
    /// (state and everything drawn) when the take's text is played from the start, and that the
    /// inputs changed what happened. Returns the take.
    fn take_replays(name: &str, end: u32, acts: &[(u32, Act)], changes_state: bool) -> String {
        let text = shipped(name);
        let mut live = Session::open(&text, name).unwrap();
        let mut shown = std::collections::BTreeMap::new();
        let mut f = 0;
        let mut todo = acts.iter().peekable();
        while f <= end {
            let data = live.seek(f);
            shown.insert(f, (live.state(), data));
            let mut went_back = false;
            while let Some(&&(at, a)) = todo.peek() {
                if at != f {
                    break;
                }
                todo.next();
                let before = live.state();
                assert!(act(&mut live, a), "{name}: {a:?} at frame {f} did nothing");
                if let Act::Back(to) = a {
                    // frames after `to` will be shown again, by the new take
                    shown.retain(|&k, _| k <= to);
                    f = to;
                    went_back = true;
                } else {
                    // the hash: a terrain reports its topology only while its field is still, and
                    // a reader's iso level makes it move (the facts go, the geometry stays)
                    let hash = |s: &str| s.split(',').next().unwrap_or_default().to_string();
                    assert_eq!(hash(&live.state()), hash(&before), "{name}: {a:?} changed the state of frame {f} it was given at");
                }
            }
            if !went_back {
                f += 1;
            }
        }
        assert!(todo.next().is_none(), "{name}: an act after the end");
        let take = live.take();
        let mut replay = Session::open(&take, "take.toml").unwrap_or_else(|e| panic!("{name}: the take does not read: {e}\n{take}"));
        for (&f, (state, data)) in &shown {
            let again = replay.seek(f);
            // (the hash: a terrain's topology facts go once a reader's iso level moves its field)
            let hash = |s: &str| s.split(',').next().unwrap_or_default().to_string();
            assert_eq!(hash(&replay.state()), hash(state), "{name}: frame {f} of the take played from the start\n{take}");
            assert!(again == *data, "{name}: frame {f} of the take draws something else");
        }
        let mut plain = Session::open(&text, name).unwrap();
        plain.seek(end);
        if changes_state {
            assert_ne!(plain.state(), shown[&end].0, "{name}: the inputs changed nothing");
        }
        take
    }

    #[test]
    fn a_flocks_pointer_and_clicks_replay_from_the_take() {
        // the cursor sweeps in at 2 s (frame 60 at 30 fps), lingers, clicks; then a scrub back and a second take
        let mut acts: Vec<(u32, Act)> = (0..40).map(|i| (20 + i, Act::Pointer(200.0 + 6.0 * i as f64, 240.0 - 2.0 * i as f64))).collect();
        acts.push((59, Act::Press(430.0, 170.0)));
        acts.push((70, Act::Back(45)));
        acts.push((45, Act::Pointer(100.0, 100.0)));
        acts.push((52, Act::Press(110.0, 105.0)));
        let take = take_replays("flock.toml", 90, &acts, true);
        assert!(take.contains("pointer = [\n  [") && take.contains("name = \"flock-take\"") && !take.contains("[golden]"), "{take}");
        // the scrub back at frame 70 to 45 dropped the click at 59 (frame 60's time) and what came after 45
        assert!(!take.contains("[2.0, 430"), "{take}");
    }

    #[test]
    fn a_gust_a_throw_a_turn_and_an_iso_level_replay_from_the_take() {
        let take =
            take_replays("wind_meadow.toml", 60, &[(12, Act::Press(480.0, 420.0)), (20, Act::Drag(40.0)), (21, Act::Drag(25.0))], true);
        assert!(take.contains("[[wind.blast]]") && take.contains("turn = "), "{take}");
        let take = take_replays("dice.toml", 70, &[(30, Act::Press(10.0, 10.0)), (31, Act::Press(10.0, 10.0))], true);
        assert!(take.contains("rolls = ["), "{take}");
        // a pull of the resting die (the scene's own pull is later than the reader's: it goes)
        let mut pull = vec![(5, Act::GrabDie(0))];
        pull.extend((6..20).map(|f| (f, Act::PullTo(320.0 + 4.0 * (f - 5) as f64, 200.0 - 5.0 * (f - 5) as f64))));
        pull.push((21, Act::LetGo));
        let take = take_replays("dice_pull.toml", 60, &pull, true);
        assert!(take.matches("[[dice.grab]]").count() == 1 && take.contains("corner = \"top\""), "{take}");
        let take = take_replays(
            "terrain.toml",
            20,
            &[(3, Act::Drag(-30.0)), (5, Act::Wheel(2.0)), (6, Act::Wheel(1.0)), (12, Act::Wheel(-4.0))],
            true,
        );
        assert!(take.contains("iso = [\n  [") && take.contains("turn = "), "{take}");
        take_replays("cargo_walk.toml", 30, &[(10, Act::Drag(50.0))], false);
    }

    /// A reader leads the walking carrier (cargo_walk, 1.3 s into its first leg) to a spot on
    /// the ground: the take says where and when, plays the same frames from the start, and the
    /// carrier ends there, off the scene's route.
    #[test]
    fn a_carrier_led_by_the_reader_replays_from_the_take() {
        let mut lead = vec![(40, Act::GrabCarrier)];
        lead.extend((41..46).map(|f| (f, Act::PullTo(200.0 + 10.0 * (f - 40) as f64, 330.0))));
        lead.push((46, Act::LetGo));
        let take = take_replays("cargo_walk.toml", 300, &lead, true);
        assert!(take.contains("drags = [\n  { at = 1.5667, to = ["), "{take}");
        let scene = simreel::scene::parse(&take, std::path::Path::new("take.toml")).unwrap();
        let KindSpec::Cargo(cargo) = &scene.sim.kind else { unreachable!() };
        let to = cargo.route.drags[0].to;
        let end = simreel::sim::cargo::route::Route::new(&cargo.route).at(300.0 / 30.0);
        assert!(
            simreel::portable::hypot(end.pos[0] - to[0], end.pos[1] - to[1]) < 1e-9 && end.speed == 0.0,
            "{:?} against {to:?}",
            end.pos
        );
        // a press away from the carrier takes nothing: the drag turns the camera
        let mut away = Session::open(&shipped("cargo_walk.toml"), "cargo_walk.toml").unwrap();
        assert!(!away.grab(2.0, 2.0).unwrap() && !away.pull_to(50.0, 50.0).unwrap() && !away.let_go().unwrap());
        assert_eq!(away.inputs(), 0);
    }

    #[test]
    fn what_a_kind_does_not_take_is_said_and_changes_nothing() {
        let mut flock = Session::open(&shipped("flock.toml"), "flock.toml").unwrap();
        assert!(!flock.drag(30.0).unwrap() && !flock.wheel(1.0).unwrap());
        let mut cargo = Session::open(&shipped("cargo_walk.toml"), "cargo_walk.toml").unwrap();
        assert!(!cargo.press(10.0, 10.0).unwrap() && !cargo.pointer(10.0, 10.0).unwrap());
        assert_eq!(cargo.inputs(), 0);
        // above the horizon (the meadow's camera looks down on ground in every pixel): no gust
        let mut wind = Session::open(&shipped("wind_meadow.toml"), "wind_meadow.toml").unwrap();
        assert!(!wind.press(480.0, -5000.0).unwrap());
        assert_eq!(wind.inputs(), 0);
        assert!(flock.controls().contains("pointer") && wind.controls().contains("gust"));
    }
}
