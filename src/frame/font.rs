//! The bundled font (DejaVu Sans Bold) and its metrics: the renderer rasterizes text with it,
//! and layout code (figures, charts) measures text with the same numbers, so a box drawn around
//! a label fits it at any output size.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};

/// DejaVu Sans Bold (Bitstream Vera license: assets/fonts/LICENSE-DejaVu.txt).
const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");

pub fn font() -> FontRef<'static> {
    FontRef::try_from_slice(FONT).expect("the bundled font parses")
}

/// Width of `text` at em size `size` (any unit: the result is in the same one), kerning included.
pub fn text_width(text: &str, size: f32) -> f32 {
    let font = font();
    width_of(&font.as_scaled(PxScale::from(size)), text)
}

/// `size`, or less where `text` would be wider than `room` at `size`: the em size at which it fits.
pub fn fitting_size(text: &str, size: f32, room: f32) -> f32 {
    let width = text_width(text, size);
    if width > room && width > 0.0 { size * room.max(0.0) / width } else { size }
}

/// The box `text` covers when drawn at `at` (its anchor on the baseline) with `align`: min and
/// max corners, the font's ascent above the baseline to its descent below.
pub fn text_box(text: &str, size: f32, at: [f32; 2], align: crate::frame::Align) -> ([f32; 2], [f32; 2]) {
    let width = text_width(text, size);
    let left = match align {
        crate::frame::Align::Left => at[0],
        crate::frame::Align::Center => at[0] - width / 2.0,
        crate::frame::Align::Right => at[0] - width,
    };
    let (ascent, descent) = ascent_descent(size);
    ([left, at[1] - ascent], [left + width, at[1] + descent])
}

/// Height above the baseline of the font's tallest glyphs, and depth below it, at em size `size`.
pub fn ascent_descent(size: f32) -> (f32, f32) {
    let font = font();
    let scaled = font.as_scaled(PxScale::from(size));
    (scaled.ascent(), -scaled.descent())
}

/// Width of `text` in `scaled`, kerning included.
pub fn width_of<F: Font>(scaled: &ab_glyph::PxScaleFont<F>, text: &str) -> f32 {
    let mut caret = 0.0;
    let mut prev = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = prev {
            caret += scaled.kern(p, id);
        }
        caret += scaled.h_advance(id);
        prev = Some(id);
    }
    caret
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wider_text_is_wider() {
        assert!(text_width("= 20", 20.0) > text_width("2", 20.0) * 2.0);
        assert!(text_width("6", 40.0) > text_width("6", 20.0) * 1.9);
        let (a, d) = ascent_descent(20.0);
        assert!(a > 14.0 && a < 22.0 && d > 2.0 && d < 8.0, "ascent {a}, descent {d}");
    }
}
