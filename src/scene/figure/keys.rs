//! The keys of `[figure]` (see `super::super::keys`): the layout, its panels (a scene or a chart
//! each), labels and arrows, every one declared once.

use super::super::common::CAMERA;
use super::super::keys::{Key, Table, Ty};
use super::super::values::Srgb;

const FAR: f64 = 1e6;
/// A point: [x, y, z] of a panel's scene, or [x, y] canvas units.
const ANCHOR: Ty = Ty::Either(&[Ty::Vector { len: 3, min: -FAR, max: FAR }, Ty::Vector { len: 2, min: -FAR, max: FAR }]);
const INK: Srgb = Srgb([0.1, 0.1, 0.12]);

pub const AT: Key = Key::of("at", ANCHOR)
    .required()
    .doc("where: [x, y, z] of the panel's scene, or [x, y] canvas units in the panel (the figure's, for a figure label)");
pub const TEXT: Key = Key::text("text").doc("the text; {name} and {name:.2} take numbers from the data (and a scene panel's facts)");
pub const OFFSET: Key =
    Key::vector("offset", &[8.0, -8.0], -FAR, FAR).doc("from the point to the text's left baseline, canvas units; a leader line when long");
pub const MARKER: Key = Key::choice("marker", &["none", "filled", "hollow"]).doc("a dot at the point");
pub const LABEL_COLOR: Key = Key::color("color", INK).doc("colour of the text");
pub const LABEL_SIZE: Key = Key::float("size", 14.0, 4.0, 400.0).doc("text size, canvas units");
pub const BOX: Key = Key::flag("box", false).doc("a rounded box behind the text");
pub const UNITS: Key = Key::choice("units", &["panel", "scene"]).doc(
    "what [x, y] points (and an inset's `region`) are in: figure units from the panel's top left, or the units of the panel's own \
     2-D scene (a flock's canvas), placed as the panel draws it",
);
pub const LABEL: Table = Table::new("a label pinned to a point", &[AT, TEXT, OFFSET, MARKER, LABEL_COLOR, LABEL_SIZE, BOX]);
/// A panel's label: a figure's, and the units of its points.
pub const PANEL_LABEL_TABLE: Table =
    Table::new("a label pinned to a point of the panel", &[AT, TEXT, OFFSET, MARKER, LABEL_COLOR, LABEL_SIZE, BOX, UNITS]);

pub const FROM: Key = Key::of("from", ANCHOR).required().doc("where the arrow starts: a point of the scene or canvas units");
pub const TO: Key = Key::of("to", ANCHOR).required().doc("where it points");
pub const ARROW_COLOR: Key = Key::color("color", INK).doc("its colour");
pub const ARROW_WIDTH: Key = Key::float("width", 2.0, 0.1, 100.0).doc("its width, canvas units");
pub const ARROW: Table = Table::new("an arrow between two points", &[FROM, TO, ARROW_COLOR, ARROW_WIDTH]);
/// A panel's arrow: a figure's, and the units of its points.
pub const PANEL_ARROW_TABLE: Table = Table::new("an arrow between two points of the panel", &[FROM, TO, ARROW_COLOR, ARROW_WIDTH, UNITS]);

/// Numbers inline, or the dotted name of an array in the data (`*` for every item).
const NUMBERS: Ty = Ty::Either(&[Ty::List(&Ty::Float { min: -f64::MAX, max: f64::MAX }), Ty::Str]);
pub const VALUES: Key = Key::of("values", NUMBERS).doc("the numbers: inline, or a dotted name in the data (`frames.*.facts.seek`)");
pub const X: Key = Key::of("x", NUMBERS).said("0, 1, 2, …").doc("a line chart's x values, inline or from the data");
pub const SERIES_LABEL: Key = Key::text("label").doc("the series' name in the legend");
pub const SERIES_COLOR: Key = Key::color("color", Srgb([0.31, 0.47, 0.65])).said("the next colour of the palette").doc("its colour");
pub const SERIES: Table = Table::new("one series of a chart", &[VALUES.required(), X, SERIES_LABEL, SERIES_COLOR]);
pub const SERIES_KEY: Key = Key::tables("series", &SERIES).doc("several series (or `values` for one)");
pub const CHART_TYPE: Key = Key::choice("type", &["bar", "histogram", "line"]).doc("bars, a histogram of the values, or lines");
pub const CATEGORIES: Key = Key::of("categories", Ty::List(&Ty::Either(&[Ty::Str, Ty::Float { min: -f64::MAX, max: f64::MAX }])))
    .said("1, 2, 3, …")
    .doc("names under the bars");
pub const BINS: Key = Key::int("bins", 20, 1, 1000).doc("bins of a histogram");
pub const REFERENCE: Key = Key::of("reference", Ty::Either(&[Ty::Float { min: -f64::MAX, max: f64::MAX }, Ty::Str]))
    .doc("a dashed line at a number, \"mean\" of the values, or a dotted name in the data");
pub const REFERENCE_LABEL: Key = Key::text("reference_label").doc("the reference line's name in the legend");
pub const X_LABEL: Key = Key::text("x_label").doc("the x axis' label");
pub const Y_LABEL: Key = Key::text("y_label").doc("the y axis' label");
pub const CHART_DATA: Key =
    Key::text("data").said("the figure's `data`").doc("a JSON file the chart's names are looked up in (relative to the figure)");
pub const CHART: Table = Table::new(
    "a chart drawn as plain shapes: bars, a histogram or lines, with axes, a reference line and a legend",
    &[
        CHART_TYPE,
        VALUES,
        X,
        SERIES_LABEL,
        SERIES_COLOR,
        SERIES_KEY,
        CATEGORIES,
        BINS,
        REFERENCE,
        REFERENCE_LABEL,
        X_LABEL,
        Y_LABEL,
        CHART_DATA,
    ],
);

pub const SCENE: Key = Key::of("scene", Ty::Either(&[Ty::Str, Ty::Free]))
    .doc("the scene shown: a scene file (relative to the figure), or an inline table `{ kind = \"…\", … }`");
pub const WITH: Key = Key::of("with", Ty::Free).doc("an inline table merged over the panel's scene (`{ cargo = { fill = 0.8 } }`)");
pub const CHART_KEY: Key = Key::table("chart", &CHART).doc(CHART.doc);
pub const FRAME: Key =
    Key::int("frame", 0, 0, u32::MAX as i64).said("the figure's own time").doc("which frame of the scene the panel shows");
pub const TIME: Key = Key::float("time", 0.0, 0.0, FAR).said("the figure's own time").unit("s").doc("or which moment of the scene");
pub const CAMERA_KEY: Key = Key::table("camera", &CAMERA).said("the scene's").doc("the panel's own camera, in place of its scene's");
pub const CAPTION: Key = Key::text("caption").doc("text under the panel; {name} takes numbers from the data and the scene's facts");
pub const RECT: Key = Key::vector("rect", &[0.0; 4], -FAR, FAR).said("its grid cell").doc("[x, y, width, height] in canvas units");
pub const OVERLAY: Key = Key::flag("overlay", true).doc("show the scene's own 2-D overlay (result strips, legends)");
pub const STYLE: Key =
    Key::choice("style", &["shaded", "wireframe", "shaded+wire"]).said("the scene's own").doc("how the panel draws its scene's meshes");
pub const WIRE_COLOR: Key = Key::color("wire_color", Srgb([0.1, 0.1, 0.11])).doc("colour of the wires");
pub const WIRE_WIDTH: Key = Key::float("wire_width", 1.0, 0.25, 32.0).unit("px").doc("width of the wires");
pub const INSET: Key = Key::int("inset", 1, 1, super::MAX_PANELS as i64).said("none").doc(
    "zoom into panel N (numbered from 1, a scene panel): this panel shows `region` of it magnified, and a frame marks the region there",
);
pub const REGION: Key = Key::vector("region", &[0.0; 4], -FAR, FAR)
    .said("required with `inset`")
    .doc("[x, y, width, height] of panel `inset`, canvas units from its top left: what this panel magnifies (widened or heightened about its centre to this panel's shape)");
pub const INSET_COLOR: Key =
    Key::color("inset_color", Srgb([0.93, 0.42, 0.1])).doc("colour of the frames around the region and this panel");
pub const PANEL_LABEL: Key = Key::tables("label", &PANEL_LABEL_TABLE).doc("labels over the panel");
pub const PANEL_ARROW: Key = Key::tables("arrow", &PANEL_ARROW_TABLE).doc("arrows over the panel");
pub const PANEL: Table = Table::new(
    "a panel: another scene at a frame or time (or on the figure's clock), a chart, or an inset that magnifies part of another panel",
    &[
        SCENE,
        WITH,
        CHART_KEY,
        INSET,
        REGION,
        INSET_COLOR,
        UNITS,
        FRAME,
        TIME,
        CAMERA_KEY,
        CAPTION,
        RECT,
        OVERLAY,
        STYLE,
        WIRE_COLOR,
        WIRE_WIDTH,
        PANEL_LABEL,
        PANEL_ARROW,
    ],
);

pub const DATA: Key = Key::text("data").doc("a JSON file the numbers in text and charts come from (relative to the figure)");
pub const TITLE: Key = Key::text("title")
    .doc("the title; {name} takes numbers from the data and the panels' facts ({agents}: the first panel's, {panel2.agents}: panel 2's)");
pub const FOOTNOTE: Key = Key::text("footnote").doc(
    "a line under the whole figure, left-aligned (a source, the settings); {name} takes the data and the panels' facts as the title does",
);
pub const PANEL_KEY: Key = Key::tables("panel", &PANEL).doc("the panels, row by row");
pub const COLUMNS: Key =
    Key::int("columns", 2, 1, super::MAX_PANELS as i64).said("as square as the count allows, at most 4").doc("panels a row");
pub const LABEL_KEY: Key = Key::tables("label", &LABEL).doc("labels over the whole figure (canvas positions)");
pub const ARROW_KEY: Key = Key::tables("arrow", &ARROW).doc("arrows over the whole figure (canvas positions)");
pub const GAP: Key = Key::float("gap", 16.0, 0.0, 1e4).doc("space between panels, canvas units");
pub const MARGIN: Key = Key::float("margin", 16.0, 0.0, 1e4).doc("space around the grid, canvas units");
pub const TITLE_SIZE: Key = Key::float("title_size", 22.0, 4.0, 400.0).doc("title text size, canvas units");
pub const CAPTION_SIZE: Key = Key::float("caption_size", 15.0, 4.0, 400.0).doc("caption text size (charts' labels take 0.8 of it)");
pub const TEXT_COLOR: Key = Key::color("text_color", Srgb([0.12, 0.12, 0.14])).doc("colour of the text");
pub const CHART_BACKGROUND: Key = Key::color("chart_background", Srgb([1.0, 1.0, 1.0])).doc("fill behind chart panels");

/// `[figure]`.
pub const FIGURE: Table = Table::new(
    "other scenes and charts laid out as panels of one image, with captions and labels",
    &[DATA, TITLE, FOOTNOTE, PANEL_KEY, COLUMNS, LABEL_KEY, ARROW_KEY, GAP, MARGIN, TITLE_SIZE, CAPTION_SIZE, TEXT_COLOR, CHART_BACKGROUND],
);
