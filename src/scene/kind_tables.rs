//! The kinds of scene, as the scene format knows them: each kind's table (`kind = "…"` names it,
//! `[…]` holds it) reads into two types: what its simulation is built from (the spec type that
//! implements [`KindTable`]) and what only its drawing reads (its [`KindTable::Look`]). The
//! `kind_tables!` list at the end is the one list of kinds: [`KindSpec`], [`KindLook`], the
//! [`KINDS`] named in error messages, reading the kind's table and its memory estimate are
//! generated from it. What simulates each kind is
//! the business of the registry in `src/kinds.rs`, which sits above this layer and the simulations.

use std::fmt::Debug;

use serde::Serialize;

use super::RenderSpec;
use super::keys::{Key, Table, Ty};
use super::reader::TableReader;

/// What a kind's scene table implements (in `src/scene/<kind>.rs`): `Self` is what the kind's
/// simulation is built from, [`KindTable::Look`] what only its drawing reads.
pub trait KindTable: Clone + Debug + PartialEq + Serialize + Sized {
    /// As written in `kind = "…"`; also the name of the kind's own table, `[<NAME>]`.
    const NAME: &'static str;
    /// The declaration of the kind's table: every key, with its default, range and meaning.
    const TABLE: &'static Table;
    /// What only the kind's drawing reads: colours, styles, what is shown.
    type Look: Clone + Debug + PartialEq + Serialize;
    /// Reads the kind's table into its two parts. Problems go to the reader's diagnostics (with
    /// their positions); what is missing or wrong takes its documented default, so reading never
    /// fails.
    fn read(table: &TableReader, render: &RenderSpec) -> (Self, Self::Look);
    /// A rough upper bound of the bytes the simulation's own state and a frame's description
    /// need, and what it is in words for the "too big" message ("5 dice", "a 96×64×96 terrain
    /// grid").
    fn memory(&self, look: &Self::Look) -> (u64, String);
    /// What a frame costs on the software adapter, for splitting work across shards: drawing in
    /// nanoseconds a pixel at 4× MSAA, and simulating in milliseconds. Measured on the project's
    /// 2-core machine (docs/benchmarks/render.md); only the ratios between scenes matter.
    fn frame_cost(&self, look: &Self::Look) -> (f64, f64);
    /// What a frame holds that grows with the scene rather than with the image (a flock's agents,
    /// their trails and paths), at `at`'s size and rate: [`Load`]. Nothing, for a kind whose
    /// [`KindTable::frame_cost`] says all.
    fn load(&self, look: &Self::Look, at: FrameSize) -> Load {
        let _ = (look, at);
        Load::default()
    }
}

/// The size and rate of a scene's frames, for [`KindTable::load`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameSize {
    pub width: u32,
    pub height: u32,
    pub fps: f64,
}

/// A frame's work beyond what its pixels cost ([`KindTable::load`]): the 2-D shapes drawn, the
/// pixels their quads cover and the pixels along their edges (each quad with the renderer's
/// anti-aliased margin: [`crate::frame::shape_quad`]), and simulating it; what it is, in words.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Load {
    pub shapes: f64,
    pub shape_pixels: f64,
    pub shape_edges: f64,
    pub simulate_ms: f64,
    pub what: String,
}

/// The key of a kind's table at the top level of a scene file.
const fn table_key<T: KindTable>() -> Key {
    Key::table(T::NAME, T::TABLE).doc(T::TABLE.doc)
}

/// Reads `[T::NAME]` from the scene's root table and reports the keys nobody asked for.
fn read_table<T: KindTable>(root: &TableReader, render: &RenderSpec) -> (T, T::Look) {
    let table = root.table(&table_key::<T>());
    let spec = T::read(&table, render);
    table.finish();
    spec
}

macro_rules! kind_tables {
    ($($(#[$doc:meta])* $variant:ident($spec:ty)),* $(,)?) => {
        /// What a scene's simulation is built from, of its kind.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        pub enum KindSpec {
            $($(#[$doc])* $variant($spec),)*
        }

        /// What only a scene's drawing reads, of its kind.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        pub enum KindLook {
            $($(#[$doc])* $variant(<$spec as KindTable>::Look),)*
        }

        /// The scene kinds, as written in `kind = "…"`.
        pub const KINDS: &[&str] = &[$(<$spec as KindTable>::NAME,)*];

        /// The top level of a scene file: the tables every kind shares, `kind`, and the table of
        /// the kind it names.
        pub const ROOT: Table = Table::tagged(
            "a scene file: what kind of scene, its shared tables and the kind's own",
            &super::ROOT_KEYS,
            "kind",
            &[$((<$spec as KindTable>::NAME, &[table_key::<$spec>()]),)*],
        );

        /// `kind = "…"`.
        pub const KIND: Key = Key::of("kind", Ty::Choice(KINDS)).required().doc("what this scene is; the kind's table is named after it");

        impl KindSpec {
            /// The kind's name, as written in `kind = "…"`.
            pub fn name(&self) -> &'static str {
                match self {
                    $(KindSpec::$variant(_) => <$spec as KindTable>::NAME,)*
                }
            }

            /// Reads the table of kind `name` (one of [`KINDS`]); `None` for any other name.
            pub(crate) fn read(name: &str, root: &TableReader, render: &RenderSpec) -> Option<(Self, KindLook)> {
                $(if name == <$spec as KindTable>::NAME {
                    let (spec, look) = read_table::<$spec>(root, render);
                    return Some((KindSpec::$variant(spec), KindLook::$variant(look)));
                })*
                None
            }
        }

        impl KindLook {
            /// The kind's name, as written in `kind = "…"`.
            pub fn name(&self) -> &'static str {
                match self {
                    $(KindLook::$variant(_) => <$spec as KindTable>::NAME,)*
                }
            }
        }

        /// See [`KindTable::frame_cost`]; `sim` and `look` are one scene's, so of one kind.
        pub fn frame_cost(sim: &KindSpec, look: &KindLook) -> (f64, f64) {
            match (sim, look) {
                $((KindSpec::$variant(spec), KindLook::$variant(look)) => spec.frame_cost(look),)*
                #[allow(unreachable_patterns)] // a build of one kind
                _ => unreachable!("a scene's simulation and look are of one kind"),
            }
        }

        /// See [`KindTable::load`]; `sim` and `look` are one scene's, so of one kind.
        pub fn load(sim: &KindSpec, look: &KindLook, at: FrameSize) -> Load {
            match (sim, look) {
                $((KindSpec::$variant(spec), KindLook::$variant(look)) => spec.load(look, at),)*
                #[allow(unreachable_patterns)] // a build of one kind
                _ => unreachable!("a scene's simulation and look are of one kind"),
            }
        }

        /// See [`KindTable::memory`]; `sim` and `look` are one scene's, so of one kind.
        pub fn memory(sim: &KindSpec, look: &KindLook) -> (u64, String) {
            match (sim, look) {
                $((KindSpec::$variant(spec), KindLook::$variant(look)) => spec.memory(look),)*
                #[allow(unreachable_patterns)] // a build of one kind
                _ => unreachable!("a scene's simulation and look are of one kind"),
            }
        }
    };
}

kind_tables! {
    /// `terrain`: marching cubes over a layered-noise field with SDF shapes.
    Terrain(super::terrain::TerrainSpec),
    /// `flock`: 2-D agents working a graph of nodes, lured by a scripted cursor.
    Flock(super::flock::FlockSpec),
    /// `dice`: jelly dice as small-step XPBD soft bodies.
    Dice(super::dice::DiceSpec),
    /// `wind`: grass and trees in a gusting wind field, drawn as instanced batches.
    Wind(super::wind::WindSpec),
    /// `cargo`: a carrier's jige with three stacked loads that lag, sway and settle.
    Cargo(super::cargo::CargoSpec),
    /// `figure`: other scenes and charts laid out as panels of one image, with captions and labels.
    Figure(super::figure::FigureSpec),
}
