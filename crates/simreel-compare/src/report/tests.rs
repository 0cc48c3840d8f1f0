//! The report's pages, thumbnails and pictures.

use super::pictures::{self, drawn_rows, panel};
use super::*;

/// A failed entry of `subject`: `c` of `expected` and `actual`, held in memory.
fn failed(subject: Subject, c: Comparison, expected: Image, actual: Image) -> Entry {
    Entry {
        subject,
        passed: false,
        verdict: c.describe(),
        comparison: Some(c),
        expected: Some(expected),
        expected_file: None,
        actual: Some(actual),
        actual_file: None,
        sha256: Default::default(),
        state_message: String::new(),
        tolerance_reason: String::new(),
        accept: crate::Accept::Command(String::new()),
        unreadable: false,
        bytes: Default::default(),
        rendered: None,
    }
}

#[test]
fn passed_frames_are_listed_with_a_thumbnail_that_fits_the_box() {
    let frame = Image { width: 320, height: 240, rgba: [40u8, 90, 200, 255].repeat(320 * 240) };
    let entry = Entry {
        subject: Subject::frame("terrain", 45),
        passed: true,
        verdict: "identical".into(),
        comparison: None,
        expected: None,
        expected_file: None,
        actual: Some(frame),
        actual_file: None,
        sha256: Default::default(),
        state_message: "state matches".into(),
        tolerance_reason: String::new(),
        accept: crate::Accept::Command(String::new()),
        unreadable: false,
        bytes: Default::default(),
        rendered: None,
    };
    let page = html(&Report::of(&[entry], &[], "lavapipe"), None);
    let at = page.find("<img class=\"thumb\"").expect("a thumbnail");
    let tag = &page[at..at + page[at..].find('>').unwrap()];
    assert!(tag.contains("width=\"120\" height=\"90\""), "{tag}");
    let b64 = tag.split("base64,").nth(1).unwrap().trim_end_matches('"');
    let thumb = crate::image::decode(&crate::hash::base64_decode(b64)).unwrap();
    assert_eq!((thumb.width, thumb.height), (120, 90));
    assert!(thumb.rgba.chunks_exact(4).all(|p| p == [40, 90, 200, 255]), "a flat frame stays flat");
}

#[test]
fn a_failing_region_is_boxed_on_the_diff_and_listed_in_the_summary() {
    let golden = Image { width: 64, height: 48, rgba: [200u8, 210, 220, 255].repeat(64 * 48) };
    let mut actual = golden.clone();
    for y in 20..25 {
        for x in 30..36 {
            actual.rgba[(y * 64 + x) * 4..(y * 64 + x) * 4 + 3].copy_from_slice(&[20, 20, 20]);
        }
    }
    let tol = crate::tolerance::Tolerance {
        channel: 2,
        max_pixels: crate::tolerance::PixelBudget::Count(100),
        flip_mean: 0.0,
        flip_p99: 0.0,
        max_region: crate::tolerance::DEFAULT_MAX_REGION,
        reason: "test".into(),
    };
    let c = compare::compare(&golden, &actual, &tol);
    assert_eq!(c.verdict, compare::Verdict::Region);
    let heat = regions::outline(&compare::heatmap(&c), &c.regions, REGION_OUTLINE);
    let px = |x: usize, y: usize| &heat.rgba[(y * 64 + x) * 4..(y * 64 + x) * 4 + 4];
    assert_eq!(px(28, 20), REGION_OUTLINE, "left side of the box, two pixels out");
    assert_eq!(px(37, 22), REGION_OUTLINE, "right side");
    assert_ne!(px(32, 22), REGION_OUTLINE, "the region itself is not painted over");
    let entry = failed(Subject::frame("s", 3), c, golden, actual);
    let report = Report::of(&[entry], &[], "lavapipe");
    let summary: serde_json::Value = serde_json::from_str(&crate::summary::Summary::of(&report).to_json()).unwrap();
    let f = &summary["frames"][0];
    assert_eq!(
        f["regions"][0],
        serde_json::json!({"x": 30, "y": 20, "width": 6, "height": 5, "pixels": 30, "unexplained": 30, "weight": 30})
    );
    assert_eq!(f["heaviest_region"], 30);
    assert!(
        report.records[0].metrics.contains(&format!("6×5 px at (30, 20), weight 30 > {}", crate::tolerance::DEFAULT_MAX_REGION)),
        "{}",
        report.records[0].metrics
    );
}

#[test]
fn the_panel_is_expected_error_and_actual_side_by_side_padded_as_compared() {
    let (a, b) = (
        Image { width: 8, height: 6, rgba: [0u8, 0, 0, 255].repeat(48) },
        Image { width: 6, height: 8, rgba: [0u8, 0, 0, 255].repeat(48) },
    );
    let c = compare::compare(&a, &b, &crate::tolerance::Tolerance::default());
    let heat = |y, row: &mut [u8]| compare::heatmap_row(&c, y, row);
    let p = crate::image::decode(&panel(&a, &crate::image::Made(heat), &b, c.width, c.height, &drawn_rows(&c, &a, &b))).unwrap();
    assert_eq!((p.width, p.height), (8 * 3 + 8, 8));
    let px = |x: u32, y: u32| &p.rgba[((y * p.width + x) * 4) as usize..][..4];
    assert_eq!(px(0, 0), [0, 0, 0, 255], "expected's own pixel");
    assert_eq!(px(0, 7), [255, 0, 255, 255], "expected padded below its 6 rows");
    assert_eq!(px(9, 3), [24, 24, 28, 255], "a separator");
    assert_eq!(px(12 + 8 + 4 + 7, 0), [255, 0, 255, 255], "actual padded right of its 6 columns");
    let heat_row: Vec<u8> = {
        let mut r = vec![0; 32];
        heat(7, &mut r);
        r
    };
    assert_eq!(&p.rgba[((7 * p.width + 12) * 4) as usize..][..32], &heat_row[..], "the error's row, unscaled at this size");
}

#[test]
fn a_failure_embeds_the_bytes_it_compared_not_the_file_as_it_is_now() {
    let expected = Image { width: 16, height: 16, rgba: [90u8, 120, 200, 255].repeat(256) };
    let mut actual = expected.clone();
    actual.rgba[..4 * 16 * 4].fill(0);
    let compared = encode_png(&actual);
    // the file changed on disk after the comparison read it
    let dir = std::env::temp_dir().join(format!("simreel-compare-held-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("actual.png");
    std::fs::write(&file, encode_png(&expected)).unwrap();
    let c = compare::compare(&expected, &actual, &crate::Tolerance::default());
    let entry = Entry {
        actual_file: Some(file.display().to_string()),
        bytes: FileBytes { expected: None, actual: Some(compared.clone()) },
        ..failed(Subject::File { path: "actual.png".into() }, c, expected, actual)
    };
    let pics = Pictures::of(&entry);
    assert_eq!(pics.get("actual").map(|p| &p.bytes), Some(&compared));
    // without held bytes (a check's golden image) the file is read
    let pics = Pictures::of(&Entry { bytes: FileBytes::default(), ..entry });
    assert_eq!(pics.get("actual").map(|p| p.bytes.clone()), Some(std::fs::read(&file).unwrap()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_first_view_shows_the_change_in_place_and_the_error_lies_over_the_faded_page() {
    // a page with a dark bar; the actual moves a 6×5 patch to black
    let mut golden = Image { width: 64, height: 48, rgba: [240u8, 242, 245, 255].repeat(64 * 48) };
    for y in 40..44 {
        for x in 0..64 {
            golden.rgba[(y * 64 + x) * 4..][..3].copy_from_slice(&[30, 40, 60]);
        }
    }
    let mut actual = golden.clone();
    for y in 20..25 {
        for x in 30..36 {
            actual.rgba[(y * 64 + x) * 4..][..3].copy_from_slice(&[20, 20, 20]);
        }
    }
    let c = compare::compare(&golden, &actual, &crate::Tolerance::default());
    assert_eq!(c.regions.len(), 1);
    let entry = failed(Subject::File { path: "page.png".into() }, c, golden.clone(), actual);
    let pics = Pictures::of(&entry);
    let decoded = |name: &str| crate::image::decode(&pics.get(name).unwrap().bytes).unwrap();
    let (marks, diff) = (decoded("marks"), decoded("diff"));
    let px = |img: &Image, x: usize, y: usize| img.rgba[(y * 64 + x) * 4..][..4].to_vec();
    // the change in red, clear elsewhere (the page lies under it, faded), the region boxed
    let changed = px(&marks, 32, 22);
    assert!(changed[0] > 200 && changed[1] < 40 && changed[3] >= 153, "a changed pixel is red: {changed:?}");
    assert_eq!(px(&marks, 5, 5)[3], 0, "unchanged pixels are clear");
    assert_eq!(px(&marks, 27, 22), pictures::WHERE_OUTLINE.to_vec(), "the box, three pixels left of the region");
    // the error is clear where there is none (the page shows it over the faded expected picture)
    assert_eq!(px(&diff, 5, 41)[3], 0);
    assert_eq!(px(&diff, 32, 22)[3], 255);
    // the strip draws it so: its error part is the faded page where nothing changed
    let strip = decoded("panel");
    let middle = |x: u32, y: u32| strip.rgba[((y * strip.width + 64 + 4 + x) * 4) as usize..][..4].to_vec();
    assert_eq!(middle(5, 41), pictures::fade(&golden.rgba[(41 * 64 + 5) * 4..][..4]).to_vec(), "the faded bar");
    assert!(middle(5, 5)[..3].iter().all(|&v| v >= 240), "{:?}", middle(5, 5));
    // the page opens on it: the where view first and shown, the region numbered in place and zoomed
    let page = html(&Report::of(&[entry], &[], "lavapipe"), None);
    let first_view = page.find("class=\"view ").or_else(|| page.find("class=\"view\"")).unwrap();
    assert!(page[first_view..].starts_with("class=\"view on\" data-view=\"where\""), "{}", &page[first_view..first_view + 60]);
    assert!(
        page.contains("<img class=\"faded\" alt=\"the actual picture, faded\" data-from=\"actual\">"),
        "the actual picture under the marks"
    );
    assert!(page.contains("<span class=\"box\" data-n=\"1\""), "a numbered box");
    assert!(page.contains("left:42.188%;top:35.417%"), "the box where the region is, in the picture's own scale");
    assert_eq!(page.matches("class=\"zoom\" data-bg=").count(), 3, "expected | actual | error of the region");
}
