//! The colour type of scene files and of the keys' defaults: sRGB components in 0..1, written
//! `"#rrggbb"`, `"#rgb"` or `[r, g, b]`. Its own module, below both the keys that declare colour
//! defaults and the values that read colours.

use crate::frame::srgb_to_linear;

/// A colour as written in scene files: sRGB-encoded components in 0..1.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Srgb(pub [f32; 3]);

/// A colour written in the code, `srgb!("#3f6f9f")`: checked when the program is compiled (a
/// literal that is not `#rgb` or `#rrggbb` does not build), with no fallback to go wrong.
#[macro_export]
macro_rules! srgb {
    ($hex:literal) => {
        const { $crate::scene::color::Srgb::hex($hex) }
    };
}

impl Srgb {
    /// `#rgb` or `#rrggbb` as a constant (see [`srgb!`]); anything else panics, which in a
    /// constant stops the build. Scene files go through [`Srgb::from_hex`] and the reader instead.
    pub const fn hex(s: &str) -> Srgb {
        const fn digit(c: u8) -> u8 {
            match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => panic!("a colour's digits are hexadecimal"),
            }
        }
        let b = s.as_bytes();
        assert!(!b.is_empty() && b[0] == b'#', "a colour starts with #");
        let c = match b.len() {
            4 => [digit(b[1]) * 17, digit(b[2]) * 17, digit(b[3]) * 17],
            7 => [digit(b[1]) * 16 + digit(b[2]), digit(b[3]) * 16 + digit(b[4]), digit(b[5]) * 16 + digit(b[6])],
            _ => panic!("a colour is #rgb or #rrggbb"),
        };
        Srgb([c[0] as f32 / 255.0, c[1] as f32 / 255.0, c[2] as f32 / 255.0])
    }

    /// `#rgb` or `#rrggbb`.
    pub fn from_hex(s: &str) -> Option<Srgb> {
        let h = s.strip_prefix('#')?;
        let digits: Vec<u8> = h.chars().map(|c| c.to_digit(16).map(|d| d as u8)).collect::<Option<_>>()?;
        let c = match digits.len() {
            3 => [digits[0] * 17, digits[1] * 17, digits[2] * 17],
            6 => [digits[0] * 16 + digits[1], digits[2] * 16 + digits[3], digits[4] * 16 + digits[5]],
            _ => return None,
        };
        Some(Srgb(c.map(|v| v as f32 / 255.0)))
    }

    /// Linear-light components (the sRGB transfer function undone).
    pub fn to_linear(self) -> [f32; 3] {
        self.0.map(srgb_to_linear)
    }
}
