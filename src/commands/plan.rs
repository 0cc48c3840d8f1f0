//! `simreel plan`: the jobs for a scheduler (Slurm or Kubernetes) that renders scenes in shards.

use super::BadInput;
use crate::cli;

/// `simreel plan`: the scenes and frames are checked as `render` checks them, then the plan for
/// the scheduler is printed.
pub fn run(args: &cli::PlanArgs) -> anyhow::Result<()> {
    for path in &args.scenes {
        let s = super::load(path)?;
        if let Some(spec) = &args.frames {
            simreel::scene::frames::parse_frames(spec, s.sim.timing.frames)
                .map_err(|e| BadInput(format!("--frames: {e} (scene {})", s.name)))?;
        }
    }
    let render = simreel::plan::RenderOptions {
        out: args.out.clone(),
        size: args.size,
        frames: args.frames.clone(),
        format: args.format.as_ref().map(|f| f.0.iter().map(|f| f.name()).collect::<Vec<_>>().join(",")),
        backend: args.backend.and_then(|b| clap::ValueEnum::to_possible_value(&b)).map(|v| v.get_name().to_string()),
        adapter: args.adapter.clone(),
    };
    let text = if args.slurm {
        let slurm = simreel::plan::Slurm {
            partition: args.partition.clone(),
            time: args.time.clone(),
            cpus: args.cpus,
            gpus: args.gpus,
            memory: args.memory.clone(),
        };
        simreel::plan::slurm(&args.binary, &args.scenes, args.shards, &render, &slurm, &std::env::current_dir()?)
    } else {
        let k8s = simreel::plan::Kubernetes {
            image: args.image.clone(),
            claim: args.claim.clone(),
            mount: args.mount.clone(),
            workdir: args.workdir.clone(),
            parallelism: args.parallelism,
            cpu: args.cpus.map(|c| c.to_string()),
            memory: args.memory.clone(),
            gpus: args.gpus,
        };
        simreel::plan::kubernetes(&args.binary, &args.scenes, args.shards, &render, &k8s)
    };
    print!("{text}");
    Ok(())
}
