//! `[dice]`: jelly dice (seed 000).

/// Most dice a scene or a study may roll (the arena holds about this many side by side).
pub const MAX_DICE: usize = 12;
