//! The 2-D half of a frame: a canvas of shapes and text drawn over the 3-D view, fitted into
//! its rectangle.

use std::sync::Arc;

use super::Fnv;

/// Where a canvas of logical `size` lands in the pixel rectangle `rect` (`[x, y, width, height]`):
/// its uniform scale (pixels per canvas unit) and the pixel position of its origin, centred. The
/// renderer draws [`Canvas2d`]s so; a page turns its pointer back into canvas units by it.
pub fn fit(size: [f32; 2], rect: [f32; 4]) -> (f32, [f32; 2]) {
    let s = (rect[2] / size[0]).min(rect[3] / size[1]);
    (s, [rect[0] + (rect[2] - size[0] * s) / 2.0, rect[1] + (rect[3] - size[1] * s) / 2.0])
}

/// A 2-D drawing on a logical canvas (y down, origin top left) scaled uniformly to fit the image,
/// centred. Shapes are anti-aliased analytically, so they stay crisp at any output size.
#[derive(Clone, Debug, PartialEq)]
pub struct Canvas2d {
    /// Logical size, in canvas units.
    pub size: [f32; 2],
    /// Shapes that do not change between frames (a background grid, say): drawn once into a
    /// texture the renderer keeps for as long as `key` stays the same.
    pub static_layer: Option<StaticLayer>,
    /// Shapes of this frame, drawn in order over the static layer.
    pub shapes: Vec<Shape2d>,
    /// Text drawn over the shapes.
    pub texts: Vec<Text2d>,
}

/// Where a text's anchor point sits on its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
}

/// One line of text in the bundled font (DejaVu Sans Bold). `at` is the anchor on the baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Text2d {
    pub at: [f32; 2],
    /// Em size in canvas units.
    pub size: f32,
    pub align: Align,
    /// Linear RGB, straight alpha.
    pub color: [f32; 4],
    pub text: String,
}

#[derive(Clone, Debug)]
pub struct StaticLayer {
    pub key: u64,
    pub shapes: Arc<Vec<Shape2d>>,
}

impl PartialEq for StaticLayer {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && (Arc::ptr_eq(&self.shapes, &other.shapes) || self.shapes == other.shapes)
    }
}

/// A dash pattern along a segment, in canvas units; `phase` shifts it (animates marching ants).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dash {
    pub on: f32,
    pub off: f32,
    pub phase: f32,
}

/// Room the renderer leaves around each 2-D shape for its anti-aliased edge, output pixels: a
/// pixel whose centre is within 0.71 px of a quad's edge is partly covered by it, and at 1.5 px
/// such a pixel is at least 0.79 px outside the shape, where its coverage is 0 (the edge is one
/// pixel wide).
pub const SHAPE_MARGIN_PX: f32 = 1.5;

/// The quad the renderer shades for a segment `len` canvas units long and `width` wide (a disc:
/// `len` 0, `width` its diameter) at `scale` pixels a unit, along the segment, past each round
/// cap, with the margin all round: its area and its perimeter, in output pixels.
pub fn shape_quad(len: f64, width: f64, scale: f64) -> [f64; 2] {
    let r = width / 2.0 * scale + SHAPE_MARGIN_PX as f64;
    let (long, wide) = (len * scale + 2.0 * r, 2.0 * r);
    [long * wide, 2.0 * (long + wide)]
}

/// One 2-D primitive. Colours are linear RGB with straight alpha.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape2d {
    /// A filled disc.
    Circle { center: [f32; 2], radius: f32, color: [f32; 4] },
    /// A ring of `width` centred on `radius`, from `start` (radians, clockwise from +x on screen)
    /// over `sweep` radians (τ for a whole ring) with round ends.
    Arc { center: [f32; 2], radius: f32, width: f32, start: f32, sweep: f32, color: [f32; 4] },
    /// A segment with round caps; its colour runs from `color_a` to `color_b` (per-vertex alpha
    /// for fading trails), optionally dashed.
    Line { a: [f32; 2], b: [f32; 2], width: f32, color_a: [f32; 4], color_b: [f32; 4], dash: Option<Dash> },
    /// An axis-aligned rectangle from `min` to `max` with corners rounded by `radius`, filled
    /// with `color`; with `border` > 0, only an outline that wide (inside the rectangle) is drawn.
    Rect { min: [f32; 2], max: [f32; 2], radius: f32, border: f32, color: [f32; 4] },
}

impl Text2d {
    /// Feeds the text, its place and look into `h`.
    pub fn hash_into(&self, h: &mut Fnv) {
        h.f32s(&self.at);
        h.f32s(&[self.size, self.align as u8 as f32]);
        h.f32s(&self.color);
        h.bytes(self.text.as_bytes());
        h.bytes(&[0]);
    }
}

impl Shape2d {
    /// Feeds every number of the shape into `h`.
    pub fn hash_into(&self, h: &mut Fnv) {
        match *self {
            Shape2d::Circle { center, radius, color } => {
                h.bytes(&[0]);
                h.f32s(&center);
                h.f32s(&[radius]);
                h.f32s(&color);
            }
            Shape2d::Arc { center, radius, width, start, sweep, color } => {
                h.bytes(&[1]);
                h.f32s(&center);
                h.f32s(&[radius, width, start, sweep]);
                h.f32s(&color);
            }
            Shape2d::Line { a, b, width, color_a, color_b, dash } => {
                h.bytes(&[2]);
                h.f32s(&a);
                h.f32s(&b);
                h.f32s(&[width]);
                h.f32s(&color_a);
                h.f32s(&color_b);
                if let Some(d) = dash {
                    h.f32s(&[d.on, d.off, d.phase]);
                }
            }
            Shape2d::Rect { min, max, radius, border, color } => {
                h.bytes(&[3]);
                h.f32s(&min);
                h.f32s(&max);
                h.f32s(&[radius, border]);
                h.f32s(&color);
            }
        }
    }
}

/// A corner of a canvas or frame (where a legend stands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Corner {
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
}

/// A legend on `canvas`: for each entry a round swatch of its colour (ringed faintly in `ink`) and
/// its text, on a rounded `card` in `corner`, the text in `ink`. Its size follows the canvas's
/// (3.5 % of its shorter side for the text, 9 to 28 units).
pub fn legend(canvas: &mut Canvas2d, corner: Corner, entries: &[([f32; 4], String)], card: [f32; 4], ink: [f32; 4]) {
    let [cw, ch] = canvas.size;
    let size = (cw.min(ch) * 0.035).clamp(9.0, 28.0);
    let line = size * 1.45;
    let widest = entries.iter().map(|(_, t)| super::font::text_width(t, size)).fold(0.0, f32::max);
    let (pad, dot) = (size * 0.6, size * 0.32);
    let (bw, bh) = (pad * 2.0 + dot * 2.0 + size * 0.5 + widest, pad * 2.0 + line * entries.len() as f32 - (line - size));
    let margin = size * 0.8;
    let x = if matches!(corner, Corner::TopLeft | Corner::BottomLeft) { margin } else { cw - margin - bw };
    let y = if matches!(corner, Corner::TopLeft | Corner::TopRight) { margin } else { ch - margin - bh };
    canvas.shapes.push(Shape2d::Rect { min: [x, y], max: [x + bw, y + bh], radius: size * 0.4, border: 0.0, color: card });
    for (k, (color, text)) in entries.iter().enumerate() {
        let mid = y + pad + size * 0.5 + k as f32 * line;
        // a faint ring of ink round each swatch: a colour near the card's (snow, a light state)
        // still shows
        let ring = [ink[0], ink[1], ink[2], ink[3] * 0.35];
        canvas.shapes.push(Shape2d::Circle { center: [x + pad + dot, mid], radius: dot + (size * 0.07).max(1.0), color: ring });
        canvas.shapes.push(Shape2d::Circle { center: [x + pad + dot, mid], radius: dot, color: *color });
        let at = [x + pad + dot * 2.0 + size * 0.5, mid + size * 0.35];
        canvas.texts.push(Text2d { at, size, align: Align::Left, color: ink, text: text.clone() });
    }
}

/// A legend over a rendered frame of `size` pixels: [`legend`] on a light card with dark ink, as a
/// canvas of its own (the terrain's bands, the wind overlay's speeds).
pub fn legend_card(size: [f32; 2], corner: Corner, entries: &[([f32; 4], String)]) -> Canvas2d {
    let mut canvas = Canvas2d { size, static_layer: None, shapes: Vec::new(), texts: Vec::new() };
    legend(&mut canvas, corner, entries, [0.97, 0.97, 0.98, 0.88], [0.05, 0.05, 0.07, 1.0]);
    canvas
}

/// A number for a legend to at most `decimals` places, as short as it reads (`2`, `0.5`, `3.5`).
pub fn legend_number(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
}
