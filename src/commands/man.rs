//! `simreel man` and `simreel completions`: the command line's own reference, as man pages,
//! Markdown (docs/cli.md) or a shell's completion script.

use clap::CommandFactory;

use crate::cli::{self, Cli};

/// `simreel man`: the reference in Markdown (`markdown`), or man pages.
pub fn run(markdown: bool, out: Option<&std::path::Path>) -> anyhow::Result<()> {
    if markdown {
        print!("{}", cli::reference::markdown());
        return Ok(());
    }
    pages(out)
}

/// `simreel completions`: the script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<()> {
    clap_complete::generate(shell, &mut Cli::command(), "simreel", &mut std::io::stdout());
    Ok(())
}

/// The man page of `simreel` on stdout, or every page (one per command and subcommand, named
/// like `simreel-golden-check.1`) written into `out`.
pub fn pages(out: Option<&std::path::Path>) -> anyhow::Result<()> {
    let render = |cmd: clap::Command| -> std::io::Result<Vec<u8>> {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page)?;
        Ok(page)
    };
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let Some(dir) = out else {
        std::io::Write::write_all(&mut std::io::stdout(), &render(cmd)?)?;
        return Ok(());
    };
    let mut pending = vec![cmd];
    let mut written = 0;
    while let Some(cmd) = pending.pop() {
        pending.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
        let name = format!("{}.1", cmd.get_display_name().unwrap_or_else(|| cmd.get_name()));
        simreel::output::write_atomic(&dir.join(name), &render(cmd)?)?;
        written += 1;
    }
    eprintln!("wrote {written} man pages into {}", dir.display());
    Ok(())
}
