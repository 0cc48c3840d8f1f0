//! `simreel-compare`: compare two pictures or two folders of them, and review what failed.
//! Small on purpose (no argument-parsing crate): a project's tests and CI install it in seconds.

use std::path::PathBuf;
use std::process::ExitCode;

use simreel_compare::{Error, ToleranceKeys, exit, files, review, tolerance, trust};

const USAGE: &str = "\
simreel-compare: golden-image comparison that sees what a person sees

usage:
  simreel-compare compare EXPECTED ACTUAL [options]   two pictures, or two folders matched by path
  simreel-compare review [--out DIR] [--accept-all]   accept or reject what the last comparison failed
  simreel-compare review --pending DIR [--accept-all] the pending images of tests (assert_image!)

compare options:
  --out DIR            the report goes to DIR/compare-report/ (default: out)
  --tolerance FILE     tolerance keys in a TOML file (channel, max_pixels, flip_mean, flip_p99,
                       max_region, reason); the flags below override it
  --channel LEVELS     a pixel differs when a channel moves by more than this (default 2)
  --max-pixels N|SHARE how many pixels may differ beyond anti-aliasing along an edge: a count (40)
                       or a share (0.1%, 0.001; default 0.1%); with --channel 0 every pixel counts
  --max-region WEIGHT  a compact region of change weighing more than this fails (default 4)
  --flip-mean X        perceptual layer: the largest mean FLIP error (0-1; default 0: off)
  --flip-p99 X         perceptual layer: the largest 99th percentile of the FLIP error (0-1)
  --threads N          worker threads (default: one per core); results do not depend on it
  --max-megapixels MP  the largest picture read (default 100): a larger one, or one whose header
                       says so, is refused before it is decoded (exit 2)
  --ignore-orientation compare pictures as stored: a JPEG's, PNG's, WebP's or TIFF's EXIF
                       orientation is applied by default, as browsers show them
  -q, --quiet          only the outcome

Pictures: PNG (any bit depth), JPEG, WebP, BMP, TIFF.
Exit codes: 0 match, 4 differ, 2 bad input (unreadable or unsupported files, bad options), 1 other.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    simreel_compare::fs::on_shared_folder(|s| eprintln!("warning: {s}"));
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Help) => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Err(Failure::Usage(why)) => {
            eprintln!("error: {why}\n\n{USAGE}");
            ExitCode::from(exit::BAD_INPUT)
        }
        Err(Failure::Run(e)) => {
            // an error may name what a file said: nothing reaches the terminal raw
            let safe = |t: String| simreel_compare::text::for_terminal(&t).into_owned();
            eprintln!("error: {}", safe(e.to_string()));
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                eprintln!("  caused by: {}", safe(c.to_string()));
                cause = c.source();
            }
            ExitCode::from(e.exit_code().unwrap_or(exit::RUNTIME))
        }
    }
}

enum Failure {
    /// `--help` after a command: the usage, exit 0.
    Help,
    Usage(String),
    Run(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Run(e)
    }
}

fn run(args: &[String]) -> Result<(), Failure> {
    match args.first().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(())
        }
        Some("-V" | "--version") => {
            println!("simreel-compare {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some("compare") => compare(&Flags::parse(&args[1..])?),
        Some("review") => review(&Flags::parse(&args[1..])?),
        Some(other) => Err(Failure::Usage(format!("unknown command `{other}`: `compare` or `review`"))),
    }
}

/// The words after the command: positional ones and `--flag value` (or `--flag=value`) pairs.
struct Flags {
    positional: Vec<String>,
    options: Vec<(String, String)>,
    switches: Vec<String>,
}

/// Flags that take no value.
const SWITCHES: &[&str] = &["--quiet", "-q", "--accept-all", "--ignore-orientation"];

impl Flags {
    fn parse(words: &[String]) -> Result<Flags, Failure> {
        let mut f = Flags { positional: Vec::new(), options: Vec::new(), switches: Vec::new() };
        let mut it = words.iter();
        while let Some(w) = it.next() {
            if w == "-h" || w == "--help" {
                return Err(Failure::Help);
            } else if SWITCHES.contains(&w.as_str()) {
                f.switches.push(w.clone());
            } else if let Some((flag, value)) = w.split_once('=').filter(|_| w.starts_with("--")) {
                f.options.push((flag.to_string(), value.to_string()));
            } else if w.starts_with('-') && w.len() > 1 {
                let value = it.next().ok_or_else(|| Failure::Usage(format!("{w} needs a value")))?;
                f.options.push((w.clone(), value.clone()));
            } else {
                f.positional.push(w.clone());
            }
        }
        Ok(f)
    }

    /// The value of `flag` parsed by `parse`, if given; a flag given twice or not among `known`
    /// is refused by [`Flags::only`].
    fn get<T>(&self, flag: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<Option<T>, Failure> {
        self.options
            .iter()
            .find(|(f, _)| f == flag)
            .map(|(_, v)| parse(v).map_err(|why| Failure::Usage(format!("{flag} {v}: {why}"))))
            .transpose()
    }

    fn has(&self, switch: &str) -> bool {
        self.switches.iter().any(|s| s == switch)
    }

    /// Refuses options other than `known`, and any given twice.
    fn only(&self, known: &[&str]) -> Result<(), Failure> {
        for (i, (f, _)) in self.options.iter().enumerate() {
            if !known.contains(&f.as_str()) {
                return Err(Failure::Usage(format!("unknown option {f}")));
            }
            if self.options[..i].iter().any(|(g, _)| g == f) {
                return Err(Failure::Usage(format!("{f} is given twice")));
            }
        }
        Ok(())
    }
}

fn number<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    s.trim().parse().map_err(|_| "not a number in range".to_string())
}

fn compare(f: &Flags) -> Result<(), Failure> {
    let known =
        ["--out", "--tolerance", "--channel", "--max-pixels", "--max-region", "--flip-mean", "--flip-p99", "--threads", "--max-megapixels"];
    f.only(&known)?;
    if f.has("--accept-all") {
        return Err(Failure::Usage("--accept-all is review's".into()));
    }
    simreel_compare::image::header::set_ignore_orientation(f.has("--ignore-orientation"));
    let [expected, actual] = f.positional.as_slice() else {
        return Err(Failure::Usage("compare takes two paths: EXPECTED ACTUAL".into()));
    };
    let file = f.get("--tolerance", |p| Ok(PathBuf::from(p)))?.map(|p| ToleranceKeys::read(&p)).transpose()?.unwrap_or_default();
    let flags = ToleranceKeys {
        channel: f.get("--channel", number::<u8>)?,
        max_pixels: f.get("--max-pixels", tolerance::parse_pixel_budget)?,
        flip_mean: f.get("--flip-mean", tolerance::parse_unit)?,
        flip_p99: f.get("--flip-p99", tolerance::parse_unit)?,
        max_region: f.get("--max-region", number::<u32>)?,
        reason: None,
    };
    let threads = f.get("--threads", number::<usize>)?.unwrap_or(0);
    simreel_compare::par::set_threads(threads);
    if let Some(mp) = f.get("--max-megapixels", number::<u32>)? {
        if !(1..=4096).contains(&mp) {
            return Err(Failure::Usage("--max-megapixels: from 1 to 4096".into()));
        }
        simreel_compare::image::header::set_pixel_cap(mp as u64 * 1_000_000);
    }
    let plan = files::Plan {
        expected: PathBuf::from(expected),
        actual: PathBuf::from(actual),
        tolerance: file.over(&flags).tolerance(),
        out: f.get("--out", |p| Ok(PathBuf::from(p)))?.unwrap_or_else(|| PathBuf::from(files::DEFAULT_OUT)),
    };
    files::run(&plan, f.has("--quiet") || f.has("-q"), "simreel-compare review")?;
    Ok(())
}

fn review(f: &Flags) -> Result<(), Failure> {
    f.only(&["--out", "--pending"])?;
    if let Some(p) = f.positional.first() {
        return Err(Failure::Usage(format!("review takes no paths ({p}): --out DIR or --pending DIR")));
    }
    let out = f.get("--out", |p| Ok(PathBuf::from(p)))?.unwrap_or_else(|| PathBuf::from(files::DEFAULT_OUT));
    let accept_all = f.has("--accept-all");
    let here = std::env::current_dir().unwrap_or_default();
    // the home folder itself is never a folder an accept writes in
    let home = std::env::home_dir();
    match f.get("--pending", |p| Ok(PathBuf::from(p)))? {
        Some(dir) => review::run_pending(&dir, &trust::Folders::new([here.as_path(), dir.as_path()], home.as_deref()), accept_all)?,
        None => {
            let (out, note) = review::last_out(&out, review::Last::Compare, f.has("--out"));
            if let Some(note) = note {
                eprintln!("note: {note}");
            }
            let folders = trust::Folders::new([here.as_path(), out.as_path()], home.as_deref());
            review::run(&mut review::NoFrames, &out, &folders, review::Last::Compare, accept_all)?
        }
    }
    Ok(())
}
