//! The `dice` scene kind (seed 000): jelly dice simulated with small-step XPBD, thrown by the
//! seeded RNG, read from the physics when they settle.

pub mod game;
pub mod math;
pub mod mesh;
pub mod model;
pub mod pack;
pub mod stats;
#[cfg(test)]
mod tests;
pub mod world;

pub use game::DiceSim;
