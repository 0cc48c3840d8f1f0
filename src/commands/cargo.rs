//! `simreel cargo probe`: a cargo scene's stack as its springs hold it, without rendering.

use super::BadInput;
use crate::cli::CargoProbeArgs;

pub fn probe(args: &CargoProbeArgs) -> anyhow::Result<()> {
    let scene = match &args.scene {
        Some(path) => super::load(path)?,
        None => simreel::scene::parse("kind = \"cargo\"\n", std::path::Path::new("defaults.toml"))?,
    };
    let simreel::scene::KindSpec::Cargo(spec) = &scene.sim.kind else {
        let path = args.scene.as_deref().unwrap_or(std::path::Path::new("?")).display();
        return Err(BadInput(format!("{path} is a {} scene; `cargo probe` takes a cargo scene", scene.kind_name())).into());
    };
    let probe = simreel::sim::cargo::probe::probe(&scene, spec, args.fill);
    if args.json {
        println!("{}", probe.to_json());
    } else {
        print!("{}", probe.table());
    }
    Ok(())
}
