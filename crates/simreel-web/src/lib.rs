//! simreel's scenes played in a web page: the simulations, scenes and renderer of the `simreel`
//! library compiled to WebAssembly (`wasm32-unknown-unknown`), stepping the same states as the
//! command line to the last bit (the portable math of `simreel::portable`), drawn with wgpu on
//! WebGPU or WebGL2 into a canvas. `scripts/build-web` builds it; `simreel embed` ships it with a
//! scene, a poster and `web/simreel-player.js`, the `<simreel-player>` element.
//!
//! [`session`] is the part a page does not change (a scene at a frame, sent anywhere, and its
//! state line) and [`take`] what a reader does to it, written into the scene's text; both tested
//! natively; `web` (WebAssembly only) is what the page's script calls. [`kinds`] says which kinds
//! this build plays (the crate's features; all by default).

pub mod kinds;
pub mod session;
pub mod take;
#[cfg(target_arch = "wasm32")]
mod web;
