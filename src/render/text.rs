//! Text for the 2-D layer: lines of [`Text2d`] rasterized on the CPU with the bundled DejaVu Sans
//! Bold into a premultiplied RGBA image the size of the frame, composited like the static layer.

use ab_glyph::{Font, PxScale, ScaleFont, point};

use crate::frame::font::{font, width_of};
use crate::frame::{Align, Text2d, srgb8};

/// Draws `texts` (canvas units; `scale` pixels per unit, canvas origin at pixel `offset`) into a
/// `width` × `height` image: premultiplied linear colour, stored sRGB-encoded with alpha, as the
/// sRGB texture it is uploaded to expects.
pub fn rasterize(texts: &[Text2d], scale: f32, offset: [f32; 2], width: u32, height: u32) -> Vec<u8> {
    let font = font();
    let mut acc = vec![[0.0f32; 4]; (width * height) as usize];
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
            let Some(outline) = font.outline_glyph(glyph) else { continue };
            let b = outline.px_bounds();
            outline.draw(|x, y, coverage| {
                let (px_x, px_y) = (b.min.x as i64 + x as i64, b.min.y as i64 + y as i64);
                if px_x < 0 || px_y < 0 || px_x >= width as i64 || px_y >= height as i64 {
                    return;
                }
                let a = coverage.clamp(0.0, 1.0) * t.color[3];
                let dst = &mut acc[(px_y as u32 * width + px_x as u32) as usize];
                for (d, c) in dst.iter_mut().zip(&t.color[..3]) {
                    *d = c * a + *d * (1.0 - a);
                }
                dst[3] = a + dst[3] * (1.0 - a);
            });
        }
    }
    acc.iter().flat_map(|p| srgb8([p[0], p[1], p[2]], (p[3].clamp(0.0, 1.0) * 255.0).round() as u8)).collect()
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
