//! The registry of scene kinds: the one place that lists them. Each line of the `kinds!` list at the end names a
//! variant of [`KindSpec`] and the simulation that plays it; the simulation names its spec, the
//! spec names the kind (`kind = "…"`, which is also its table, `[…]`), reads that table and
//! estimates its own memory. Everything that dispatches on a kind — reading a scene, the memory
//! check, building the simulation (boxed, or as its own type through [`FromScene`]), the list in
//! error messages — is generated from this list.
//!
//! Adding a kind is the README's "Adding a scene kind": a spec in `src/scene/<kind>.rs`
//! implementing [`KindTable`], a simulation in `src/sim/<kind>/` implementing [`KindSimulation`],
//! and one line here.

use std::fmt::Debug;

use crate::scene::reader::TableReader;
use crate::scene::{RenderSpec, Scene};
use crate::sim::Simulation;

/// What a kind's scene table implements (in `src/scene/<kind>.rs`).
pub trait KindTable: Clone + Debug + PartialEq + Sized {
    /// As written in `kind = "…"`; also the name of the kind's own table, `[<NAME>]`.
    const NAME: &'static str;
    /// Reads the kind's table. Problems go to the reader's diagnostics (with their positions);
    /// what is missing or wrong takes its documented default, so reading never fails.
    fn read(table: &TableReader, render: &RenderSpec) -> Self;
    /// A rough upper bound of the bytes the simulation's own state needs, and what it is in words
    /// for the "too big" message ("5 dice", "a 96×64×96 terrain grid").
    fn memory(&self) -> (u64, String);
    /// A frame's rough cost on the software adapter, for splitting work across shards
    /// ([`crate::split`]): nanoseconds of drawing per pixel at 4× MSAA, and milliseconds of
    /// simulation. Measured on the project's 2-core machine (BENCHMARKS.md); only ratios matter.
    fn cost(&self) -> (f64, f64);
}

/// What a kind's simulation implements (in `src/sim/<kind>/`): it is built from its own spec, so
/// it never meets a scene of another kind.
pub trait KindSimulation: Simulation + Sized + 'static {
    type Spec: KindTable;
    fn new(scene: &Scene, spec: &Self::Spec) -> Self;
}

/// A registered kind's simulation built from a whole scene: `None` when the scene is of another
/// kind. The registry implements it for every simulation it lists.
pub trait FromScene: Sized {
    fn from_scene(scene: &Scene) -> Option<Self>;
}

/// Reads `[T::NAME]` from the scene's root table and reports the keys nobody asked for.
fn read_table<T: KindTable>(root: &TableReader, render: &RenderSpec) -> T {
    let table = root.table(T::NAME);
    let spec = T::read(&table, render);
    table.finish();
    spec
}

macro_rules! kinds {
    ($($(#[$doc:meta])* $variant:ident => $sim:ty),* $(,)?) => {
        /// The kind-specific part of a scene.
        #[derive(Clone, Debug, PartialEq)]
        pub enum KindSpec {
            $($(#[$doc])* $variant(<$sim as KindSimulation>::Spec),)*
        }

        /// The scene kinds this build can simulate, as written in `kind = "…"`.
        pub const KINDS: &[&str] = &[$(<<$sim as KindSimulation>::Spec as KindTable>::NAME,)*];

        impl KindSpec {
            /// The kind's name, as written in `kind = "…"`.
            pub fn name(&self) -> &'static str {
                match self {
                    $(KindSpec::$variant(_) => <<$sim as KindSimulation>::Spec as KindTable>::NAME,)*
                }
            }

            /// Reads the table of kind `name` (one of [`KINDS`]); `None` for any other name.
            pub(crate) fn read(name: &str, root: &TableReader, render: &RenderSpec) -> Option<Self> {
                $(if name == <<$sim as KindSimulation>::Spec as KindTable>::NAME {
                    return Some(KindSpec::$variant(read_table(root, render)));
                })*
                None
            }

            /// See [`KindTable::memory`].
            pub fn memory(&self) -> (u64, String) {
                match self {
                    $(KindSpec::$variant(spec) => spec.memory(),)*
                }
            }

            /// See [`KindTable::cost`].
            pub fn cost(&self) -> (f64, f64) {
                match self {
                    $(KindSpec::$variant(spec) => spec.cost(),)*
                }
            }

            /// The simulation of this kind, built from this spec.
            pub fn simulation(&self, scene: &Scene) -> Box<dyn Simulation> {
                match self {
                    $(KindSpec::$variant(spec) => Box::new(<$sim as KindSimulation>::new(scene, spec)),)*
                }
            }
        }

        $(impl FromScene for $sim {
            fn from_scene(scene: &Scene) -> Option<Self> {
                #[allow(unreachable_patterns)] // a registry of one kind
                match &scene.kind {
                    KindSpec::$variant(spec) => Some(<$sim as KindSimulation>::new(scene, spec)),
                    _ => None,
                }
            }
        })*
    };
}

kinds! {
    /// `terrain`: marching cubes over a layered-noise field with SDF shapes (seed 002).
    Terrain => crate::sim::terrain::TerrainSim,
    /// `flock`: 2-D agents working a graph of nodes, lured by a scripted cursor (seed 004).
    Flock => crate::sim::flock::FlockSim,
    /// `dice`: jelly dice as small-step XPBD soft bodies (seed 000).
    Dice => crate::sim::dice::DiceSim,
    /// `wind`: grass and trees in a gusting wind field, drawn as instanced batches (seed 003).
    Wind => crate::sim::wind::WindSim,
    /// `cargo`: a carrier's jige with three stacked loads that lag, sway and settle (seed 001).
    Cargo => crate::sim::cargo::CargoSim,
    /// `figure`: other scenes and charts laid out as panels of one image, with captions and labels.
    Figure => crate::sim::figure::FigureSim,
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::scene::{self, SceneError};

    #[test]
    fn every_kind_reads_a_minimal_scene_and_builds_its_simulation() {
        for &name in KINDS {
            let text = format!("kind = \"{name}\"\n[render]\nwidth = 64\nheight = 48\nframes = 3\n");
            let s = scene::parse(&text, Path::new("k.toml")).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(s.kind.name(), name);
            let (bytes, what) = s.kind.memory();
            assert!(bytes > 0 && !what.is_empty(), "{name}: {bytes} bytes, {what:?}");
            assert!(s.memory_estimate(1).1.ends_with(" at 64×48"), "{}", s.memory_estimate(1).1);
            let mut sim = crate::sim::build(&s);
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
}
