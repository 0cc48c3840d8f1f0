//! What a frame of a scene costs on the software adapter, for splitting work across shards: each
//! kind says its own (`KindTable::frame_cost`, beside its memory estimate), through the scene
//! layer's list of kinds.

use crate::scene::{KindLook, KindSpec};

/// Drawing (ns per pixel at 4× MSAA) and simulating (ms) one frame of a scene of kind `kind`
/// drawn with `look`.
pub fn kind_cost(kind: &KindSpec, look: &KindLook) -> (f64, f64) {
    crate::scene::kind_tables::frame_cost(kind, look)
}
