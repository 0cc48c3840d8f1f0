//! The `dice` scene kind (seed 000): jelly dice simulated with small-step XPBD, thrown by the
//! seeded RNG, read from the physics when they settle.
//!
//! - [`model`]: one die's lattice, links and tetrahedra; [`pack`]: four dice side by side and the
//!   lane-wise constraint solve; [`lanes`]: the per-step lane kernels (damping, floor and fence);
//!   [`rigid`]: a die as a rigid body.
//! - [`table`]: the floor, the fence and the fixed-step loop over every pack; [`roller`]: the
//!   rules of a roll (settle, read, nudge, die–die contact, a hand); [`throw`]: the random draws;
//!   [`orientation`]: cube rotations and the top face.
//! - [`driver`]: the scene kind ([`DiceSim`]): the script, the frames and the results strip;
//!   [`stats`]: the roll study; [`mesh`]: the die and table meshes.

mod contact;
pub mod driver;
pub mod lanes;
pub mod math;
pub mod mesh;
pub mod model;
pub mod orientation;
pub mod pack;
pub mod rigid;
pub mod roller;
mod snapshot;
pub mod stats;
pub mod table;
#[cfg(test)]
mod tests;
pub mod throw;
pub mod world;

pub use driver::DiceSim;
