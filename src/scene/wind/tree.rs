//! `[[wind.tree]]`: a tree whose trunk sways with inertia in the wind and whose crown of leaves
//! flutters: its keys, what the simulation and the drawing read, and its reading.

use super::{FAR, INHERITED_MODEL, Model, model};
use crate::scene::keys::{Key, Table, Ty};
use crate::scene::reader::TableReader;
use crate::scene::values::Srgb;

const TREE_AT: Key = Key::vector("at", &[0.0, 0.0], -FAR, FAR).required().unit("m").doc("where the tree stands, [x, z]");
const TREE_HEIGHT: Key = Key::float("height", 7.0, 0.1, 200.0).unit("m").doc("height of the trunk");
const FREQUENCIES: Key = Key::of("frequencies", Ty::NonEmpty(&Ty::Float { min: 0.0, max: 100.0 }))
    .said("[1.975, 0.793, 0.375, 0.193]")
    .unit("Hz")
    .doc("1 to 8 frequencies of the leaves' flutter (Crysis's detail-bending set)");
const FLUTTER_AMPLITUDE: Key = Key::float("amplitude", 18.0, 0.0, 90.0).unit("°").doc("how far the leaves flutter");
const FLUTTER: Table = Table::new("the leaves' flutter", &[FREQUENCIES, FLUTTER_AMPLITUDE]);
const FLUTTER_KEY: Key = Key::table("flutter", &FLUTTER).doc(FLUTTER.doc);
const TREE_STIFFNESS: Key = Key::float("stiffness", 1.0, 0.01, 100.0).doc("how hard the trunk resists the wind");
const TREE_FREQUENCY: Key = Key::float("frequency", 0.45, 0.01, 20.0).unit("Hz").doc("the trunk's sway frequency");
const TREE_DAMPING: Key = Key::float("damping", 0.3, 0.01, 0.999).doc("damping ratio of the sway");
const CROWN: Key = Key::float("crown", 1.96, 0.01, 100.0).said("0.28 × height").unit("m").doc("radius of the crown");
const LEAVES: Key = Key::int("leaves", 900, 0, 100_000).doc("leaves in the crown");
const BARK: Key = Key::color("bark", crate::srgb!("#5a4330")).doc("colour of the trunk");
const LEAF: Key = Key::color("leaf", crate::srgb!("#4f7d2a")).doc("colour of the leaves");
pub(super) const TREE: Table = Table::new(
    "a tree: a trunk that sways with inertia and a crown of fluttering leaves",
    &[INHERITED_MODEL, TREE_AT, TREE_HEIGHT, FLUTTER_KEY, TREE_STIFFNESS, TREE_FREQUENCY, TREE_DAMPING, CROWN, LEAVES, BARK, LEAF],
);

/// Leaf flutter: smooth triangle waves at `frequencies` (Hz), `amplitude` degrees of leaf turn.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FlutterSpec {
    pub amplitude_deg: f64,
    pub frequencies: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TreeSpec {
    pub model: Model,
    pub at: [f64; 2],
    pub height: f64,
    /// Divides the lean (the seed's `BendingStiffness`, which its code never uses).
    pub stiffness: f64,
    /// Natural sway frequency (Hz) and damping ratio of the trunk.
    pub frequency: f64,
    pub damping: f64,
    pub crown: f64,
    pub leaves: u32,
    pub flutter: FlutterSpec,
}

/// A tree's colours.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TreeLook {
    pub bark: Srgb,
    pub leaf: Srgb,
}

pub(super) fn read_tree(t: &TableReader, default: Model) -> (TreeSpec, TreeLook) {
    if !t.has(&TREE_AT) {
        t.error_here("a tree needs `at` = [x, z]");
    }
    let height = t.float(&TREE_HEIGHT);
    let f = t.table(&FLUTTER_KEY);
    let frequencies = match f.raw(&FREQUENCIES) {
        Some(v) => {
            let list = crate::scene::reader::number_list(v.get_ref()).unwrap_or_default();
            if list.is_empty() || list.len() > 8 || list.iter().any(|x| !(*x > 0.0 && *x < 100.0)) {
                f.error_at(&FREQUENCIES, "expected 1 to 8 frequencies in Hz, each above 0 and below 100");
            }
            list
        }
        // Crysis's detail-bending wave set (GPU Gems 3, ch. 16)
        None => vec![1.975, 0.793, 0.375, 0.193],
    };
    let flutter = FlutterSpec { amplitude_deg: f.float(&FLUTTER_AMPLITUDE), frequencies };
    f.finish();
    let spec = TreeSpec {
        model: model(t, default),
        at: t.numbers(&TREE_AT),
        height,
        stiffness: t.float(&TREE_STIFFNESS),
        frequency: t.float(&TREE_FREQUENCY),
        damping: t.float(&TREE_DAMPING),
        crown: t.float_or(&CROWN, height * 0.28),
        leaves: t.int(&LEAVES) as u32,
        flutter,
    };
    (spec, TreeLook { bark: t.color(&BARK), leaf: t.color(&LEAF) })
}
