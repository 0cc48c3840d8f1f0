//! Instanced batches in the renderer, with frames built by hand (no scene kind): one draw per batch
//! per pass, the shader's deformation equal to its CPU twin (a batch against the same instances
//! bent on the CPU and drawn one by one), placements uploaded once, and llvmpipe through GL
//! agreeing with lavapipe.

use simreel::frame::{
    Background, Camera, Deform, FrameData, IDENTITY, InstanceBatch, Lighting, Material, MeshData, MeshInstance, MeshRef, Motion, Placement,
    Placements,
};
use simreel::render::{AdapterRequest, BackendChoice, Image, Renderer};

use crate::common::require_gpu;

const W: u32 = 320;
const H: u32 = 200;

/// A flat ribbon along +y from 0 to 1, one unit wide, facing +z, in `rows` segments.
fn ribbon(rows: u32, color: [u8; 4]) -> MeshData {
    let mut m = MeshData::default();
    for j in 0..=rows {
        let y = j as f32 / rows as f32;
        for x in [-0.5, 0.5] {
            m.positions.push([x, y, 0.0]);
            m.normals.push([0.0, 0.0, 1.0]);
            m.colors.push(color);
        }
    }
    for j in 0..rows {
        let b = 2 * j;
        m.indices.extend_from_slice(&[b, b + 1, b + 3, b, b + 3, b + 2]);
    }
    m
}

/// A box from (−½, 0, −½) to (½, `h`, ½) with flat faces.
fn column(h: f32, color: [u8; 4]) -> MeshData {
    let mut m = MeshData::default();
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 5] = [
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
    ];
    for (n, u, v) in faces {
        let base = m.positions.len() as u32;
        // several rows up the sides, so a bend shows as a curve
        let rows = if n[1] == 0.0 { 6 } else { 1 };
        for j in 0..=rows {
            for i in 0..=1 {
                let (s, t) = (i as f32 - 0.5, j as f32 / rows as f32 - 0.5);
                let c = [0.5 * n[0] + s * u[0] + t * v[0], 0.5 * n[1] + s * u[1] + t * v[1], 0.5 * n[2] + s * u[2] + t * v[2]];
                m.positions.push([c[0], (c[1] + 0.5) * h, c[2]]);
                m.normals.push(n);
                m.colors.push(color);
            }
        }
        for j in 0..rows {
            let b = base + 2 * j;
            m.indices.extend_from_slice(&[b, b + 1, b + 3, b, b + 3, b + 2]);
        }
    }
    m
}

fn ground() -> MeshInstance {
    MeshInstance {
        mesh: MeshRef::new(MeshData::flat_quad([-6.0, -6.0], [6.0, 6.0], [120, 110, 95, 255])),
        transform: IDENTITY,
        material: Material { casts_shadow: false, ..Material::default() },
        deform: None,
    }
}

fn frame(meshes: Vec<MeshInstance>, batches: Vec<InstanceBatch>, shadows: bool) -> FrameData {
    FrameData {
        index: 0,
        time: 0.0,
        camera: Camera { eye: [0.0, 3.2, 7.5], target: [0.0, 0.6, 0.0], up: [0.0, 1.0, 0.0], fov_y_deg: 40.0, near: 0.1, far: 100.0 },
        background: Background { top: [0.3, 0.45, 0.7], bottom: [0.8, 0.82, 0.85] },
        lighting: Lighting {
            to_sun: [0.45, 0.8, 0.4],
            sun: [2.6, 2.5, 2.3],
            sky: [0.25, 0.3, 0.4],
            ground: [0.15, 0.12, 0.1],
            shadows,
            shadow_softness: 1.0,
            fog_density: 0.0,
            fog_color: [0.8, 0.82, 0.85],
        },
        meshes,
        batches,
        canvas: None,
        views: Vec::new(),
    }
}

/// A grid of `n` × `n` placements over the ground, turned and sized differently, all white.
fn grid(n: u32, scale: [f32; 3]) -> Vec<Placement> {
    (0..n * n)
        .map(|i| {
            let (x, z) = ((i % n) as f32 / (n - 1) as f32 - 0.5, (i / n) as f32 / (n - 1) as f32 - 0.5);
            let k = i as f32;
            Placement {
                position: [x * 7.0, 0.0, z * 5.0],
                yaw: k * 0.7,
                scale: [scale[0] * (1.0 + 0.3 * (k * 0.37).sin()), scale[1] * (1.0 + 0.25 * (k * 0.61).cos()), scale[2]],
                color: [255; 4],
            }
        })
        .collect()
}

/// The same instances as `batch`, deformed on the CPU by `deform_vertex` and drawn one by one.
fn one_by_one(batch: &InstanceBatch) -> Vec<MeshInstance> {
    let mesh = &batch.mesh.data;
    let height = mesh.bounds().map_or(0.0, |b| b.1[1]);
    (0..batch.placements.data.len())
        .map(|i| {
            let mut m = (**mesh).clone();
            for (p, n) in m.positions.iter_mut().zip(m.normals.iter_mut()) {
                (*p, *n) = batch.vertex(i, *p, *n, height);
            }
            MeshInstance { mesh: MeshRef::new(m), transform: IDENTITY, material: batch.material, deform: None }
        })
        .collect()
}

fn render(renderer: &mut Renderer, data: &FrameData) -> Image {
    assert!(renderer.submit(data).unwrap().is_none());
    renderer.next_image().unwrap().expect("one image")
}

/// (largest channel difference, pixels with a channel off by more than 2)
fn compare(a: &Image, b: &Image) -> (u8, usize) {
    let max = a.rgba.iter().zip(&b.rgba).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
    let off =
        a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)).filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 2)).count();
    (max, off)
}

/// Pixels that differ from the frame without `batch`: how much of the picture it covers.
fn coverage(with: &Image, without: &Image) -> usize {
    with.rgba.chunks_exact(4).zip(without.rgba.chunks_exact(4)).filter(|(p, q)| p != q).count()
}

fn batches() -> Vec<InstanceBatch> {
    let swing = |i: usize, k: f32| ((i as f32) * k).sin();
    let blades = grid(12, [0.12, 1.1, 1.0]);
    let spine: Vec<Motion> = (0..blades.len())
        .map(|i| {
            let lean = 0.25 + 0.2 * swing(i, 0.9);
            Motion { a: [0.2 * lean, 0.5, 0.1 * lean, 0.0], b: [0.7 * lean, 0.85, 0.35 * lean, 0.0] }
        })
        .collect();
    let stems = grid(4, [0.3, 1.0, 0.3]);
    let bend: Vec<Motion> = (0..stems.len()).map(|i| Motion { a: [0.5 * swing(i, 1.3), 0.3, 0.96, 0.0], b: [0.0; 4] }).collect();
    let blocks = grid(3, [0.4, 0.4, 0.4]);
    let rigid: Vec<Motion> = (0..blocks.len())
        .map(|i| Motion { a: [0.0, 1.2 + 0.3 * swing(i, 2.0), 0.0, 0.0], b: [0.4 * swing(i, 0.5), 0.7, 0.0, 0.0] })
        .collect();
    vec![
        InstanceBatch {
            mesh: MeshRef::new(ribbon(5, [90, 170, 60, 255])),
            material: Material { roughness: 0.7, specular: 0.1, ..Material::default() },
            deform: Deform::Spine,
            placements: Placements::new(blades),
            motion: spine,
            drawn: None,
        },
        InstanceBatch {
            mesh: MeshRef::new(column(2.0, [150, 110, 80, 255])),
            material: Material::default(),
            deform: Deform::Bend,
            placements: Placements::new(stems),
            motion: bend,
            drawn: None,
        },
        InstanceBatch {
            mesh: MeshRef::new(column(1.0, [220, 200, 60, 255])),
            material: Material { tint: [0.9, 0.6, 1.0, 1.0], ..Material::default() },
            deform: Deform::Rigid,
            placements: Placements::new(blocks),
            motion: rigid,
            drawn: None,
        },
    ]
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_batch_is_one_draw_per_pass_and_looks_like_its_instances_drawn_one_by_one() {
    require_gpu();
    let mut r = Renderer::new(&AdapterRequest::default(), W, H, 4).expect("renderer");
    let batches = batches();
    let instances: usize = batches.iter().map(|b| b.placements.data.len()).sum();
    assert_eq!(instances, 144 + 16 + 9);

    // shadows off: the two frames fit their shadow maps to different bounds
    let bare = render(&mut r, &frame(vec![ground()], Vec::new(), false));
    let batched = render(&mut r, &frame(vec![ground()], batches.clone(), false));
    assert_eq!(r.last_draws().main, 1 + 1 + 3, "background, ground, one draw per batch");
    let mut meshes = vec![ground()];
    meshes.extend(batches.iter().flat_map(one_by_one));
    let separate = render(&mut r, &frame(meshes, Vec::new(), false));
    assert_eq!(r.last_draws().main, 1 + 1 + instances as u32);

    let covered = coverage(&batched, &bare);
    assert!(covered > (W * H / 8) as usize, "the batches cover only {covered} pixels");
    let (max, off) = compare(&batched, &separate);
    eprintln!("batched vs one by one: max channel difference {max}, {off} pixels off by more than 2 (of {covered} covered)");
    assert!(off * 200 < covered, "the GPU deformation differs from its CPU twin: {off} pixels off, max {max}");

    // with a translucent mesh after the batches (pipelines with other bind groups and vertex
    // slots follow them): no validation error, and one draw more per translucent side
    let glass = MeshInstance {
        mesh: MeshRef::new(column(1.5, [200, 220, 255, 255])),
        transform: IDENTITY,
        material: Material { tint: [0.6, 0.7, 1.0, 0.5], translucent: true, rim: 0.5, ..Material::default() },
        deform: None,
    };
    render(&mut r, &frame(vec![ground(), glass], batches.clone(), true));
    assert_eq!(r.last_draws().main, 1 + 1 + 3 + 2);

    // shadows on: each batch is one more draw into the shadow map, and it casts a shadow
    let lit = render(&mut r, &frame(vec![ground()], batches.clone(), true));
    assert_eq!(r.last_draws().shadow, 3);
    let shade = |img: &Image| img.rgba.chunks_exact(4).map(|p| p[0] as u64 + p[1] as u64 + p[2] as u64).sum::<u64>();
    assert!(shade(&lit) < shade(&batched), "shadows darken the picture");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn placements_are_uploaded_once_while_the_motion_changes_every_frame() {
    require_gpu();
    let mut r = Renderer::new(&AdapterRequest::default(), W, H, 1).expect("renderer");
    let mut batch = batches().remove(0);
    let mut images = Vec::new();
    for t in 0..3 {
        for m in &mut batch.motion {
            m.b[0] += 0.15 * t as f32;
        }
        images.push(render(&mut r, &frame(vec![ground()], vec![batch.clone()], true)));
        assert_eq!(r.last_draws().shadow, 1, "moving casters redraw the shadow map every frame");
    }
    assert_eq!(r.placement_uploads(), 1);
    assert_ne!(images[0].rgba, images[2].rgba, "the motion moves the blades");
    // the rest record when no motion is given: straight blades, still one upload per key
    batch.motion.clear();
    render(&mut r, &frame(vec![ground()], vec![batch.clone()], true));
    render(&mut r, &frame(vec![ground()], vec![batch.clone()], true));
    assert_eq!(r.last_draws().shadow, 0, "a still frame reuses the shadow map");
    assert_eq!(r.placement_uploads(), 1);
    // a frame without the batch lets its placements go; naming them again uploads them anew
    render(&mut r, &frame(vec![ground()], Vec::new(), true));
    render(&mut r, &frame(vec![ground()], vec![batch], true));
    assert_eq!(r.placement_uploads(), 2);
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn llvmpipe_through_gl_draws_batches_like_lavapipe() {
    require_gpu();
    let data = frame(vec![ground()], batches(), true);
    let mut vulkan = Renderer::new(&AdapterRequest::default(), W, H, 4).expect("renderer");
    let gl = Renderer::new(&AdapterRequest { backend: BackendChoice::Gl, name: None }, W, H, 4);
    let mut gl = gl.unwrap_or_else(|e| panic!("no GL adapter: install libegl1 and libgl1-mesa-dri (scripts/test does): {e}"));
    let (a, b) = (render(&mut vulkan, &data), render(&mut gl, &data));
    let (max, off) = compare(&a, &b);
    eprintln!("{} vs {}: max channel difference {max}, {off} pixels off by more than 2", vulkan.adapter(), gl.adapter());
    assert!(off * 100 < (W * H) as usize, "GL and Vulkan differ on {off} pixels (max {max})");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_wind_frame_is_one_draw_per_batch_and_its_placements_are_uploaded_once() {
    require_gpu();
    let scene = simreel::scene::load(&crate::common::root().join("scenes/wind_forest.toml")).unwrap();
    let mut sim = simreel::kinds::build(&scene);
    let mut r = Renderer::new(&AdapterRequest::default(), W, H, 1).expect("renderer");
    let mut keys = std::collections::HashSet::new();
    let mut thinned = 0;
    for f in [0, 40, 84, 85, 120] {
        let data = sim.frame(f);
        let image = render(&mut r, &data);
        let batches = data.batches.len() as u32;
        assert!(batches > 6 && batches < 200, "grass tiles, five trees, one leaf batch: {batches}");
        assert_eq!(r.last_draws().main, 1 + data.meshes.len() as u32 + batches, "frame {f}: background, meshes, one draw per batch");
        let casters = data.batches.iter().filter(|b| b.material.casts_shadow).count() as u32;
        assert_eq!(r.last_draws().shadow, casters + data.meshes.iter().filter(|m| m.material.casts_shadow).count() as u32);
        keys.extend(data.batches.iter().map(|b| b.placements.key));
        thinned += data.batches.iter().filter(|b| b.drawn.is_some()).count();
        assert!(image.rgba.chunks_exact(4).any(|p| p[1] > p[0] + 20), "frame {f}: green is drawn");
    }
    assert!(thinned > 0, "distant tiles are thinned");
    assert_eq!(r.placement_uploads(), keys.len() as u64, "each set of placements is uploaded once");
}
