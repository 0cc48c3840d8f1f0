//! `junit.xml`: a test suite per scene (or one for compared files), a test case per frame or file
//! and one for a scene's flicker, for CI systems' test views.

use std::fmt::Write as _;
use std::path::Path;

use super::{Record, Report};
use crate::text::xml;

/// The JUnit file; a failed frame's strip (expected | diff | actual) is attached as GitLab's test
/// report shows screenshots (`[[ATTACHMENT|path]]`, relative to where the check ran).
pub(super) fn junit(report: &Report, dir: &Path) -> String {
    let mut scenes: Vec<&str> = report.records.iter().map(|r| r.subject.suite()).collect();
    scenes.sort();
    scenes.dedup();
    let name = if report.compared.is_some() { "simreel compare" } else { "simreel golden" };
    let mut out = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{name}\">\n");
    for scene in scenes {
        let mut cases: Vec<&Record> = report.records.iter().filter(|r| r.subject.suite() == scene).collect();
        let seq = report.sequences.iter().find(|s| s.scene == scene);
        let flicker_case = seq.is_some_and(|s| s.flicker.is_some());
        let failures = cases.iter().filter(|r| !r.passed).count() + seq.is_some_and(|s| s.flicker_failed) as usize;
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\">",
            xml(scene),
            cases.len() + flicker_case as usize
        );
        cases.sort_by(|a, b| a.subject.cmp(&b.subject));
        for r in cases {
            let _ = write!(out, "    <testcase classname=\"golden.{}\" name=\"{}\"", xml(scene), xml(&r.subject.case()));
            if r.passed {
                out.push_str("/>\n");
            } else {
                let strip = ["panel", "actual"]
                    .iter()
                    .map(|p| format!("{}__{p}.png", r.subject.stem()))
                    .find(|name| dir.join(name).is_file())
                    .map(|name| format!("\n      <system-out>[[ATTACHMENT|{}]]</system-out>", xml(&dir.join(name).display().to_string())))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{}\">{}\n{}\naccept: {}</failure>{strip}\n    </testcase>",
                    xml(&r.verdict),
                    xml(&r.metrics),
                    xml(&r.state),
                    xml(&r.accept.line())
                );
            }
        }
        if let Some(s) = seq.filter(|s| s.flicker.is_some()) {
            let _ = write!(out, "    <testcase classname=\"golden.{}\" name=\"flicker\"", xml(scene));
            if s.flicker_failed {
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"flicker {:.2}× the golden sequence\"/>\n    </testcase>",
                    s.flicker.unwrap_or(0.0)
                );
            } else {
                out.push_str("/>\n");
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
