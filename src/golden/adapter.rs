//! Which adapter a golden check or bless renders each scene on, and why. Left to itself (no
//! `--backend`/`--adapter`), it takes the adapter the scene's goldens were approved on: lavapipe
//! for the canonical images, or, where this machine lacks lavapipe, an adapter one of the
//! scene's overrides covers. Where neither is here, it says what to install and which overrides
//! exist, and checks on the best adapter there is, whose failures then read as "other adapter".
//! Blessing records the adapter beside the images (`approved-on.toml`), so "approved on" is a
//! fact the check reads back.

use std::path::{Path, PathBuf};

use super::GoldenError;
use crate::render::{AdapterRequest, AdapterSummary, BackendChoice, device};
use crate::scene::Scene;
use crate::scene::golden::GoldenSpec;

/// The file beside a folder of approved images that names the adapter they were approved on.
pub const RECORD: &str = "approved-on.toml";

#[derive(serde::Serialize, serde::Deserialize)]
struct Record {
    adapter: AdapterSummary,
}

/// The adapter the images in `dir` were approved on, as their record says; none without a
/// record, and an error naming the file for one that cannot be read (never taken as none: the
/// check would then render on another adapter than the images were approved on).
pub fn recorded(dir: &Path) -> Result<Option<AdapterSummary>, GoldenError> {
    let path = dir.join(RECORD);
    let text = match simreel_compare::fs::read_trusted(&path).and_then(|b| String::from_utf8(b).map_err(std::io::Error::other)) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(GoldenError::BadInput(format!("cannot read {}: {e}", path.display()))),
    };
    let record = toml::from_str::<Record>(&text).map_err(|e| {
        GoldenError::BadInput(format!(
            "{} is not a record of the adapter the images were approved on: {}; bless the scene again to rewrite it",
            path.display(),
            e.message()
        ))
    })?;
    Ok(Some(record.adapter))
}

/// Writes `dir`'s record when it says something else than `adapter`; the path when it wrote.
pub fn record(dir: &Path, adapter: &AdapterSummary) -> Result<Option<PathBuf>, crate::output::OutputError> {
    if recorded(dir).ok().flatten().as_ref() == Some(adapter) {
        return Ok(None);
    }
    let body = toml::to_string(&Record { adapter: adapter.clone() }).expect("a record serialises");
    let text = format!(
        "# The adapter these images were approved on, written by `simreel golden bless`:\n\
         # `simreel golden check` renders on it by default.\n{body}"
    );
    let path = dir.join(RECORD);
    crate::output::write_atomic(&path, text.as_bytes())?;
    Ok(Some(path))
}

/// Why a scene renders on the adapter it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// `--backend`/`--adapter` chose it.
    Asked,
    /// lavapipe, the adapter the canonical images were approved on.
    Canonical,
    /// lavapipe is missing; an override of the scene covers this adapter: `images` is its folder,
    /// which holds approved images of its own, or else the canonical ones are compared with the
    /// override's tolerance.
    Override { images: String, has_images: bool },
    /// Neither lavapipe nor an adapter an override covers is here: the best adapter there is.
    Other,
}

/// The adapter one scene renders on.
#[derive(Clone, Debug)]
pub struct Choice {
    pub scene: String,
    pub request: AdapterRequest,
    pub adapter: AdapterSummary,
    pub why: Why,
    /// What the canonical images record they were approved on, where they record it.
    pub approved_on: Option<AdapterSummary>,
}

/// Every scene's adapter, and what to tell the user before anything renders.
#[derive(Clone, Debug, Default)]
pub struct AdapterPlan {
    pub choices: Vec<Choice>,
    /// Lines to print first: a missing adapter, what installs it, the overrides there are.
    pub warnings: Vec<String>,
}

/// The adapters of Vulkan (where lavapipe is) and of the backends the scenes' overrides name.
fn survey(scenes: &[Scene]) -> Vec<AdapterSummary> {
    let mut backends = vec![BackendChoice::Vulkan];
    for o in scenes.iter().filter_map(|s| s.golden.as_ref()).flat_map(|g| &g.overrides) {
        if let Some(b) = BackendChoice::parse(&o.backend.to_lowercase()).filter(|b| !backends.contains(b)) {
            backends.push(b);
        }
    }
    backends.into_iter().flat_map(device::summaries).collect()
}

/// The adapter `request` picks here.
fn pick(request: &AdapterRequest) -> Result<AdapterSummary, GoldenError> {
    let adapter = device::pick(request).map_err(|e| GoldenError::Pipeline(e.into()))?;
    Ok(AdapterSummary::of(&adapter.get_info()))
}

/// The adapter an override of `spec` covers on this machine: an override with approved images of
/// its own before one that only loosens the tolerance, then the most specific match, then the
/// device `auto` would prefer. With its images folder, and whether that folder exists.
fn override_adapter<'a>(spec: &GoldenSpec, scene_dir: &Path, adapters: &'a [AdapterSummary]) -> Option<(&'a AdapterSummary, String, bool)> {
    let matches = adapters.iter().flat_map(|a| {
        spec.overrides.iter().map(move |o| {
            let has_images = scene_dir.join(&o.images).is_dir();
            ((has_images, o.specificity(&a.backend, &a.vendor, &a.driver_words()), a.rank()), a, o.images.clone())
        })
    });
    // max_by_key keeps the last of equals: reversed, the first adapter listed wins a tie
    let best = matches.filter(|((_, s, _), _, _)| *s > 0).collect::<Vec<_>>().into_iter().rev().max_by_key(|(k, _, _)| *k);
    best.map(|((has_images, _, _), a, images)| (a, images, has_images))
}

/// Chooses the adapter of every scene (each must have `[golden]`): `asked` when it names one,
/// else the approving adapter, as the module's comment says.
pub fn plan(scenes: &[Scene], goldens: &Path, asked: &AdapterRequest) -> Result<AdapterPlan, GoldenError> {
    if scenes.is_empty() {
        return Ok(AdapterPlan::default());
    }
    // each scene's record, read once (one that cannot be read stops the check here)
    let records: Vec<Option<AdapterSummary>> = scenes.iter().map(|s| recorded(&goldens.join(&s.name))).collect::<Result<_, _>>()?;
    // a bad preference is an error here, whether or not the plan falls back on it
    AdapterRequest::default().or_preferred().map_err(|e| GoldenError::Pipeline(e.into()))?;
    if !asked.is_open() {
        let adapter = pick(asked)?;
        let choices = scenes
            .iter()
            .zip(records)
            .map(|(s, approved_on)| Choice {
                scene: s.name.clone(),
                request: asked.clone(),
                adapter: adapter.clone(),
                why: Why::Asked,
                approved_on,
            })
            .collect();
        return Ok(AdapterPlan { choices, warnings: Vec::new() });
    }
    let adapters = survey(scenes);
    let lavapipe = adapters.iter().find(|a| a.is_lavapipe());
    let (mut choices, mut others, mut best) = (Vec::new(), Vec::new(), None);
    for (s, approved_on) in scenes.iter().zip(records) {
        let spec = s.golden.as_ref().ok_or_else(|| GoldenError::NoGolden { scene: s.name.clone() })?;
        let (adapter, why) = match (lavapipe, override_adapter(spec, &goldens.join(&s.name), &adapters)) {
            (Some(l), _) => (l.clone(), Why::Canonical),
            (None, Some((a, images, has_images))) => (a.clone(), Why::Override { images, has_images }),
            (None, None) => {
                others.push(s);
                // what an open request picks: the machine's preference, else its best adapter
                let b = match &best {
                    Some(b) => b,
                    None => best.insert(pick(&AdapterRequest::default())?),
                };
                (b.clone(), Why::Other)
            }
        };
        choices.push(Choice { scene: s.name.clone(), request: AdapterRequest::exactly(&adapter), adapter, why, approved_on });
    }
    let mut warnings = Vec::new();
    match lavapipe {
        None => warnings.push(missing_lavapipe(&others, scenes.len())),
        Some(here) => warnings.extend(another_lavapipe(here, &choices)),
    }
    Ok(AdapterPlan { choices, warnings })
}

/// A warning when this machine's lavapipe is not the one the scenes' canonical goldens record:
/// another Mesa, LLVM or vector width may draw a pixel differently (the tolerances leave room for
/// a little of that).
fn another_lavapipe(here: &AdapterSummary, choices: &[Choice]) -> Option<String> {
    let mut recorded: Vec<String> = Vec::new();
    for a in choices.iter().filter_map(|c| c.approved_on.as_ref()).filter(|a| !same_lavapipe(a, here)) {
        let words = format!("{} ({})", a.name, a.driver_words());
        if !recorded.contains(&words) {
            recorded.push(words);
        }
    }
    (!recorded.is_empty()).then(|| {
        format!(
            "this machine's lavapipe, {} ({}), is not the one the goldens were approved on: {} ({RECORD}); a pixel may differ",
            here.name,
            here.driver_words(),
            recorded.join("; ")
        )
    })
}

/// Whether two lavapipes are the same build: name (with LLVM and vector width) and driver.
fn same_lavapipe(a: &AdapterSummary, b: &AdapterSummary) -> bool {
    a.name == b.name && a.driver_words() == b.driver_words()
}

/// What a check without lavapipe says first: which scenes it affects, the command that installs
/// it, and each scene's overrides (the other adapters its goldens accept).
fn missing_lavapipe(others: &[&Scene], all: usize) -> String {
    let mut out = format!(
        "lavapipe (Mesa's Vulkan driver on the CPU), the adapter the canonical goldens were approved on, is not on this machine.\n  \
         install it: {}",
        device::lavapipe_install(device::read_os_release().as_deref())
    );
    if others.is_empty() {
        out.push_str("\n  every scene has an override for an adapter this machine has: checking on those");
        return out;
    }
    let overrides: Vec<String> = others
        .iter()
        .filter_map(|s| s.golden.as_ref().map(|g| (s, g)))
        .flat_map(|(s, g)| g.overrides.iter().map(move |o| format!("{}: \"{}\" ({})", s.name, o.images, o.describe())))
        .collect();
    out.push_str(&match overrides.is_empty() {
        true => format!("\n  overrides: {} none", if others.len() == all { "the scenes have" } else { "those scenes have" }),
        false => format!("\n  overrides, none of them for an adapter here: {}", overrides.join("; ")),
    });
    out
}

impl AdapterPlan {
    /// The choice for `scene`, where the plan made one.
    pub fn choice(&self, scene: &str) -> Option<&Choice> {
        self.choices.iter().find(|c| c.scene == scene)
    }

    /// The request for `scene` (the default where the plan has no choice for it).
    pub fn request(&self, scene: &str) -> AdapterRequest {
        self.choice(scene).map(|c| c.request.clone()).unwrap_or_default()
    }

    /// One line per adapter the plan uses: which scenes, and why.
    pub fn lines(&self) -> Vec<String> {
        // (the adapter, why, the scenes, the first record among them)
        let mut groups: Vec<(&AdapterSummary, &Why, Vec<&str>, Option<&AdapterSummary>)> = Vec::new();
        for c in &self.choices {
            match groups.iter_mut().find(|(a, w, _, _)| *a == &c.adapter && *w == &c.why) {
                Some(g) => {
                    g.2.push(&c.scene);
                    g.3 = g.3.or(c.approved_on.as_ref());
                }
                None => groups.push((&c.adapter, &c.why, vec![&c.scene], c.approved_on.as_ref())),
            }
        }
        groups
            .into_iter()
            .map(|(adapter, why, scenes, approved)| {
                let which = match scenes.len() {
                    n if n < self.choices.len() || n == 1 => scenes.join(", "),
                    2 => "both scenes".into(),
                    n => format!("all {n} scenes"),
                };
                let reason = match why {
                    Why::Asked => "as --backend/--adapter asked".to_string(),
                    Why::Canonical => canonical_reason(adapter, approved),
                    Why::Override { images, has_images: true } => {
                        format!("lavapipe is missing; the override \"{images}\" holds images approved on this adapter")
                    }
                    Why::Override { images, has_images: false } => {
                        format!("lavapipe is missing; the override \"{images}\" covers this adapter (the canonical images, its tolerance)")
                    }
                    Why::Other => "the best adapter here: failures on it read as \"other adapter\", not as regressions".into(),
                };
                format!("golden: {which} on {adapter}: {reason}")
            })
            .collect()
    }
}

/// Why lavapipe: the goldens were approved on it, and on which Mesa where the record says.
fn canonical_reason(here: &AdapterSummary, approved: Option<&AdapterSummary>) -> String {
    match approved {
        None => "lavapipe, the adapter canonical goldens are approved on".into(),
        Some(a) if same_lavapipe(a, here) => format!("the adapter the goldens were approved on ({RECORD})"),
        Some(a) => format!(
            "lavapipe, the adapter the goldens were approved on, though as {} ({}) ({RECORD}): another build may draw a pixel differently",
            a.name,
            a.driver_words()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lavapipe(mesa: &str) -> AdapterSummary {
        AdapterSummary {
            name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
            backend: "vulkan".into(),
            device_type: "CPU (software)".into(),
            vendor: "mesa".into(),
            driver: "llvmpipe".into(),
            driver_info: format!("Mesa {mesa} (LLVM 15.0.6)"),
        }
    }

    #[test]
    fn a_record_is_written_only_when_it_changes_and_reads_back() {
        let dir = std::env::temp_dir().join(format!("simreel-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(recorded(&dir).unwrap(), None);
        let a = lavapipe("22.3.6");
        assert_eq!(record(&dir, &a).unwrap(), Some(dir.join(RECORD)));
        assert_eq!(recorded(&dir).unwrap(), Some(a.clone()));
        assert_eq!(record(&dir, &a).unwrap(), None, "the same adapter again writes nothing");
        let b = lavapipe("24.2.8");
        assert!(record(&dir, &b).unwrap().is_some());
        assert_eq!(recorded(&dir).unwrap(), Some(b));
        // a record that does not parse is an error naming it, not "no record"
        std::fs::write(dir.join(RECORD), "[adapter\nname = 1\n").unwrap();
        let e = recorded(&dir).unwrap_err().to_string();
        assert!(e.contains(RECORD) && e.contains("bless the scene again"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_reason_names_another_mesa_than_the_approving_one() {
        let here = lavapipe("24.2.8");
        assert!(canonical_reason(&here, None).contains("canonical"));
        assert!(!canonical_reason(&here, Some(&here)).contains("another build"));
        let narrower = AdapterSummary { name: "llvmpipe (LLVM 15.0.6, 128 bits)".into(), ..here.clone() };
        assert!(canonical_reason(&narrower, Some(&here)).contains("256 bits"), "the vector width counts");
        let why = canonical_reason(&here, Some(&lavapipe("22.3.6")));
        assert!(why.contains("Mesa 22.3.6") && why.contains("another build"), "{why}");
    }
}
