//! `simreel golden bless --from-report DIR`: a failed check's frames approved on another machine
//! (a developer's, with the report folder downloaded from CI) byte for byte as the check rendered
//! them. The report is read back as untrusted input: a frame is taken only when the scene it was
//! rendered from is the scene here (one identity at the golden size), it was rendered on an
//! adapter whose images these goldens take, and its picture in the folder is a plain file with
//! the pixels whose SHA-256 the report recorded; only frames of the scene's `[golden]` table,
//! each with the state digest the scene here simulates to at that frame (simulated here: the
//! report's own text is never written), on an adapter the report describes in plain words.
//! Nothing is read outside the folder, and only the goldens folder given here is written.

use std::path::{Path, PathBuf};

use super::report::Subject;
use super::summary::{FrameSummary, Summary};
use super::{GoldenError, Paths, applied, as_checked};
use crate::output::png::{self, Decoded};
use crate::render::AdapterSummary;
use crate::scene::Scene;
use crate::scene::golden::GoldenSpec;

/// The failed frames of a golden check's report.
pub struct Failed {
    file: PathBuf,
    frames: Vec<FrameSummary>,
}

/// A frame approved from a report: its number, image and state digest.
pub type Approved = (u32, Decoded, String);

impl Failed {
    /// The failed frames `dir/summary.json` lists.
    pub fn read(dir: &Path) -> Result<Failed, GoldenError> {
        let file = dir.join("summary.json");
        let summary = Summary::read(&file).map_err(|e| match e {
            simreel_compare::Error::NoLastRun(why) => GoldenError::BadInput(format!("--from-report: {why}")),
            other => other.into(),
        })?;
        if summary.compared.is_some() {
            let why = format!("--from-report: {} is the report of `simreel compare`, not of a golden check", file.display());
            return Err(GoldenError::BadInput(why));
        }
        let frames = summary.frames.into_iter().filter(|f| !f.passed && matches!(f.subject, Subject::Frame { .. })).collect();
        Ok(Failed { file, frames })
    }

    fn of<'a>(&'a self, scene: &'a str) -> impl Iterator<Item = (&'a FrameSummary, u32)> + 'a {
        self.frames.iter().filter_map(move |f| match &f.subject {
            Subject::Frame { scene: s, frame } if s == scene => Some((f, *frame)),
            _ => None,
        })
    }

    /// Whether a frame of `scene` failed.
    pub fn has(&self, scene: &str) -> bool {
        self.of(scene).next().is_some()
    }

    /// The failed frames of `scene`, in order.
    pub fn frames_of(&self, scene: &str) -> Vec<u32> {
        let mut v: Vec<u32> = self.of(scene).map(|(_, f)| f).collect();
        v.sort_unstable();
        v
    }

    /// Why none of `scenes` has a failure to accept.
    pub fn none_of(&self, scenes: &[Scene]) -> GoldenError {
        if self.frames.is_empty() {
            return GoldenError::BadInput(format!("--from-report: nothing to accept: every frame in {} passed", self.file.display()));
        }
        let mut failed: Vec<&str> = self
            .frames
            .iter()
            .filter_map(|f| match &f.subject {
                Subject::Frame { scene, .. } => Some(scene.as_str()),
                Subject::File { .. } => None,
            })
            .collect();
        failed.sort_unstable();
        failed.dedup();
        let given: Vec<&str> = scenes.iter().map(|s| s.name.as_str()).collect();
        GoldenError::BadInput(format!(
            "--from-report: the failures in {} are of {}, none of them among the scenes given ({})",
            self.file.display(),
            failed.join(", "),
            given.join(", ")
        ))
    }

    /// `frames` of `scene` as the report's check rendered them, from the report folder `dir`, and
    /// the adapter they were rendered on; refused (naming the frame and why) unless each is the
    /// scene here, on an adapter the goldens take, with the pixels the report recorded.
    pub fn approve(
        &self,
        scene: &Scene,
        spec: &GoldenSpec,
        frames: &[u32],
        dir: &Path,
        paths: &Paths,
    ) -> Result<(Vec<Approved>, AdapterSummary), GoldenError> {
        let here = as_checked(scene, spec).identity().to_string();
        let refuse =
            |frame: u32, why: String| GoldenError::Untrusted(format!("{}:{frame} from {}: {why}", scene.name, self.file.display()));
        let (mut out, mut adapter): (Vec<Approved>, Option<AdapterSummary>) = (Vec::new(), None);
        let shown = |s: &str| simreel_compare::text::shown(&s.chars().take(200).collect::<String>()).into_owned();
        for &frame in frames {
            if !spec.frames.contains(&frame) {
                return Err(refuse(frame, "it is not one of the scene's [golden] frames here: there is no golden of it to approve".into()));
            }
            let Some((f, _)) = self.of(&scene.name).find(|(_, n)| *n == frame) else {
                return Err(refuse(frame, "the check did not fail it: there is nothing of it to accept".into()));
            };
            if let Some(why) = &f.cannot_accept {
                return Err(refuse(frame, why.clone()));
            }
            let r = f.rendered.as_ref().ok_or_else(|| {
                refuse(frame, "the report does not say what it was rendered from (a report of an older simreel): check again".into())
            })?;
            if r.identity != here {
                return Err(refuse(
                    frame,
                    format!(
                        "it was rendered from another version of the scene than {} here (identity {} there, {here} here; simreel {} there): check out the commit the check ran on, or check again",
                        scene.path.display(),
                        shown(&r.identity),
                        shown(&r.simreel)
                    ),
                ));
            }
            if !plain_words(&r.adapter) {
                return Err(refuse(
                    frame,
                    "its adapter is not one simreel describes (control characters, or a description too long)".into(),
                ));
            }
            let used: AdapterSummary = serde_json::from_value(r.adapter.clone())
                .map_err(|e| refuse(frame, format!("its adapter is not one simreel describes ({e})")))?;
            let rule = applied(spec, &paths.goldens.join(&scene.name), &used);
            if rule.other {
                return Err(refuse(
                    frame,
                    format!(
                        "it was rendered on {used}: not lavapipe, and no [[golden.overrides]] entry of the scene covers it, so the goldens take no images of it"
                    ),
                ));
            }
            match &adapter {
                Some(a) if *a != used => {
                    return Err(refuse(frame, format!("rendered on {used}, the scene's other frames on {a}: check again")));
                }
                _ => adapter = Some(used),
            }
            let image = self.picture(f, dir).map_err(|why| refuse(frame, why))?;
            if (image.width, image.height) != spec.size {
                let why = format!("its picture is {}×{}, the golden size {}×{}", image.width, image.height, spec.size.0, spec.size.1);
                return Err(refuse(frame, why));
            }
            if f.sha256.actual.as_deref() != Some(super::trust::pixels_sha256(&image).as_str()) {
                return Err(refuse(frame, "its picture in the folder is not the one the check rendered (it changed since)".into()));
            }
            out.push((frame, image, r.state.clone()));
        }
        // the state digests: what this scene simulates to here, which the report's must equal
        out.sort_by_key(|a| a.0);
        let mut player = crate::kinds::build(&as_checked(scene, spec));
        for (frame, _, state) in &mut out {
            player.sim_mut().advance(*frame);
            let here = player.digest().to_string();
            if *state != here {
                let why =
                    format!("its state digest is not the one this scene simulates to at that frame ({} there, {here} here)", shown(state));
                return Err(refuse(*frame, why));
            }
            *state = here;
        }
        Ok((out, adapter.unwrap_or_default()))
    }

    /// The rendered picture of failed frame `f` in the report folder: `<stem>__actual.png`, a plain
    /// file (never a link out of the folder).
    fn picture(&self, f: &FrameSummary, dir: &Path) -> Result<Decoded, String> {
        let file = dir.join(format!("{}__actual.png", f.subject.stem()));
        match std::fs::symlink_metadata(&file) {
            Ok(m) if m.is_file() => png::read(&file).map_err(|e| e.to_string()),
            Ok(_) => Err(format!("{} is not a plain file", file.display())),
            Err(e) => Err(format!("its picture {} cannot be read ({e}); download the whole report folder", file.display())),
        }
    }
}

/// Whether every string in `v` is plain words: no control character, at most 256 characters, and
/// the whole at most 4 KiB (an adapter's description).
fn plain_words(v: &serde_json::Value) -> bool {
    fn strings_ok(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::String(s) => s.chars().count() <= 256 && !s.chars().any(simreel_compare::text::is_hidden),
            serde_json::Value::Array(a) => a.iter().all(strings_ok),
            serde_json::Value::Object(o) => o.iter().all(|(k, v)| !k.chars().any(simreel_compare::text::is_hidden) && strings_ok(v)),
            _ => true,
        }
    }
    v.to_string().len() <= 4096 && strings_ok(v)
}
