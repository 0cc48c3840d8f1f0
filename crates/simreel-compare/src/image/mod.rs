//! Pictures in and out: PNG (any bit depth and colour type, with or without its end chunk),
//! JPEG, WebP, BMP and TIFF decoded to RGBA8; PNG written fast for the report; thumbnails.

use std::path::Path;

pub mod bmp;
mod encode;
pub mod header;
#[cfg(feature = "full")]
pub mod tiff;

pub use encode::{encode_png, encode_png_rows, encode_png_small};

/// A picture as RGBA8 rows, straight alpha.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Image {
    /// Whether every pixel is opaque: the pixels' bits ANDed together, a pass the compiler makes
    /// wide (a test pixel by pixel is a branch a pixel).
    pub fn is_opaque(&self) -> bool {
        let all = self.rgba.chunks_exact(4).fold(u32::MAX, |acc, p| acc & u32::from_le_bytes([p[0], p[1], p[2], p[3]]));
        all >> 24 == 255
    }

    /// An image of `width` × `height` from RGBA8 rows; `None` when the bytes are not that many.
    pub fn from_rgba(width: u32, height: u32, rgba: Vec<u8>) -> Option<Image> {
        (rgba.len() as u64 == width as u64 * height as u64 * 4).then_some(Image { width, height, rgba })
    }

    /// Reads a picture file (the format from its bytes, not its name), through no link of
    /// another user's ([`crate::fs::read_trusted`]).
    pub fn read(path: &Path) -> Result<Image, crate::Error> {
        let bytes = crate::fs::read_trusted(path).map_err(|e| crate::Error::BadInput(format!("cannot read {}: {e}", path.display())))?;
        decode(&bytes).map_err(|why| crate::Error::BadInput(format!("{}: {why}", path.display())))
    }
}

/// The picture formats the comparator reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Png,
    Jpeg,
    WebP,
    Bmp,
    Tiff,
}

/// File extensions (lower case) of the pictures a folder comparison takes.
pub const EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "webp", "bmp", "tif", "tiff"];

impl Format {
    /// The format `bytes` are in, from their first bytes.
    pub fn sniff(bytes: &[u8]) -> Option<Format> {
        Some(match bytes {
            [0x89, b'P', b'N', b'G', ..] => Format::Png,
            [0xFF, 0xD8, 0xFF, ..] => Format::Jpeg,
            [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => Format::WebP,
            [b'B', b'M', ..] => Format::Bmp,
            [b'I', b'I', 42, 0, ..] | [b'M', b'M', 0, 42, ..] => Format::Tiff,
            _ => return None,
        })
    }

    /// The format a file's name says (its extension).
    pub fn of_name(path: &Path) -> Option<Format> {
        Some(match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "png" => Format::Png,
            "jpg" | "jpeg" => Format::Jpeg,
            "webp" => Format::WebP,
            "bmp" => Format::Bmp,
            "tif" | "tiff" => Format::Tiff,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Png => "PNG",
            Format::Jpeg => "JPEG",
            Format::WebP => "WebP",
            Format::Bmp => "BMP",
            Format::Tiff => "TIFF",
        }
    }
}

/// Whether `path` names a picture the comparator reads, by its extension.
pub fn is_picture(path: &Path) -> bool {
    Format::of_name(path).is_some()
}

/// Decodes a picture, whatever its format: 16-bit channels rounded to 8, grey expanded, alpha 255
/// where there is none. An error says what the bytes are when they are no picture it reads.
pub fn decode(bytes: &[u8]) -> Result<Image, String> {
    let Some(format) = Format::sniff(bytes) else {
        return Err(format!("not a picture the comparator reads (PNG, JPEG, WebP, BMP, TIFF): {}", what_it_is(bytes)));
    };
    // the header first: nothing is allocated for a size it claims beyond the cap
    let head = header::read(bytes);
    if let Some(h) = head {
        header::check_cap(&h).map_err(|why| format!("a {} too large: {why}", format.name()))?;
        header::check_plausible(&h, bytes.len()).map_err(|why| format!("a {} that cannot be read: {why}", format.name()))?;
        if h.cmyk {
            return Err("a CMYK JPEG: browsers show it through its colour profile, which the comparator does not apply; \
                 compare RGB pictures (a screenshot is one)"
                .into());
        }
    }
    let image = match format {
        Format::Png => png(bytes),
        Format::Bmp => bmp::decode(bytes),
        #[cfg(feature = "full")]
        Format::Jpeg => jpeg(bytes),
        #[cfg(feature = "full")]
        Format::WebP => webp(bytes),
        #[cfg(feature = "full")]
        Format::Tiff => tiff::decode(bytes),
        #[cfg(not(feature = "full"))]
        Format::Jpeg | Format::WebP | Format::Tiff => {
            return Err(format!("a {}: simreel-compare reads it with its `full` feature (built without it: PNG and BMP)", format.name()));
        }
    };
    let image = image.map_err(|why| format!("a {} that cannot be read: {why}", format.name()))?;
    // shown as a browser shows it: turned by its EXIF orientation
    let image = match head {
        Some(h) if h.orientation > 1 => oriented(image, h.orientation),
        _ => image,
    };
    // what was decoded is held to the cap too, whatever the header said
    if image.width as u64 * image.height as u64 > header::pixel_cap() {
        return Err(format!(
            "a {} of {}×{}, more than the comparator reads (--max-megapixels raises it)",
            format.name(),
            image.width,
            image.height
        ));
    }
    Ok(image)
}

/// `img` turned by EXIF orientation `o` (2 mirrored, 3 half a turn, 4 flipped, 5 transposed, 6 a
/// quarter clockwise, 7 transversed, 8 a quarter anticlockwise), as browsers show it.
pub fn oriented(img: Image, o: u8) -> Image {
    if !(2..=8).contains(&o) {
        return img;
    }
    let (w, h) = (img.width as usize, img.height as usize);
    let (ow, oh) = if header::turns(o) { (h, w) } else { (w, h) };
    let mut rgba = vec![0u8; img.rgba.len()];
    for y in 0..oh {
        for x in 0..ow {
            // the stored pixel shown at (x, y)
            let (sx, sy) = match o {
                2 => (w - 1 - x, y),
                3 => (w - 1 - x, h - 1 - y),
                4 => (x, h - 1 - y),
                5 => (y, x),
                6 => (y, h - 1 - x),
                7 => (w - 1 - y, h - 1 - x),
                _ => (w - 1 - y, x),
            };
            rgba[(y * ow + x) * 4..][..4].copy_from_slice(&img.rgba[(sy * w + sx) * 4..][..4]);
        }
    }
    Image { width: ow as u32, height: oh as u32, rgba }
}

/// What bytes that are no picture look like, for an error.
fn what_it_is(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(512)];
    if bytes.is_empty() {
        "the file is empty".into()
    } else if bytes.starts_with(b"version https://git-lfs") {
        "a Git LFS pointer (run `git lfs pull`)".into()
    } else if std::str::from_utf8(head).is_ok_and(|t| !t.contains('\0')) {
        "the file is text".into()
    } else {
        format!("it starts with bytes {}", head.iter().take(8).map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" "))
    }
}

/// A PNG's last chunk, `IEND`, with its CRC.
const IEND: &[u8] = b"\0\0\0\0IEND\xAE\x42\x60\x82";

/// A PNG, also one that lacks its `IEND` chunk (browsers, odiff and Pillow read those).
fn png(bytes: &[u8]) -> Result<Image, String> {
    if bytes.ends_with(IEND) {
        return png_whole(bytes);
    }
    png_whole(&[bytes, IEND].concat())
}

/// A PNG decoded row by row straight into its RGBA8 picture (the stream is inflated a few rows at a
/// time: what a large picture costs is its pixels, with nothing beside them), palettes, low bit
/// depths and `tRNS` expanded, 16-bit samples rounded to 8 bits.
fn png_whole(bytes: &[u8]) -> Result<Image, String> {
    let words = |e: png::DecodingError| png_words(&e.to_string());
    let mut d = png::Decoder::new(std::io::Cursor::new(bytes));
    // the header's size is checked against the cap below; the decoder holds a few rows
    d.set_limits(png::Limits { bytes: usize::MAX });
    d.set_transformations(png::Transformations::EXPAND);
    let mut r = d.read_info().map_err(words)?;
    let (w, h) = (r.info().width as usize, r.info().height as usize);
    if (w as u64).saturating_mul(h as u64) > header::pixel_cap() {
        return Err(format!("{w}×{h} is larger than the comparator reads (--max-megapixels raises it)"));
    }
    let (colour, depth) = r.output_color_type();
    let (channels, wide) = (colour.samples(), depth == png::BitDepth::Sixteen);
    let mut rgba = vec![0u8; w * h * 4];
    if r.info().interlaced {
        // the passes' rows arrive out of order: the whole picture's samples, then its rows
        let mut samples = vec![0u8; r.output_buffer_size().ok_or("a picture too large to hold")?];
        let line = r.next_frame(&mut samples).map_err(words)?.line_size;
        for (out, row) in rgba.chunks_exact_mut(w * 4).zip(samples.chunks(line)) {
            rgba_row(row, channels, wide, out);
        }
    } else {
        for out in rgba.chunks_exact_mut(w * 4) {
            let row = r.next_row().map_err(words)?.ok_or("the image data ends early")?;
            rgba_row(row.data(), channels, wide, out);
        }
    }
    Ok(Image { width: w as u32, height: h as u32, rgba })
}

/// The PNG decoder's message with its chunk types named as they are written (`IDAT`, not
/// `ChunkType { type: IDAT, critical: true, … }`).
fn png_words(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message.trim();
    while let Some(at) = rest.find("ChunkType { type: ") {
        let after = &rest[at + "ChunkType { type: ".len()..];
        let name = after.split([',', ' ', '}']).next().unwrap_or_default();
        out.push_str(&rest[..at]);
        out.push_str(name);
        rest = after.find('}').map_or("", |end| &after[end + 1..]);
    }
    out.push_str(rest);
    out
}

/// One row of 1 to 4 channels of 8- or 16-bit (big-endian, `wide`) samples into RGBA8 (16 bits
/// rounded to 8: `(s + 128) / 257`).
fn rgba_row(row: &[u8], channels: usize, wide: bool, out: &mut [u8]) {
    if wide {
        let narrow: Vec<u8> = row.chunks_exact(2).map(|s| ((u32::from(u16::from_be_bytes([s[0], s[1]])) + 128) / 257) as u8).collect();
        return rgba_row(&narrow, channels, false, out);
    }
    // tight loops over slices (an iterator of arrays collected is several times slower)
    match channels {
        4 => out.copy_from_slice(&row[..out.len()]),
        3 => out.chunks_exact_mut(4).zip(row.chunks_exact(3)).for_each(|(o, p)| o.copy_from_slice(&[p[0], p[1], p[2], 255])),
        2 => out.chunks_exact_mut(4).zip(row.chunks_exact(2)).for_each(|(o, p)| o.copy_from_slice(&[p[0], p[0], p[0], p[1]])),
        _ => out.chunks_exact_mut(4).zip(row).for_each(|(o, &g)| o.copy_from_slice(&[g, g, g, 255])),
    }
}

/// RGBA8 from grey, grey + alpha, RGB or RGBA samples.
#[cfg(feature = "full")]
fn rgba_of(w: usize, h: usize, channels: usize, samples: Vec<u8>) -> Result<Image, String> {
    if samples.len() != w * h * channels {
        return Err(format!("{} samples for {w}×{h} with {channels} channels", samples.len()));
    }
    // a tight loop into a buffer made once (an iterator of arrays collected is several times slower)
    if channels == 4 {
        return Ok(Image { width: w as u32, height: h as u32, rgba: samples });
    }
    let mut rgba = vec![255u8; w * h * 4];
    match channels {
        3 => rgba.chunks_exact_mut(4).zip(samples.chunks_exact(3)).for_each(|(o, p)| o[..3].copy_from_slice(p)),
        2 => rgba.chunks_exact_mut(4).zip(samples.chunks_exact(2)).for_each(|(o, p)| o.copy_from_slice(&[p[0], p[0], p[0], p[1]])),
        1 => rgba.chunks_exact_mut(4).zip(&samples).for_each(|(o, &g)| o[..3].fill(g)),
        n => return Err(format!("{n} channels")),
    }
    Ok(Image { width: w as u32, height: h as u32, rgba })
}

#[cfg(feature = "full")]
fn jpeg(bytes: &[u8]) -> Result<Image, String> {
    use zune_jpeg::zune_core::bytestream::ZCursor;
    use zune_jpeg::zune_core::colorspace::ColorSpace;
    use zune_jpeg::zune_core::options::DecoderOptions;
    let options = DecoderOptions::new_fast().set_max_width(1 << 16).set_max_height(1 << 16).jpeg_set_out_colorspace(ColorSpace::RGBA);
    let mut d = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), options);
    let rgba = d.decode().map_err(|e| e.to_string())?;
    let info = d.info().ok_or("no frame header")?;
    rgba_of(info.width as usize, info.height as usize, 4, rgba)
}

#[cfg(feature = "full")]
fn webp(bytes: &[u8]) -> Result<Image, String> {
    let mut d = image_webp::WebPDecoder::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let (w, h) = d.dimensions();
    let channels = if d.has_alpha() { 4 } else { 3 };
    let size = d.output_buffer_size().ok_or("too large")?;
    let mut out = vec![0u8; size];
    d.read_image(&mut out).map_err(|e| e.to_string())?;
    rgba_of(w as usize, h as usize, channels, out)
}

#[cfg(feature = "full")]
/// `img` made small by averaging the pixels each output pixel covers (partly covered ones by the
/// share they are covered): for thumbnails and the report's scaled views.
pub fn thumbnail(img: &Image, width: u32, height: u32) -> Image {
    if (width.max(1), height.max(1)) == (img.width, img.height) || img.width == 0 || img.height == 0 {
        return img.clone();
    }
    thumbnail_of(img.width, img.height, width, height, Padded { image: img, width: img.width })
}

#[cfg(feature = "full")]
/// [`thumbnail`] of a `src_width` × `src_height` picture that is never whole in memory, its
/// rows made (or borrowed) by `row`, each asked for about once per output row it falls in. Bands of rows are made in parallel.
pub fn thumbnail_of(src_width: u32, src_height: u32, width: u32, height: u32, row: impl Rows + Sync) -> Image {
    let (width, height) = (width.max(1), height.max(1));
    let mut rgba = vec![0u8; width as usize * height as usize * 4];
    crate::par::rows(&mut rgba, width as usize * 4, |first, band| {
        let mut shrink = Shrink::new(src_width, src_height, width, height, &row);
        for (r, out) in band.chunks_exact_mut(width as usize * 4).enumerate() {
            shrink.row(first + r, out);
        }
    });
    Image { width, height, rgba }
}

#[cfg(feature = "full")]
/// A `src_width` × `src_height` picture (its rows made by `row(y, out)`, RGBA8) scaled down to
/// `width` × `height` a row at a time, as [`thumbnail`] scales: for a picture written row by row
/// that is never whole in memory; or by whole boxes ([`Shrink::by_boxes`]).
pub struct Shrink<R> {
    scale: Scale,
    source: R,
    src: Vec<u8>,
}

/// A picture's rows, RGBA8, borrowed or made one at a time.
pub trait Rows {
    /// Row `y`: borrowed from the picture, or made in `buf` (a row long).
    fn row<'a>(&'a self, y: u32, buf: &'a mut [u8]) -> &'a [u8];
}

/// Rows made by a function that fills them: `Made(|y, row| …)`.
pub struct Made<F>(pub F);

impl<F: Fn(u32, &mut [u8])> Rows for Made<F> {
    fn row<'a>(&'a self, y: u32, buf: &'a mut [u8]) -> &'a [u8] {
        (self.0)(y, buf);
        buf
    }
}

impl<R: Rows + ?Sized> Rows for &R {
    fn row<'a>(&'a self, y: u32, buf: &'a mut [u8]) -> &'a [u8] {
        (**self).row(y, buf)
    }
}

/// An image's rows, padded to `width` pixels and below its height with opaque magenta (as a
/// comparison of two sizes pads them); borrowed where nothing is padded.
pub struct Padded<'i> {
    pub image: &'i Image,
    pub width: u32,
}

impl Rows for Padded<'_> {
    fn row<'a>(&'a self, y: u32, buf: &'a mut [u8]) -> &'a [u8] {
        let (own, want) = (self.image.width as usize * 4, self.width as usize * 4);
        let row = if y < self.image.height { &self.image.rgba[y as usize * own..][..own] } else { &[][..] };
        if row.len() == want {
            return row;
        }
        buf[..row.len()].copy_from_slice(row);
        for px in buf[row.len()..want].chunks_exact_mut(4) {
            px.copy_from_slice(&[255, 0, 255, 255]);
        }
        &buf[..want]
    }
}

#[cfg(feature = "full")]
enum Scale {
    /// Each output pixel the average of a `k` × `k` box (fewer at the right and bottom edges).
    Box { k: usize, src_width: usize, src_height: usize, sums: Vec<u32> },
    /// Area averaging by fractional spans.
    Area { xs: Spans, ys: Spans, acc: Vec<f32> },
}

#[cfg(feature = "full")]
/// The size a `width` × `height` picture is shrunk to by a whole factor so that it fits
/// `max` × `max`, and that factor: each output pixel is the average of a factor × factor box.
pub fn box_fit(width: u32, height: u32, max: u32) -> (u32, u32, u32) {
    let k = width.max(height).div_ceil(max.max(1)).max(1);
    (width.div_ceil(k).max(1), height.div_ceil(k).max(1), k)
}

#[cfg(feature = "full")]
impl<R: Rows> Shrink<R> {
    /// Area averaging, as [`thumbnail`] scales.
    pub fn new(src_width: u32, src_height: u32, width: u32, height: u32, row: R) -> Shrink<R> {
        let (xs, ys) = (Spans::new(src_width, width.max(1)), Spans::new(src_height, height.max(1)));
        Shrink { scale: Scale::Area { xs, ys, acc: vec![0.0; src_width as usize * 4] }, source: row, src: vec![0; src_width as usize * 4] }
    }

    /// Each output pixel the average of a `k` × `k` box of the source (fewer pixels at the right
    /// and bottom edges): the size [`box_fit`] gives, in integers, each source row made once.
    pub fn by_boxes(src_width: u32, src_height: u32, k: u32, row: R) -> Shrink<R> {
        let (k, src_width, src_height) = (k.max(1) as usize, src_width as usize, src_height as usize);
        Shrink { scale: Scale::Box { k, src_width, src_height, sums: vec![0; src_width * 4] }, source: row, src: vec![0; src_width * 4] }
    }

    /// Output row `o` into `out` (RGBA8, the output's width).
    pub fn row(&mut self, o: usize, out: &mut [u8]) {
        match &mut self.scale {
            Scale::Box { k, src_width, src_height, sums } => {
                let (k, rows) = (*k, o * *k..((o + 1) * *k).min(*src_height));
                sums.iter_mut().for_each(|v| *v = 0);
                let n_rows = rows.len();
                for y in rows {
                    for (a, &s) in sums.iter_mut().zip(self.source.row(y as u32, &mut self.src)) {
                        *a += s as u32;
                    }
                }
                for (x, px) in out.chunks_exact_mut(4).enumerate() {
                    let cols = x * k..((x + 1) * k).min(*src_width);
                    let n = (n_rows * cols.len()).max(1) as u32;
                    let mut sum = [0u32; 4];
                    for p in sums[cols.start * 4..cols.end * 4].chunks_exact(4) {
                        for c in 0..4 {
                            sum[c] += p[c];
                        }
                    }
                    for c in 0..4 {
                        px[c] = ((sum[c] + n / 2) / n) as u8;
                    }
                }
            }
            Scale::Area { xs, ys, acc } => {
                acc.iter_mut().for_each(|v| *v = 0.0);
                let (y0, wys) = ys.of(o);
                for (y, &wy) in (y0..).zip(wys) {
                    for (a, &s) in acc.iter_mut().zip(self.source.row(y as u32, &mut self.src)) {
                        *a += wy * s as f32;
                    }
                }
                for (x, px) in out.chunks_exact_mut(4).enumerate() {
                    let (x0, wxs) = xs.of(x);
                    let mut sum = [0f32; 4];
                    for (p, &wx) in acc[x0 * 4..].chunks_exact(4).zip(wxs) {
                        for c in 0..4 {
                            sum[c] += wx * p[c];
                        }
                    }
                    // never negative: rounding half up is `round`; `as` saturates at 255
                    for c in 0..4 {
                        px[c] = (sum[c] + 0.5) as u8;
                    }
                }
            }
        }
    }
}

#[cfg(feature = "full")]
/// Which input pixels each output pixel of a scaling along one axis covers, and by what share:
/// output `o` covers inputs `first[o]..` with `weights[at[o]..at[o + 1]]`, in one flat list.
struct Spans {
    first: Vec<usize>,
    at: Vec<usize>,
    weights: Vec<f32>,
}

#[cfg(feature = "full")]
impl Spans {
    fn new(from: u32, to: u32) -> Spans {
        let scale = from as f64 / to as f64;
        let mut spans = Spans { first: Vec::with_capacity(to as usize), at: vec![0], weights: Vec::new() };
        for o in 0..to {
            let (a, b) = (o as f64 * scale, (o as f64 + 1.0) * scale);
            let (first, last) = (a.floor() as u32, (b.ceil() as u32).min(from).max(a.floor() as u32 + 1));
            spans.first.push(first as usize);
            spans.weights.extend((first..last).map(|i| ((b.min(i as f64 + 1.0) - a.max(i as f64)) / scale) as f32));
            spans.at.push(spans.weights.len());
        }
        spans
    }

    /// Output `o`'s first input and the weights of its inputs from there.
    fn of(&self, o: usize) -> (usize, &[f32]) {
        (self.first[o], &self.weights[self.at[o]..self.at[o + 1]])
    }
}

#[cfg(feature = "full")]
/// The size that fits inside `max_width` × `max_height` keeping `width` : `height` (never larger
/// than the picture, never 0).
pub fn fit(width: u32, height: u32, max_width: u32, max_height: u32) -> (u32, u32) {
    let scale = (max_width as f64 / width as f64).min(max_height as f64 / height as f64).min(1.0);
    (((width as f64 * scale).round() as u32).max(1), ((height as f64 * scale).round() as u32).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_encoded_decodes_to_the_same_pixels_and_odd_inputs_say_what_they_are() {
        let img = Image::from_rgba(37, 11, (0..37 * 11 * 4).map(|i| (i * 7 % 251) as u8).collect()).unwrap();
        assert_eq!(decode(&encode_png(&img)).unwrap(), img);
        let png = encode_png(&img);
        let cut = &png[..png.len() - IEND.len()];
        assert_eq!(decode(cut).unwrap(), img, "a PNG without its IEND chunk");
        assert!(decode(&png[..png.len() / 2]).is_err(), "a PNG cut short in its pixels");
        let mut wrong = png[..8].to_vec();
        wrong.extend_from_slice(&png[8 + 25..]);
        assert_eq!(
            decode(&wrong).unwrap_err(),
            "a PNG that cannot be read: IDAT chunk appeared before IHDR chunk",
            "chunks named as written"
        );
        assert!(decode(b"hello").unwrap_err().contains("the file is text"));
        assert!(decode(b"").unwrap_err().contains("empty"));
        assert!(decode(b"version https://git-lfs.github.com/spec/v1").unwrap_err().contains("Git LFS"));
    }

    #[cfg(feature = "full")]
    #[test]
    fn a_thumbnail_is_the_area_average_of_what_each_pixel_covers() {
        for (w, h, tw, th) in [(7, 5, 3, 2), (1280, 3, 1024, 1), (10, 10, 10, 10), (9, 4, 1, 1), (5, 200, 2, 37), (12, 8, 6, 4)] {
            let img = Image::from_rgba(w, h, (0..w * h * 4).map(|i| (i * 7 % 251) as u8).collect()).unwrap();
            let t = thumbnail(&img, tw, th);
            assert_eq!((t.width, t.height), (tw, th));
            // brute force, in f64: each source pixel's overlap with the output pixel's box
            let (sx, sy) = (w as f64 / tw as f64, h as f64 / th as f64);
            let overlap = |o: u32, s: f64, i: u32| ((o as f64 + 1.0) * s).min(i as f64 + 1.0) - (o as f64 * s).max(i as f64);
            for (oy, ox, c) in (0..th).flat_map(|y| (0..tw).flat_map(move |x| (0..4).map(move |c| (y, x, c)))) {
                let mut sum = 0.0;
                for y in 0..h {
                    for x in 0..w {
                        let (ax, ay) = (overlap(ox, sx, x), overlap(oy, sy, y));
                        if ax > 0.0 && ay > 0.0 {
                            sum += ax * ay * img.rgba[((y * w + x) * 4 + c) as usize] as f64;
                        }
                    }
                }
                let want = sum / (sx * sy);
                let got = t.rgba[((oy * tw + ox) * 4 + c) as usize] as f64;
                assert!((got - want).abs() <= 0.51, "{w}×{h} → {tw}×{th} at ({ox},{oy}) channel {c}: {got} against {want}");
            }
        }
    }

    #[cfg(feature = "full")]
    #[test]
    fn a_box_fit_averages_whole_boxes_and_what_is_left_at_the_edges() {
        assert_eq!(box_fit(1280, 800, 1024), (640, 400, 2));
        assert_eq!(box_fit(3446, 10728, 1024), (314, 976, 11));
        assert_eq!(box_fit(300, 200, 1024), (300, 200, 1));
        let (w, h) = (7u32, 5u32);
        let img = Image::from_rgba(w, h, (0..w * h * 4).map(|i| (i * 7 % 251) as u8).collect()).unwrap();
        let (tw, th, k) = box_fit(w, h, 3);
        assert_eq!((tw, th, k), (3, 2, 3));
        let mut shrink = Shrink::by_boxes(w, h, k, Padded { image: &img, width: w });
        let mut t = Image { width: tw, height: th, rgba: vec![0; (tw * th * 4) as usize] };
        for (o, out) in t.rgba.chunks_exact_mut((tw * 4) as usize).enumerate() {
            shrink.row(o, out);
        }
        for (oy, ox, c) in (0..th).flat_map(|y| (0..tw).flat_map(move |x| (0..4).map(move |c| (y, x, c)))) {
            let (xs, ys) = (ox * k..((ox + 1) * k).min(w), oy * k..((oy + 1) * k).min(h));
            let vals: Vec<f64> =
                ys.flat_map(|y| xs.clone().map(move |x| (y, x))).map(|(y, x)| img.rgba[((y * w + x) * 4 + c) as usize] as f64).collect();
            let want = vals.iter().sum::<f64>() / vals.len() as f64;
            let got = t.rgba[((oy * tw + ox) * 4 + c) as usize] as f64;
            assert!((got - want).abs() <= 0.5, "({ox},{oy}) channel {c}: {got} against {want}");
        }
    }
}
