//! simreel: TOML scenes simulated deterministically on the CPU and rendered headlessly with wgpu
//! into PNG sequences, GIFs and golden-image checks.
//!
//! Data flows one way: [`scene`] (TOML → validated spec) → [`sim`] (deterministic stepping) →
//! [`frame::FrameData`] (plain data) → [`render`] (wgpu) → [`output`] (files). Scene and simulation
//! code never touch wgpu; the renderer never knows what it is drawing.

pub mod cli;
pub mod environment;
pub mod frame;
pub mod fuzz;
pub mod golden;
pub mod kinds;
pub mod merge;
pub mod output;
pub mod pipeline;
pub mod plan;
pub mod render;
pub mod scene;
pub mod sim;
pub mod split;
pub mod studio;
pub mod text;

/// This build of simreel: the version and a fingerprint of everything compiled in that decides
/// what it computes and draws (sources, shaders, fonts, dependencies; see `build.rs`). Two builds
/// of one version from different code differ here, so a render never trusts another build's
/// frames, shards or saved states.
pub const BUILD: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("SIMREEL_SOURCE_HASH"));
