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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::common::RenderSpec;
use super::keys::{Key, Table};
use super::kind_tables::KindTable;
use super::reader::TableReader;
use super::values::Srgb;
use super::{LookSpec, SimSpec};

mod chart;
mod keys;
mod panel;

use keys::*;
#[cfg(test)]
mod tests;

/// Most panels in one figure.
pub const MAX_PANELS: usize = 64;
/// Most values in one chart series.
pub const MAX_VALUES: usize = 1_000_000;
/// Largest data file a figure reads.
pub const MAX_DATA_BYTES: u64 = 64 << 20;

/// What a figure's simulation is built from: each scene panel's simulation and which frame of
/// it the panel shows (`None` for a chart).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FigureSpec {
    pub panels: Vec<Option<PanelSim>>,
}

/// A scene panel's simulation: its scene's simulation part and the frame it shows.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PanelSim {
    /// The scene's name and file, for messages (they change no frame).
    #[serde(skip)]
    pub name: String,
    #[serde(skip)]
    pub path: PathBuf,
    pub scene: SimSpec,
    pub frame: PanelFrame,
}

/// What only a figure's drawing reads: the layout, texts and colours, each panel's look (a
/// scene's, or a chart), annotations, and the data numbers are filled from.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FigureLook {
    /// The canvas: the scene's own `[render]` size, kept when `--size` renders it larger or
    /// smaller, so the layout scales as a whole.
    pub size: [f64; 2],
    pub title: Option<String>,
    /// A line under the whole figure, left-aligned.
    pub footnote: Option<String>,
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
    /// The files the figure reads besides its own: its data files and its panels' scene files
    /// (and theirs). Their contents are in the values above.
    #[serde(skip)]
    pub files: Vec<PathBuf>,
}

/// A JSON document a figure draws numbers from. Its identity is its contents (FNV-1a of the
/// file's bytes), wherever the file lies.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Data {
    #[serde(skip)]
    pub path: PathBuf,
    #[serde(skip)]
    pub json: Arc<serde_json::Value>,
    /// FNV-1a of the file's bytes.
    pub contents: u64,
    /// The columns (`frames.*.facts.time`) read from it so far, by dotted path: a path that
    /// several series share (their x) is walked once.
    #[serde(skip)]
    pub columns: Columns,
}

/// Columns read from a data file, by dotted path: a cache, so not part of what the data is (every
/// two are equal).
#[derive(Clone, Debug, Default)]
pub struct Columns(Arc<std::sync::Mutex<HashMap<String, Column>>>);

/// A column's numbers, or why the path names none.
type Column = Result<Vec<f64>, String>;

impl PartialEq for Columns {
    fn eq(&self, _: &Columns) -> bool {
        true
    }
}

impl Columns {
    pub fn get(&self, path: &str) -> Option<Column> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).get(path).cloned()
    }

    pub fn put(&self, path: &str, found: &Column) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(path.to_string(), found.clone());
    }
}

/// Data files parsed lately, by path, with the hash of the bytes they were parsed from: a scene
/// loaded again (the studio after each save, a golden check, a merge) whose data file did not
/// change takes the parsed value and its columns instead of parsing again. At most
/// [`PARSED_BYTES`] of files are kept.
static PARSED: std::sync::Mutex<Vec<(PathBuf, u64, u64, Data)>> = std::sync::Mutex::new(Vec::new());
const PARSED_BYTES: u64 = 64 << 20;

/// The data file `path` (its `bytes`), parsed, from [`PARSED`] when it is there.
fn parse_data(path: &Path, bytes: &[u8]) -> Result<Data, String> {
    let contents = crate::frame::Fnv::hash(bytes);
    let mut parsed = PARSED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(at) = parsed.iter().position(|(p, c, ..)| p == path && *c == contents) {
        let entry = parsed.remove(at);
        let data = entry.3.clone();
        parsed.push(entry); // the most recent last
        return Ok(data);
    }
    drop(parsed);
    let json: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    let data = Data { path: path.to_path_buf(), json: Arc::new(json), contents, columns: Default::default() };
    let mut parsed = PARSED.lock().unwrap_or_else(|e| e.into_inner());
    parsed.retain(|(p, ..)| p != path);
    parsed.push((path.to_path_buf(), contents, bytes.len() as u64, data.clone()));
    while parsed.iter().map(|e| e.2).sum::<u64>() > PARSED_BYTES && parsed.len() > 1 {
        parsed.remove(0);
    }
    Ok(data)
}

/// Which frame of its scene a panel shows.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum PanelFrame {
    /// The frame at the figure's own time (clamped to the scene's last frame).
    Follow,
    Frame(u32),
    /// Seconds into the scene.
    Time(f64),
}

/// What a panel draws: another scene, by its look (its simulation is the figure's), or a chart.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum PanelContent {
    Scene(Box<LookSpec>),
    Chart(ChartSpec),
    /// Part of another panel, magnified.
    Inset(InsetSpec),
}

/// An inset: `region` of panel `of` (a scene panel), magnified into this panel, with a frame of
/// `color` around the region there and around this panel.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct InsetSpec {
    /// The panel it magnifies, from 0.
    pub of: usize,
    /// `[x, y, width, height]` in canvas units from that panel's top left (turned into them as
    /// the figure is read where it was written in the scene's units).
    pub region: [f64; 4],
    pub color: Srgb,
    /// `units = "scene"` (see [`LabelSpec::scene_units`]).
    #[serde(skip)]
    pub scene_units: bool,
}

impl InsetSpec {
    /// The region as drawn into a panel of `aspect` (width / height): widened or heightened about
    /// its centre to that shape, so the magnification is the same across and down.
    pub fn fitted(&self, aspect: f64) -> [f64; 4] {
        let [x, y, w, h] = self.region;
        let (cx, cy) = (x + w / 2.0, y + h / 2.0);
        let (w, h) = if w / h < aspect { (h * aspect, h) } else { (w, w / aspect) };
        [cx - w / 2.0, cy - h / 2.0, w, h]
    }
}

/// How a panel is drawn.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PanelSpec {
    pub content: PanelContent,
    pub caption: Option<String>,
    /// `[x, y, width, height]` in canvas units; else the panel's grid cell.
    pub rect: Option<[f64; 4]>,
    /// Whether a scene panel shows its scene's own 2-D overlay (result strips, legends).
    pub overlay: bool,
    /// How the panel draws its scene's meshes, in place of the scene's own way.
    pub style: Option<PanelStyle>,
    /// Labels and arrows over this panel: 3-D points (projected through its camera) or positions
    /// in the panel (canvas units from its top left).
    pub labels: Vec<LabelSpec>,
    pub arrows: Vec<ArrowSpec>,
}

/// A panel's mesh style, for a scene of any kind: fills hidden (a wireframe with hidden lines
/// removed) or shaded, with or without wires. Bent meshes (jelly dice) take no wires.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PanelStyle {
    pub fill: bool,
    pub wire: bool,
    pub wire_color: Srgb,
    /// Output pixels.
    pub wire_width: f64,
}

/// Where an annotation is pinned.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum Anchor {
    World([f64; 3]),
    Canvas([f64; 2]),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Marker {
    None,
    Filled,
    Hollow,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
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
    /// `units = "scene"`: `at = [x, y]` as written is in the panel's scene's 2-D units (turned
    /// into panel units as the figure is read).
    #[serde(skip)]
    pub scene_units: bool,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ArrowSpec {
    pub from: Anchor,
    pub to: Anchor,
    pub color: Srgb,
    pub width: f64,
    /// `units = "scene"` (see [`LabelSpec::scene_units`]).
    #[serde(skip)]
    pub scene_units: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum ChartKind {
    /// One bar per value (per category).
    Bar,
    /// Values counted into equal bins.
    Histogram,
    /// Values joined by lines, over `x` (or their index).
    Line,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Series {
    pub label: String,
    pub x: Option<Vec<f64>>,
    pub values: Vec<f64>,
    pub color: Option<Srgb>,
}

/// A horizontal reference line.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Reference {
    pub value: f64,
    pub label: String,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
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
    const TABLE: &'static Table = &FIGURE;

    type Look = FigureLook;

    fn read(t: &TableReader, render: &RenderSpec) -> (Self, FigureLook) {
        read_figure(t, [render.width as f64, render.height as f64])
    }

    fn frame_cost(&self, _: &FigureLook) -> (f64, f64) {
        // panels of other kinds' scenes, charts and text: about a terrain's
        (600.0, 5.0)
    }

    fn memory(&self, look: &FigureLook) -> (u64, String) {
        let scenes: u64 = self
            .panels
            .iter()
            .zip(&look.panels)
            .map(|(sim, p)| match (sim, &p.content) {
                (Some(sim), PanelContent::Scene(look)) => super::kind_tables::memory(&sim.scene.kind, &look.kind).0,
                (_, PanelContent::Chart(c)) => c.series.iter().map(|s| s.values.len() as u64 * 16).sum(),
                _ => 0,
            })
            .sum();
        (scenes + (1 << 20), format!("a figure of {} panels", look.panels.len()))
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

fn read_figure(t: &TableReader, size: [f64; 2]) -> (FigureSpec, FigureLook) {
    if IN_PANEL.with(|p| p.get()) {
        t.error_here("this figure is the scene of a panel of another figure; a panel shows a scene of another kind");
        for key in FIGURE.keys {
            let _ = t.raw(key);
        }
        let look = FigureLook {
            size,
            title: None,
            footnote: None,
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
            files: Vec::new(),
        };
        return (FigureSpec { panels: Vec::new() }, look);
    }
    let dir = base_dir(t);
    let data = t.has(&DATA).then(|| read_data(t, &DATA, &dir)).flatten();
    let source = DataSource::at(t, &DATA, &data, DataSource::NotNamed);
    let title = t.string(&TITLE);
    let footnote = t.string(&FOOTNOTE);
    let readers = t.tables(&PANEL_KEY);
    let mut files: Vec<PathBuf> = data.iter().map(|d| d.path.clone()).collect();
    let (sims, panels): (Vec<Option<PanelSim>>, Vec<PanelSpec>) = readers
        .iter()
        .map(|p| {
            let (sim, look, read) = panel::read_panel(p, &dir, source);
            files.extend(read);
            (sim, look)
        })
        .unzip();
    // a figure with a scene panel has its panels' facts to give (`{agents}`, `{panel2.time}`),
    // known only as they play, as a caption has its panel's
    for (key, text) in [(&TITLE, &title), (&FOOTNOTE, &footnote)] {
        if let Some(text) = text {
            check_placeholders(t, key, text, source, sims.iter().any(Option::is_some));
            check_panel_names(t, key, text, &sims);
        }
    }
    if panels.len() > MAX_PANELS {
        t.error_at(&PANEL_KEY, format!("{} panels; a figure has at most {MAX_PANELS}", panels.len()));
    }
    let default_columns = (panels.len() as f64).sqrt().ceil().clamp(1.0, 4.0) as i64;
    let columns = t.int_or(&COLUMNS, default_columns) as usize;
    let labels = t.tables(&LABEL_KEY).iter().map(|l| panel::read_label(l, (false, false), source)).collect();
    let arrows = t.tables(&ARROW_KEY).iter().map(|a| panel::read_arrow(a, (false, false))).collect();
    let look = FigureLook {
        size,
        title,
        footnote,
        columns,
        gap: t.float(&GAP),
        margin: t.float(&MARGIN),
        title_size: t.float(&TITLE_SIZE),
        caption_size: t.float(&CAPTION_SIZE),
        text_color: t.color(&TEXT_COLOR),
        chart_background: t.color(&CHART_BACKGROUND),
        data,
        panels,
        labels,
        arrows,
        files,
    };
    let spec = FigureSpec { panels: sims };
    let mut look = look;
    place_scene_units(&mut look, &spec, &readers);
    check_panels(&spec, &look, &readers);
    check_insets(&look, &readers);
    for r in &readers {
        r.finish();
    }
    (spec, look)
}

/// Turns the points and regions written in a panel's scene's units (`units = "scene"`) into
/// panel units, as the panel fits its scene: a flock's canvas scaled to fit and centred
/// ([`crate::frame::fit`]). Only a 2-D scene has such units (a figure's own labels and arrows
/// have no `units`: they are in figure units).
fn place_scene_units(look: &mut FigureLook, spec: &FigureSpec, readers: &[TableReader]) {
    let rects = look.panel_rects();
    // panel `k`'s map from its scene's units to its own, if its scene is 2-D
    let map = |k: usize| -> Option<([f64; 2], f64)> {
        let crate::scene::KindSpec::Flock(f) = &spec.panels.get(k)?.as_ref()?.scene.kind else { return None };
        let r = rects[k];
        let (s, o) = crate::frame::fit([f.canvas[0] as f32, f.canvas[1] as f32], [r[0] as f32, r[1] as f32, r[2] as f32, r[3] as f32]);
        Some(([o[0] as f64 - r[0], o[1] as f64 - r[1]], s as f64))
    };
    let place = |([ox, oy], s): ([f64; 2], f64), a: &mut Anchor| {
        if let Anchor::Canvas([x, y]) = a {
            *a = Anchor::Canvas([ox + s * *x, oy + s * *y]);
        }
    };
    let not_2d = |k: usize| {
        format!(
            "`units = \"scene\"` takes the units of a 2-D scene (a flock's canvas); panel {} shows none: give [x, y, z] points of a 3-D scene, or panel units",
            k + 1
        )
    };
    for (k, r) in readers.iter().enumerate() {
        let panel = &mut look.panels[k];
        let labels = r.tables(&PANEL_LABEL);
        for (i, l) in panel.labels.iter_mut().enumerate().filter(|(_, l)| l.scene_units) {
            match map(k) {
                Some(m) => place(m, &mut l.at),
                None => labels[i].error_at(&UNITS, not_2d(k)),
            }
        }
        let arrows = r.tables(&PANEL_ARROW);
        for (i, a) in panel.arrows.iter_mut().enumerate().filter(|(_, a)| a.scene_units) {
            match map(k) {
                Some(m) => {
                    place(m, &mut a.from);
                    place(m, &mut a.to);
                }
                None => arrows[i].error_at(&UNITS, not_2d(k)),
            }
        }
        if let PanelContent::Inset(inset) = &mut panel.content
            && inset.scene_units
        {
            match map(inset.of) {
                Some(([ox, oy], s)) => {
                    let [x, y, w, h] = inset.region;
                    inset.region = [ox + s * x, oy + s * y, s * w, s * h];
                }
                None => r.error_at(&UNITS, not_2d(inset.of)),
            }
        }
    }
}

/// Fixed frames must exist in their scene, and annotations pinned to 3-D points must land in
/// their panel at the frame it shows (at its first frame for a panel on the figure's clock).
fn check_panels(spec: &FigureSpec, look: &FigureLook, readers: &[TableReader]) {
    let rects = look.panel_rects();
    for (k, ((sim, p), r)) in spec.panels.iter().zip(&look.panels).zip(readers).enumerate() {
        let (Some(sim), PanelContent::Scene(scene)) = (sim, &p.content) else { continue };
        let timing = sim.scene.timing;
        let last = timing.frames - 1;
        let t = match sim.frame {
            PanelFrame::Follow => 0.0,
            PanelFrame::Time(s) => {
                // the frame it shows, as the panel picks it: past the last one is refused as a
                // frame number is, not clamped unsaid
                if (s * timing.fps as f64).round() > last as f64 {
                    r.error_at(
                        &TIME,
                        format!(
                            "time {s} s is past the last frame ({last}, at {:.2} s) of {}: write `time = {}` or `frame = {last}` for its end",
                            timing.time_of(last),
                            sim.path.display(),
                            // the last frame's time, rounded down so that it picks that frame
                            (timing.time_of(last) * 1000.0).floor() / 1000.0
                        ),
                    );
                }
                s.min(timing.time_of(last))
            }
            PanelFrame::Frame(f) => {
                if f > last {
                    r.error_at(&FRAME, format!("frame {f} is past the last frame ({last}) of {}", sim.path.display()));
                }
                timing.time_of(f.min(last))
            }
        };
        let camera = scene.camera.camera_at(t, timing.duration());
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
        for (l, lr) in p.labels.iter().zip(r.tables(&PANEL_LABEL)) {
            if let Some(message) = outside(l.at) {
                lr.error_at(&AT, message);
            }
        }
        for (a, ar) in p.arrows.iter().zip(r.tables(&PANEL_ARROW)) {
            for (key, anchor) in [(&FROM, a.from), (&TO, a.to)] {
                if let Some(message) = outside(anchor) {
                    ar.error_at(key, message);
                }
            }
        }
    }
}

/// An inset magnifies a scene panel, other than itself, within that panel's rectangle.
fn check_insets(look: &FigureLook, readers: &[TableReader]) {
    let rects = look.panel_rects();
    for (k, (p, r)) in look.panels.iter().zip(readers).enumerate() {
        let PanelContent::Inset(inset) = &p.content else { continue };
        let n = inset.of + 1;
        match look.panels.get(inset.of).map(|p| &p.content) {
            _ if inset.of == k => r.error_at(&INSET, format!("panel {n} is this inset itself; name the scene panel it magnifies")),
            None => r.error_at(&INSET, format!("there is no panel {n}: the figure has {}", look.panels.len())),
            Some(PanelContent::Scene(_)) => {
                let [x, y, w, h] = inset.region;
                let [_, _, pw, ph] = rects[inset.of];
                if w <= 0.0 || h <= 0.0 {
                    r.error_at(&REGION, format!("a region [x, y, width, height] needs a positive size, not {w}×{h}"));
                } else if x < 0.0 || y < 0.0 || x + w > pw + 1e-9 || y + h > ph + 1e-9 {
                    r.error_at(
                        &REGION,
                        format!("[{x}, {y}, {w}, {h}] reaches outside panel {n}, which is {pw:.0}×{ph:.0} canvas units (the region is measured from its top left)"),
                    );
                }
            }
            Some(_) => r.error_at(&INSET, format!("panel {n} is not a scene panel; an inset magnifies a scene")),
        }
    }
}

/// What to add to "cannot read X: not found" for a file a figure names as `written` (relative to
/// its own file), found nowhere at `path`: the nearest name in that folder ("did you mean"), or
/// that the folder itself is missing; and that paths are relative to the figure's file.
pub(super) fn not_found_hint(path: &Path, written: &str) -> String {
    let relative = "paths are relative to the figure's file";
    let (Some(folder), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else { return format!("; {relative}") };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return format!("; there is no folder {} ({relative})", folder.display());
    };
    let names: Vec<String> =
        entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|n| !n.starts_with('.')).take(10_000).collect();
    match crate::scene::reader::did_you_mean(name, names.iter().map(String::as_str)) {
        Some(close) => {
            let prefix = written.rsplit_once('/').map_or(String::new(), |(dir, _)| format!("{dir}/"));
            format!("; did you mean \"{prefix}{close}\"? ({relative})")
        }
        None => format!("; {relative}"),
    }
}

/// Where a figure's or chart's names into data (`"frames.*.facts.time"`, `{top_pitch}`) look.
#[derive(Clone, Copy)]
pub(super) enum DataSource<'d> {
    Read(&'d Data),
    /// No data file named: a name into data is a mistake of its own.
    NotNamed,
    /// One named that could not be read: its problem is reported at `data`, and the names into
    /// it are not checked (each would only echo that problem).
    Unreadable,
}

impl<'d> DataSource<'d> {
    /// The source named at `key` of `t`, as `read` (what reading it gave); `fallback` when none is named.
    fn at(t: &TableReader, key: &Key, read: &'d Option<Data>, fallback: DataSource<'d>) -> DataSource<'d> {
        match read {
            Some(d) => DataSource::Read(d),
            None if t.has(key) => DataSource::Unreadable,
            None => fallback,
        }
    }
}

/// Reads the JSON file named at `key` (relative to `dir`).
fn read_data(t: &TableReader, key: &Key, dir: &Path) -> Option<Data> {
    let name = t.string(key)?;
    let path = dir.join(&name);
    let bytes = match std::fs::metadata(&path) {
        Ok(m) if !m.is_file() => Err(format!("{} is not a file", path.display())),
        Ok(m) if m.len() > MAX_DATA_BYTES => Err(format!("{} is {} bytes; data files are at most 64 MiB", path.display(), m.len())),
        _ => simreel_compare::fs::read_trusted(&path).map_err(|e| {
            let hint = if e.kind() == std::io::ErrorKind::NotFound { not_found_hint(&path, &name) } else { String::new() };
            format!("cannot read {}: {e}{hint}", path.display())
        }),
    };
    match bytes.and_then(|b| parse_data(&path, &b)) {
        Ok(data) => Some(data),
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
fn check_placeholders(t: &TableReader, key: &Key, text: &str, data: DataSource, panel_facts: bool) {
    let names = match placeholders(text) {
        Ok(n) => n,
        Err(e) => return t.error_at(key, e),
    };
    for (name, _) in names {
        if panel_facts {
            continue;
        }
        match data {
            DataSource::Read(d) => {
                if let Err(e) = lookup(&d.json, &name) {
                    t.error_at(key, format!("{{{name}}}: {e}"));
                }
            }
            DataSource::NotNamed => t.error_at(key, format!("{{{name}}} needs `data = \"file.json\"` in [figure]")),
            DataSource::Unreadable => {}
        }
    }
}

/// `{panelN.fact}` in `text` names a panel there is, one with a scene (whose facts it has).
fn check_panel_names(t: &TableReader, key: &Key, text: &str, sims: &[Option<PanelSim>]) {
    for (name, _) in placeholders(text).unwrap_or_default() {
        let Some((n, fact)) = name.strip_prefix("panel").and_then(|r| r.split_once('.')) else { continue };
        let Ok(n) = n.parse::<usize>() else { continue };
        let scenes: Vec<String> = (1..=sims.len()).filter(|&k| sims[k - 1].is_some()).map(|k| k.to_string()).collect();
        let have = match &scenes[..] {
            [] => "no panel shows a scene".to_string(),
            [one] => format!("panel {one} shows a scene"),
            many => format!("panels {} show scenes", many.join(", ")),
        };
        match sims.get(n.wrapping_sub(1)) {
            None => t.error_at(key, format!("{{{name}}}: there is no panel {n} (the figure has {}; {have})", sims.len())),
            Some(None) => t.error_at(key, format!("{{{name}}}: panel {n} is a chart or an inset, which reports no {fact}; {have}")),
            Some(Some(_)) => {}
        }
    }
}

impl FigureLook {
    /// Height of the band above the grid that holds the title (0 without one).
    pub fn title_band(&self) -> f64 {
        if self.title.is_some() { self.title_size * 1.6 } else { 0.0 }
    }

    /// Height of the band under the grid that holds the footnote (0 without one).
    pub fn footnote_band(&self) -> f64 {
        if self.footnote.is_some() { self.caption_size * 1.6 } else { 0.0 }
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
        let cell_h = (size[1] - top - self.margin - self.footnote_band() - (rows - 1) as f64 * self.gap) / rows as f64;
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

/// How a figure is laid out, for `validate`: a line per panel (its rectangle, and how its scene
/// is fitted into it), and warnings for what reaches outside its panel.
#[derive(Debug, Default, PartialEq)]
pub struct Layout {
    pub lines: Vec<String>,
    pub warnings: Vec<String>,
}

/// `[x, y, w, h]` as written in a figure file (whole numbers without decimals).
fn rect_text(r: [f64; 4]) -> String {
    let n = |v: f64| if (v - v.round()).abs() < 0.05 { format!("{}", v.round()) } else { format!("{v:.1}") };
    format!("[{}, {}, {}, {}]", n(r[0]), n(r[1]), n(r[2]), n(r[3]))
}

/// The part of `r` (`[x, y, w, h]` from a panel's top left) outside a panel of `w` × `h`, said.
fn outside(r: [f64; 4], (w, h): (f64, f64)) -> Option<String> {
    let parts = [(-r[0], "left"), (-r[1], "top"), (r[0] + r[2] - w, "right"), (r[1] + r[3] - h, "bottom")];
    let over: Vec<String> = parts.iter().filter(|(d, _)| *d > 0.05).map(|(d, side)| format!("{d:.0} past its {side} edge")).collect();
    (!over.is_empty()).then(|| over.join(", "))
}

impl FigureLook {
    /// The layout of this figure, whose panels' simulations are `spec`'s.
    pub fn layout(&self, spec: &FigureSpec) -> Layout {
        let mut out = Layout::default();
        let rects = self.panel_rects();
        for (k, (p, r)) in self.panels.iter().zip(&rects).enumerate() {
            let n = k + 1;
            let what = match (&p.content, spec.panels.get(k).and_then(Option::as_ref)) {
                (PanelContent::Scene(look), Some(sim)) => match &sim.scene.kind {
                    crate::scene::KindSpec::Flock(f) => {
                        let c = [f.canvas[0] as f32, f.canvas[1] as f32];
                        let (s, o) = crate::frame::fit(c, [r[0] as f32, r[1] as f32, r[2] as f32, r[3] as f32]);
                        let (x, y) = (o[0] as f64 - r[0], o[1] as f64 - r[1]);
                        format!(
                            "{} ({}): its {}×{} canvas scaled {s:.4}× and centred: its point (u, v) is at [{x:.1} + {s:.4}·u, {y:.1} + {s:.4}·v] of the panel (`units = \"scene\"` takes (u, v))",
                            sim.name,
                            look.kind.name(),
                            f.canvas[0],
                            f.canvas[1],
                        )
                    }
                    _ => format!(
                        "{} ({}): drawn through its camera at the panel's shape ({:.2}:1), filling it",
                        sim.name,
                        look.kind.name(),
                        r[2] / r[3]
                    ),
                },
                (PanelContent::Chart(_), _) => "a chart".to_string(),
                (PanelContent::Inset(inset), _) => {
                    let of = rects.get(inset.of).copied().unwrap_or(*r);
                    let shown = inset.fitted(r[2] / r[3]);
                    let mut text = format!("panel {}'s region {} magnified", inset.of + 1, rect_text(inset.region));
                    if shown != inset.region {
                        text.push_str(&format!(", widened to the inset's shape: {}", rect_text(shown)));
                    }
                    if let Some(over) = outside(shown, (of[2], of[3])) {
                        out.warnings.push(format!(
                            "panel {n}: the region it shows, {} widened to the inset's shape, reaches outside panel {} ({:.0}×{:.0}): {over}",
                            rect_text(shown),
                            inset.of + 1,
                            of[2],
                            of[3]
                        ));
                    }
                    text
                }
                (PanelContent::Scene(_), None) => "a scene".to_string(),
            };
            out.lines.push(format!("panel {n} at {} ({:.0}×{:.0}): {what}", rect_text(*r), r[2], r[3]));
            for (i, l) in p.labels.iter().enumerate() {
                if let Anchor::Canvas([x, y]) = l.at
                    && let Some(over) = outside([x, y, 0.0, 0.0], (r[2], r[3]))
                {
                    out.warnings.push(format!("panel {n}, label {}: at [{x}, {y}], {over} of the panel ({:.0}×{:.0})", i + 1, r[2], r[3]));
                }
            }
        }
        out
    }
}
