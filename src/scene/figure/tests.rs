//! Reading figure files: layout, panels, data, errors with their positions.

use std::path::PathBuf;

use super::*;
use crate::scene::{Diagnostic, KindLook, SceneError};

/// A figure file as if it sat in `scenes/figures/`.
fn parse(body: &str) -> Result<FigureLook, Vec<Diagnostic>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/figures/test.toml");
    match crate::scene::parse(&format!("kind = \"figure\"\n[render]\nwidth = 900\nheight = 400\n{body}"), &path) {
        Ok(s) => match s.look.kind {
            KindLook::Figure(f) => Ok(f),
            other => panic!("{other:?}"),
        },
        Err(SceneError::Invalid { diagnostics, .. }) => Err(diagnostics),
        Err(e) => panic!("{e}"),
    }
}

fn problem(body: &str, key: &str, words: &str) -> (usize, usize) {
    let d = parse(body).expect_err("refused");
    let hit = d.iter().find(|d| d.key == key && d.message.contains(words)).unwrap_or_else(|| panic!("no `{words}` at {key}: {d:?}"));
    (hit.line, hit.col)
}

#[test]
fn panels_fill_a_grid_under_the_title_with_room_for_captions() {
    let f = parse(
        "[figure]\ntitle = \"t\"\ncolumns = 2\n[[figure.panel]]\nscene = \"../terrain.toml\"\ncaption = \"{triangles}\"\n\
         [[figure.panel]]\nscene = \"../flock.toml\"\n[[figure.panel]]\nscene = \"../dice.toml\"\nrect = [10, 20, 30, 40]\n",
    )
    .unwrap();
    let r = f.panel_rects();
    let (title, caption) = (f.title_band(), f.caption_band());
    assert!(title > 0.0 && caption > 0.0);
    let cell_w = (900.0 - 2.0 * 16.0 - 16.0) / 2.0;
    let cell_h = (400.0 - 16.0 - title - 16.0 - 16.0) / 2.0;
    assert_eq!(r[0], [16.0, 16.0 + title, cell_w, cell_h - caption]);
    assert_eq!(r[1], [16.0 + cell_w + 16.0, 16.0 + title, cell_w, cell_h - caption]);
    assert_eq!(r[2], [10.0, 20.0, 30.0, 40.0], "its own rectangle");
    assert!(matches!(&f.panels[0].content, PanelContent::Scene(s) if s.kind.name() == "terrain"));
}

#[test]
fn bad_panels_are_named_at_their_line_and_column() {
    assert_eq!(problem("[[figure.panel]]\nscene = \"nowhere.toml\"\n", "figure.panel[0].scene", "relative to the figure's file"), (6, 9));
    problem("[[figure.panel]]\nscene = \"../dice.toml\"\nframe = 9999\n", "figure.panel[0].frame", "past the last frame (179)");
    // a moment past the end is refused as a frame number is (the panel would show the last frame)
    for time in ["6.0", "4.5e3"] {
        problem(
            &format!("[[figure.panel]]\nscene = \"../dice.toml\"\ntime = {time}\n"),
            "figure.panel[0].time",
            "past the last frame (179, at 5.97 s)",
        );
    }
    assert!(parse("[[figure.panel]]\nscene = \"../dice.toml\"\ntime = 5.98\n").is_ok(), "5.98 s shows the last frame, 179");
    // the message offers the end, and what it offers is taken
    problem("[[figure.panel]]\nscene = \"../dice.toml\"\ntime = 6.0\n", "figure.panel[0].time", "write `time = 5.966` or `frame = 179`");
    assert!(parse("[[figure.panel]]\nscene = \"../dice.toml\"\ntime = 5.966\n").is_ok());
    // `{panelN.fact}` of no panel, or of a chart, says which panels have facts
    let two = "[[figure.panel]]\nscene = \"../dice.toml\"\n[[figure.panel]]\n[figure.panel.chart]\nvalues = [1, 2]\n";
    problem(
        &format!("[figure]\ntitle = \"{{panel3.time}}\"\n{two}"),
        "figure.title",
        "there is no panel 3 (the figure has 2; panel 1 shows a scene)",
    );
    problem(
        &format!("[figure]\ntitle = \"{{panel2.time}}\"\n{two}"),
        "figure.title",
        "panel 2 is a chart or an inset, which reports no time",
    );
    assert!(parse(&format!("[figure]\ntitle = \"{{panel1.time}}\"\n{two}")).is_ok());
    // an inset's caption has its panel's facts
    let inset = "[[figure.panel]]\ninset = 1\nregion = [10, 10, 40, 30]\ncaption = \"t = {time} s\"\n";
    assert!(parse(&format!("[[figure.panel]]\nscene = \"../dice.toml\"\n{inset}")).is_ok());
    problem("[[figure.panel]]\n", "figure.panel[0]", "needs `scene");
    problem("[[figure.panel]]\nscene = \"../dice.toml\"\n[figure.panel.chart]\nvalues = [1]\n", "figure.panel[0].chart", "not both");
    // a point above and behind the camera of the settled dice scene
    let at = problem(
        "[[figure.panel]]\nscene = \"../dice.toml\"\nframe = 179\n[[figure.panel.label]]\nat = [0, 40, 0]\ntext = \"x\"\n",
        "figure.panel[0].label[0].at",
        "off-screen in panel 1",
    );
    assert_eq!(at, (9, 6));
    problem(
        "[[figure.panel]]\nscene = \"../dice.toml\"\nframe = 179\n[[figure.panel.arrow]]\nfrom = [0, 0, 0]\nto = [90, 0, 0]\n",
        "figure.panel[0].arrow[0].to",
        "lands at",
    );
    problem("[[figure.panel]]\nscene = \"../dice.toml\"\ncaption = \"{oops\"\n", "figure.panel[0].caption", "without its");
}

#[test]
fn chart_data_comes_from_the_json_with_hints_for_missing_keys() {
    let f = parse(
        "[figure]\ndata = \"data/dice_study.json\"\ntitle = \"χ² {chi_square:.2}\"\n[[figure.panel]]\n[figure.panel.chart]\n\
         values = \"face_counts\"\nreference = \"mean\"\n",
    )
    .unwrap();
    let PanelContent::Chart(c) = &f.panels[0].content else { panic!() };
    let json = &f.data.as_ref().unwrap().json;
    let counts: Vec<f64> = json["face_counts"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(c.series[0].values, counts);
    let mean = counts.iter().sum::<f64>() / 6.0;
    assert_eq!(c.reference.as_ref().unwrap().value, mean);
    problem(
        "[figure]\ndata = \"data/dice_study.json\"\n[[figure.panel]]\n[figure.panel.chart]\nvalues = \"face_count\"\n",
        "figure.panel[0].chart.values",
        "did you mean \"face_counts\"",
    );
    problem("[figure]\ntitle = \"{chi_square}\"\n", "figure.title", "needs `data");
    problem("[figure]\ndata = \"data/missing.json\"\n", "figure.data", "cannot read");
    problem("[figure]\ndata = \"../dice.toml\"\n", "figure.data", "is not JSON");
    problem(
        "[[figure.panel]]\n[figure.panel.chart]\ntype = \"line\"\nvalues = [1, 2]\nx = [1]\n",
        "figure.panel[0].chart.x",
        "1 x values for 2 values",
    );
}

#[test]
fn a_figure_cannot_be_its_own_panel() {
    let dir = std::env::temp_dir().join(format!("simreel-figure-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("self.toml");
    std::fs::write(&path, "kind = \"figure\"\n[[figure.panel]]\nscene = \"self.toml\"\n").unwrap();
    let e = crate::scene::load(&path).expect_err("refused");
    assert!(e.to_string().contains("is the scene of a panel of another figure"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_panic_while_reading_a_panel_leaves_no_panel_marked() {
    // a panic unwinding out of a panel's reading must not leave the next figure read on this
    // thread thinking it is a panel (it would refuse all its panels)
    let unwound = std::panic::catch_unwind(|| panel::in_panel(|| panic!("a reader bug")));
    assert!(unwound.is_err());
    assert!(!IN_PANEL.with(|f| f.get()), "the mark outlived the panic");
    let nested = panel::in_panel(|| panel::in_panel(|| IN_PANEL.with(|f| f.get())));
    assert!(nested && !IN_PANEL.with(|f| f.get()), "nested marks restore what was before");
}

#[test]
fn a_missing_file_or_column_is_reported_once_with_the_nearest_name() {
    // a column the data lacks: named with the nearest, and its x not echoed ("360 x values for 0")
    let chart = |values: &str| {
        format!(
            "[figure]\ndata = \"data/cargo_manifest.json\"\n[[figure.panel]]\n[figure.panel.chart]\ntype = \"line\"\n\
             [[figure.panel.chart.series]]\nx = \"frames.*.facts.time\"\nvalues = \"{values}\"\n"
        )
    };
    let d = parse(&chart("frames.*.facts.midle_pitch")).expect_err("refused");
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].message.contains("did you mean \"middle_pitch\"?"), "{d:?}");
    // a data file misspelt: the nearest file in its folder, and nothing said of the names into it
    let d = parse(&chart("frames.*.facts.middle_pitch").replace("cargo_manifest", "cargo_manfest")).expect_err("refused");
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].key == "figure.data" && d[0].message.contains("did you mean \"data/cargo_manifest.json\"?"), "{d:?}");
    // a panel's scene misspelt, with and without `with`; a folder that is not there
    for with in ["", "with = { dice = { count = 2 } }\n"] {
        let d = parse(&format!("[[figure.panel]]\nscene = \"../dice_pul.toml\"\n{with}")).expect_err("refused");
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.contains("did you mean \"../dice_pull.toml\"?"), "{with}: {d:?}");
    }
    let d = parse("[[figure.panel]]\nscene = \"../nowhere/dice.toml\"\n").expect_err("refused");
    assert!(d[0].message.contains("there is no folder"), "{d:?}");
}

#[test]
fn the_layout_says_where_each_panel_is_and_what_reaches_outside() {
    let body = "[figure]\ncolumns = 2\n[[figure.panel]]\nscene = \"../flock.toml\"\n[[figure.panel.label]]\nat = [900, 10]\ntext = \"far\"\n\
                [[figure.panel]]\ninset = 1\nregion = [0, 0, 80, 10]\n";
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/figures/test.toml");
    let s = crate::scene::parse(&format!("kind = \"figure\"\n[render]\nwidth = 900\nheight = 400\n{body}"), &path).unwrap();
    let (KindLook::Figure(f), crate::scene::KindSpec::Figure(spec)) = (&s.look.kind, &s.sim.kind) else { panic!() };
    let layout = f.layout(spec);
    let rects = f.panel_rects();
    assert_eq!(layout.lines.len(), 2, "{layout:?}");
    assert!(layout.lines[0].starts_with(&format!("panel 1 at {}", rect_text(rects[0]))), "{}", layout.lines[0]);
    // the flock's canvas, fitted as the renderer fits it
    let crate::scene::KindSpec::Flock(flock) = &spec.panels[0].as_ref().unwrap().scene.kind else { panic!() };
    let r = rects[0].map(|v| v as f32);
    let (scale, _) = crate::frame::fit(flock.canvas.map(|v| v as f32), r);
    assert!(layout.lines[0].contains(&format!("scaled {scale:.4}×")), "{}", layout.lines[0]);
    assert!(layout.lines[1].contains("panel 1's region [0, 0, 80, 10] magnified, widened"), "{}", layout.lines[1]);
    // the widened region leaves panel 1 at its top; the label is past its right edge
    assert!(layout.warnings.iter().any(|w| w.starts_with("panel 2: the region it shows") && w.contains("past its top edge")), "{layout:?}");
    assert!(
        layout.warnings.iter().any(|w| w.starts_with("panel 1, label 1: at [900, 10]") && w.contains("past its right edge")),
        "{layout:?}"
    );
    // a region of the inset's own shape inside the panel: no warning
    let [_, _, w, h] = rects[1];
    let fits = body
        .replace("region = [0, 0, 80, 10]", &format!("region = [10, 10, {}, {}]", w / 4.0, h / 4.0))
        .replace("at = [900, 10]", "at = [10, 10]");
    let s = crate::scene::parse(&format!("kind = \"figure\"\n[render]\nwidth = 900\nheight = 400\n{fits}"), &path).unwrap();
    let (KindLook::Figure(f), crate::scene::KindSpec::Figure(spec)) = (&s.look.kind, &s.sim.kind) else { panic!() };
    assert!(f.layout(spec).warnings.is_empty(), "{:?}", f.layout(spec));
}

/// `units = "scene"`: a flock panel's label, arrow and an inset's region written in the flock's
/// canvas units land where the panel draws those points; a 3-D panel or the figure's own labels
/// refuse it.
#[test]
fn points_and_regions_in_the_scene_s_units_land_where_the_panel_draws_them() {
    let body = "[figure]\ncolumns = 2\n[[figure.panel]]\nscene = \"../flock.toml\"\n\
                [[figure.panel.label]]\nat = [320, 180]\ntext = \"centre\"\nunits = \"scene\"\n\
                [[figure.panel.arrow]]\nfrom = [0, 0]\nto = [640, 360]\nunits = \"scene\"\n\
                [[figure.panel]]\ninset = 1\nregion = [100, 50, 200, 150]\nunits = \"scene\"\n";
    let f = parse(body).unwrap();
    let rect = f.panel_rects()[0];
    let (s, o) = crate::frame::fit([640.0, 360.0], rect.map(|v| v as f32));
    let (s, ox, oy) = (s as f64, o[0] as f64 - rect[0], o[1] as f64 - rect[1]);
    let near = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).abs() < 1e-3 && (a[1] - b[1]).abs() < 1e-3;
    let Anchor::Canvas(at) = f.panels[0].labels[0].at else { panic!() };
    assert!(near(at, [ox + s * 320.0, oy + s * 180.0]), "{at:?}");
    let (Anchor::Canvas(from), Anchor::Canvas(to)) = (f.panels[0].arrows[0].from, f.panels[0].arrows[0].to) else { panic!() };
    assert!(near(from, [ox, oy]) && near(to, [ox + s * 640.0, oy + s * 360.0]), "{from:?} {to:?}");
    let PanelContent::Inset(inset) = &f.panels[1].content else { panic!() };
    let r = inset.region;
    assert!(near([r[0], r[1]], [ox + s * 100.0, oy + s * 50.0]) && near([r[2], r[3]], [s * 200.0, s * 150.0]), "{r:?}");
    // the same points in panel units, written by hand, are the same figure
    let by_hand = format!(
        "[figure]\ncolumns = 2\n[[figure.panel]]\nscene = \"../flock.toml\"\n[[figure.panel.label]]\nat = [{}, {}]\ntext = \"centre\"\n",
        at[0], at[1]
    );
    let Anchor::Canvas(same) = parse(&by_hand).unwrap().panels[0].labels[0].at else { panic!() };
    assert_eq!(same, at);
    // a 3-D scene has no 2-D units; a figure's own label is in figure units
    problem(
        "[[figure.panel]]\nscene = \"../dice.toml\"\n[[figure.panel.label]]\nat = [1, 2]\ntext = \"x\"\nunits = \"scene\"\n",
        "figure.panel[0].label[0].units",
        "panel 1 shows none",
    );
    problem("[[figure.label]]\nat = [1, 2]\ntext = \"x\"\nunits = \"scene\"\n", "figure.label[0].units", "unknown key");
}
