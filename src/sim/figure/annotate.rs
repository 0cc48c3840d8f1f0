//! Annotations turned into canvas shapes and text: labels (with a marker at the anchor, a leader
//! line to the text when it sits away from it, an optional box behind it, always kept inside
//! their panel) and arrows. 3-D anchors are projected through the panel's camera exactly as the
//! renderer projects the panel.

use crate::frame::font::{ascent_descent, text_width};
use crate::frame::{Align, Camera, Canvas2d, Shape2d, Text2d};
use crate::portable;
use crate::scene::figure::{Anchor, ArrowSpec, LabelSpec, Marker};

pub struct Style {
    /// Default text colour (linear RGB).
    pub text: [f32; 3],
}

/// Where `anchor` lands on the canvas, for a panel at `rect` seen through `camera` (with the
/// panel's aspect ratio); `None` behind the camera.
pub fn place(anchor: Anchor, rect: [f32; 4], camera: Option<(&Camera, f32)>) -> Option<[f32; 2]> {
    match anchor {
        Anchor::Canvas(p) => Some([rect[0] + p[0] as f32, rect[1] + p[1] as f32]),
        Anchor::World(p) => {
            let (cam, aspect) = camera?;
            let (uv, in_front) = cam.project(p.map(|v| v as f32), aspect);
            in_front.then(|| [rect[0] + uv[0] * rect[2], rect[1] + uv[1] * rect[3]])
        }
    }
}

fn rgba(c: [f32; 3], a: f32) -> [f32; 4] {
    [c[0], c[1], c[2], a]
}

/// Draws a panel's `labels` and `arrows` into `canvas`.
pub fn panel(
    canvas: &mut Canvas2d,
    labels: &[LabelSpec],
    arrows: &[ArrowSpec],
    rect: [f32; 4],
    camera: Option<(&Camera, f32)>,
    style: &Style,
) {
    for a in arrows {
        if let (Some(from), Some(to)) = (place(a.from, rect, camera), place(a.to, rect, camera)) {
            arrow(canvas, from, to, a.width as f32, rgba(a.color.to_linear(), 1.0));
        }
    }
    for l in labels {
        if let Some(at) = place(l.at, rect, camera) {
            label(canvas, l, at, rect, style);
        }
    }
}

/// A shaft from `from` to `to` with a head of two strokes at `to`.
pub fn arrow(canvas: &mut Canvas2d, from: [f32; 2], to: [f32; 2], width: f32, color: [f32; 4]) {
    let line = |a: [f32; 2], b: [f32; 2]| Shape2d::Line { a, b, width, color_a: color, color_b: color, dash: None };
    canvas.shapes.push(line(from, to));
    let (dx, dy) = (to[0] - from[0], to[1] - from[1]);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1e-3 {
        return;
    }
    let head = (4.0 * width + 6.0).min(len * 0.5);
    let (ux, uy) = (dx / len, dy / len);
    for side in [-1.0f32, 1.0] {
        // 28° either side of the shaft
        let (c, s) = (portable::cos(28f32.to_radians()), side * portable::sin(28f32.to_radians()));
        let back = [-(ux * c - uy * s), -(ux * s + uy * c)];
        canvas.shapes.push(line(to, [to[0] + back[0] * head, to[1] + back[1] * head]));
    }
}

/// One label whose anchor landed at `at`.
fn label(canvas: &mut Canvas2d, l: &LabelSpec, at: [f32; 2], rect: [f32; 4], style: &Style) {
    let color = rgba(l.color.to_linear(), 1.0);
    let size = l.size as f32;
    match l.marker {
        Marker::Filled => canvas.shapes.push(Shape2d::Circle { center: at, radius: size * 0.3, color }),
        Marker::Hollow => canvas.shapes.push(Shape2d::Arc {
            center: at,
            radius: size * 0.3,
            width: (size * 0.12).max(1.0),
            start: 0.0,
            sweep: std::f32::consts::TAU,
            color,
        }),
        Marker::None => {}
    }
    if l.text.is_empty() {
        return;
    }
    let width = text_width(&l.text, size);
    let (ascent, descent) = ascent_descent(size);
    let pad = if l.boxed { size * 0.4 } else { 2.0 };
    // the text's left baseline, kept inside the panel with its box; when that would cover the
    // anchor, the offset is mirrored (left, up, both) until it does not
    let place = |ox: f32, oy: f32| {
        let x = (at[0] + ox).clamp(rect[0] + pad, (rect[0] + rect[2] - width - pad).max(rect[0] + pad));
        let y = (at[1] + oy).clamp(rect[1] + ascent + pad, (rect[1] + rect[3] - descent - pad).max(rect[1] + ascent + pad));
        let (lo, hi) = ([x - pad, y - ascent - pad], [x + width + pad, y + descent + pad]);
        let covers = at[0] >= lo[0] - 1.0 && at[0] <= hi[0] + 1.0 && at[1] >= lo[1] - 1.0 && at[1] <= hi[1] + 1.0;
        (x, y, lo, hi, covers)
    };
    let [ox, oy] = l.offset.map(|v| v as f32);
    let (left, up) = (-ox - width, -oy + ascent - descent);
    let tries = [(ox, oy), (left, oy), (ox, up), (left, up)];
    let (x, y, lo, hi, _) = tries.iter().map(|&(a, b)| place(a, b)).find(|p| !p.4).unwrap_or_else(|| place(ox, oy));
    // a leader line when the text sits away from its anchor
    let nearest = [at[0].clamp(lo[0], hi[0]), at[1].clamp(lo[1], hi[1])];
    let gap = (portable::powi(nearest[0] - at[0], 2) + portable::powi(nearest[1] - at[1], 2)).sqrt();
    if gap > size * 0.9 {
        let w = (size * 0.08).max(1.0);
        canvas.shapes.push(Shape2d::Line { a: at, b: nearest, width: w, color_a: color, color_b: color, dash: None });
    }
    if l.boxed {
        let border = rgba(style.text, 0.55);
        canvas.shapes.push(Shape2d::Rect { min: lo, max: hi, radius: size * 0.3, border: 0.0, color: [1.0, 1.0, 1.0, 0.93] });
        canvas.shapes.push(Shape2d::Rect { min: lo, max: hi, radius: size * 0.3, border: 1.0, color: border });
    }
    canvas.texts.push(Text2d { at: [x, y], size, align: Align::Left, color, text: l.text.clone() });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::values::Srgb;

    fn camera() -> Camera {
        Camera { eye: [0.0, 0.0, 5.0], target: [0.0; 3], up: [0.0, 1.0, 0.0], fov_y_deg: 60.0, near: 0.1, far: 100.0 }
    }

    #[test]
    fn world_anchors_land_where_the_camera_sees_them() {
        let rect = [100.0, 50.0, 400.0, 200.0];
        let cam = camera();
        let centre = place(Anchor::World([0.0, 0.0, 0.0]), rect, Some((&cam, 2.0))).unwrap();
        assert!((centre[0] - 300.0).abs() < 1e-3 && (centre[1] - 150.0).abs() < 1e-3, "{centre:?}");
        // up in the world is up on the canvas (smaller y), right is right
        let up = place(Anchor::World([0.0, 1.0, 0.0]), rect, Some((&cam, 2.0))).unwrap();
        let right = place(Anchor::World([1.0, 0.0, 0.0]), rect, Some((&cam, 2.0))).unwrap();
        assert!(up[1] < centre[1] && right[0] > centre[0]);
        // 1 m at 5 m with a 60° view: tan(30°)·5 = 2.89 m from centre to top edge (100 units)
        assert!((centre[1] - up[1] - 100.0 / (5.0 * portable::tan(30f32.to_radians()))).abs() < 0.01, "{up:?}");
        assert_eq!(place(Anchor::World([0.0, 0.0, 9.0]), rect, Some((&cam, 2.0))), None, "behind the camera");
        assert_eq!(place(Anchor::Canvas([10.0, 20.0]), rect, None), Some([110.0, 70.0]));
    }

    #[test]
    fn labels_stay_inside_their_panel() {
        let rect = [0.0, 0.0, 200.0, 100.0];
        let mut canvas = Canvas2d { size: [200.0, 100.0], static_layer: None, shapes: Vec::new(), texts: Vec::new() };
        let spec = LabelSpec {
            at: Anchor::Canvas([195.0, 2.0]),
            text: "a long label text".into(),
            offset: [8.0, -8.0],
            marker: Marker::Filled,
            color: Srgb([0.0; 3]),
            size: 14.0,
            boxed: true,
            scene_units: false,
        };
        panel(&mut canvas, &[spec], &[], rect, None, &Style { text: [0.0; 3] });
        let t = &canvas.texts[0];
        let w = text_width(&t.text, 14.0);
        let (a, d) = ascent_descent(14.0);
        assert!(t.at[0] >= 0.0 && t.at[0] + w <= 200.0, "x {} width {w}", t.at[0]);
        assert!(t.at[1] - a >= 0.0 && t.at[1] + d <= 100.0, "baseline {}", t.at[1]);
        // the marker at the anchor, outside the box behind the text
        assert!(matches!(canvas.shapes[0], Shape2d::Circle { center: [195.0, 2.0], .. }));
        let boxes: Vec<_> =
            canvas.shapes.iter().filter_map(|s| if let Shape2d::Rect { min, max, .. } = s { Some((*min, *max)) } else { None }).collect();
        assert_eq!(boxes.len(), 2);
        let (lo, hi) = boxes[0];
        assert!(!(195.0 >= lo[0] && 195.0 <= hi[0] && 2.0 >= lo[1] && 2.0 <= hi[1]), "the box {lo:?}..{hi:?} covers its anchor");
        assert!(!canvas.shapes.iter().any(|s| matches!(s, Shape2d::Line { .. })), "no leader next to the anchor");

        // text placed well away from its anchor gets a leader line to it
        let mut canvas = Canvas2d { size: [200.0, 100.0], static_layer: None, shapes: Vec::new(), texts: Vec::new() };
        let far = LabelSpec { at: Anchor::Canvas([20.0, 80.0]), text: "far".into(), offset: [60.0, -50.0], boxed: false, ..spec_copy() };
        panel(&mut canvas, &[far], &[], rect, None, &Style { text: [0.0; 3] });
        assert_eq!(canvas.texts[0].at, [80.0, 30.0]);
        assert!(canvas.shapes.iter().any(|s| matches!(s, Shape2d::Line { a: [20.0, 80.0], .. })));
    }

    fn spec_copy() -> LabelSpec {
        LabelSpec {
            at: Anchor::Canvas([0.0, 0.0]),
            text: String::new(),
            offset: [0.0; 2],
            marker: Marker::None,
            color: Srgb([0.0; 3]),
            size: 14.0,
            boxed: false,
            scene_units: false,
        }
    }
}
