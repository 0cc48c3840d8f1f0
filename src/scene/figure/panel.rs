//! A figure's panels: what each shows (a scene file, an inline scene, `with` overrides merged in,
//! or a chart), which frame, its camera, caption, labels and arrows.

use std::path::Path;

use toml::de::DeValue;

use super::super::common::{CameraSpec, read_camera};
use super::super::reader::TableReader;
use super::super::values::Srgb;
use super::super::{Scene, SceneError};
use super::{
    Anchor, ArrowSpec, ChartKind, ChartSpec, Data, IN_PANEL, LabelSpec, Marker, PanelContent, PanelFrame, PanelSpec, PanelStyle,
    check_placeholders,
};

/// One `[[figure.panel]]`.
pub(super) fn read_panel(p: &TableReader, dir: &Path, data: Option<&Data>) -> PanelSpec {
    let frame = match (p.has("frame"), p.has("time")) {
        (true, true) => {
            p.error_at("time", "give either `frame` or `time`, not both");
            PanelFrame::Follow
        }
        (true, false) => PanelFrame::Frame(p.int_in("frame", 0, 0..=u32::MAX as i64) as u32),
        (false, true) => PanelFrame::Time(p.f64_in("time", 0.0, 0.0..1e6)),
        _ => PanelFrame::Follow,
    };
    let camera = p.has("camera").then(|| {
        let c = p.table("camera");
        let spec = read_camera(&c);
        c.finish();
        spec
    });
    if p.has("with") && !p.has("scene") {
        p.error_at("with", "`with` changes a panel's `scene`; this panel has none");
    }
    let content = match (p.has("scene"), p.has("chart")) {
        (true, true) => {
            p.error_at("chart", "a panel shows either a `scene` or a `chart`, not both");
            None
        }
        (true, false) => read_panel_scene(p, dir, camera),
        (false, true) => {
            let c = p.table("chart");
            let chart_data = if c.has("data") { super::read_data(&c, "data", dir) } else { data.cloned() };
            let chart = super::chart::read_chart(&c, chart_data.as_ref());
            c.finish();
            Some(PanelContent::Chart(chart))
        }
        (false, false) => {
            p.error_here("a panel needs `scene = \"file.toml\"` or a `[…chart]` table");
            None
        }
    };
    // a scene panel even when its scene has problems (those are reported once, at `scene`)
    let is_scene = p.has("scene");
    let caption = p.string("caption");
    if let Some(c) = &caption {
        check_placeholders(p, "caption", c, data, is_scene);
    }
    let rect = p.has("rect").then(|| p.numbers("rect", [0.0; 4]));
    if let Some(r) = rect.filter(|r| r[2] <= 0.0 || r[3] <= 0.0) {
        p.error_at("rect", format!("a panel rectangle [x, y, width, height] needs a positive size, not {}×{}", r[2], r[3]));
    }
    let labels = p.tables("label").iter().map(|l| read_label(l, is_scene, data)).collect();
    let arrows = p.tables("arrow").iter().map(|a| read_arrow(a, is_scene)).collect();
    PanelSpec {
        content: content.unwrap_or(PanelContent::Chart(ChartSpec {
            kind: ChartKind::Bar,
            series: Vec::new(),
            categories: Vec::new(),
            bins: 10,
            reference: None,
            x_label: String::new(),
            y_label: String::new(),
        })),
        frame,
        caption,
        rect,
        overlay: p.bool("overlay", true),
        style: read_style(p, is_scene),
        labels,
        arrows,
    }
}

/// `style = "shaded" | "wireframe" | "shaded+wire"` with `wire_color` and `wire_width`.
fn read_style(p: &TableReader, is_scene: bool) -> Option<PanelStyle> {
    if !p.has("style") {
        for key in ["wire_color", "wire_width"] {
            if p.has(key) {
                p.error_at(key, "wires come with `style = \"wireframe\"` or `\"shaded+wire\"`");
            }
        }
        return None;
    }
    if !is_scene {
        p.error_at("style", "`style` draws a scene's meshes; a chart panel has none");
    }
    let (fill, wire) = match p.choice("style", &["shaded", "wireframe", "shaded+wire"]) {
        "wireframe" => (false, true),
        "shaded+wire" => (true, true),
        _ => (true, false),
    };
    Some(PanelStyle {
        fill,
        wire,
        wire_color: p.color("wire_color", Srgb([0.1, 0.1, 0.11])),
        wire_width: p.f64_in("wire_width", 1.0, 0.25..32.0),
    })
}

/// Loads the scene file of a panel (relative to the figure), with `camera` in place of its own.
/// An inline table's text (`{ … }`) at `key` as TOML, or a message saying why not.
fn inline_table(p: &TableReader, key: &'static str) -> Option<Result<toml::Table, String>> {
    let v = p.raw(key)?;
    let text = p.diagnostics().text(v.span());
    if !matches!(v.get_ref(), DeValue::Table(_)) || !text.trim_start().starts_with('{') {
        return Some(Err(format!("write `{key} = {{ … }}` as an inline table")));
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

/// The panel's scene: a file (relative to the figure) or an inline table, with the `with` inline
/// table merged over it, and `camera` in place of its own.
fn read_panel_scene(p: &TableReader, dir: &Path, camera: Option<CameraSpec>) -> Option<PanelContent> {
    let with = match inline_table(p, "with") {
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => {
            p.error_at("with", e);
            return None;
        }
        None => None,
    };
    let (base, path) = match p.raw("scene").map(|v| v.get_ref()) {
        Some(DeValue::String(name)) => {
            let path = dir.join(name.as_ref());
            if path.exists() && !path.is_file() {
                p.error_at("scene", format!("{} is not a file", path.display()));
                return None;
            }
            if with.is_none() {
                return finish_panel_scene(p, "scene", in_panel(|| super::super::load(&path)), camera);
            }
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) => {
                    p.error_at("scene", format!("cannot read {}: {e}; paths are relative to the figure's file", path.display()));
                    return None;
                }
            };
            match toml::from_str::<toml::Table>(&text) {
                Ok(t) => (t, path),
                // its own problems, with their positions in its own file
                Err(_) => return finish_panel_scene(p, "scene", in_panel(|| super::super::parse(&text, &path)), camera),
            }
        }
        Some(DeValue::Table(_)) => match inline_table(p, "scene") {
            Some(Ok(t)) => (t, p.diagnostics().file().map_or_else(|| dir.join("panel.toml"), Path::to_path_buf)),
            Some(Err(e)) => {
                p.error_at("scene", e);
                return None;
            }
            None => return None,
        },
        _ => {
            p.error_at("scene", "expected a scene file's path, or an inline table `{ kind = \"…\", … }`");
            return None;
        }
    };
    let mut table = base;
    let key = if let Some(w) = with {
        merge(&mut table, w);
        "with"
    } else {
        "scene"
    };
    let text = toml::to_string(&table).unwrap_or_default();
    finish_panel_scene(p, key, in_panel(|| super::super::parse(&text, &path)), camera)
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

fn finish_panel_scene(
    p: &TableReader,
    key: &'static str,
    loaded: Result<Scene, SceneError>,
    camera: Option<CameraSpec>,
) -> Option<PanelContent> {
    match loaded {
        Ok(mut scene) => {
            if let Some(c) = camera {
                scene.camera = c;
            }
            Some(PanelContent::Scene(Box::new(scene)))
        }
        Err(SceneError::Read { path, source }) => {
            let hint = if source.kind() == std::io::ErrorKind::NotFound { "; paths are relative to the figure's file" } else { "" };
            p.error_at(key, format!("cannot read {}: {source}{hint}", path.display()));
            None
        }
        Err(e) => {
            let what = if key == "with" { "the panel's scene with `with` merged over it" } else { "the panel's scene" };
            p.error_at(key, format!("{what} has problems:\n{e}"));
            None
        }
    }
}

fn read_anchor(t: &TableReader, key: &'static str, world: bool) -> Option<Anchor> {
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

/// A label; in a scene panel (`world`) it may be pinned to a 3-D point and name the panel's facts.
pub(super) fn read_label(l: &TableReader, world: bool, data: Option<&Data>) -> LabelSpec {
    let at = read_anchor(l, "at", world);
    if at.is_none() && !l.has("at") {
        l.error_here("a label needs `at`");
    }
    let marker = match l.choice("marker", &["none", "filled", "hollow"]) {
        "filled" => Marker::Filled,
        "hollow" => Marker::Hollow,
        _ => Marker::None,
    };
    let text = l.string("text").unwrap_or_default();
    check_placeholders(l, "text", &text, data, world);
    let spec = LabelSpec {
        at: at.unwrap_or(Anchor::Canvas([0.0, 0.0])),
        text,
        offset: l.numbers("offset", [8.0, -8.0]),
        marker,
        color: l.color("color", Srgb([0.1, 0.1, 0.12])),
        size: l.f64_in("size", 14.0, 4.0..400.0),
        boxed: l.bool("box", false),
    };
    l.finish();
    spec
}

pub(super) fn read_arrow(a: &TableReader, world: bool) -> ArrowSpec {
    let from = read_anchor(a, "from", world);
    let to = read_anchor(a, "to", world);
    if from.is_none() || to.is_none() {
        a.error_here("an arrow needs `from` and `to`");
    }
    let spec = ArrowSpec {
        from: from.unwrap_or(Anchor::Canvas([0.0, 0.0])),
        to: to.unwrap_or(Anchor::Canvas([0.0, 0.0])),
        color: a.color("color", Srgb([0.1, 0.1, 0.12])),
        width: a.f64_in("width", 2.0, 0.1..100.0),
    };
    a.finish();
    spec
}
