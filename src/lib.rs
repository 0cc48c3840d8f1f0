//! simreel: TOML scenes simulated deterministically on the CPU and rendered headlessly with wgpu
//! into PNG sequences, GIFs and golden-image checks.
//!
//! Data flows one way: [`scene`] (TOML → validated spec) → [`sim`] (deterministic stepping) →
//! [`frame::FrameData`] (plain data) → [`render`] (wgpu) → [`output`] (files). Scene and simulation
//! code never touch wgpu; the renderer never knows what it is drawing.
//!
//! The default feature `render` brings the renderer, the simulations and the studio; the command
//! line is the `simreel` binary's own (`src/cli/`, declared by `src/main.rs`), turned there into the
//! plain values the library takes. The golden comparator, its report, `assert_image!` and the review of pending images
//! are the `simreel-compare` crate's (re-exported under [`golden`]): a project that compares its
//! own images depends on that crate alone.

pub mod environment;
pub mod exit;
pub mod frame;
#[cfg(feature = "render")]
pub mod fuzz;
pub mod golden;
#[cfg(feature = "engine")]
pub mod kinds;
#[cfg(feature = "render")]
pub mod merge;
pub mod output;
#[cfg(feature = "render")]
pub mod pipeline;
pub mod plan;
pub mod portable;
#[cfg(feature = "engine")]
pub mod render;
pub mod scene;
#[cfg(feature = "engine")]
pub mod sim;
#[cfg(feature = "render")]
pub mod split;
#[cfg(feature = "render")]
pub mod studio;
pub mod text;

pub use simreel_compare::assert_image;

/// This build of simreel: the version and a fingerprint of everything compiled in that decides
/// what it computes and draws (sources, shaders, fonts, dependencies; see `build.rs`). Two builds
/// of one version from different code differ here, so a render never trusts another build's
/// frames, shards or saved states.
pub const BUILD: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("SIMREEL_SOURCE_HASH"));
