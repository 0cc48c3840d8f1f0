//! `summary.md`: a report in a few lines of Markdown for a CI job's summary page (GitHub's step
//! summary, a merge request note): the outcome, each failure with a small picture of its strip
//! (expected | diff | actual) and its verdict, and the command that accepts them.

use std::fmt::Write as _;
use std::path::Path;

use super::{Record, Report};
use crate::image::{self as picture, Image};
use crate::text::xml;

/// The widest and tallest picture of a failure in the summary.
const SMALL: (u32, u32) = (480, 100);
/// At most this many failures get a picture, and the pictures at most this many bytes in all
/// (GitHub keeps a step summary up to 1 MiB).
const MAX_PICTURES: usize = 12;
const MAX_PICTURE_BYTES: usize = 640 * 1024;

/// The summary of `report`, whose failures' pictures are in `dir`; `accept`: the command that
/// accepts them from the downloaded report.
pub(super) fn summary(report: &Report, dir: &Path, accept: Option<&str>) -> String {
    let failed: Vec<&Record> = report.records.iter().filter(|r| !r.passed).collect();
    let flicker: Vec<&str> = report.sequences.iter().filter(|s| s.flicker_failed).map(|s| s.scene.as_str()).collect();
    let (what, items) = match report.compared {
        Some(_) => ("compare", ("file", "files")),
        None => ("golden check", ("golden frame", "golden frames")),
    };
    let total = crate::text::count(report.records.len() as u64, items.0, items.1);
    let mut md = String::new();
    if failed.is_empty() && flicker.is_empty() {
        let _ = writeln!(md, "### simreel {what}: all {total} match\n\nadapter: {}", inline(&report.adapter));
        return md;
    }
    let _ = writeln!(md, "### simreel {what}: {} of {total} failed\n", failed.len());
    let _ = writeln!(md, "adapter: {}\n", inline(&report.adapter));
    if !flicker.is_empty() {
        let _ = writeln!(md, "flicker beyond the scene's `max_flicker`: {}\n", flicker.join(", "));
    }
    if !failed.is_empty() {
        md.push_str("| | failed | verdict |\n|---|---|---|\n");
        let mut spent = 0;
        for (k, r) in failed.iter().enumerate() {
            let picture =
                (k < MAX_PICTURES).then(|| small_picture(dir, r)).flatten().filter(|(url, _, _)| spent + url.len() <= MAX_PICTURE_BYTES);
            let cell = match picture {
                Some((url, w, h)) => {
                    spent += url.len();
                    format!("<img alt=\"{}\" width=\"{w}\" height=\"{h}\" src=\"{url}\">", xml(&r.subject.label()))
                }
                None => String::new(),
            };
            let _ = writeln!(md, "| {cell} | `{}` | {} |", r.subject.label(), cell_text(&format!("{}. {}", r.verdict, r.state)));
        }
        md.push('\n');
    }
    md.push_str("Pictures and every figure: `report.html` in the report folder.\n");
    if let Some(c) = accept {
        let _ = writeln!(
            md,
            "\nTo accept them as this check rendered them, put this report folder at `{}` in a clone of the project and run:\n\n```sh\n{c}\n```",
            dir.display()
        );
    }
    md
}

/// A failure's strip (or its actual image, with nothing to compare it with) from the report
/// folder, made small: a data URL and its size.
fn small_picture(dir: &Path, r: &Record) -> Option<(String, u32, u32)> {
    let img = ["panel", "actual"].iter().find_map(|p| {
        let file = dir.join(format!("{}__{p}.png", r.subject.stem()));
        // the folder is read back: only a plain file of it
        std::fs::symlink_metadata(&file).ok().filter(|m| m.is_file())?;
        Image::read(&file).ok()
    })?;
    let (w, h) = picture::fit(img.width, img.height, SMALL.0, SMALL.1);
    let small = picture::thumbnail(&img, w, h);
    Some((crate::hash::base64_after("data:image/png;base64,".into(), &picture::encode_png(&small)), w, h))
}

/// `s` in a table cell: one line, no `|`.
fn cell_text(s: &str) -> String {
    xml(&s.replace('\n', " ")).replace('|', "\\|")
}

/// `s` as inline code.
fn inline(s: &str) -> String {
    format!("`{}`", s.replace('`', "'"))
}
