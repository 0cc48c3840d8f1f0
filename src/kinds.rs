//! What simulates each scene kind: the one place that lists every kind's simulation. Each line of
//! the `kinds!` list at the end names a variant of [`KindSpec`] (declared by the scene layer, in
//! `crate::scene::kind`) and the simulation that plays it; building a scene's simulation (boxed
//! through [`build`], or as its own type through [`FromScene`]) is generated from that list. A
//! kind added to the scene layer and not here does not compile: the match is exhaustive.
//!
//! Adding a kind is docs/contributing.md's "Adding a scene kind": a spec in `src/scene/<kind>.rs`
//! implementing `KindTable` and listed in `crate::scene::kind`, a simulation in
//! `src/sim/<kind>/` implementing [`KindSimulation`], and one line here.

use crate::scene::{KindSpec, Scene};
use crate::sim::{KindSimulation, Simulation};

/// A registered kind's simulation built from a whole scene: `None` when the scene is of another
/// kind. The registry implements it for every simulation it lists.
pub trait FromScene: Sized {
    fn from_scene(scene: &Scene) -> Option<Self>;
}

macro_rules! kinds {
    ($($variant:ident => $sim:ty),* $(,)?) => {
        /// Builds the simulation a scene asks for.
        pub fn build(scene: &Scene) -> Box<dyn Simulation> {
            match &scene.kind {
                $(KindSpec::$variant(spec) => Box::new(<$sim as KindSimulation>::new(scene, spec, build)),)*
            }
        }

        $(impl FromScene for $sim {
            fn from_scene(scene: &Scene) -> Option<Self> {
                #[allow(unreachable_patterns)] // a registry of one kind
                match &scene.kind {
                    KindSpec::$variant(spec) => Some(<$sim as KindSimulation>::new(scene, spec, build)),
                    _ => None,
                }
            }
        })*
    };
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
            assert_eq!(s.kind.name(), name);
            let (bytes, what) = s.kind.memory();
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
            let last = scene.render.frames - 1;
            let at = last / 2;
            let mut whole = build(&scene);
            for f in [0, at / 2, at] {
                whole.frame(f);
            }
            let Some(state) = whole.snapshot() else { continue };
            saving.push(scene.kind.name());
            let mut later = build(&scene);
            assert!(later.restore(at, &state), "{}: its own state is refused", path.display());
            if scene.kind.name() == "figure" {
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
