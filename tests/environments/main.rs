//! The integration tests that drive other systems with simreel: a real one-node Slurm cluster, the
//! container image built and run, the CI templates' runner on a user's project, the comparator's
//! npm and Python packages in throwaway projects, the book built by mdBook, and two accounts of
//! this machine, one attacking the other's work in a shared folder, and a system root without
//! `/dev/stdout` (a mount namespace) for the videos ffmpeg writes. Slower and needing
//! those tools (`scripts/ensure-test-tools` installs them), they are a binary of their own behind
//! the `environment-tests` feature: `scripts/test` (and so `.ci/run`) runs them; a plain `cargo test` runs the program's behaviour (tests/suite/) only.
//!
//! `cargo test --release --features environment-tests --test environments` runs them alone.

// test pictures and references may use the platform's math: only what simreel computes must be
// the same bits everywhere (src/portable.rs)
#![allow(clippy::disallowed_methods)]

#[allow(dead_code)]
#[path = "../suite/common.rs"]
mod common;

#[allow(dead_code)]
#[path = "../suite/browser.rs"]
mod browser;

mod bare_root;
mod book;
mod ci_templates;
mod container;
mod packages;
mod slurm;
mod two_users;
mod web_player;
