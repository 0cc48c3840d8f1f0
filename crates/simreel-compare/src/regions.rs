//! Where two images differ in a way a person would see, however few the pixels: the spatial layer
//! of a golden check. Counting differing pixels cannot tell code-generation noise scattered along
//! edges (what tolerances exist for) from one compact defect (what a check must catch), so the
//! differing pixels are grouped into 8-connected regions and each region is weighed by its pixels
//! that anti-aliasing cannot explain:
//!
//! - a pixel whose value lies outside the range of the other image's 3×3 neighbourhood (per
//!   channel, by more than the channel threshold) in either direction: an edge that moved by a
//!   fraction of a pixel takes values its neighbours already have, a pasted patch, a stray line or a
//!   colour shift on flat ground does not (pixelmatch asks a similar question with its
//!   anti-aliasing test, which looks at one image's flat neighbours; this one looks at both);
//! - a pixel all of whose eight neighbours differ too: the inside of a solid area of change,
//!   however explicable each of its pixels is (a 4×4 block of change holds four).
//!
//! - a lone pixel far off on flat ground: no neighbour differs, the golden is flat around it, and
//!   it is [`LONE`] levels or more off. No anti-aliasing or rounding makes such a pixel; a NaN
//!   written out, an uninitialised pixel or a stray write does, so it weighs as a 3×3 patch
//!   ([`LONE_WEIGHT`]) and fails a check by itself.
//!
//! Each such pixel weighs by how far it is off (how far outside the other image's range, or for
//! the inside of an area, how far from its golden), so that a change too faint to see does not
//! add up to a failure however compact it is: nothing up to [`FAINT`] levels above the channel
//! threshold (at least [`FAINT`]), the whole pixel from [`CLEAR`] levels more, linearly between.
//! A +3 patch of 3×3 on flat ground weighs 1.5 (it weighed 9, and failed); an 8-level shift,
//! a hue change of 24 levels or an inverted pixel weighs 1 a pixel, as before. A region's weight
//! is the sum, rounded: pixels' worth of visible change.
//!
//! Measured on the shipped goldens: llvmpipe through GL against lavapipe, on the frames where
//! the pixel counts pass, weighs at most 6 per region (thin lines crossing on the cargo scenes,
//! the translucent dice of the `dice_roll` figure); an inverted 4×4 patch at least 12, an
//! inverted 3×3 patch on flat ground 9, 8 inverted pixels in a row on flat ground 8. Hence the
//! default limit of 7 (`max_region`).

use crate::Image;

/// Levels (of an 8-bit channel) a pixel may be off without weighing anything, when the channel
/// threshold is lower: about one just-noticeable step of sRGB at mid-grey for a large area.
pub const FAINT: u8 = 2;
/// Levels beyond the faint ones at which a pixel weighs whole.
pub const CLEAR: u8 = 6;

/// Levels a lone pixel on flat ground must be off to weigh [`LONE_WEIGHT`] pixels.
pub const LONE: u8 = 64;
/// What a lone pixel far off on flat ground weighs: as much as a 3×3 patch, past the default
/// `max_region` of 7.
pub const LONE_WEIGHT: u32 = 9;

/// A connected area of differing pixels, and how much of it anti-aliasing cannot explain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Region {
    /// Bounding box, in pixels from the top-left corner.
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
    /// Differing pixels in the region.
    pub pixels: u32,
    /// Its pixels outside the other image's neighbourhood range, or with every neighbour
    /// differing too, each weighed by how far it is off (see the module's documentation).
    pub weight: u32,
}

/// `pick` (min or max) of each channel over a 3-pixel window along rows (`along_rows`) or
/// columns of a `w`-wide RGBA8 image, clipped at the borders. Written over whole rows (three
/// slices side by side) so that the compiler vectorises it.
fn window3(src: &[u8], w: usize, along_rows: bool, pick: fn(u8, u8) -> u8) -> Vec<u8> {
    if src.is_empty() {
        return Vec::new();
    }
    let row = w * 4;
    let h = src.len() / row;
    let mut out = vec![0; src.len()];
    let pick3 = |o: &mut [u8], a: &[u8], b: &[u8], c: &[u8]| {
        for (((o, &a), &b), &c) in o.iter_mut().zip(a).zip(b).zip(c) {
            *o = pick(pick(a, b), c);
        }
    };
    for y in 0..h {
        let (o, r) = (&mut out[y * row..(y + 1) * row], &src[y * row..(y + 1) * row]);
        if along_rows {
            if w == 1 {
                o.copy_from_slice(r);
                continue;
            }
            pick3(&mut o[4..row - 4], &r[..row - 8], &r[4..row - 4], &r[8..]);
            for (x, n) in [(0, 4), (row - 4, row - 8)] {
                for c in 0..4 {
                    o[x + c] = pick(r[x + c], r[n + c]);
                }
            }
        } else {
            let above = &src[y.saturating_sub(1) * row..][..row];
            let below = &src[(y + 1).min(h - 1) * row..][..row];
            pick3(o, above, r, below);
        }
    }
    out
}

/// Per-channel minimum and maximum over each pixel's 3×3 neighbourhood (clipped at the borders)
/// of an RGBA8 image, as two RGBA8 images.
fn neighbourhood_range(img: &Image) -> (Vec<u8>, Vec<u8>) {
    let w = img.width as usize;
    let lo = window3(&window3(&img.rgba, w, true, u8::min), w, false, u8::min);
    let hi = window3(&window3(&img.rgba, w, true, u8::max), w, false, u8::max);
    (lo, hi)
}

/// How far `v` lies outside `lo..=hi`.
fn outside(v: u8, lo: u8, hi: u8) -> u8 {
    lo.saturating_sub(v).max(v.saturating_sub(hi))
}

/// The regions where `expected` and `actual` (same size) differ: a pixel differs when one of its
/// first `channels` channels (3, or 4 to compare alpha) differs by more than `threshold`.
/// Heaviest first, then top to bottom.
pub fn regions(expected: &Image, actual: &Image, channels: usize, threshold: u8) -> Vec<Region> {
    assert_eq!((expected.width, expected.height), (actual.width, actual.height), "regions of images of one size");
    let (w, h) = (expected.width as usize, expected.height as usize);
    let (e, a) = (&expected.rgba, &actual.rgba);
    let differs: Vec<bool> = (0..w * h).map(|i| (0..channels).any(|c| e[i * 4 + c].abs_diff(a[i * 4 + c]) > threshold)).collect();
    if !differs.contains(&true) {
        return Vec::new();
    }
    let (e_lo, e_hi) = neighbourhood_range(expected);
    let (a_lo, a_hi) = neighbourhood_range(actual);
    // how far pixel `i` is outside the other image's neighbourhood (0: anti-aliasing explains it)
    let unexplained = |i: usize| {
        (0..channels)
            .map(|c| {
                let k = i * 4 + c;
                outside(a[k], e_lo[k], e_hi[k]).max(outside(e[k], a_lo[k], a_hi[k]))
            })
            .max()
            .filter(|&o| o > threshold)
            .unwrap_or(0)
    };
    let off = |i: usize| (0..channels).map(|c| e[i * 4 + c].abs_diff(a[i * 4 + c])).max().unwrap_or(0);
    // a pixel's weight by how far it is off, in sixths (`CLEAR`ths) of a pixel: none up to the
    // faint levels, whole from the clear ones
    let floor = threshold.max(FAINT);
    let weigh = |levels: u8| u32::from(levels.saturating_sub(floor).min(CLEAR));
    let neighbours = |i: usize| {
        let (x, y) = ((i % w) as isize, (i / w) as isize);
        (-1..=1isize)
            .flat_map(move |dy| (-1..=1isize).map(move |dx| (x + dx, y + dy)))
            .filter(move |&(nx, ny)| (nx, ny) != (x, y) && nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h)
    };
    let interior = |i: usize| {
        let (x, y) = (i % w, i / w);
        x > 0 && y > 0 && x + 1 < w && y + 1 < h && neighbours(i).all(|(nx, ny)| differs[ny as usize * w + nx as usize])
    };
    // alone among its neighbours, far off, where the golden is flat around it
    let lone = |i: usize| {
        let flat = (0..channels).all(|c| e_hi[i * 4 + c] - e_lo[i * 4 + c] <= threshold);
        flat && off(i) >= LONE && neighbours(i).all(|(nx, ny)| !differs[ny as usize * w + nx as usize])
    };
    let mut seen = vec![false; w * h];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    for start in 0..w * h {
        if !differs[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
        let (mut pixels, mut weight) = (0u32, 0u32);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            pixels += 1;
            let levels = unexplained(i).max(if interior(i) { off(i) } else { 0 });
            weight += if lone(i) { LONE_WEIGHT * u32::from(CLEAR) } else { weigh(levels) };
            for (nx, ny) in neighbours(i) {
                let j = ny as usize * w + nx as usize;
                if differs[j] && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        let (x, y, width, height) = (x0 as u32, y0 as u32, (x1 - x0 + 1) as u32, (y1 - y0 + 1) as u32);
        let weight = (weight + u32::from(CLEAR) / 2) / u32::from(CLEAR);
        out.push(Region { x, y, width, height, pixels, weight });
    }
    out.sort_by(|p, q| q.weight.cmp(&p.weight).then(p.y.cmp(&q.y)).then(p.x.cmp(&q.x)));
    out
}

/// `img` with a box (opaque `color`, two pixels wide, one pixel clear of the region) drawn
/// around each region, clipped to the image: where a report shows the failing regions.
pub fn outline(img: &Image, regions: &[Region], color: [u8; 4]) -> Image {
    let mut out = img.clone();
    let (w, h) = (img.width as i64, img.height as i64);
    let mut put = |x: i64, y: i64| {
        if (0..w).contains(&x) && (0..h).contains(&y) {
            let i = ((y * w + x) * 4) as usize;
            out.rgba[i..i + 4].copy_from_slice(&color);
        }
    };
    for r in regions {
        for gap in 2..=3 {
            let (x0, y0) = (r.x as i64 - gap, r.y as i64 - gap);
            let (x1, y1) = (r.x as i64 + r.width as i64 - 1 + gap, r.y as i64 + r.height as i64 - 1 + gap);
            for x in x0..=x1 {
                put(x, y0);
                put(x, y1);
            }
            for y in y0..=y1 {
                put(x0, y);
                put(x1, y);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 3]) -> Image {
        let rgba = (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).flat_map(|(x, y)| {
            let [r, g, b] = f(x, y);
            [r, g, b, 255]
        });
        Image { width: w, height: h, rgba: rgba.collect() }
    }

    fn set(img: &mut Image, x: u32, y: u32, c: [u8; 3]) {
        let i = ((y * img.width + x) * 4) as usize;
        img.rgba[i..i + 3].copy_from_slice(&c);
    }

    /// A grey field with a vertical anti-aliased edge from dark to light at x = 10..12.
    fn edge() -> Image {
        image(24, 16, |x, _| match x {
            0..10 => [40; 3],
            10 => [90; 3],
            11 => [150; 3],
            _ => [210; 3],
        })
    }

    #[test]
    fn neighbourhood_range_is_the_brute_force_one() {
        let img = image(7, 5, |x, y| [(x * 37 + y * 11) as u8, (x * y * 13) as u8, (250 - x * 9 - y * 30) as u8]);
        let (lo, hi) = neighbourhood_range(&img);
        for y in 0..5i64 {
            for x in 0..7i64 {
                for c in 0..4 {
                    let vals: Vec<u8> = (-1..=1)
                        .flat_map(|dy| (-1..=1).map(move |dx| (x + dx, y + dy)))
                        .filter(|&(a, b)| (0..7).contains(&a) && (0..5).contains(&b))
                        .map(|(a, b)| img.rgba[((b * 7 + a) * 4 + c) as usize])
                        .collect();
                    let i = ((y * 7 + x) * 4 + c) as usize;
                    assert_eq!((lo[i], hi[i]), (*vals.iter().min().unwrap(), *vals.iter().max().unwrap()), "({x},{y}) channel {c}");
                }
            }
        }
    }

    #[test]
    fn an_edge_that_moved_is_explained() {
        // every pixel of the edge column takes a value its neighbours had: coverage moved
        let e = edge();
        let mut a = e.clone();
        for y in 0..16 {
            set(&mut a, 10, y, [150; 3]);
            set(&mut a, 11, y, [210; 3]);
        }
        let r = regions(&e, &a, 3, 2);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!((r[0].x, r[0].y, r[0].width, r[0].height, r[0].pixels), (10, 0, 2, 16, 32));
        assert_eq!(r[0].weight, 0, "a moved edge weighs nothing: {r:?}");
    }

    #[test]
    fn a_patch_on_flat_ground_weighs_every_pixel() {
        let e = edge();
        let mut a = e.clone();
        for (x, y) in [(2, 3), (3, 3), (2, 4), (3, 4)] {
            set(&mut a, x, y, [215; 3]);
        }
        assert_eq!(regions(&e, &a, 3, 2), vec![Region { x: 2, y: 3, width: 2, height: 2, pixels: 4, weight: 4 }]);
        // the same values within the threshold do not differ at all
        let mut b = e.clone();
        set(&mut b, 2, 3, [42; 3]);
        assert!(regions(&e, &b, 3, 2).is_empty());
    }

    #[test]
    fn a_pixel_weighs_by_how_far_it_is_off() {
        let flat = image(40, 40, |_, _| [120, 140, 160]);
        let patch = |n: u32, f: &dyn Fn([u8; 3]) -> [u8; 3]| {
            let mut a = flat.clone();
            for y in 5..5 + n {
                for x in 5..5 + n {
                    set(&mut a, x, y, f([120, 140, 160]));
                }
            }
            regions(&flat, &a, 3, 0).first().map_or(0, |r| r.weight)
        };
        // invisible: +3 on 3×3 weighs 9 × 1/6, ±2 on 16×16 nothing
        assert_eq!(patch(3, &|c| c.map(|v| v + 3)), 2);
        assert_eq!(patch(16, &|c| c.map(|v| v - 2)), 0);
        assert_eq!(patch(16, &|c| c.map(|v| v + 2)), 0);
        // visible: an 8-level shift and a hue change of the same brightness weigh every pixel
        assert_eq!(patch(24, &|c| c.map(|v| v + 8)), 576);
        assert_eq!(patch(24, &|[r, g, b]| [r + 24, g, b - 24]), 576);
        // in between, linearly: +5 is half a pixel each (the sum rounded half up)
        assert_eq!(patch(4, &|c| c.map(|v| v + 5)), 8);
        // a channel threshold above the faint levels moves the floor with it
        let mut a = flat.clone();
        set(&mut a, 9, 9, [120 + 8, 140, 160]);
        assert_eq!(regions(&flat, &a, 3, 4)[0].weight, 1, "(8 - 4) / 6, rounded");
    }

    #[test]
    fn a_solid_block_of_explicable_change_weighs_its_inside() {
        // a 6×6 block of a two-colour checkerboard swapped: every pixel takes a neighbour's value,
        // yet the inside of the block (4×4) differs everywhere around it
        let e = image(16, 16, |x, y| if (x + y) % 2 == 0 { [30; 3] } else { [220; 3] });
        let mut a = e.clone();
        for y in 5..11 {
            for x in 5..11 {
                set(&mut a, x, y, if (x + y) % 2 == 0 { [220; 3] } else { [30; 3] });
            }
        }
        let r = regions(&e, &a, 3, 2);
        assert_eq!(r, vec![Region { x: 5, y: 5, width: 6, height: 6, pixels: 36, weight: 16 }]);
    }

    #[test]
    fn a_lone_pixel_far_off_on_flat_ground_weighs_as_a_patch_and_one_on_an_edge_does_not() {
        let flat = image(16, 16, |_, _| [90, 120, 200]);
        let mut nan = flat.clone();
        set(&mut nan, 7, 9, [255 - 90, 255 - 120, 255 - 200]);
        assert_eq!(regions(&flat, &nan, 3, 2)[0].weight, LONE_WEIGHT, "the complement of a pixel");
        let mut faint = flat.clone();
        set(&mut faint, 7, 9, [90 + LONE - 10, 120, 200]);
        assert_eq!(regions(&flat, &faint, 3, 2)[0].weight, 1, "a visible but not impossible pixel weighs one");
        // on an edge, the same complement is a pixel's worth: the golden is not flat there
        let golden = edge();
        let mut jitter = golden.clone();
        set(&mut jitter, 10, 4, [255 - 90; 3]);
        assert!(regions(&golden, &jitter, 3, 2)[0].weight < LONE_WEIGHT);
    }

    #[test]
    fn regions_are_eight_connected_and_heaviest_first() {
        let e = image(20, 10, |_, _| [100; 3]);
        let mut a = e.clone();
        // a diagonal of three (one region) and a lone pixel (not far enough off to weigh as a patch)
        for k in 0..3 {
            set(&mut a, 2 + k, 2 + k, [200; 3]);
        }
        set(&mut a, 15, 8, [60; 3]);
        let r = regions(&e, &a, 3, 2);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].x, r[0].y, r[0].width, r[0].height, r[0].pixels, r[0].weight), (2, 2, 3, 3, 3, 3));
        assert_eq!((r[1].x, r[1].y, r[1].pixels), (15, 8, 1));
    }

    #[test]
    fn alpha_counts_only_when_asked() {
        let e = image(4, 4, |_, _| [50; 3]);
        let mut a = e.clone();
        a.rgba[4 * 5 + 3] = 200;
        assert!(regions(&e, &a, 3, 2).is_empty());
        assert_eq!(regions(&e, &a, 4, 2)[0].weight, 1);
    }

    #[test]
    fn outlines_go_around_the_box_and_stop_at_the_border() {
        let img = image(12, 9, |_, _| [0; 3]);
        let r = Region { x: 1, y: 4, width: 2, height: 2, pixels: 4, weight: 4 };
        let out = outline(&img, &[r], [0, 255, 255, 255]);
        let lit = |x: u32, y: u32| out.rgba[((y * 12 + x) * 4 + 1) as usize] == 255;
        // rows 1..=2 above and 7..=8 below, columns 4..=5 to the right; the left side is clipped
        for x in 0..=5 {
            assert!(lit(x, 1) && lit(x, 2) && lit(x, 7) && lit(x, 8), "column {x}");
        }
        for y in 1..=8 {
            assert!(lit(4, y) && lit(5, y), "row {y}");
        }
        assert!(!lit(3, 3) && !lit(1, 4) && !lit(3, 6) && !lit(6, 4), "one pixel clear of the region, nothing beyond");
        assert_eq!((0..9).flat_map(|y| (0..12).map(move |x| (x, y))).filter(|&(x, y)| lit(x, y)).count(), 6 * 4 + 2 * 4);
    }
}
