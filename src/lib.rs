//! simreel: TOML scenes simulated deterministically on the CPU and rendered headlessly with wgpu
//! into PNG sequences, GIFs and golden-image checks.
//!
//! Data flows one way: [`scene`] (TOML → validated spec) → [`sim`] (deterministic stepping) →
//! [`frame::FrameData`] (plain data) → [`render`] (wgpu) → [`output`] (files). Scene and simulation
//! code never touch wgpu; the renderer never knows what it is drawing.

pub mod cli;
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
