//! The command-line reference in Markdown (docs/cli.md), made from the same clap definitions as
//! `--help`, the man pages and the shell completions, so it never goes stale.

use std::fmt::Write;

use clap::CommandFactory;

use super::Cli;

/// Every command and subcommand: what it does, its usage, and each argument with its help,
/// choices and default.
pub fn markdown() -> String {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut out = String::from(
        "# Command-line reference\n\n<!-- made by `simreel man --markdown`: edit the clap definitions (src/cli), not this file -->\n\n",
    );
    command(&mut out, &cmd, "simreel");
    out
}

fn command(out: &mut String, cmd: &clap::Command, path: &str) {
    let depth = path.split(' ').count().min(4);
    let _ = writeln!(out, "{} `{path}`\n", "#".repeat(depth + 1));
    if let Some(about) = cmd.get_long_about().or(cmd.get_about()) {
        let _ = writeln!(out, "{about}\n");
    }
    let usage = cmd.clone().render_usage().to_string().replace("Usage: ", "");
    let _ = writeln!(out, "```\n{}\n```\n", usage.trim());
    let args: Vec<&clap::Arg> =
        cmd.get_arguments().filter(|a| !a.is_hide_set() && a.get_id() != "help" && a.get_id() != "version").collect();
    if !args.is_empty() {
        out.push_str("| argument | meaning |\n|---|---|\n");
        for a in args {
            let cell = |s: String| simreel::text::table_cell(&s);
            let _ = writeln!(out, "| {} | {} |", cell(argument(a)), cell(meaning(a)));
        }
        out.push('\n');
    }
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        command(out, sub, &format!("{path} {}", sub.get_name()));
    }
}

/// `--frames SPEC`, `SCENE.toml…`.
fn argument(a: &clap::Arg) -> String {
    let value = a.get_value_names().map(|v| v.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" ")).unwrap_or_default();
    let takes = a.get_num_args().is_some_and(|n| n.takes_values());
    let many = a.get_num_args().is_some_and(|n| n.max_values() > 1);
    let name = match (a.get_long(), a.get_short()) {
        (Some(l), Some(s)) => format!("`-{s}`, `--{l}`"),
        (Some(l), None) => format!("`--{l}`"),
        (None, Some(s)) => format!("`-{s}`"),
        (None, None) => {
            return format!("`{}{}`", if value.is_empty() { a.get_id().to_string() } else { value }, if many { "…" } else { "" });
        }
    };
    if takes {
        let v = if value.is_empty() { a.get_id().to_string().to_uppercase() } else { value };
        format!("{name} `{v}`")
    } else {
        name
    }
}

/// The help, the choices and the default.
fn meaning(a: &clap::Arg) -> String {
    let mut m = a.get_long_help().or(a.get_help()).map(|h| h.to_string()).unwrap_or_default();
    if !m.is_empty() && !m.ends_with('.') {
        m.push('.');
    }
    let choices: Vec<String> = a.get_possible_values().iter().filter(|v| !v.is_hide_set()).map(|v| format!("`{}`", v.get_name())).collect();
    let is_flag = !a.get_num_args().is_some_and(|n| n.takes_values());
    if !choices.is_empty() && !is_flag {
        let _ = write!(m, " One of {}.", choices.join(", "));
    }
    let defaults: Vec<String> = a.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
    if !defaults.is_empty() && !is_flag {
        let _ = write!(m, " Default: `{}`.", defaults.join(" "));
    }
    if a.is_required_set() {
        m.push_str(" Required.");
    }
    m.trim().to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_command_and_its_arguments_are_in_the_reference() {
        let md = super::markdown();
        for needle in [
            "## `simreel render`",
            "#### `simreel golden check`",
            "`--frames` `SPEC`",
            "`--shard` `I/N\\|auto`",
            "Default: `out`",
            "`simreel schema`",
        ] {
            assert!(md.contains(needle), "no {needle:?} in the reference:\n{}", &md[..md.len().min(3000)]);
        }
    }
}
