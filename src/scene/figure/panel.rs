//! A figure's panels: what each shows (a scene file, an inline scene, `with` overrides merged in,
//! or a chart), which frame, its camera, caption, labels and arrows.

use std::path::{Path, PathBuf};

use toml::de::DeValue;

use super::super::common::{CameraSpec, read_camera};
use super::super::keys::Key;
use super::super::reader::TableReader;
use super::super::{Scene, SceneError};
use super::keys::*;
use super::{
    Anchor, ArrowSpec, ChartKind, ChartSpec, DataSource, IN_PANEL, InsetSpec, LabelSpec, Marker, PanelContent, PanelFrame, PanelSim,
    PanelSpec, PanelStyle, check_placeholders,
};

/// One `[[figure.panel]]`: its scene's simulation and the frame it shows (none for a chart), how
/// it is drawn, and the files it read.
pub(super) fn read_panel(p: &TableReader, dir: &Path, data: DataSource) -> (Option<PanelSim>, PanelSpec, Vec<PathBuf>) {
    let frame = match (p.has(&FRAME), p.has(&TIME)) {
        (true, true) => {
            p.error_at(&TIME, "give either `frame` or `time`, not both");
            PanelFrame::Follow
        }
        (true, false) => PanelFrame::Frame(p.int(&FRAME) as u32),
        (false, true) => PanelFrame::Time(p.float(&TIME)),
        _ => PanelFrame::Follow,
    };
    let camera = p.has(&CAMERA_KEY).then(|| {
        let c = p.table(&CAMERA_KEY);
        let spec = read_camera(&c);
        c.finish();
        spec
    });
    if p.has(&WITH) && !p.has(&SCENE) {
        p.error_at(&WITH, "`with` changes a panel's `scene`; this panel has none");
    }
    // an inset's number read first: one of the wrong type is that mistake alone
    let inset = p.has(&INSET).then(|| p.int(&INSET) as usize).filter(|_| !p.failed(&INSET));
    let content = match (p.has(&SCENE), p.has(&CHART_KEY), inset.is_some()) {
        (true, true, _) => {
            p.error_at(&CHART_KEY, "a panel shows either a `scene` or a `chart`, not both");
            None
        }
        (true, false, true) | (false, true, true) => {
            p.error_at(&INSET, "a panel shows a `scene`, a `chart` or an `inset` of another panel: one of them");
            None
        }
        (true, false, false) => read_panel_scene(p, dir, camera),
        (false, true, false) => {
            let c = p.table(&CHART_KEY);
            let own = if c.has(&CHART_DATA) { super::read_data(&c, &CHART_DATA, dir) } else { None };
            let chart = super::chart::read_chart(&c, DataSource::at(&c, &CHART_DATA, &own, data));
            c.finish();
            Some((None, PanelContent::Chart(chart), own.map(|d| vec![d.path]).unwrap_or_default()))
        }
        (false, false, true) => Some((None, PanelContent::Inset(read_inset(p, inset.unwrap_or(1))), Vec::new())),
        (false, false, false) => {
            p.error_here("a panel needs `scene = \"file.toml\"`, a `[…chart]` table or `inset = N`");
            None
        }
    };
    if inset.is_none() && !p.failed(&INSET) {
        // their values checked first: one of the wrong type is that mistake alone
        let _: [f64; 4] = p.numbers(&REGION);
        let _ = p.color(&INSET_COLOR);
        let _ = p.choice(&UNITS);
        for key in [&REGION, &INSET_COLOR, &UNITS] {
            if p.has(key) && !p.failed(key) {
                p.error_at(key, "`region`, `inset_color` and `units` come with `inset = N`, the panel this one magnifies");
            }
        }
    }
    // a scene panel even when its scene has problems (those are reported once, at `scene`)
    let is_scene = p.has(&SCENE);
    let caption = p.string(&CAPTION);
    if let Some(c) = &caption {
        // an inset's caption has the facts of the panel it magnifies
        check_placeholders(p, &CAPTION, c, data, is_scene || inset.is_some());
    }
    let rect = p.has(&RECT).then(|| p.numbers(&RECT));
    if let Some(r) = rect.filter(|r| (r[2] <= 0.0 || r[3] <= 0.0) && !p.failed(&RECT)) {
        p.error_at(&RECT, format!("a panel rectangle [x, y, width, height] needs a positive size, not {}×{}", r[2], r[3]));
    }
    let labels = p.tables(&PANEL_LABEL).iter().map(|l| read_label(l, (true, is_scene), data)).collect();
    let arrows = p.tables(&PANEL_ARROW).iter().map(|a| read_arrow(a, (true, is_scene))).collect();
    let (sim, content, files) = match content {
        Some((Some(scene), content, files)) => (Some(PanelSim { frame, ..scene }), Some(content), files),
        Some((None, content, files)) => (None, Some(content), files),
        None => (None, None, Vec::new()),
    };
    let look = PanelSpec {
        content: content.unwrap_or(PanelContent::Chart(ChartSpec {
            kind: ChartKind::Bar,
            series: Vec::new(),
            categories: Vec::new(),
            bins: 10,
            reference: None,
            x_label: String::new(),
            y_label: String::new(),
        })),
        caption,
        rect,
        overlay: p.flag(&OVERLAY),
        style: read_style(p, is_scene),
        labels,
        arrows,
    };
    (sim, look, files)
}

/// `inset = N` with `region` and `inset_color`; an inset shows its panel as that panel is drawn,
/// so it takes none of a scene panel's own keys.
fn read_inset(p: &TableReader, of: usize) -> InsetSpec {
    for key in [&FRAME, &TIME, &CAMERA_KEY, &WITH, &OVERLAY] {
        if p.has(key) {
            p.error_at(key, format!("an inset shows its panel as that panel is drawn: give `{}` to the panel it magnifies", key.name));
        }
    }
    if !p.has(&REGION) {
        p.error_at(&INSET, "an inset needs `region = [x, y, width, height]`: the part of the panel it magnifies");
    }
    InsetSpec { of: of - 1, region: p.numbers(&REGION), color: p.color(&INSET_COLOR), scene_units: p.choice(&UNITS) == "scene" }
}

/// `style = "shaded" | "wireframe" | "shaded+wire"` with `wire_color` and `wire_width`.
fn read_style(p: &TableReader, is_scene: bool) -> Option<PanelStyle> {
    if !p.has(&STYLE) {
        for key in [&WIRE_COLOR, &WIRE_WIDTH] {
            if p.has(key) {
                p.error_at(key, "wires come with `style = \"wireframe\"` or `\"shaded+wire\"`");
            }
        }
        return None;
    }
    let style = p.choice(&STYLE);
    if !is_scene && !p.failed(&STYLE) {
        p.error_at(&STYLE, "`style` draws a scene's meshes; this panel shows no scene of its own");
    }
    let (fill, wire) = match style {
        "wireframe" => (false, true),
        "shaded+wire" => (true, true),
        _ => (true, false),
    };
    Some(PanelStyle { fill, wire, wire_color: p.color(&WIRE_COLOR), wire_width: p.float(&WIRE_WIDTH) })
}

/// Loads the scene file of a panel (relative to the figure), with `camera` in place of its own.
/// An inline table's text (`{ … }`) at `key` as TOML, or a message saying why not.
fn inline_table(p: &TableReader, key: &Key) -> Option<Result<toml::Table, String>> {
    let v = p.raw(key)?;
    let text = p.diagnostics().text(v.span());
    if !matches!(v.get_ref(), DeValue::Table(_)) || !text.trim_start().starts_with('{') {
        return Some(Err(format!("write `{} = {{ … }}` as an inline table", key.name)));
    }
    Some(toml::from_str::<toml::Table>(&format!("x = {text}")).map_err(|e| e.message().to_string()).map(|mut t| match t.remove("x") {
        Some(toml::Value::Table(inner)) => inner,
        _ => toml::Table::new(),
    }))
}

/// `over` merged into `base`, tables key by key, anything else replaced.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// What a panel read: its scene's simulation (with the frame it shows still to be set) when it
/// shows a scene, what it draws, and the files it read.
type Read = (Option<PanelSim>, PanelContent, Vec<PathBuf>);

/// The panel's scene: a file (relative to the figure) or an inline table, with the `with` inline
/// table merged over it, and `camera` in place of its own.
fn read_panel_scene(p: &TableReader, dir: &Path, camera: Option<CameraSpec>) -> Option<Read> {
    let with = match inline_table(p, &WITH) {
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => {
            p.error_at(&WITH, e);
            return None;
        }
        None => None,
    };
    let (base, path) = match p.raw(&SCENE).map(|v| v.get_ref()) {
        Some(DeValue::String(name)) => {
            let path = dir.join(name.as_ref());
            if path.exists() && !path.is_file() {
                p.error_at(&SCENE, format!("{} is not a file", path.display()));
                return None;
            }
            if with.is_none() {
                return finish_panel_scene(p, &SCENE, in_panel(|| super::super::load(&path)), camera);
            }
            let text = match simreel_compare::fs::read_trusted(&path).and_then(|b| String::from_utf8(b).map_err(std::io::Error::other)) {
                Ok(t) => t,
                Err(e) => {
                    let hint = if e.kind() == std::io::ErrorKind::NotFound { super::not_found_hint(&path, name) } else { String::new() };
                    p.error_at(&SCENE, format!("cannot read {}: {e}{hint}", path.display()));
                    return None;
                }
            };
            match toml::from_str::<toml::Table>(&text) {
                Ok(t) => (t, path),
                // its own problems, with their positions in its own file
                Err(_) => return finish_panel_scene(p, &SCENE, in_panel(|| super::super::parse(&text, &path)), camera),
            }
        }
        Some(DeValue::Table(_)) => match inline_table(p, &SCENE) {
            Some(Ok(t)) => (t, p.diagnostics().file().map_or_else(|| dir.join("panel.toml"), Path::to_path_buf)),
            Some(Err(e)) => {
                p.error_at(&SCENE, e);
                return None;
            }
            None => return None,
        },
        _ => {
            p.error_at(&SCENE, "expected a scene file's path, or an inline table `{ kind = \"…\", … }`");
            return None;
        }
    };
    let mut table = base;
    let key = if let Some(w) = with {
        merge(&mut table, w);
        &WITH
    } else {
        &SCENE
    };
    let text = toml::to_string(&table).unwrap_or_default();
    finish_panel_scene(p, key, in_panel(|| parse_merged(&text, &path)), camera)
}

/// Panel scenes parsed lately from a merged table's text (the figure's `with` over a scene file):
/// a figure of many panels of one scene (`mc_cases`: fifteen cubes), loaded again after a save,
/// takes each back instead of checking it again. Only a scene read from its text alone is kept
/// (one that reads other files, a figure's data, could change while its text does not).
static MERGED: std::sync::Mutex<Vec<(String, PathBuf, Scene)>> = std::sync::Mutex::new(Vec::new());
const MERGED_KEPT: usize = 64;

fn parse_merged(text: &str, path: &Path) -> Result<Scene, SceneError> {
    let kept = MERGED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((.., scene)) = kept.iter().find(|(t, p, _)| t == text && p == path) {
        return Ok(scene.clone());
    }
    drop(kept);
    let scene = super::super::parse(text, path)?;
    if scene.files().len() == 1 {
        let mut kept = MERGED.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= MERGED_KEPT {
            kept.remove(0);
        }
        kept.push((text.to_string(), path.to_path_buf(), scene.clone()));
    }
    Ok(scene)
}

/// Marks a panel's scene as being read until dropped, a panic's unwinding included: then what it
/// was before is restored.
struct InPanel(bool);

impl InPanel {
    fn enter() -> InPanel {
        InPanel(IN_PANEL.with(|f| f.replace(true)))
    }
}

impl Drop for InPanel {
    fn drop(&mut self) {
        IN_PANEL.with(|f| f.set(self.0));
    }
}

/// `load` with panel nesting marked (a figure met inside refuses to read panels of its own).
pub(super) fn in_panel<T>(load: impl FnOnce() -> T) -> T {
    let _marked = InPanel::enter();
    load()
}

fn finish_panel_scene(p: &TableReader, key: &Key, loaded: Result<Scene, SceneError>, camera: Option<CameraSpec>) -> Option<Read> {
    match loaded {
        Ok(mut scene) => {
            if let Some(c) = camera {
                scene.look.camera = c;
            }
            // the panel's own former names are the figure's to say
            for d in &scene.deprecations {
                p.deprecated_at(key, format!("in the panel's scene, {}: {}", d.key, d.message), d.hint.clone());
            }
            let files = scene.files();
            let sim = PanelSim { name: scene.name, path: scene.path, scene: scene.sim, frame: PanelFrame::Follow };
            Some((Some(sim), PanelContent::Scene(Box::new(scene.look)), files))
        }
        Err(SceneError::Read { path, source }) => {
            let written = match p.raw(key).map(|v| v.get_ref()) {
                Some(DeValue::String(s)) => s.to_string(),
                _ => path.display().to_string(),
            };
            let hint = if source.kind() == std::io::ErrorKind::NotFound { super::not_found_hint(&path, &written) } else { String::new() };
            p.error_at(key, format!("cannot read {}: {source}{hint}", path.display()));
            None
        }
        Err(e) => {
            let what = if key.name == "with" { "the panel's scene with `with` merged over it" } else { "the panel's scene" };
            p.error_at(key, format!("{what} has problems:\n{e}"));
            None
        }
    }
}

fn read_anchor(t: &TableReader, key: &Key, world: bool) -> Option<Anchor> {
    let v = t.raw(key)?;
    match super::super::reader::number_list(v.get_ref()).as_deref() {
        Some(&[x, y, z]) if world => Some(Anchor::World([x, y, z])),
        Some(&[x, y]) => Some(Anchor::Canvas([x, y])),
        _ => {
            let what =
                if world { "[x, y, z] (a point of the scene) or [x, y] (canvas units in the panel)" } else { "[x, y] (canvas units)" };
            t.error_at(key, format!("expected {what}"));
            None
        }
    }
}

/// A label, a panel's (`in_panel`: its points may be in the scene's units) or the figure's; in a
/// scene panel (`world`) it may be pinned to a 3-D point and name the panel's facts.
pub(super) fn read_label(l: &TableReader, (in_panel, world): (bool, bool), data: DataSource) -> LabelSpec {
    let at = read_anchor(l, &AT, world);
    if at.is_none() && !l.has(&AT) {
        l.error_here("a label needs `at`");
    }
    let marker = match l.choice(&MARKER) {
        "filled" => Marker::Filled,
        "hollow" => Marker::Hollow,
        _ => Marker::None,
    };
    let text = l.string(&TEXT).unwrap_or_default();
    check_placeholders(l, &TEXT, &text, data, world);
    let spec = LabelSpec {
        at: at.unwrap_or(Anchor::Canvas([0.0, 0.0])),
        text,
        offset: l.numbers(&OFFSET),
        marker,
        color: l.color(&LABEL_COLOR),
        size: l.float(&LABEL_SIZE),
        boxed: l.flag(&BOX),
        scene_units: in_panel && l.choice(&UNITS) == "scene",
    };
    l.finish();
    spec
}

pub(super) fn read_arrow(a: &TableReader, (in_panel, world): (bool, bool)) -> ArrowSpec {
    let from = read_anchor(a, &FROM, world);
    let to = read_anchor(a, &TO, world);
    if !a.has(&FROM) || !a.has(&TO) {
        a.error_here("an arrow needs `from` and `to`");
    }
    let spec = ArrowSpec {
        from: from.unwrap_or(Anchor::Canvas([0.0, 0.0])),
        to: to.unwrap_or(Anchor::Canvas([0.0, 0.0])),
        color: a.color(&ARROW_COLOR),
        width: a.float(&ARROW_WIDTH),
        scene_units: in_panel && a.choice(&UNITS) == "scene",
    };
    a.finish();
    spec
}
