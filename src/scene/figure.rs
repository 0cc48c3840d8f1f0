//! `[figure]`: panels laid out in one image, for blog figures. A panel shows another scene file
//! (at a fixed frame or time, or following the figure's clock, optionally through its own camera)
//! or a chart drawn from data; captions, a title, labels anchored to 3-D points or to the canvas,
//! and arrows go over them. Canvas units are the figure's pixels at its own `[render]` size (y
//! down); the whole canvas scales with `--size`.
//!
//! Numbers in text come from data, never typed twice: `{key}` or `{key:.2}` in a title or caption
//! is replaced by a value of the figure's JSON `data` (dotted paths: `{settle_s.median}`), and in a
//! scene panel's caption also by `{time}`, `{frame}` or a fact of the panel's state digest
//! (`{triangles}`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toml::de::DeValue;

use super::common::{CameraSpec, RenderSpec, read_camera};
use super::reader::TableReader;
use super::values::Srgb;
use super::{Scene, SceneError};
use crate::kinds::KindTable;

/// Most panels in one figure.
pub const MAX_PANELS: usize = 64;
/// Most values in one chart series.
pub const MAX_VALUES: usize = 1_000_000;
/// Largest data file a figure reads.
pub const MAX_DATA_BYTES: u64 = 64 << 20;

#[derive(Clone, Debug, PartialEq)]
pub struct FigureSpec {
    /// The canvas: the scene's own `[render]` size, kept when `--size` renders it larger or
    /// smaller, so the layout scales as a whole.
    pub size: [f64; 2],
    pub title: Option<String>,
    /// Panels per row of the grid (default: as square as the count allows, at most 4).
    pub columns: usize,
    /// Space between panels and around the grid, canvas units.
    pub gap: f64,
    pub margin: f64,
    pub title_size: f64,
    pub caption_size: f64,
    pub text_color: Srgb,
    /// Fill behind chart panels.
    pub chart_background: Srgb,
    pub data: Option<Data>,
    pub panels: Vec<PanelSpec>,
    /// Labels and arrows over the whole figure (canvas positions only).
    pub labels: Vec<LabelSpec>,
    pub arrows: Vec<ArrowSpec>,
}

/// A JSON document a figure draws numbers from.
#[derive(Clone, Debug, PartialEq)]
pub struct Data {
    pub path: PathBuf,
    pub json: Arc<serde_json::Value>,
}

/// Which frame of its scene a panel shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PanelFrame {
    /// The frame at the figure's own time (clamped to the scene's last frame).
    Follow,
    Frame(u32),
    /// Seconds into the scene.
    Time(f64),
}

#[derive(Clone, Debug, PartialEq)]
pub enum PanelContent {
    Scene(Box<Scene>),
    Chart(ChartSpec),
}

#[derive(Clone, Debug, PartialEq)]
pub struct PanelSpec {
    pub content: PanelContent,
    pub frame: PanelFrame,
    pub caption: Option<String>,
    /// `[x, y, width, height]` in canvas units; else the panel's grid cell.
    pub rect: Option<[f64; 4]>,
    /// Whether a scene panel shows its scene's own 2-D overlay (result strips, legends).
    pub overlay: bool,
    /// Labels and arrows over this panel: 3-D points (projected through its camera) or positions
    /// in the panel (canvas units from its top left).
    pub labels: Vec<LabelSpec>,
    pub arrows: Vec<ArrowSpec>,
}

/// Where an annotation is pinned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Anchor {
    World([f64; 3]),
    Canvas([f64; 2]),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    None,
    Filled,
    Hollow,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LabelSpec {
    pub at: Anchor,
    pub text: String,
    /// From the anchor to the text's left baseline, canvas units; a leader line joins them when
    /// it is longer than the text is tall.
    pub offset: [f64; 2],
    pub marker: Marker,
    pub color: Srgb,
    pub size: f64,
    /// A rounded box behind the text (equations, callouts).
    pub boxed: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ArrowSpec {
    pub from: Anchor,
    pub to: Anchor,
    pub color: Srgb,
    pub width: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartKind {
    /// One bar per value (per category).
    Bar,
    /// Values counted into equal bins.
    Histogram,
    /// Values joined by lines, over `x` (or their index).
    Line,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    pub x: Option<Vec<f64>>,
    pub values: Vec<f64>,
    pub color: Option<Srgb>,
}

/// A horizontal reference line.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    pub value: f64,
    pub label: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ChartSpec {
    pub kind: ChartKind,
    pub series: Vec<Series>,
    /// Names under the bars of a bar chart (default 1, 2, 3, …).
    pub categories: Vec<String>,
    pub bins: usize,
    pub reference: Option<Reference>,
    pub x_label: String,
    pub y_label: String,
}

impl KindTable for FigureSpec {
    const NAME: &'static str = "figure";

    fn read(t: &TableReader, render: &RenderSpec) -> Self {
        read_figure(t, [render.width as f64, render.height as f64])
    }

    fn memory(&self) -> (u64, String) {
        let scenes: u64 = self
            .panels
            .iter()
            .map(|p| match &p.content {
                PanelContent::Scene(s) => s.kind.memory().0,
                PanelContent::Chart(c) => c.series.iter().map(|s| s.values.len() as u64 * 16).sum(),
            })
            .sum();
        (scenes + (1 << 20), format!("a figure of {} panels", self.panels.len()))
    }
}

/// The folder paths in the figure file are relative to.
fn base_dir(t: &TableReader) -> PathBuf {
    t.diagnostics().file().and_then(Path::parent).map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

thread_local! {
    /// Set while a panel's scene file is being read: a figure met then is a figure in a figure
    /// (perhaps itself), refused before it reads any panels of its own.
    static IN_PANEL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn read_figure(t: &TableReader, size: [f64; 2]) -> FigureSpec {
    if IN_PANEL.with(|p| p.get()) {
        t.error_here("this figure is the scene of a panel of another figure; a panel shows a scene of another kind");
        let _ = (t.raw("title"), t.raw("panel"), t.raw("data"), t.raw("columns"), t.raw("label"), t.raw("arrow"));
        return FigureSpec {
            size,
            title: None,
            columns: 1,
            gap: 0.0,
            margin: 0.0,
            title_size: 1.0,
            caption_size: 1.0,
            text_color: Srgb([0.0; 3]),
            chart_background: Srgb([1.0; 3]),
            data: None,
            panels: Vec::new(),
            labels: Vec::new(),
            arrows: Vec::new(),
        };
    }
    let dir = base_dir(t);
    let data = t.has("data").then(|| read_data(t, "data", &dir)).flatten();
    let title = t.string("title");
    if let Some(title) = &title {
        check_placeholders(t, "title", title, data.as_ref(), false);
    }
    let readers = t.tables("panel");
    let panels: Vec<PanelSpec> = readers.iter().map(|p| read_panel(p, &dir, data.as_ref())).collect();
    if panels.len() > MAX_PANELS {
        t.error_at("panel", format!("{} panels; a figure has at most {MAX_PANELS}", panels.len()));
    }
    let default_columns = (panels.len() as f64).sqrt().ceil().clamp(1.0, 4.0) as i64;
    let columns = t.int_in("columns", default_columns, 1..=MAX_PANELS as i64) as usize;
    let labels = t.tables("label").iter().map(|l| read_label(l, false, data.as_ref())).collect();
    let arrows = t.tables("arrow").iter().map(|a| read_arrow(a, false)).collect();
    let spec = FigureSpec {
        size,
        title,
        columns,
        gap: t.f64_in("gap", 16.0, 0.0..1e4),
        margin: t.f64_in("margin", 16.0, 0.0..1e4),
        title_size: t.f64_in("title_size", 22.0, 4.0..400.0),
        caption_size: t.f64_in("caption_size", 15.0, 4.0..400.0),
        text_color: t.color("text_color", Srgb([0.12, 0.12, 0.14])),
        chart_background: t.color("chart_background", Srgb([1.0, 1.0, 1.0])),
        data,
        panels,
        labels,
        arrows,
    };
    check_panels(&spec, &readers);
    spec
}

/// Fixed frames must exist in their scene, and annotations pinned to 3-D points must land in
/// their panel at the frame it shows (at its first frame for a panel on the figure's clock).
fn check_panels(spec: &FigureSpec, readers: &[TableReader]) {
    let rects = spec.panel_rects();
    for (k, (p, r)) in spec.panels.iter().zip(readers).enumerate() {
        let PanelContent::Scene(scene) = &p.content else { continue };
        let last = scene.render.frames - 1;
        let t = match p.frame {
            PanelFrame::Follow => 0.0,
            PanelFrame::Time(s) => s.min(scene.render.time_of(last)),
            PanelFrame::Frame(f) => {
                if f > last {
                    r.error_at("frame", format!("frame {f} is past the last frame ({last}) of {}", scene.path.display()));
                }
                scene.render.time_of(f.min(last))
            }
        };
        let (eye, target) = scene.camera.eye_target(t, scene.render.duration());
        let camera = crate::frame::Camera {
            eye: eye.map(|v| v as f32),
            target: target.map(|v| v as f32),
            up: [0.0, 1.0, 0.0],
            fov_y_deg: scene.camera.fov_deg as f32,
            near: scene.camera.near as f32,
            far: scene.camera.far as f32,
        };
        let aspect = (rects[k][2] / rects[k][3]) as f32;
        let outside = |anchor: Anchor| match anchor {
            Anchor::World(w) => {
                let (uv, front) = camera.project(w.map(|v| v as f32), aspect);
                (!front || uv.iter().any(|c| !(0.0..=1.0).contains(c))).then(|| {
                    let at = if front {
                        format!("lands at {:.0} %, {:.0} % of the panel", uv[0] * 100.0, uv[1] * 100.0)
                    } else {
                        "is behind the camera".into()
                    };
                    format!(
                        "[{}, {}, {}] is off-screen in panel {} at t = {t:.2} s: it {at} (move the point, or give the panel a [camera])",
                        w[0],
                        w[1],
                        w[2],
                        k + 1
                    )
                })
            }
            Anchor::Canvas(_) => None,
        };
        for (l, lr) in p.labels.iter().zip(r.tables("label")) {
            if let Some(message) = outside(l.at) {
                lr.error_at("at", message);
            }
        }
        for (a, ar) in p.arrows.iter().zip(r.tables("arrow")) {
            for (key, anchor) in [("from", a.from), ("to", a.to)] {
                if let Some(message) = outside(anchor) {
                    ar.error_at(key, message);
                }
            }
        }
    }
}

/// Reads the JSON file named at `key` (relative to `dir`).
fn read_data(t: &TableReader, key: &'static str, dir: &Path) -> Option<Data> {
    let name = t.string(key)?;
    let path = dir.join(&name);
    let text = match std::fs::metadata(&path) {
        Ok(m) if !m.is_file() => Err(format!("{} is not a file", path.display())),
        Ok(m) if m.len() > MAX_DATA_BYTES => Err(format!("{} is {} bytes; data files are at most 64 MiB", path.display(), m.len())),
        _ => std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display())),
    };
    let parsed = text.and_then(|s| serde_json::from_str(&s).map_err(|e| format!("{} is not JSON: {e}", path.display())));
    match parsed {
        Ok(json) => Some(Data { path, json: Arc::new(json) }),
        Err(message) => {
            t.error_at(key, message);
            None
        }
    }
}

/// The value at dotted `path` in `json`.
pub fn lookup<'j>(json: &'j serde_json::Value, path: &str) -> Result<&'j serde_json::Value, String> {
    let mut v = json;
    for part in path.split('.') {
        v = match v {
            serde_json::Value::Object(m) => m.get(part).ok_or_else(|| {
                let mut keys: Vec<&str> = m.keys().map(String::as_str).collect();
                keys.sort();
                let close = super::reader::did_you_mean(part, keys.iter().copied());
                match close {
                    Some(c) => format!("no key \"{part}\" in the data (did you mean \"{c}\"?)"),
                    None => format!("no key \"{part}\" in the data; it has {}", keys.join(", ")),
                }
            })?,
            serde_json::Value::Array(a) => match part.parse::<usize>() {
                Ok(i) if i < a.len() => &a[i],
                _ => return Err(format!("\"{part}\": the array has items 0 to {}", a.len().saturating_sub(1))),
            },
            _ => return Err(format!("\"{part}\" is looked up in something that is neither an object nor an array")),
        };
    }
    Ok(v)
}

/// Every value at dotted `path`, where a `*` part stands for each item of an array:
/// `frames.*.facts.seek` is the `seek` fact of every frame of a manifest.
pub fn lookup_all<'j>(json: &'j serde_json::Value, path: &str) -> Result<Vec<&'j serde_json::Value>, String> {
    let mut current = vec![json];
    for part in path.split('.') {
        let mut next = Vec::new();
        for v in current {
            if part == "*" {
                match v {
                    serde_json::Value::Array(a) => next.extend(a.iter()),
                    _ => return Err("\"*\" stands for the items of an array, and this is not one".into()),
                }
            } else {
                next.push(lookup(v, part)?);
            }
        }
        current = next;
    }
    Ok(current)
}

/// `{name}` and `{name:.N}` in `text`: (name, decimals).
pub fn placeholders(text: &str) -> Result<Vec<(String, Option<usize>)>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}').ok_or_else(|| format!("a `{{` without its `}}` in \"{text}\""))? + open;
        let inner = &rest[open + 1..close];
        let (name, decimals) = match inner.split_once(":.") {
            Some((n, d)) => {
                (n, Some(d.parse::<usize>().ok().filter(|&d| d <= 12).ok_or_else(|| format!("`{{{inner}}}`: decimals are 0 to 12"))?))
            }
            None => (inner, None),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            return Err(format!("`{{{inner}}}` is not a placeholder: write {{name}} or {{name:.2}}"));
        }
        out.push((name.to_string(), decimals));
        rest = &rest[close + 1..];
    }
    Ok(out)
}

/// Checks the placeholders of `text`: well formed, and (unless the panel may supply its own
/// facts) present in `data`.
fn check_placeholders(t: &TableReader, key: &'static str, text: &str, data: Option<&Data>, panel_facts: bool) {
    let names = match placeholders(text) {
        Ok(n) => n,
        Err(e) => return t.error_at(key, e),
    };
    for (name, _) in names {
        if panel_facts {
            continue;
        }
        match data {
            Some(d) => {
                if let Err(e) = lookup(&d.json, &name) {
                    t.error_at(key, format!("{{{name}}}: {e}"));
                }
            }
            None => t.error_at(key, format!("{{{name}}} needs `data = \"file.json\"` in [figure]")),
        }
    }
}

fn read_panel(p: &TableReader, dir: &Path, data: Option<&Data>) -> PanelSpec {
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
            let chart_data = if c.has("data") { read_data(&c, "data", dir) } else { data.cloned() };
            let chart = read_chart(&c, chart_data.as_ref());
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
        labels,
        arrows,
    }
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
                return finish_panel_scene(p, "scene", in_panel(|| super::load(&path)), camera);
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
                Err(_) => return finish_panel_scene(p, "scene", in_panel(|| super::parse(&text, &path)), camera),
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
    finish_panel_scene(p, key, in_panel(|| super::parse(&text, &path)), camera)
}

/// `load` with panel nesting marked (a figure met inside refuses to read panels of its own).
fn in_panel<T>(load: impl FnOnce() -> T) -> T {
    IN_PANEL.with(|f| f.set(true));
    let out = load();
    IN_PANEL.with(|f| f.set(false));
    out
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
    match super::reader::number_list(v.get_ref()).as_deref() {
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
fn read_label(l: &TableReader, world: bool, data: Option<&Data>) -> LabelSpec {
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

fn read_arrow(a: &TableReader, world: bool) -> ArrowSpec {
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

/// Numbers at `key`: an inline array, or a dotted path into `data` naming one.
fn read_values(t: &TableReader, key: &'static str, data: Option<&Data>) -> Option<Vec<f64>> {
    let v = t.raw(key)?;
    let values = match v.get_ref() {
        DeValue::String(path) => {
            let Some(d) = data else {
                t.error_at(key, format!("\"{path}\" names a value of the data, but there is none: add `data = \"file.json\"`"));
                return None;
            };
            let found = if path.split('.').any(|p| p == "*") {
                lookup_all(&d.json, path).and_then(|items| {
                    items
                        .iter()
                        .enumerate()
                        .map(|(k, v)| {
                            v.as_f64().ok_or_else(|| format!("\"{path}\" in {}: item {k} is {v}, not a number", d.path.display()))
                        })
                        .collect::<Result<Vec<f64>, String>>()
                })
            } else {
                lookup(&d.json, path).and_then(|j| {
                    j.as_array()
                        .and_then(|a| a.iter().map(serde_json::Value::as_f64).collect::<Option<Vec<f64>>>())
                        .ok_or_else(|| format!("\"{path}\" in {} is not an array of numbers", d.path.display()))
                })
            };
            match found {
                Ok(v) => v,
                Err(e) => {
                    t.error_at(key, e);
                    return None;
                }
            }
        }
        other => match super::reader::number_list(other) {
            Some(v) => v,
            None => {
                t.error_at(key, "expected an array of numbers, or the dotted name of one in the data");
                return None;
            }
        },
    };
    if values.len() > MAX_VALUES || values.iter().any(|x| !x.is_finite()) {
        t.error_at(key, format!("{} values; a series has at most {MAX_VALUES} finite numbers", values.len()));
        return None;
    }
    Some(values)
}

fn read_series(s: &TableReader, data: Option<&Data>, kind: ChartKind) -> Series {
    let values = read_values(s, "values", data);
    if values.is_none() && !s.has("values") {
        s.error_here("a series needs `values`");
    }
    let values = values.unwrap_or_default();
    let x = s.has("x").then(|| read_values(s, "x", data)).flatten();
    if let Some(x) = &x {
        if kind != ChartKind::Line {
            s.error_at("x", "`x` is for line charts; bars take `categories`, histograms count `values`");
        } else if x.len() != values.len() {
            s.error_at("x", format!("{} x values for {} values", x.len(), values.len()));
        }
    }
    Series { label: s.string("label").unwrap_or_default(), x, values, color: s.has("color").then(|| s.color("color", Srgb([0.0; 3]))) }
}

fn read_chart(c: &TableReader, data: Option<&Data>) -> ChartSpec {
    let kind = match c.choice("type", &["bar", "histogram", "line"]) {
        "histogram" => ChartKind::Histogram,
        "line" => ChartKind::Line,
        _ => ChartKind::Bar,
    };
    let mut series: Vec<Series> = c
        .tables("series")
        .iter()
        .map(|s| {
            let out = read_series(s, data, kind);
            s.finish();
            out
        })
        .collect();
    if c.has("values") {
        if !series.is_empty() {
            c.error_at("values", "give `values` or `[[…series]]`, not both");
        }
        series.insert(0, read_series(c, data, kind));
    } else if series.is_empty() {
        c.error_here("a chart needs `values` or `[[…series]]`");
    }
    let categories: Vec<String> = match c.raw("categories").map(|v| v.get_ref()) {
        None => Vec::new(),
        Some(DeValue::Array(a)) => a
            .iter()
            .map(|v| match v.get_ref() {
                DeValue::String(s) => s.to_string(),
                other => super::reader::number(other).map(|n| n.to_string()).unwrap_or_default(),
            })
            .collect(),
        Some(_) => {
            c.error_at("categories", "expected an array of names");
            Vec::new()
        }
    };
    let longest = series.iter().map(|s| s.values.len()).max().unwrap_or(0);
    if !categories.is_empty() && categories.len() != longest {
        c.error_at("categories", format!("{} categories for {longest} values", categories.len()));
    }
    let reference = c.has("reference").then(|| read_reference(c, data, &series)).flatten();
    ChartSpec {
        kind,
        series,
        categories,
        bins: c.int_in("bins", 20, 1..=1000) as usize,
        reference,
        x_label: c.string("x_label").unwrap_or_default(),
        y_label: c.string("y_label").unwrap_or_default(),
    }
}

/// `reference`: a number, `"mean"` (of the first series), or a dotted name in the data.
fn read_reference(c: &TableReader, data: Option<&Data>, series: &[Series]) -> Option<Reference> {
    let v = c.raw("reference")?;
    let value = match v.get_ref() {
        DeValue::String(s) if s.as_ref() == "mean" => {
            let first = series.first().map(|s| s.values.as_slice()).unwrap_or_default();
            (!first.is_empty()).then(|| first.iter().sum::<f64>() / first.len() as f64)
        }
        DeValue::String(s) => match data.map(|d| lookup(&d.json, s)) {
            Some(Ok(j)) => j.as_f64(),
            Some(Err(e)) => {
                c.error_at("reference", e);
                return None;
            }
            None => None,
        },
        other => super::reader::number(other),
    };
    let Some(value) = value.filter(|v| v.is_finite()) else {
        c.error_at("reference", "expected a number, \"mean\", or the dotted name of a number in the data");
        return None;
    };
    Some(Reference { value, label: c.string("reference_label").unwrap_or_default() })
}

impl FigureSpec {
    /// Height of the band above the grid that holds the title (0 without one).
    pub fn title_band(&self) -> f64 {
        if self.title.is_some() { self.title_size * 1.6 } else { 0.0 }
    }

    /// Height of the band under every grid cell that holds its caption (0 when no panel has one).
    pub fn caption_band(&self) -> f64 {
        if self.panels.iter().any(|p| p.caption.is_some()) { self.caption_size * 1.8 } else { 0.0 }
    }

    /// Every panel's rectangle `[x, y, width, height]` on a canvas of `size`: its own `rect`, else
    /// its cell of the grid (row by row, `columns` wide) under the title, less its caption band.
    pub fn panel_rects(&self) -> Vec<[f64; 4]> {
        let size = self.size;
        let n = self.panels.len().max(1);
        let cols = self.columns.clamp(1, n);
        let rows = n.div_ceil(cols);
        let top = self.margin + self.title_band();
        let cell_w = (size[0] - 2.0 * self.margin - (cols - 1) as f64 * self.gap) / cols as f64;
        let cell_h = (size[1] - top - self.margin - (rows - 1) as f64 * self.gap) / rows as f64;
        let caption = self.caption_band();
        self.panels
            .iter()
            .enumerate()
            .map(|(i, p)| {
                p.rect.unwrap_or_else(|| {
                    let (r, c) = (i / cols, i % cols);
                    let x = self.margin + c as f64 * (cell_w + self.gap);
                    let y = top + r as f64 * (cell_h + self.gap);
                    [x, y, cell_w.max(1.0), (cell_h - caption).max(1.0)]
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::scene::{Diagnostic, KindSpec};

    /// A figure file as if it sat in `scenes/figures/`.
    fn parse(body: &str) -> Result<FigureSpec, Vec<Diagnostic>> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/figures/test.toml");
        match crate::scene::parse(&format!("kind = \"figure\"\n[render]\nwidth = 900\nheight = 400\n{body}"), &path) {
            Ok(s) => match s.kind {
                KindSpec::Figure(f) => Ok(f),
                other => panic!("{other:?}"),
            },
            Err(SceneError::Invalid { diagnostics, .. }) => Err(diagnostics),
            Err(e) => panic!("{e}"),
        }
    }

    fn problem(body: &str, key: &str, words: &str) -> (usize, usize) {
        let d = parse(body).expect_err("refused");
        let hit = d.iter().find(|d| d.key == key && d.message.contains(words)).unwrap_or_else(|| panic!("no `{words}` at {key}: {d:?}"));
        (hit.line, hit.col)
    }

    #[test]
    fn panels_fill_a_grid_under_the_title_with_room_for_captions() {
        let f = parse(
            "[figure]\ntitle = \"t\"\ncolumns = 2\n[[figure.panel]]\nscene = \"../terrain.toml\"\ncaption = \"{triangles}\"\n\
             [[figure.panel]]\nscene = \"../flock.toml\"\n[[figure.panel]]\nscene = \"../dice.toml\"\nrect = [10, 20, 30, 40]\n",
        )
        .unwrap();
        let r = f.panel_rects();
        let (title, caption) = (f.title_band(), f.caption_band());
        assert!(title > 0.0 && caption > 0.0);
        let cell_w = (900.0 - 2.0 * 16.0 - 16.0) / 2.0;
        let cell_h = (400.0 - 16.0 - title - 16.0 - 16.0) / 2.0;
        assert_eq!(r[0], [16.0, 16.0 + title, cell_w, cell_h - caption]);
        assert_eq!(r[1], [16.0 + cell_w + 16.0, 16.0 + title, cell_w, cell_h - caption]);
        assert_eq!(r[2], [10.0, 20.0, 30.0, 40.0], "its own rectangle");
        assert!(matches!(&f.panels[0].content, PanelContent::Scene(s) if s.kind.name() == "terrain"));
    }

    #[test]
    fn bad_panels_are_named_at_their_line_and_column() {
        assert_eq!(
            problem("[[figure.panel]]\nscene = \"nowhere.toml\"\n", "figure.panel[0].scene", "relative to the figure's file"),
            (6, 9)
        );
        problem("[[figure.panel]]\nscene = \"../dice.toml\"\nframe = 9999\n", "figure.panel[0].frame", "past the last frame (179)");
        problem("[[figure.panel]]\n", "figure.panel[0]", "needs `scene");
        problem("[[figure.panel]]\nscene = \"../dice.toml\"\n[figure.panel.chart]\nvalues = [1]\n", "figure.panel[0].chart", "not both");
        // a point above and behind the camera of the settled dice scene
        let at = problem(
            "[[figure.panel]]\nscene = \"../dice.toml\"\nframe = 179\n[[figure.panel.label]]\nat = [0, 40, 0]\ntext = \"x\"\n",
            "figure.panel[0].label[0].at",
            "off-screen in panel 1",
        );
        assert_eq!(at, (9, 6));
        problem(
            "[[figure.panel]]\nscene = \"../dice.toml\"\nframe = 179\n[[figure.panel.arrow]]\nfrom = [0, 0, 0]\nto = [90, 0, 0]\n",
            "figure.panel[0].arrow[0].to",
            "lands at",
        );
        problem("[[figure.panel]]\nscene = \"../dice.toml\"\ncaption = \"{oops\"\n", "figure.panel[0].caption", "without its");
    }

    #[test]
    fn chart_data_comes_from_the_json_with_hints_for_missing_keys() {
        let f = parse(
            "[figure]\ndata = \"data/dice_study.json\"\ntitle = \"χ² {chi_square:.2}\"\n[[figure.panel]]\n[figure.panel.chart]\n\
             values = \"face_counts\"\nreference = \"mean\"\n",
        )
        .unwrap();
        let PanelContent::Chart(c) = &f.panels[0].content else { panic!() };
        let json = &f.data.as_ref().unwrap().json;
        let counts: Vec<f64> = json["face_counts"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(c.series[0].values, counts);
        let mean = counts.iter().sum::<f64>() / 6.0;
        assert_eq!(c.reference.as_ref().unwrap().value, mean);
        problem(
            "[figure]\ndata = \"data/dice_study.json\"\n[[figure.panel]]\n[figure.panel.chart]\nvalues = \"face_count\"\n",
            "figure.panel[0].chart.values",
            "did you mean \"face_counts\"",
        );
        problem("[figure]\ntitle = \"{chi_square}\"\n", "figure.title", "needs `data");
        problem("[figure]\ndata = \"data/missing.json\"\n", "figure.data", "cannot read");
        problem("[figure]\ndata = \"../dice.toml\"\n", "figure.data", "is not JSON");
        problem(
            "[[figure.panel]]\n[figure.panel.chart]\ntype = \"line\"\nvalues = [1, 2]\nx = [1]\n",
            "figure.panel[0].chart.x",
            "1 x values for 2 values",
        );
    }

    #[test]
    fn a_figure_cannot_be_its_own_panel() {
        let dir = std::env::temp_dir().join(format!("simreel-figure-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("self.toml");
        std::fs::write(&path, "kind = \"figure\"\n[[figure.panel]]\nscene = \"self.toml\"\n").unwrap();
        let e = crate::scene::load(&path).expect_err("refused");
        assert!(e.to_string().contains("is the scene of a panel of another figure"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
