//! The kinds of scene, as the scene format knows them: each kind's table (`kind = "…"` names it,
//! `[…]` holds it) is a spec type implementing [`KindTable`], and the `kind_tables!` list at the
//! end is the one list of them. [`KindSpec`], the [`KINDS`] named in error messages, reading the
//! kind's table and its memory estimate are generated from that list. What simulates each kind is
//! the business of the registry in `src/kinds.rs`, which sits above this layer and the simulations.

use std::fmt::Debug;

use super::RenderSpec;
use super::keys::{Key, Table, Ty};
use super::reader::TableReader;

/// What a kind's scene table implements (in `src/scene/<kind>.rs`).
pub trait KindTable: Clone + Debug + PartialEq + Sized {
    /// As written in `kind = "…"`; also the name of the kind's own table, `[<NAME>]`.
    const NAME: &'static str;
    /// The declaration of the kind's table: every key, with its default, range and meaning.
    const TABLE: &'static Table;
    /// Reads the kind's table. Problems go to the reader's diagnostics (with their positions);
    /// what is missing or wrong takes its documented default, so reading never fails.
    fn read(table: &TableReader, render: &RenderSpec) -> Self;
    /// A rough upper bound of the bytes the simulation's own state needs, and what it is in words
    /// for the "too big" message ("5 dice", "a 96×64×96 terrain grid").
    fn memory(&self) -> (u64, String);
}

/// The key of a kind's table at the top level of a scene file.
const fn table_key<T: KindTable>() -> Key {
    Key::table(T::NAME, T::TABLE).doc(T::TABLE.doc)
}

/// Reads `[T::NAME]` from the scene's root table and reports the keys nobody asked for.
fn read_table<T: KindTable>(root: &TableReader, render: &RenderSpec) -> T {
    let table = root.table(&table_key::<T>());
    let spec = T::read(&table, render);
    table.finish();
    spec
}

macro_rules! kind_tables {
    ($($(#[$doc:meta])* $variant:ident($spec:ty)),* $(,)?) => {
        /// The kind-specific part of a scene.
        #[derive(Clone, Debug, PartialEq)]
        pub enum KindSpec {
            $($(#[$doc])* $variant($spec),)*
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
            pub(crate) fn read(name: &str, root: &TableReader, render: &RenderSpec) -> Option<Self> {
                $(if name == <$spec as KindTable>::NAME {
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
        }
    };
}

kind_tables! {
    /// `terrain`: marching cubes over a layered-noise field with SDF shapes (seed 002).
    Terrain(super::terrain::TerrainSpec),
    /// `flock`: 2-D agents working a graph of nodes, lured by a scripted cursor (seed 004).
    Flock(super::flock::FlockSpec),
    /// `dice`: jelly dice as small-step XPBD soft bodies (seed 000).
    Dice(super::dice::DiceSpec),
    /// `wind`: grass and trees in a gusting wind field, drawn as instanced batches (seed 003).
    Wind(super::wind::WindSpec),
    /// `cargo`: a carrier's jige with three stacked loads that lag, sway and settle (seed 001).
    Cargo(super::cargo::CargoSpec),
    /// `figure`: other scenes and charts laid out as panels of one image, with captions and labels.
    Figure(super::figure::FigureSpec),
}
