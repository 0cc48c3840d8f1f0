//! Figures: panels of other scenes as views, charts drawn from data, annotations.

use simreel::frame::{Align, Background, Camera, Canvas2d, FrameData, Lighting, Shape2d, View};

use crate::common::{require_gpu, root};

/// The values a bar chart in `rect` shows, read back from the frame's plain data: bar tops mapped
/// through the y axis that the grid lines and their tick labels (right-aligned numbers left of
/// the plot) define.
fn bars_read_back(canvas: &Canvas2d, rect: [f32; 4], color: [f32; 4]) -> Vec<f64> {
    let inside = |p: [f32; 2]| p[0] >= rect[0] && p[0] <= rect[0] + rect[2] && p[1] >= rect[1] && p[1] <= rect[1] + rect[3];
    let value = y_axis(canvas, rect);
    let mut bars: Vec<(f32, f64, f64)> = canvas
        .shapes
        .iter()
        .filter_map(|s| match *s {
            Shape2d::Rect { min, max, color: c, .. } if c == color && inside(min) && inside(max) => {
                Some((min[0], value(min[1]), value(max[1])))
            }
            _ => None,
        })
        .collect();
    bars.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(bars.iter().all(|b| b.2.abs() < 1e-3), "bars stand on zero: {bars:?}");
    bars.into_iter().map(|(_, v, _)| v).collect()
}

/// The chart's y axis in `rect`, read from its grid lines and their tick labels: canvas y → value.
fn y_axis(canvas: &Canvas2d, rect: [f32; 4]) -> impl Fn(f32) -> f64 + use<> {
    let inside = |p: [f32; 2]| p[0] >= rect[0] && p[0] <= rect[0] + rect[2] && p[1] >= rect[1] && p[1] <= rect[1] + rect[3];
    let mut labels: Vec<(f32, f64)> = canvas
        .texts
        .iter()
        .filter(|t| t.align == Align::Right && inside(t.at))
        .filter_map(|t| t.text.parse::<f64>().ok().map(|v| (t.at[1], v)))
        .collect();
    labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut grid: Vec<f32> = canvas
        .shapes
        .iter()
        .filter_map(|s| match *s {
            Shape2d::Line { a, b, color_a, .. } if a[1] == b[1] && color_a[3] < 0.5 && inside(a) && inside(b) => Some(a[1]),
            _ => None,
        })
        .collect();
    grid.sort_by(f32::total_cmp);
    assert!(labels.len() >= 3 && labels.len() == grid.len(), "tick labels {labels:?}, grid lines {grid:?}");
    let ticks: Vec<(f32, f64)> = grid.iter().zip(&labels).map(|(&y, &(_, v))| (y, v)).collect();
    let ((y0, v0), (y1, v1)) = (ticks[0], ticks[ticks.len() - 1]);
    let value = move |y: f32| v0 + (v1 - v0) * ((y - y0) / (y1 - y0)) as f64;
    // every tick sits on the same straight axis
    for &(y, v) in &ticks {
        assert!((value(y) - v).abs() < 1e-3 * v1.abs().max(1.0), "tick {v} at {y} is off the axis");
    }
    value
}

#[test]
fn a_line_chart_plots_every_frame_of_the_manifest_it_reads() {
    let scene = simreel::scene::load(&root().join("scenes/figures/flock_trace.toml")).unwrap();
    let simreel::scene::KindLook::Figure(spec) = &scene.look.kind else { panic!("a figure") };
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root().join("scenes/figures/data/flock_manifest.json")).unwrap()).unwrap();
    let frame = simreel::kinds::build(&scene).frame(0);
    let canvas = frame.canvas.as_ref().unwrap();
    let rect = spec.panel_rects()[1].map(|v| v as f32);
    let value = y_axis(canvas, rect);
    for (k, fact) in ["seek", "work", "curious"].iter().enumerate() {
        let c = simreel::sim::figure::chart::PALETTE[k].to_linear();
        let color = [c[0], c[1], c[2], 1.0];
        // the series' segments in drawing order: each one's start, and the last one's end
        let segments: Vec<([f32; 2], [f32; 2])> = canvas
            .shapes
            .iter()
            .filter_map(|s| match *s {
                Shape2d::Line { a, b, color_a, width, .. } if color_a == color && width == 2.5 => Some((a, b)),
                _ => None,
            })
            .collect();
        let mut plotted: Vec<f64> = segments.iter().map(|(a, _)| value(a[1])).collect();
        plotted.push(value(segments.last().unwrap().1[1]));
        let want: Vec<f64> = manifest["frames"].as_array().unwrap().iter().map(|f| f["facts"][fact].as_f64().unwrap()).collect();
        assert_eq!(plotted.len(), want.len(), "{fact}: one point per frame");
        for (i, (p, w)) in plotted.iter().zip(&want).enumerate() {
            assert!((p - w).abs() < 1e-3, "{fact} at frame {i}: plotted {p}, the manifest says {w}");
        }
    }
}

#[test]
fn chart_values_read_back_from_the_frame_equal_the_json_they_came_from() {
    let scene = simreel::scene::load(&root().join("scenes/figures/dice_study.toml")).unwrap();
    let simreel::scene::KindLook::Figure(spec) = &scene.look.kind else { panic!("a figure") };
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root().join("scenes/figures/data/dice_study.json")).unwrap()).unwrap();
    let mut sim = simreel::kinds::build(&scene);
    let frame = sim.frame(0);
    let canvas = frame.canvas.as_ref().expect("a figure draws on its canvas");
    let rects: Vec<[f32; 4]> = spec.panel_rects().iter().map(|r| r.map(|v| v as f32)).collect();
    let blue = {
        let c = simreel::sim::figure::chart::PALETTE[0].to_linear();
        [c[0], c[1], c[2], 1.0]
    };
    let faces = bars_read_back(canvas, rects[0], blue);
    let expected: Vec<f64> = json["face_counts"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(faces.len(), 6);
    for (got, want) in faces.iter().zip(&expected) {
        assert!((got - want).abs() < 1e-3, "bars read back {faces:?}, the data says {expected:?}");
    }
    let settle = bars_read_back(canvas, rects[1], blue);
    assert_eq!(settle.len(), 24, "one bar per bin");
    let total: f64 = settle.iter().sum();
    assert!((total - json["rolls"].as_f64().unwrap()).abs() < 1e-2, "the histogram counts every roll once: {total}");
    // the title's numbers are the data's
    let chi = format!("{:.2}", json["chi_square"].as_f64().unwrap());
    assert!(canvas.texts.iter().any(|t| t.text.contains(&format!("χ² = {chi}"))), "{:?}", canvas.texts);
}

fn plain(bg: [f32; 3], canvas: Option<Canvas2d>) -> FrameData {
    FrameData {
        index: 0,
        time: 0.0,
        camera: Camera { eye: [0.0, 0.0, 5.0], target: [0.0; 3], up: [0.0, 1.0, 0.0], fov_y_deg: 45.0, near: 0.1, far: 50.0 },
        background: Background { top: bg, bottom: bg },
        lighting: Lighting {
            to_sun: [0.0, 1.0, 0.0],
            sun: [1.0; 3],
            sky: [0.3; 3],
            ground: [0.3; 3],
            shadows: false,
            shadow_softness: 1.0,
            fog_density: 0.0,
            fog_color: [0.0; 3],
        },
        meshes: Vec::new(),
        batches: Vec::new(),
        canvas,
        views: Vec::new(),
    }
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn views_draw_each_frame_into_its_rectangle_under_the_outer_canvas() {
    use simreel::render::{AdapterRequest, Renderer};
    require_gpu();
    let canvas = |shapes: Vec<Shape2d>| Canvas2d { size: [200.0, 100.0], static_layer: None, shapes, texts: Vec::new() };
    let square =
        |min: [f32; 2], max: [f32; 2], c: [f32; 3]| Shape2d::Rect { min, max, radius: 0.0, border: 0.0, color: [c[0], c[1], c[2], 1.0] };
    // left view: red, with a green square in its own canvas's middle; right view: blue
    let left = plain([1.0, 0.0, 0.0], Some(canvas(vec![square([90.0, 40.0], [110.0, 60.0], [0.0, 1.0, 0.0])])));
    let right = plain([0.0, 0.0, 1.0], None);
    let mut outer = plain([1.0; 3], Some(canvas(vec![square([95.0, 0.0], [105.0, 10.0], [0.0; 3])])));
    outer.views = vec![
        View { rect: [10.0, 10.0, 80.0, 80.0], frame: Box::new(left), zoom: None },
        View { rect: [110.0, 10.0, 80.0, 80.0], frame: Box::new(right), zoom: None },
    ];
    // the outer canvas is 200×100 units in a 400×200 image: 2 px per unit
    let mut r = Renderer::new(&AdapterRequest::default(), 400, 200, 4).expect("renderer");
    assert!(r.submit(&outer).unwrap().is_none());
    let img = r.next_image().unwrap().expect("one image");
    let px = |x: u32, y: u32| {
        let i = ((y * 400 + x) * 4) as usize;
        [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]]
    };
    assert_eq!(px(5, 100), [255, 255, 255], "outer background around the views");
    assert_eq!(px(30, 30), [255, 0, 0], "left view's background fills its rectangle");
    assert_eq!(px(370, 170), [0, 0, 255], "right view's background");
    // the left view's canvas (200×100) is fitted into its 160×160 px rectangle: 0.8 px per unit,
    // centred vertically: its middle square covers the rectangle's centre
    assert_eq!(px(100, 100), [0, 255, 0], "the view's own canvas is drawn inside it");
    assert_eq!(px(100, 60), [255, 0, 0], "and fitted to it, not to the whole image");
    assert_eq!(px(200, 10), [0, 0, 0], "the outer canvas goes over everything");
    assert_eq!(px(200, 100), [255, 255, 255], "between the views");
    assert_eq!(
        r.last_draws().main,
        1 + 1 + 1 + 1 + 1,
        "outer background, two views with a background each, the left's canvas, the outer canvas"
    );
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn wireframes_are_thin_even_lines_with_hidden_lines_removed() {
    use simreel::frame::{Fill, IDENTITY, Material, MeshData, MeshInstance, MeshRef, Wire};
    use simreel::render::{AdapterRequest, Renderer};
    require_gpu();
    // a 2 × 2 square of two triangles facing the camera (z = 0), seen from z = 5
    let square = |z: f32, x0: f32, x1: f32, color: [u8; 4]| MeshData {
        positions: vec![[x0, -1.0, z], [x1, -1.0, z], [x1, 1.0, z], [x0, 1.0, z]],
        normals: vec![[0.0, 0.0, 1.0]; 4],
        colors: vec![color; 4],
        indices: vec![0, 1, 2, 0, 2, 3],
    };
    let red = [1.0, 0.0, 0.0, 1.0];
    let wired = |mesh: MeshData, fill: Fill, wire: Option<Wire>| MeshInstance {
        mesh: MeshRef::new(mesh),
        transform: IDENTITY,
        material: Material { fill, wire, casts_shadow: false, ..Material::default() },
        deform: None,
    };
    let (w, h) = (200u32, 200u32);
    let render = |meshes: Vec<MeshInstance>| {
        let mut f = plain([1.0; 3], None);
        f.meshes = meshes;
        let mut r = Renderer::new(&AdapterRequest::default(), w, h, 4).expect("renderer");
        assert!(r.submit(&f).unwrap().is_none());
        r.next_image().unwrap().expect("one image")
    };
    let reddish = |p: &[u8]| p[0] > 200 && (p[0] as i32 - p[1] as i32) > 60;
    let px = |img: &simreel::render::Image, x: u32, y: u32| img.rgba[((y * w + x) * 4) as usize..][..4].to_vec();

    let img = render(vec![wired(square(0.0, -1.0, 1.0, [255; 4]), Fill::Hidden, Some(Wire { color: red, width: 2.0 }))]);
    // the hidden fill shows the background; the diagonal from (-1,-1) to (1,1) is a red line
    assert_eq!(px(&img, 120, 120)[..3], [255, 255, 255], "inside a triangle: background");
    assert!(reddish(&px(&img, 100, 100)), "the shared diagonal through the centre: {:?}", px(&img, 100, 100));
    // constant width: each row crosses the diagonal with the same number of red pixels
    let red_in_row = |img: &simreel::render::Image, y: u32| (60..140).filter(|&x| reddish(&px(img, x, y))).count();
    let widths: Vec<usize> = (75..=125).step_by(10).map(|y| red_in_row(&img, y)).collect();
    assert!(widths.iter().all(|&n| (2..=4).contains(&n)), "a 2 px line crossed diagonally: {widths:?}");

    // an opaque square in front of the left half hides the wire there
    let front = wired(square(1.0, -2.0, 0.0, [40, 80, 200, 255]), Fill::Shaded, None);
    let img = render(vec![wired(square(0.0, -1.0, 1.0, [255; 4]), Fill::Hidden, Some(Wire { color: red, width: 2.0 })), front]);
    let left: usize = (20..100).map(|y| (0..95).filter(|&x| reddish(&px(&img, x, y))).count()).sum();
    let right: usize = (100..180).map(|y| (105..200).filter(|&x| reddish(&px(&img, x, y))).count()).sum();
    assert_eq!(left, 0, "wire behind an opaque mesh is hidden");
    assert!(right > 50, "the visible half keeps its wire ({right} px)");
}

#[test]
fn the_case_figure_shows_each_of_the_15_classes_once_labelled_from_its_cube() {
    let scene = simreel::scene::load(&root().join("scenes/figures/mc_cases.toml")).unwrap();
    let mut sim = simreel::kinds::build(&scene);
    let frame = sim.frame(0);
    assert_eq!(frame.views.len(), 15);
    let canvas = frame.canvas.as_ref().unwrap();
    let digest = sim.digest();
    for class in 0..15 {
        // the caption is the class the panel's own cube reports, not a number typed in the figure
        let fact = digest.facts.iter().find(|(k, _)| *k == format!("panel{}.class", class + 1)).map(|(_, v)| v.clone());
        assert_eq!(fact.as_deref(), Some(class.to_string().as_str()), "panel {}", class + 1);
        assert_eq!(canvas.texts.iter().filter(|t| t.text == class.to_string()).count(), 1, "caption {class}");
        // the surface: none for class 0, some for every other
        let triangles = frame.views[class].frame.meshes[0].mesh.data.indices.len() / 3;
        assert_eq!(triangles == 0, class == 0, "class {class}: {triangles} triangles");
    }
}

/// The problems of a figure file (given after its `kind` line) that sits in `scenes/figures/`.
fn figure_problems(body: &str) -> Vec<simreel::scene::Diagnostic> {
    match simreel::scene::parse(&format!("kind = \"figure\"\n{body}"), &root().join("scenes/figures/x.toml")) {
        Err(simreel::scene::SceneError::Invalid { diagnostics, .. }) => diagnostics,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_panel_changes_its_scene_through_with_and_reports_bad_overrides() {
    use simreel::scene::KindSpec;
    use simreel::scene::terrain::Algorithm;
    let scene = simreel::scene::load(&root().join("scenes/figures/mc_vs_sn_vs_dc.toml")).unwrap();
    let KindSpec::Figure(fig) = &scene.sim.kind else { panic!() };
    let algorithms: Vec<(Algorithm, bool)> = fig
        .panels
        .iter()
        .map(|p| match p.as_ref().map(|p| &p.scene.kind) {
            Some(KindSpec::Terrain(t)) => (t.algorithm, t.per_cell),
            _ => panic!(),
        })
        .collect();
    use Algorithm::*;
    let expected = [
        (MarchingCubes, false),
        (SurfaceNets, false),
        (DualContouring, false),
        (SurfaceNets, true),
        (SurfaceNets, false),
        (DualContouring, false),
    ];
    assert_eq!(algorithms, expected);
    // the captions count each panel's own triangles
    let mut sim = simreel::kinds::build(&scene);
    let frame = sim.frame(0);
    for (k, name) in ["marching cubes", "surface nets", "dual contouring"].iter().enumerate() {
        let triangles = frame.views[k].frame.meshes[0].mesh.data.indices.len() / 3;
        let caption = format!("{name}: {triangles} triangles");
        assert!(frame.canvas.as_ref().unwrap().texts.iter().any(|t| t.text == caption), "{caption}");
    }
    // and the thin disc's pinched edges: one vertex a cell pinches it, a vertex a piece does not
    let texts: Vec<&str> = frame.canvas.as_ref().unwrap().texts.iter().map(|t| t.text.as_str()).collect();
    let pinched = texts.iter().find_map(|t| t.strip_prefix("one vertex a cell: ")).and_then(|t| t.strip_suffix(" pinched edges"));
    assert!(pinched.and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| n > 0), "{texts:?}");
    for name in ["surface nets", "dual contouring"] {
        assert!(texts.contains(&format!("{name}: 0 pinched edges").as_str()), "{texts:?}");
    }

    let problems = figure_problems;
    let d = problems("[[figure.panel]]\nscene = \"parts/mc_cube.toml\"\nwith = { terrain = { algorithm = \"marching_squares\" } }\n");
    assert!(
        d.iter().any(|d| d.key == "figure.panel[0].with" && d.message.contains("marching_squares") && (d.line, d.col) == (4, 8)),
        "{d:?}"
    );
    let d = problems("[[figure.panel]]\nscene = \"parts/mc_cube.toml\"\n[figure.panel.with]\nterrain = { iso = 1 }\n");
    assert!(d.iter().any(|d| d.key == "figure.panel[0].with" && d.message.contains("inline table")), "{d:?}");
    let d = problems("[[figure.panel]]\nwith = { terrain = { iso = 1 } }\n[figure.panel.chart]\nvalues = [1]\n");
    assert!(d.iter().any(|d| d.message.contains("this panel has none")), "{d:?}");
    // a whole scene inline
    let inline = "[[figure.panel]]\nscene = { kind = \"terrain\", terrain = { cube = { class = 3 } } }\n";
    let s = simreel::scene::parse(&format!("kind = \"figure\"\n{inline}"), &root().join("scenes/figures/x.toml")).unwrap();
    let mut sim = simreel::kinds::build(&s);
    sim.frame(0);
    assert!(sim.digest().facts.contains(&("panel1.class".to_string(), "3".to_string())));
}

#[test]
fn cube_tables_take_one_way_of_giving_their_values() {
    let problems = |cube: &str| match simreel::scene::parse(
        &format!("kind = \"terrain\"\n[terrain.cube]\n{cube}\n"),
        std::path::Path::new("c.toml"),
    ) {
        Err(simreel::scene::SceneError::Invalid { diagnostics, .. }) => {
            diagnostics.into_iter().map(|d| d.message).collect::<Vec<_>>().join("\n")
        }
        Ok(_) => String::new(),
        Err(e) => panic!("{e}"),
    };
    assert!(problems("class = 3\ncase = 5").contains("takes one of"));
    assert!(problems("class = 15").contains("out of range"));
    assert!(problems("grid = [3, 2, 2]\nsamples = [1, 2]").contains("2 samples for a 3×2×2 grid"));
    assert!(problems("grid = [9, 2, 2]\nsamples = [1]").contains("values must be from 2 to 8"));
    assert_eq!(problems("values = [-1, 1, 1, 1, 1, 1, 1, 1]"), "");
    let d = match simreel::scene::parse(
        "kind = \"terrain\"\n[terrain]\nresolution = 40\n[terrain.cube]\nclass = 1\n",
        std::path::Path::new("c.toml"),
    ) {
        Err(simreel::scene::SceneError::Invalid { diagnostics, .. }) => diagnostics,
        other => panic!("{other:?}"),
    };
    assert!(d[0].key == "terrain.resolution" && d[0].message.contains("remove `resolution`"), "{d:?}");
}

#[test]
fn an_animated_iso_sweeps_the_threshold_through_the_field() {
    // a cube whose corners run from -1 to 1: raising iso from -0.9 to 0.9 takes the surface
    // from around corner 0 alone to around every corner but the last
    let text = "kind = \"terrain\"\n[render]\nframes = 3\nfps = 1\n[terrain]\nsize = [1, 1, 1]\n\
                iso = [[0.0, -0.9], [2.0, 0.9]]\n[terrain.cube]\nvalues = [-1, -0.5, 0, -0.25, 0.25, 0.5, 1, 0.75]\n";
    let scene = simreel::scene::parse(text, std::path::Path::new("sweep.toml")).unwrap();
    let mut sim = simreel::kinds::build(&scene);
    let inside: Vec<u32> = (0..3)
        .map(|f| {
            sim.frame(f);
            let case: u8 = sim.digest().facts.iter().find(|(k, _)| k == "case").unwrap().1.parse().unwrap();
            case.count_ones()
        })
        .collect();
    // at iso 0 the corner holding exactly 0 is outside, as every sample at iso is
    assert_eq!(inside, [1, 3, 7], "corners inside at iso -0.9, 0, 0.9");
}

#[test]
fn a_panel_draws_any_scenes_meshes_in_the_style_it_names() {
    use simreel::frame::Fill;
    let figure = "kind = \"figure\"\n[[figure.panel]]\nscene = \"../dice.toml\"\nframe = 0\nstyle = \"wireframe\"\nwire_width = 2\n\
                  [[figure.panel]]\nscene = \"../terrain.toml\"\nwith = { terrain = { resolution = [24, 16, 24] } }\nstyle = \"shaded+wire\"\nwire_color = \"#ff0000\"\n";
    let scene = simreel::scene::parse(figure, &root().join("scenes/figures/style.toml")).unwrap();
    let frame = simreel::kinds::build(&scene).frame(0);
    // dice: the table turns into a wireframe, the bent jelly bodies keep their fill and take no wire
    let dice = &frame.views[0].frame.meshes;
    assert!(
        dice.iter()
            .filter(|m| m.deform.is_none())
            .all(|m| m.material.fill == Fill::Hidden && m.material.wire.is_some_and(|w| w.width == 2.0))
    );
    assert!(dice.iter().filter(|m| m.deform.is_some()).all(|m| m.material.fill == Fill::Shaded && m.material.wire.is_none()));
    assert!(dice.iter().any(|m| m.deform.is_some()), "the dice are there");
    // terrain: shaded, with red wires
    let terrain = &frame.views[1].frame.meshes[0].material;
    assert_eq!(terrain.fill, Fill::Shaded);
    assert_eq!(terrain.wire.map(|w| w.color), Some([1.0, 0.0, 0.0, 1.0]));

    let problems = |body: &str| figure_problems(body).into_iter().map(|d| d.message).collect::<Vec<_>>().join("\n");
    assert!(
        problems("[[figure.panel]]\nstyle = \"wireframe\"\n[figure.panel.chart]\nvalues = [1]\n")
            .contains("this panel shows no scene of its own")
    );
    assert!(problems("[[figure.panel]]\nscene = \"../dice.toml\"\nwire_width = 3\n").contains("wires come with"));
    assert!(problems("[[figure.panel]]\nscene = \"../dice.toml\"\nstyle = \"wires\"\n").contains("is not one of"));
}

#[test]
fn a_title_takes_its_panels_facts_by_panel_and_from_the_first_that_has_them() {
    let dir = crate::common::scratch();
    let file = dir.join("title.toml");
    std::fs::write(
        &file,
        format!(
            "kind = \"figure\"\n[render]\nwidth = 400\nheight = 200\nframes = 3\n[figure]\n\
             title = \"{{agents}} agents; terrain {{panel2.triangles}} triangles at frame {{panel2.frame}}; {{nothing}}\"\n\
             [[figure.panel]]\nscene = \"{flock}\"\n[[figure.panel]]\nscene = \"{terrain}\"\nframe = 1\n",
            flock = root().join("scenes/flock.toml").display(),
            terrain = root().join("scenes/terrain.toml").display()
        ),
    )
    .unwrap();
    let scene = simreel::scene::load(&file).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = simreel::kinds::build(&scene);
    let frame = sim.frame(2);
    let canvas = frame.canvas.as_ref().expect("a figure draws on its canvas");
    let title = &canvas.texts.iter().find(|t| t.text.contains("agents;")).unwrap_or_else(|| panic!("{:?}", canvas.texts)).text;
    let agents: usize = title.split(' ').next().unwrap().parse().unwrap_or_else(|_| panic!("{title}"));
    assert!(agents > 0, "{title}");
    assert!(title.contains("at frame 1;") && !title.contains("{panel2.triangles}"), "{title}");
    // a name no panel has stays as written, as in a caption
    assert!(title.ends_with("{nothing}"), "{title}");
    // without a scene panel, a title's name needs the data
    let bare = "kind = \"figure\"\n[figure]\ntitle = \"{agents}\"\n[[figure.panel]]\n[figure.panel.chart]\nvalues = [1, 2]\n";
    let e = simreel::scene::parse(bare, &dir.join("bare.toml")).unwrap_err().to_string();
    assert!(e.contains("{agents} needs `data"), "{e}");
}

/// A figure of `panel` (a scene file of the repository, at `time`) and an inset of `region` of
/// it, both 184 × 184 canvas units at 1 px a unit: [16, 16, …] and [216, 16, …].
fn inset_figure(dir: &std::path::Path, panel: &str, time: f64, region: [f64; 4], extra: &str) -> std::path::PathBuf {
    let file = dir.join(format!("inset-{}.toml", std::path::Path::new(panel).file_stem().unwrap().to_str().unwrap()));
    std::fs::write(
        &file,
        format!(
            "kind = \"figure\"\n[render]\nwidth = 416\nheight = 216\nframes = 1\n[output]\nformats = [\"png\"]\n[figure]\n{extra}\n\
             [[figure.panel]]\nscene = \"{}\"\ntime = {time}\n[[figure.panel]]\ninset = 1\nregion = {region:?}\n",
            root().join(panel).display()
        ),
    )
    .unwrap();
    file
}

/// An inset shows its region of the other panel magnified, drawn again at its scale: the inset
/// averaged 2 × 2 is the panel's region (a 3-D scene and a 2-D canvas alike), and nearer it than
/// to the region moved by a few pixels any way.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn an_inset_is_its_region_of_the_panel_magnified() {
    require_gpu();
    let dir = crate::common::scratch();
    for (panel, time) in [("scenes/terrain.toml", 1.0), ("scenes/flock.toml", 5.0)] {
        let file = inset_figure(&dir, panel, time, [46.0, 46.0, 92.0, 92.0], "");
        let o = crate::common::simreel().arg("render").arg(&file).args(["-q", "--out"]).arg(&dir).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stem = file.file_stem().unwrap().to_str().unwrap().to_string();
        let img = crate::common::read_png(&dir.join(format!("{stem}/frame_0000.png")));
        let px = |x: usize, y: usize, c: usize| img.rgba[(y * 416 + x) * 4 + c] as f64;
        // the inset (216..400 across, 16..200 down) averaged 2 × 2, less its 2-unit frame
        let half = |x: usize, y: usize, c: usize| (0..4).map(|k| px(216 + 2 * x + k % 2, 16 + 2 * y + k / 2, c)).sum::<f64>() / 4.0;
        let diff = |dx: i64, dy: i64| {
            let mut sum = 0.0;
            for y in 2..90 {
                for x in 2..90 {
                    let (sx, sy) = ((62 + x as i64 + dx) as usize, (62 + y as i64 + dy) as usize);
                    sum += (0..3).map(|c| (half(x, y, c) - px(sx, sy, c)).abs()).sum::<f64>();
                }
            }
            sum / (88.0 * 88.0 * 3.0)
        };
        let here = diff(0, 0);
        assert!(here < 6.0, "{panel}: the inset averaged is {here:.2} levels off its region");
        for (dx, dy) in [(-3, 0), (3, 0), (0, -3), (0, 3)] {
            let there = diff(dx, dy);
            assert!(here < there, "{panel}: the region moved by ({dx}, {dy}) matches better: {there:.2} against {here:.2}");
        }
    }
}

#[test]
fn an_inset_names_a_scene_panel_and_a_region_inside_it() {
    let scene = "scene = \"../flock.toml\"\nframe = 3";
    for (panels, said) in [
        (format!("[[figure.panel]]\n{scene}\n[[figure.panel]]\ninset = 2\nregion = [0, 0, 10, 10]"), "panel 2 is this inset itself"),
        (
            format!("[[figure.panel]]\n{scene}\n[[figure.panel]]\ninset = 3\nregion = [0, 0, 10, 10]"),
            "there is no panel 3: the figure has 2",
        ),
        (
            "[[figure.panel]]\n[figure.panel.chart]\nvalues = [1]\n[[figure.panel]]\ninset = 1\nregion = [0, 0, 10, 10]".into(),
            "panel 1 is not a scene panel",
        ),
        (format!("[[figure.panel]]\n{scene}\n[[figure.panel]]\ninset = 1"), "an inset needs `region = [x, y, width, height]`"),
        (format!("[[figure.panel]]\n{scene}\n[[figure.panel]]\ninset = 1\nregion = [10, 10, 0, 5]"), "needs a positive size, not 0×5"),
        (format!("[[figure.panel]]\n{scene}\n[[figure.panel]]\ninset = 1\nregion = [200, 100, 400, 10]"), "reaches outside panel 1"),
        (
            format!("[[figure.panel]]\n{scene}\n[[figure.panel]]\ninset = 1\nregion = [0, 0, 9, 9]\ntime = 2.0"),
            "give `time` to the panel it magnifies",
        ),
        (
            format!("[[figure.panel]]\n{scene}\n[[figure.panel]]\ninset = 1\n{scene}"),
            "a `scene`, a `chart` or an `inset` of another panel: one of them",
        ),
        (format!("[[figure.panel]]\n{scene}\nregion = [0, 0, 9, 9]"), "`region`, `inset_color` and `units` come with `inset = N`"),
    ] {
        let problems = figure_problems(&format!("[render]\nwidth = 640\nheight = 240\nframes = 1\n[figure]\n{panels}"));
        let all: Vec<String> = problems.iter().map(|d| d.message.clone()).collect();
        assert!(all.iter().any(|m| m.contains(said)), "{said}: {all:?}");
    }
}

/// A footnote under the whole figure, left-aligned at the margin, below every panel (the grid
/// makes room for it), with the panels' facts and the data filled in.
#[test]
fn a_footnote_takes_the_facts_and_sits_under_the_panels() {
    let dir = crate::common::scratch();
    let with =
        inset_figure(&dir, "scenes/flock.toml", 2.0, [10.0, 10.0, 50.0, 50.0], "footnote = \"{agents} agents at {mean_speed:.1} units/s\"");
    let scene = simreel::scene::load(&with).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = simreel::kinds::build(&scene);
    let frame = sim.frame(0);
    let canvas = frame.canvas.as_ref().unwrap();
    let note = canvas.texts.iter().find(|t| t.text.contains("agents at")).unwrap_or_else(|| panic!("{:?}", canvas.texts));
    let (agents, speed) = note.text.split_once(" agents at ").unwrap();
    assert!(agents.parse::<u32>().unwrap() > 0 && speed.trim_end_matches(" units/s").parse::<f64>().unwrap() > 0.0, "{}", note.text);
    assert_eq!((note.at[0], note.align), (16.0, Align::Left));
    let rects = match &scene.look.kind {
        simreel::scene::KindLook::Figure(f) => f.panel_rects(),
        _ => unreachable!(),
    };
    assert!(rects.iter().all(|r| r[1] + r[3] < (note.at[1] - note.size) as f64), "{rects:?} over the footnote at {:?}", note.at);
    // the insets' frames: one around the region on panel 1, one around the inset
    let frames = canvas.shapes.iter().filter(|s| matches!(s, Shape2d::Rect { border, .. } if *border > 0.0)).count();
    assert_eq!(frames, 2);
}
