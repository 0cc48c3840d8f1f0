//! `simreel compare`: any two pictures or folders, judged as golden checks judge frames.

/// `simreel compare`: the tolerance from the file and flags, every pair compared, a line each.
pub fn run(args: &crate::cli::CompareArgs) -> anyhow::Result<()> {
    use simreel_compare::ToleranceKeys;
    let file = args.tolerance.as_deref().map(ToleranceKeys::read).transpose()?.unwrap_or_default();
    let flags = ToleranceKeys {
        channel: args.channel,
        max_pixels: args.max_pixels,
        flip_mean: args.flip_mean,
        flip_p99: args.flip_p99,
        max_region: args.max_region,
        reason: None,
    };
    let plan = simreel_compare::files::Plan {
        expected: args.expected.clone(),
        actual: args.actual.clone(),
        tolerance: file.over(&flags).tolerance(),
        out: args.out.clone(),
    };
    simreel_compare::par::set_threads(args.threads.unwrap_or(0) as usize);
    if let Some(mp) = args.max_megapixels {
        simreel_compare::image::header::set_pixel_cap(mp as u64 * 1_000_000);
    }
    simreel_compare::image::header::set_ignore_orientation(args.ignore_orientation);
    simreel_compare::files::run(&plan, args.quiet, "simreel golden review --compare")?;
    Ok(())
}
