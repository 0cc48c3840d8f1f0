//! A failure's pictures (`marks`, `actual`, `expected`, `diff`, `signed`, `panel`), each encoded
//! once for the report's files and its page.

use super::*;

/// The widest and tallest a picture in the three-panel strip gets (larger ones are scaled down:
/// the strip is a quick look; the page and the other files keep every pixel).
const PANEL_MAX: u32 = 1024;

/// A failure's pictures as files (`actual`, `expected`, `diff`, `signed`, `panel`), each
/// encoded once: written into the report folder and embedded in the page. An image read from a
/// PNG file, or a JPEG with no orientation to apply, is used as that file's bytes, not encoded
/// again; the heatmap and the signed difference are encoded row by row, never whole in memory.
pub struct Pictures(pub(super) Vec<Picture>);

pub(super) struct Picture {
    pub(super) name: &'static str,
    /// PNG, or JPEG for a JPEG kept as it was.
    pub(super) format: picture::Format,
    pub(super) bytes: Vec<u8>,
}

impl Picture {
    pub(super) fn extension(&self) -> &'static str {
        if self.format == picture::Format::Jpeg { "jpg" } else { "png" }
    }
}

/// `bytes` as a browser shows them the way they were compared: a PNG, or a JPEG without EXIF (no
/// orientation for a browser to apply).
fn shown_as_read(bytes: &[u8]) -> Option<picture::Format> {
    // a picture with an orientation a browser would turn (compared turned, or as stored with
    // --ignore-orientation) is shown as its decoded pixels
    if picture::header::stored_orientation(bytes) != 1 {
        return None;
    }
    match picture::Format::sniff(bytes)? {
        picture::Format::Png => Some(picture::Format::Png),
        picture::Format::Jpeg if !jpeg_has_exif(bytes) => Some(picture::Format::Jpeg),
        _ => None,
    }
}

/// Whether a JPEG's header segments (before the scan) hold an EXIF block.
fn jpeg_has_exif(bytes: &[u8]) -> bool {
    let mut at = 2;
    while let [0xFF, marker, hi, lo, ..] = bytes[at.min(bytes.len())..] {
        if marker == 0xE1 && bytes[at + 4..].starts_with(b"Exif\0") {
            return true;
        }
        if marker == 0xDA {
            return false;
        }
        at += 2 + u16::from_be_bytes([hi, lo]) as usize;
    }
    // unreadable segments: encode the decoded pixels rather than trust the file
    true
}

/// Which rows of a comparison's pictures show something: where the two pictures differ, the
/// error map is not clear, or a box is drawn around a region. Every other row is plain in every
/// picture (the marks and the error clear, the actual the expected) and made without looking: a
/// page changed in three places costs the three places, however far apart they lie.
pub(super) fn drawn_rows(c: &Comparison, exp: &Image, act: &Image) -> Vec<bool> {
    let (w, h) = (c.width as usize, c.height as usize);
    let same = [exp, act].iter().all(|img| (img.width, img.height) == (c.width, c.height));
    // pictures of two sizes (padded), or a comparison made without a map: every row, to be safe
    let mut drawn = vec![true; h];
    if let (true, Some(map)) = (same, c.error_map.as_ref()) {
        // rows whose bytes differ (compared in bands on every thread), and the map's rows not clear
        crate::par::rows(&mut drawn, 1, |first, band| {
            for (y, d) in (first..).zip(band.iter_mut()) {
                let clear = map.window_row(y as u32).is_none_or(|r| r.iter().all(|&v| v == 0.0));
                *d = !clear || exp.rgba[y * w * 4..][..w * 4] != act.rgba[y * w * 4..][..w * 4];
            }
        });
    }
    for r in &c.regions {
        let rows = r.y.saturating_sub(3) as usize..(r.y + r.height + 3).min(c.height) as usize;
        drawn[rows].fill(true);
    }
    drawn
}

/// Expected | error | actual, each shrunk by a whole factor to fit [`PANEL_MAX`], side by side
/// with 4-pixel dark separators: a PNG written row by row (no picture of it is ever whole in
/// memory). `heat` makes the error's rows; a picture smaller than `w` × `h` is padded as the
/// comparison padded it. Where no row is `drawn` (see [`drawn_rows`]) the actual's part is the
/// expected's and the error's part the expected's faded, as the error is over the faded page:
/// made from what is at hand (a paragraph changed on a long page costs the paragraph).
pub(super) fn panel(exp: &Image, heat: &dyn picture::Rows, act: &Image, w: u32, h: u32, drawn: &[bool]) -> Vec<u8> {
    const GAP: usize = 4;
    let (pw, ph, k) = picture::box_fit(w, h, PANEL_MAX);
    let (e, a) = (picture::Padded { image: exp, width: w }, picture::Padded { image: act, width: w });
    let [mut e, mut heat, mut a] = [&e as &dyn picture::Rows, heat, &a].map(|rows| picture::Shrink::by_boxes(w, h, k, rows));
    let opaque = exp.is_opaque() && act.is_opaque();
    let part = pw as usize * 4;
    let quiet = |y: u32| !drawn[(y * k) as usize..((y + 1) * k).min(h) as usize].contains(&true);
    encode_png_rows(3 * pw + 2 * GAP as u32, ph, opaque, |y, row| {
        for px in row.chunks_exact_mut(4) {
            px.copy_from_slice(&[24, 24, 28, 255]);
        }
        let (left, rest) = row.split_at_mut(part + GAP * 4);
        let (middle, right) = rest.split_at_mut(part + GAP * 4);
        let (left, middle, right) = (&mut left[..part], &mut middle[..part], &mut right[..part]);
        e.row(y as usize, left);
        if !quiet(y) {
            heat.row(y as usize, middle);
            // the error is drawn over the faded page: where it is clear, the page shows
            for (m, l) in middle.chunks_exact_mut(4).zip(left.chunks_exact(4)) {
                if m[3] < 255 {
                    let (f, a) = (fade(l), u32::from(m[3]));
                    for k in 0..3 {
                        m[k] = ((u32::from(m[k]) * a + u32::from(f[k]) * (255 - a)) / 255) as u8;
                    }
                    m[3] = 255;
                }
            }
            a.row(y as usize, right);
            return;
        }
        right.copy_from_slice(left);
        // where nothing changed the error is the faded page
        for (m, l) in middle.chunks_exact_mut(4).zip(left.chunks_exact(4)) {
            m.copy_from_slice(&fade(l));
        }
    })
}

/// A pixel of the page faded to a light grey, what the report's pictures draw the change over: a
/// quarter of its contrast to white (transparent as white).
pub(super) fn fade(px: &[u8]) -> [u8; 4] {
    let grey = (299 * u32::from(px[0]) + 587 * u32::from(px[1]) + 114 * u32::from(px[2])) / 1000;
    let grey = 255 - (255 - grey) * u32::from(px[3]) / 255;
    let v = (255 - (255 - grey) / 4) as u8;
    [v, v, v, 255]
}

/// Where the change is, drawn to lie over the actual picture faded (the report's page fades it):
/// each pixel that differs beyond the channel threshold in red (the further off, the stronger),
/// the failing regions boxed, and clear elsewhere, so that a page changed in three places costs
/// three places. Row `y` of it into `out` (the comparison's width; clear where it is not `drawn`);
/// `scratch` holds the two pictures' rows where they are padded (a row long each, reused row after
/// row).
pub(super) fn marks_row(c: &Comparison, exp: &Image, act: &Image, y: u32, out: &mut [u8], drawn: &[bool], scratch: &mut [Vec<u8>; 2]) {
    use picture::Rows as _;
    let w = c.width;
    out.fill(0);
    if drawn[y as usize] {
        let [eb, ab] = scratch;
        eb.resize(w as usize * 4, 0);
        ab.resize(w as usize * 4, 0);
        let (pe, pa) = (picture::Padded { image: exp, width: w }, picture::Padded { image: act, width: w });
        let (e, a) = (pe.row(y, eb), pa.row(y, ab));
        for ((px, p), q) in out.chunks_exact_mut(4).zip(a.chunks_exact(4)).zip(e.chunks_exact(4)) {
            let off = (0..4).map(|k| p[k].abs_diff(q[k])).max().unwrap_or(0);
            if off > c.channel_limit {
                // 60 % opaque at the threshold, whole from 96 levels off
                px.copy_from_slice(&[226, 20, 60, (153 + 102 * u32::from(off.min(96)) / 96) as u8]);
            }
        }
    }
    regions::outline_row(out, y, &c.regions, WHERE_OUTLINE);
}

/// The boxes around failing regions on the `marks` picture: a blue the faded page and the red
/// marks never take.
pub(super) const WHERE_OUTLINE: [u8; 4] = [0, 102, 255, 255];

impl Pictures {
    pub(super) fn of(e: &Entry) -> Pictures {
        let png = |name, bytes| Picture { name, format: picture::Format::Png, bytes };
        // the bytes compared where the entry holds them; else (a check's golden image, which the
        // check read from the project's own folder) the file
        let as_is = |name, file: &Option<String>, img: &Image| {
            let held = if name == "expected" { &e.bytes.expected } else { &e.bytes.actual };
            let read = || file.as_ref().and_then(|f| crate::fs::read_plain(std::path::Path::new(f)).ok());
            let kept = held.clone().or_else(read).and_then(|b| Some((shown_as_read(&b)?, b)));
            match kept {
                Some((format, bytes)) => Picture { name, format, bytes },
                None => png(name, encode_png(img)),
            }
        };
        let mut out = Vec::new();
        match (&e.expected, &e.comparison, &e.actual) {
            (Some(exp), Some(c), Some(act)) => {
                let (w, h) = (c.width, c.height);
                // the error, clear where there is none: the page shows it over the faded
                // expected picture (and the strip draws it so), never over a black field
                let drawn = drawn_rows(c, exp, act);
                let heat = |y: u32, row: &mut [u8]| {
                    if !drawn[y as usize] {
                        row.fill(0);
                        return;
                    }
                    compare::heatmap_row_clear(c, y, row);
                    regions::outline_row(row, y, &c.regions, REGION_OUTLINE);
                };
                let (((expected, actual), place), (diff, (signed, panel))) = crate::par::join(
                    || {
                        crate::par::join(
                            || crate::par::join(|| as_is("expected", &e.expected_file, exp), || as_is("actual", &e.actual_file, act)),
                            || {
                                let mut scratch = [Vec::new(), Vec::new()];
                                encode_png_rows(w, h, false, |y, row| marks_row(c, exp, act, y, row, &drawn, &mut scratch))
                            },
                        )
                    },
                    || {
                        crate::par::join(
                            || encode_png_rows(w, h, false, &heat),
                            || {
                                crate::par::join(
                                    || {
                                        encode_png_rows(w, h, true, |y, row| {
                                            if drawn[y as usize] {
                                                compare::signed_row(exp, act, y, row);
                                            } else {
                                                // equal rows are grey (the picture is opaque: its
                                                // alpha is never written)
                                                row.fill(128);
                                            }
                                        })
                                    },
                                    || panel(exp, &picture::Made(&heat), act, w, h, &drawn),
                                )
                            },
                        )
                    },
                );
                out.extend([png("marks", place), expected, actual, png("diff", diff), png("signed", signed), png("panel", panel)]);
            }
            (exp, _, act) => {
                if let Some(exp) = exp {
                    out.push(as_is("expected", &e.expected_file, exp));
                }
                if let Some(act) = act {
                    out.push(as_is("actual", &e.actual_file, act));
                }
            }
        }
        Pictures(out)
    }

    pub(super) fn get(&self, name: &str) -> Option<&Picture> {
        self.0.iter().find(|p| p.name == name)
    }

    pub(super) fn url(&self, name: &str) -> String {
        self.get(name).map(|p| data_url_of(p.format, &p.bytes)).unwrap_or_default()
    }
}
