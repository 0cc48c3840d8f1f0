//! The integration tests of the program's behaviour, one binary with a module per area (one link of
//! the crate instead of one per file): what a plain `cargo test --release` runs. `cargo test
//! --release --test suite -- render::` runs one area. The tests that drive other systems (a
//! Slurm cluster, the container image, the CI templates' runner, mdBook) are the `environments`
//! binary's (tests/environments/), which `scripts/test` runs too.
// test pictures and references may use the platform's math: only what simreel computes must be
// the same bits everywhere (src/portable.rs)
#![allow(clippy::disallowed_methods)]

/// The binary's command line, compiled here as `main.rs` declares it (the library has none): the
/// docs' examples are parsed with it and the reference checked against it.
#[allow(dead_code)]
#[path = "../../src/cli/mod.rs"]
mod cli;

mod assert_image;
mod batches;
mod browser;
mod cargo_cli;
mod common;
mod compare;
mod dice_cli;
mod docs;
mod extremes;
mod figures;
mod gif_fidelity;
mod golden;
mod golden_adapter;
mod golden_sweep;
mod hostile_neighbour;
mod identity;
mod identity_sweep;
mod long_frames;
mod manifold;
mod marching_cubes;
mod output_file;
mod overrides;
mod read_back;
mod render;
mod scenes_and_cli;
mod schema;
mod shards;
mod studio;
mod studio_door;
mod studio_security;
mod throughput;
mod untrusted;
mod web_formats;
