//! What simulates and paints each scene kind: the one place that lists every kind's simulation.
//! Each line of the `kinds!` list at the end names a variant of [`KindSpec`] (declared by the
//! scene layer, in `crate::scene::kind_tables`) and the simulation that plays it; building a scene's
//! simulation from its simulation part, its painter from its look, or both as a [`Player`], is
//! generated from that list. A kind added to the scene layer and not here does not compile: the
//! matches are exhaustive.
//!
//! Adding a kind is docs/contributing.md's "Adding a scene kind": a spec and a look in
//! `src/scene/<kind>.rs` implementing `KindTable` and listed in `crate::scene::kind_tables`, a
//! simulation and a painter in `src/sim/<kind>/` implementing [`KindSimulation`] and
//! [`KindPainter`], and one line here.

use crate::scene::{KindLook, KindSpec, LookSpec, Scene, SimSpec};
use crate::sim::{Builder, Drawing, KindPainter, KindSimulation, Painter, PainterBuilder, Player, SimInputs, Simulation};

/// A registered kind's simulation built from a whole scene: `None` when the scene is of another
/// kind. The registry implements it for every simulation it lists.
pub trait FromScene: KindSimulation {
    /// The simulation, handed `build` for the simulations it makes of other scenes (a figure's
    /// panels).
    fn from_scene_with(scene: &Scene, build: Builder) -> Option<Self>;
    /// The painter of `sim` (this scene's simulation) with the scene's look, handed `build` for
    /// the painters it makes of other scenes.
    fn painter_with(&self, scene: &Scene, build: PainterBuilder) -> Option<Self::Painter>;

    fn from_scene(scene: &Scene) -> Option<Self> {
        Self::from_scene_with(scene, simulation)
    }

    fn painter(&self, scene: &Scene) -> Option<Self::Painter> {
        self.painter_with(scene, painter)
    }
}

macro_rules! kinds {
    ($($variant:ident => $sim:ty),* $(,)?) => {
        /// Builds the simulation a scene's simulation part asks for.
        pub fn simulation(sim: &SimSpec) -> Box<dyn Simulation> {
            match &sim.kind {
                $(KindSpec::$variant(spec) => {
                    let inputs = SimInputs { seed: sim.seed, timing: sim.timing, spec };
                    Box::new(<$sim as KindSimulation>::new(&inputs, simulation))
                })*
            }
        }

        /// Builds the painter of `state` (built from `sim`) with `look`: the three are one
        /// scene's, so of one kind.
        pub fn painter(state: &dyn Simulation, sim: &SimSpec, look: &LookSpec) -> Box<dyn Painter> {
            match &look.kind {
                $(KindLook::$variant(kind) => {
                    let state = state.as_any().downcast_ref::<$sim>().expect("a scene's simulation and look are of one kind");
                    let drawing = Drawing { seed: sim.seed, timing: sim.timing, look, kind };
                    Box::new(<<$sim as KindSimulation>::Painter as KindPainter>::new(state, &drawing, painter))
                })*
            }
        }

        $(impl FromScene for $sim {
            fn from_scene_with(scene: &Scene, build: Builder) -> Option<Self> {
                #[allow(unreachable_patterns)] // a registry of one kind
                match &scene.sim.kind {
                    KindSpec::$variant(spec) => {
                        let inputs = SimInputs { seed: scene.sim.seed, timing: scene.sim.timing, spec };
                        Some(<$sim as KindSimulation>::new(&inputs, build))
                    }
                    _ => None,
                }
            }

            fn painter_with(&self, scene: &Scene, build: PainterBuilder) -> Option<Self::Painter> {
                #[allow(unreachable_patterns)] // a registry of one kind
                match &scene.look.kind {
                    KindLook::$variant(kind) => {
                        let drawing = Drawing { seed: scene.sim.seed, timing: scene.sim.timing, look: &scene.look, kind };
                        Some(<<$sim as KindSimulation>::Painter as KindPainter>::new(self, &drawing, build))
                    }
                    _ => None,
                }
            }
        })*
    };
}

/// A kind's simulation and its painter as their own types, for tests and tools that look inside
/// them (a die's table, a terrain's mesh).
pub struct Played<S: KindSimulation> {
    pub sim: S,
    pub painter: S::Painter,
}

impl<S: FromScene> Played<S> {
    /// `scene`'s simulation and painter; `None` for a scene of another kind.
    pub fn of(scene: &Scene) -> Option<Self> {
        let sim = S::from_scene(scene)?;
        let painter = sim.painter(scene)?;
        Some(Played { sim, painter })
    }

    /// Advances to frame `frame` and describes it.
    pub fn frame(&mut self, frame: u32) -> crate::frame::FrameData {
        self.sim.advance(frame);
        KindPainter::paint(&mut self.painter, &self.sim, frame)
    }
}

/// A played simulation reads as its simulation.
impl<S: KindSimulation> std::ops::Deref for Played<S> {
    type Target = S;

    fn deref(&self) -> &S {
        &self.sim
    }
}

impl<S: KindSimulation> std::ops::DerefMut for Played<S> {
    fn deref_mut(&mut self) -> &mut S {
        &mut self.sim
    }
}

/// A scene's simulation and its painter.
pub fn build(scene: &Scene) -> Player {
    let sim = simulation(&scene.sim);
    let painter = painter(&*sim, &scene.sim, &scene.look);
    Player::new(sim, painter)
}

/// `scene`'s player built from the simulation `S` alone: `None` for a scene of another kind, or a
/// figure. What a player of some kinds builds from (`crates/simreel-web`'s kind features), so that
/// nothing names the other kinds' simulations and a WebAssembly of one kind leaves them out: the
/// simulation and its painter are handed builders of nothing (only a figure's panels would call
/// them, and a figure is refused).
pub fn alone<S: FromScene>(scene: &Scene) -> Option<Player> {
    if matches!(scene.sim.kind, KindSpec::Figure(_)) {
        return None;
    }
    let sim = S::from_scene_with(scene, no_other_simulation)?;
    let painter = sim.painter_with(scene, no_other_painter)?;
    Some(Player::new(Box::new(sim), Box::new(painter)))
}

/// [`repaint`] for a player [`alone`] built: false when `player` does not play `S`.
pub fn repaint_alone<S: FromScene>(player: &mut Player, scene: &Scene) -> bool {
    let Some(sim) = player.sim().as_any().downcast_ref::<S>() else { return false };
    let Some(painter) = sim.painter_with(scene, no_other_painter) else { return false };
    player.set_painter(Box::new(painter));
    true
}

fn no_other_simulation(_: &SimSpec) -> Box<dyn Simulation> {
    unreachable!("a player built from one kind's simulation makes no other (`alone` refuses figures)")
}

fn no_other_painter(_: &dyn Simulation, _: &SimSpec, _: &LookSpec) -> Box<dyn Painter> {
    unreachable!("a player built from one kind's simulation makes no other (`alone` refuses figures)")
}

/// A new painter for `player` (which plays a scene with `scene`'s simulation part) with
/// `scene`'s look.
pub fn repaint(player: &mut Player, scene: &Scene) {
    let p = painter(player.sim(), &scene.sim, &scene.look);
    player.set_painter(p);
}

kinds! {
    Terrain => crate::sim::terrain::TerrainSim,
    Flock => crate::sim::flock::FlockSim,
    Dice => crate::sim::dice::DiceSim,
    Wind => crate::sim::wind::WindSim,
    Cargo => crate::sim::cargo::CargoSim,
    Figure => crate::sim::figure::FigureSim,
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::scene::{self, KINDS, SceneError};

    #[test]
    fn every_kind_reads_a_minimal_scene_and_builds_its_simulation() {
        for &name in KINDS {
            let text = format!("kind = \"{name}\"\n[render]\nwidth = 64\nheight = 48\nframes = 3\n");
            let s = scene::parse(&text, Path::new("k.toml")).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(s.kind_name(), name);
            let (bytes, what) = crate::scene::kind_tables::memory(&s.sim.kind, &s.look.kind);
            assert!(bytes > 0 && !what.is_empty(), "{name}: {bytes} bytes, {what:?}");
            assert!(s.memory_estimate(1).1.ends_with(" at 64×48"), "{}", s.memory_estimate(1).1);
            let mut sim = build(&s);
            assert_eq!(sim.frame(2).index, 2, "{name}");
            assert_eq!(sim.fault(), None, "{name}");
        }
    }

    #[test]
    fn a_simulation_is_built_from_a_scene_of_its_own_kind_only() {
        let parse = |kind: &str| scene::parse(&format!("kind = \"{kind}\"\n[render]\nframes = 2\n"), Path::new("k.toml")).unwrap();
        let (dice, flock) = (parse("dice"), parse("flock"));
        assert!(crate::sim::dice::DiceSim::from_scene(&dice).is_some());
        assert!(crate::sim::dice::DiceSim::from_scene(&flock).is_none());
        assert!(crate::sim::flock::FlockSim::from_scene(&flock).is_some());
        assert!(crate::sim::terrain::TerrainSim::from_scene(&dice).is_none());
    }

    /// A player built from one kind's simulation alone plays its scenes as the registry's does
    /// (the same state at the same frame, the same frame described), and nothing else.
    #[test]
    fn a_player_of_one_kind_plays_its_own_scenes_as_the_registry_does() {
        let parse = |kind: &str| scene::parse(&format!("kind = \"{kind}\"\n[render]\nframes = 4\n"), Path::new("k.toml")).unwrap();
        let (dice, flock) = (parse("dice"), parse("flock"));
        let mut alone = super::alone::<crate::sim::dice::DiceSim>(&dice).expect("a dice scene");
        let mut registry = build(&dice);
        assert_eq!(alone.frame(3), registry.frame(3));
        assert_eq!(alone.digest().to_string(), registry.digest().to_string());
        assert!(super::alone::<crate::sim::dice::DiceSim>(&flock).is_none());
        assert!(repaint_alone::<crate::sim::dice::DiceSim>(&mut alone, &dice));
        assert!(!repaint_alone::<crate::sim::flock::FlockSim>(&mut alone, &flock));
        let figure = crate::scene::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/figures/dice_roll.toml")).unwrap();
        assert!(super::alone::<crate::sim::figure::FigureSim>(&figure).is_none(), "a figure builds other kinds");
    }

    #[test]
    fn a_table_of_another_kind_is_reported_not_ignored() {
        for &name in KINDS {
            let other = KINDS.iter().find(|&&k| k != name).expect("two kinds");
            let text = format!("kind = \"{name}\"\n\n[{other}]\n");
            let Err(SceneError::Invalid { diagnostics, .. }) = scene::parse(&text, Path::new("k.toml")) else {
                panic!("[{other}] in a {name} scene was accepted")
            };
            assert!(
                diagnostics.iter().any(|d| d.key == *other && d.line == 3 && d.message.contains("unknown key")),
                "{name}: {diagnostics:?}"
            );
        }
    }

    /// Every shipped scene whose kind saves its state: a simulation built afresh and restored from
    /// a state saved halfway describes the frames after it exactly as the one that got there by
    /// stepping; a state of another frame, or cut short, is refused with the simulation untouched.
    #[test]
    fn every_saved_state_carries_on_bit_for_bit_and_a_foreign_one_is_refused() {
        let mut saving: Vec<&str> = Vec::new();
        for path in scene::scene_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")).expect("scenes/") {
            let scene = scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
            let last = scene.frames() - 1;
            let at = last / 2;
            let mut whole = build(&scene);
            for f in [0, at / 2, at] {
                whole.frame(f);
            }
            let Some(state) = whole.snapshot() else { continue };
            saving.push(scene.kind_name());
            let mut later = build(&scene);
            assert!(later.restore(at, &state), "{}: its own state is refused", path.display());
            if scene.kind_name() == "figure" {
                // its panels are restored, not built afresh to replay (which would draw the same)
                assert_eq!(later.digest(), whole.digest(), "{}: the panels' states after a restore", path.display());
            }
            for f in [at, at + 1, last] {
                assert!(whole.frame(f) == later.frame(f), "{}: frame {f} differs after a restore", path.display());
                assert_eq!(whole.digest(), later.digest(), "{}: frame {f}", path.display());
            }
            let mut fresh = build(&scene);
            let before = fresh.digest();
            assert!(!fresh.restore(at + 1, &state), "{}: a state of another frame", path.display());
            assert!(!fresh.restore(at, &state[..state.len() - 1]), "{}: a state cut short", path.display());
            assert_eq!(fresh.digest(), before, "{}: a refused state changed the simulation", path.display());
        }
        saving.sort_unstable();
        saving.dedup();
        assert_eq!(saving, ["cargo", "dice", "figure", "flock", "wind"], "the kinds that save their states");
    }
}
