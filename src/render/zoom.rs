//! Insets: a view's frame drawn with part of its picture (`Zoom::region`) filling the view's
//! rectangle. The 3-D part through a clip-space crop after the camera's projection (drawn again at
//! the new scale, not enlarged from pixels), the 2-D canvas placed in the rectangle the whole
//! picture would take and clipped to the view, the background gradient taken at the region's
//! edges.

use glam::{Mat4, Vec4};

use crate::frame::Zoom;

/// Where the frame's whole picture would lie for `rect` to show `zoom`'s part of it: `rect`
/// itself without a zoom. The view's 2-D canvas is placed there (and clipped to `rect`).
pub(super) fn picture(rect: [f32; 4], zoom: Option<Zoom>) -> [f32; 4] {
    let [x, y, w, h] = rect;
    match zoom {
        None => rect,
        Some(Zoom { region: [u, v, du, dv], .. }) => {
            let (pw, ph) = (w / du, h / dv);
            [x - u * pw, y - v * ph, pw, ph]
        }
    }
}

/// The clip-space transform that makes `region` (fractions of the picture from its top left)
/// fill the viewport: applied after a camera's projection, the view shows that part magnified.
pub(super) fn matrix(region: [f32; 4]) -> Mat4 {
    let [u, v, du, dv] = region;
    let (cx, cy) = (-1.0 + 2.0 * u + du, 1.0 - 2.0 * v - dv);
    Mat4::from_cols(
        Vec4::new(1.0 / du, 0.0, 0.0, 0.0),
        Vec4::new(0.0, 1.0 / dv, 0.0, 0.0),
        Vec4::Z,
        Vec4::new(-cx / du, -cy / dv, 0.0, 1.0),
    )
}

/// The background gradient's colours at the top and bottom of `region` of the picture, as the
/// background shader blends them (an eased blend from bottom to top).
pub(super) fn background(top: [f32; 3], bottom: [f32; 3], region: [f32; 4]) -> ([f32; 3], [f32; 3]) {
    let at = |v: f32| {
        let t = (1.0 - v).clamp(0.0, 1.0);
        let t = t * t * (3.0 - 2.0 * t);
        [0, 1, 2].map(|i| bottom[i] + (top[i] - bottom[i]) * t)
    };
    (at(region[1]), at(region[1] + region[3]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The region's corners land on the viewport's, its centre in the middle; the whole picture
    /// is the identity.
    #[test]
    fn the_region_fills_the_viewport() {
        let m = matrix([0.25, 0.5, 0.5, 0.25]);
        // the region's top left is at x = -0.5, y = 0 in the picture's clip space (y up), its
        // bottom right at x = 0.5, y = -0.5
        for ((x, y), want) in [((-0.5, 0.0), (-1.0, 1.0)), ((0.5, -0.5), (1.0, -1.0)), ((0.0, -0.25), (0.0, 0.0))] {
            let p = m * Vec4::new(x * 2.0, y * 2.0, 0.3, 2.0);
            assert!(((p.x / p.w) - want.0).abs() < 1e-6 && ((p.y / p.w) - want.1).abs() < 1e-6, "({x}, {y}) → {p:?}");
            assert!((p.z / p.w - 0.15).abs() < 1e-6, "depth kept");
        }
        assert_eq!(matrix([0.0, 0.0, 1.0, 1.0]), Mat4::IDENTITY);
        // the whole picture's rectangle for a 2× inset of the middle, and the gradient's ends
        let zoom = Zoom { region: [0.25, 0.25, 0.5, 0.5], aspect: 1.0 };
        assert_eq!(picture([100.0, 50.0, 40.0, 40.0], Some(zoom)), [80.0, 30.0, 80.0, 80.0]);
        assert_eq!(picture([1.0, 2.0, 3.0, 4.0], None), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(background([1.0; 3], [0.0; 3], [0.0, 0.0, 1.0, 1.0]), ([1.0; 3], [0.0; 3]));
        let (t, b) = background([1.0; 3], [0.0; 3], [0.0, 0.5, 1.0, 0.5]);
        assert!((t[0] - 0.5).abs() < 1e-6 && b[0] == 0.0, "{t:?} {b:?}");
    }
}
