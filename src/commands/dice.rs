//! `simreel dice stats`: many rolls of a dice scene, and how often each face comes up.

use simreel::text::count;

use crate::cli::DiceStatsArgs;

pub fn stats(args: &DiceStatsArgs) -> anyhow::Result<()> {
    use simreel::sim::dice::stats::{self, StudySpec};
    let spec = StudySpec { dice: args.dice as usize, seeds: args.seeds, rolls_per_seed: args.rolls_per_seed, firmness: args.firmness };
    let pool = super::worker_pool(args.threads)?;
    let bar = if args.quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(spec.rolls()) };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} rolling [{bar:30}] {pos}/{len} rolls, {elapsed} (eta {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let started = std::time::Instant::now();
    let study = pool.install(|| stats::run(&spec, &|| bar.inc(1)));
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    if args.json {
        println!("{}", study.to_json());
    } else {
        print!("{}", study.table());
    }
    if !args.quiet {
        eprintln!("finished in {elapsed:.1} s on {}", count(pool.current_num_threads() as u64, "thread", "threads"));
    }
    Ok(())
}
