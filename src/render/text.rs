//! Text for the 2-D layer: lines of [`Text2d`] rasterized on the CPU with the bundled DejaVu Sans
//! Bold into a premultiplied RGBA image the size of the frame, composited like the static layer.

use ab_glyph::{Font, OutlinedGlyph, PxScale, ScaleFont, point};

use crate::frame::font::{font, width_of};
use crate::frame::{Align, Text2d, srgb8};

/// A rectangle of whole pixels of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl Region {
    /// The smallest region holding both.
    pub fn union(self, o: Region) -> Region {
        let (x, y) = (self.x.min(o.x), self.y.min(o.y));
        let (x1, y1) = ((self.x + self.width).max(o.x + o.width), (self.y + self.height).max(o.y + o.height));
        Region { x, y, width: x1 - x, height: y1 - y }
    }
}

/// Draws `texts` (canvas units; `scale` pixels per unit, canvas origin at pixel `offset`) into a
/// `width` × `height` image: premultiplied linear colour, stored sRGB-encoded with alpha, as the
/// sRGB texture it is uploaded to expects. (The renderer draws by region; the tests compare.)
#[cfg(test)]
pub fn rasterize(texts: &[Text2d], scale: f32, offset: [f32; 2], width: u32, height: u32) -> Vec<u8> {
    let mut image = vec![0u8; (width * height * 4) as usize];
    if let Some((r, pixels)) = rasterize_region(texts, scale, offset, width, height) {
        for (row, src) in pixels.chunks_exact(r.width as usize * 4).enumerate() {
            let at = (((r.y as usize + row) * width as usize) + r.x as usize) * 4;
            image[at..at + src.len()].copy_from_slice(src);
        }
    }
    image
}

/// The glyphs of `texts` laid out in pixels (`scale` pixels per canvas unit, canvas origin at
/// `offset`), each with its text's colour, in drawing order; texts too small or transparent to
/// show are left out.
fn outlines(texts: &[Text2d], scale: f32, offset: [f32; 2]) -> Vec<(OutlinedGlyph, [f32; 4])> {
    let font = font();
    let mut glyphs = Vec::new();
    for t in texts {
        let px = t.size * scale;
        if px.is_nan() || px <= 0.5 || t.color[3] <= 0.0 {
            continue;
        }
        let scaled = font.as_scaled(PxScale::from(px));
        let w = width_of(&scaled, &t.text);
        let x0 = t.at[0] * scale + offset[0]
            - match t.align {
                Align::Left => 0.0,
                Align::Center => w / 2.0,
                Align::Right => w,
            };
        let baseline = t.at[1] * scale + offset[1];
        let mut caret = x0;
        let mut prev = None;
        for c in t.text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = prev {
                caret += scaled.kern(p, id);
            }
            let glyph = id.with_scale_and_position(PxScale::from(px), point(caret, baseline));
            caret += scaled.h_advance(id);
            prev = Some(id);
            if let Some(outline) = font.outline_glyph(glyph) {
                glyphs.push((outline, t.color));
            }
        }
    }
    glyphs
}

/// `color` at `coverage` over the premultiplied linear pixel `dst`.
fn blend(dst: &mut [f32; 4], color: [f32; 4], coverage: f32) {
    let a = coverage.clamp(0.0, 1.0) * color[3];
    for (d, c) in dst.iter_mut().zip(&color[..3]) {
        *d = c * a + *d * (1.0 - a);
    }
    dst[3] = a + dst[3] * (1.0 - a);
}

/// A premultiplied linear pixel as the sRGB texture stores it.
fn encoded(p: &[f32; 4]) -> [u8; 4] {
    srgb8([p[0], p[1], p[2]], (p[3].clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// [`rasterize`], of the part of the image the text touches alone: that region and its rows
/// (everything outside it is transparent black); `None` when no text shows. A frame whose text
/// changes costs its text's area, not the image's.
pub fn rasterize_region(texts: &[Text2d], scale: f32, offset: [f32; 2], width: u32, height: u32) -> Option<(Region, Vec<u8>)> {
    let glyphs = outlines(texts, scale, offset);
    // the pixels the glyphs can touch, within the image
    let (mut lo, mut hi) = ([i64::MAX; 2], [i64::MIN; 2]);
    for (outline, _) in &glyphs {
        let b = outline.px_bounds();
        lo = [lo[0].min(b.min.x.floor() as i64), lo[1].min(b.min.y.floor() as i64)];
        hi = [hi[0].max(b.max.x.ceil() as i64 + 1), hi[1].max(b.max.y.ceil() as i64 + 1)];
    }
    let (x0, y0) = (lo[0].max(0), lo[1].max(0));
    let (x1, y1) = (hi[0].min(width as i64), hi[1].min(height as i64));
    if x1 <= x0 || y1 <= y0 {
        return None;
    }
    let region = Region { x: x0 as u32, y: y0 as u32, width: (x1 - x0) as u32, height: (y1 - y0) as u32 };
    let mut acc = vec![[0.0f32; 4]; (region.width * region.height) as usize];
    for (outline, color) in &glyphs {
        let b = outline.px_bounds();
        outline.draw(|x, y, coverage| {
            let (px_x, px_y) = (b.min.x as i64 + x as i64, b.min.y as i64 + y as i64);
            if px_x < x0 || px_y < y0 || px_x >= x1 || px_y >= y1 {
                return;
            }
            blend(&mut acc[((px_y - y0) * (x1 - x0) + (px_x - x0)) as usize], *color, coverage);
        });
    }
    let pixels = acc.iter().flat_map(encoded).collect();
    Some((region, pixels))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str, align: Align) -> Text2d {
        Text2d { at: [50.0, 30.0], size: 20.0, align, color: [1.0, 1.0, 1.0, 1.0], text: s.to_string() }
    }

    fn ink(img: &[u8], w: u32) -> (u32, u32, u32) {
        let mut n = 0;
        let (mut lo, mut hi) = (u32::MAX, 0);
        for (i, p) in img.chunks(4).enumerate() {
            if p[3] > 128 {
                n += 1;
                lo = lo.min(i as u32 % w);
                hi = hi.max(i as u32 % w);
            }
        }
        (n, lo, hi)
    }

    /// Every pixel of the image, drawn glyph by glyph in the order given: what a text layer was
    /// before it was drawn by region.
    fn whole_image(texts: &[Text2d], scale: f32, offset: [f32; 2], width: u32, height: u32) -> Vec<u8> {
        let mut acc = vec![[0.0f32; 4]; (width * height) as usize];
        for (outline, color) in outlines(texts, scale, offset) {
            let b = outline.px_bounds();
            outline.draw(|x, y, coverage| {
                let (px_x, px_y) = (b.min.x as i64 + x as i64, b.min.y as i64 + y as i64);
                if px_x < 0 || px_y < 0 || px_x >= width as i64 || px_y >= height as i64 {
                    return;
                }
                blend(&mut acc[(px_y as u32 * width + px_x as u32) as usize], color, coverage);
            });
        }
        acc.iter().flat_map(encoded).collect()
    }

    #[test]
    fn text_drawn_by_region_is_the_whole_image_drawn_pixel_for_pixel() {
        let t = |s: &str, at: [f32; 2], size: f32, align: Align, color: [f32; 4]| Text2d { at, size, align, color, text: s.into() };
        let cases: Vec<Vec<Text2d>> = vec![
            vec![t("4", [50.0, 30.0], 20.0, Align::Left, [1.0, 1.0, 1.0, 1.0])],
            // overlapping, translucent, in order; kerning pairs
            vec![
                t("AVATAR Wo", [10.0, 35.0], 28.0, Align::Left, [0.9, 0.2, 0.1, 0.7]),
                t("12:34", [60.0, 38.0], 30.0, Align::Center, [0.1, 0.3, 0.9, 0.5]),
            ],
            // cut by every edge of the image, and a text wholly outside it
            vec![
                t("edge", [-8.0, 6.0], 18.0, Align::Left, [1.0, 1.0, 0.0, 1.0]),
                t("edge", [125.0, 52.0], 18.0, Align::Right, [0.0, 1.0, 1.0, 1.0]),
                t("gone", [500.0, 500.0], 18.0, Align::Left, [1.0, 1.0, 1.0, 1.0]),
            ],
            // nothing drawn: too small, transparent, only outside
            vec![t("x", [5.0, 5.0], 0.1, Align::Left, [1.0; 4]), t("y", [5.0, 5.0], 12.0, Align::Left, [1.0, 1.0, 1.0, 0.0])],
            vec![t("far", [-300.0, 20.0], 12.0, Align::Left, [1.0; 4])],
        ];
        for (scale, offset) in [(1.0, [0.0, 0.0]), (1.37, [3.5, -2.25])] {
            for texts in &cases {
                let want = whole_image(texts, scale, offset, 120, 50);
                let got = rasterize(texts, scale, offset, 120, 50);
                assert!(got == want, "{texts:?} at scale {scale}: the region drawn differs from the whole image");
                let region = rasterize_region(texts, scale, offset, 120, 50);
                assert_eq!(region.is_none(), want.iter().all(|&b| b == 0), "{texts:?}: {:?}", region.map(|r| r.0));
            }
        }
    }

    #[test]
    fn glyphs_have_ink_where_aligned() {
        let img = rasterize(&[text("4", Align::Left)], 1.0, [0.0, 0.0], 100, 40);
        let (n, lo, hi) = ink(&img, 100);
        assert!(n > 40, "a 20 px '4' covers more than 40 pixels, got {n}");
        assert!(lo >= 50 && hi < 50 + 16, "left-aligned glyph spans {lo}..{hi}");
        let img = rasterize(&[text("4", Align::Center)], 1.0, [0.0, 0.0], 100, 40);
        let (_, lo, hi) = ink(&img, 100);
        assert!((lo as f32 + hi as f32) / 2.0 - 50.0 < 2.5, "centred glyph spans {lo}..{hi}");
        // different digits draw differently
        let other = rasterize(&[text("1", Align::Center)], 1.0, [0.0, 0.0], 100, 40);
        assert_ne!(img, other);
    }
}
