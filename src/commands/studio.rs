//! `simreel studio`: the local web page that shows scenes as they are edited.

use super::BadInput;
use crate::cli;

/// `simreel studio`: the arguments as the studio's options; serves until Ctrl-C.
pub fn run(args: cli::StudioArgs) -> anyhow::Result<()> {
    let opts = simreel::studio::Options {
        inputs: args.scenes,
        out: args.out,
        port: args.port,
        host: args.host,
        allow_hosts: args.allow_host,
        allow_writes: args.allow_writes,
        open: args.open,
        poll: args.poll,
        adapter: args.adapter.request(),
        goldens: args.goldens,
    };
    simreel::studio::serve(opts).map_err(|e| match e {
        simreel::studio::StudioError::Missing(_) => BadInput(e.to_string()).into(),
        e => e.into(),
    })
}
