//! The test API as a project with its own renderer uses it: a triangle drawn offscreen with wgpu
//! (no simreel renderer), read back and asserted with `simreel::assert_image!` against the
//! approved `goldens/offscreen_triangle.png` beside this file. Then what a mismatch does: a
//! pending `<name>.new.png`, a message saying why and how to review, `SIMREEL_UPDATE` and `CI`,
//! and `simreel golden review --pending` accepting it.

use std::path::Path;
use std::process::Stdio;

use simreel::golden::assert::{self, Update};
use simreel::output::png::Decoded;

use crate::common::{require_gpu, scratch, simreel};

const SHADER: &str = r#"
@vertex fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let p = array(vec2(-0.7, -0.6), vec2(0.7, -0.6), vec2(0.0, 0.75));
    return vec4(p[i], 0.0, 1.0);
}
@fragment fn fs_main() -> @location(0) vec4<f32> { return vec4(0.95, 0.55, 0.1, 1.0); }
"#;

/// A `width` × `height` orange triangle on dark blue, drawn offscreen on the machine's Vulkan
/// adapter and read back as RGBA8 rows.
fn offscreen_triangle(width: u32, height: u32) -> Decoded {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN)).into_iter().next().expect("a Vulkan adapter");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).expect("a device");
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("target"),
        size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor { label: None, source: wgpu::ShaderSource::Wgsl(SHADER.into()) });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: None,
        layout: None,
        vertex: wgpu::VertexState { module: &module, entry_point: Some("vs_main"), compilation_options: Default::default(), buffers: &[] },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(format.into())],
        }),
        multiview_mask: None,
        cache: None,
    });
    let row = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (row * height) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let view = texture.create_view(&Default::default());
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: None,
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color { r: 0.02, g: 0.03, b: 0.08, a: 1.0 }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            ..Default::default()
        });
        pass.set_pipeline(&pipeline);
        pass.draw(0..3, 0..1);
    }
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo { texture: &texture, mip_level: 0, origin: wgpu::Origin3d::ZERO, aspect: wgpu::TextureAspect::All },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(row), rows_per_image: Some(height) },
        },
        wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
    );
    queue.submit([encoder.finish()]);
    buffer.slice(..).map_async(wgpu::MapMode::Read, |r| r.expect("the read-back maps"));
    device.poll(wgpu::PollType::wait_indefinitely()).expect("the GPU finishes");
    let mapped = buffer.slice(..).get_mapped_range().expect("the mapped read-back");
    let rgba = mapped.chunks_exact(row as usize).flat_map(|r| &r[..(width * 4) as usize]).copied().collect();
    Decoded { width, height, rgba }
}

/// The example the docs show: render, then assert against the approved image beside this file.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn an_offscreen_wgpu_frame_matches_its_approved_image() {
    require_gpu();
    let frame = offscreen_triangle(96, 64);
    simreel::assert_image!("offscreen_triangle", &frame);
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn a_mismatch_leaves_a_pending_image_that_review_accepts() {
    require_gpu();
    let dir = scratch();
    let test = dir.join("tests/render.rs");
    std::fs::create_dir_all(test.parent().unwrap()).unwrap();
    let tol = simreel_compare::Tolerance::default();
    let frame = offscreen_triangle(96, 64);
    let (approved, pending) = assert::paths(&test, "triangle");
    // no approved image: `new` writes a pending one and fails; `no` writes nothing
    assert!(assert::check_with(&test, "triangle", &frame, &tol, Update::No).unwrap_err().contains("SIMREEL_UPDATE=no"));
    assert!(!pending.exists());
    let why = assert::check_with(&test, "triangle", &frame, &tol, Update::New).unwrap_err();
    assert!(why.contains("no approved image") && why.contains("simreel-compare review --pending"), "{why}");
    assert_eq!(crate::common::read_png(&pending).rgba, frame.rgba, "the pending image is the frame");
    // `always` approves it and passes; the pending image goes
    assert::check_with(&test, "triangle", &frame, &tol, Update::Always).unwrap();
    assert!(approved.is_file() && !pending.exists());
    assert::check_with(&test, "triangle", &frame, &tol, Update::No).unwrap();
    // insta's values: `auto` (the default) is `new`, and writes nothing on CI; `1` is `always`;
    // on CI an approved image is never written (`always` and `unseen` write pending ones)
    for (value, local, ci) in [
        (None, Update::New, Update::No),
        (Some("auto"), Update::New, Update::No),
        (Some("new"), Update::New, Update::New),
        (Some("always"), Update::Always, Update::New),
        (Some("1"), Update::Always, Update::New),
        (Some("unseen"), Update::Unseen, Update::New),
        (Some("no"), Update::No, Update::No),
    ] {
        assert_eq!((Update::from_env(value, false), Update::from_env(value, true)), (Ok(local), Ok(ci)), "{value:?}");
    }
    assert!(Update::from_env(Some("sometimes"), false).unwrap_err().contains("unseen"));
    // INSTA_UPDATE where SIMREEL_UPDATE is not set, said
    assert_eq!(
        Update::from_vars(None, Some("always"), false),
        Ok((Update::Always, Some("INSTA_UPDATE=always read as SIMREEL_UPDATE".into())))
    );
    assert_eq!(Update::from_vars(Some("no"), Some("always"), false), Ok((Update::No, None)));
    assert!(Update::from_vars(None, Some("sometimes"), false).unwrap_err().starts_with("INSTA_UPDATE=sometimes"));
    // `unseen`: a name with no approved image is approved; a changed one is pending
    let (fresh, fresh_pending) = assert::paths(&test, "unseen_one");
    assert::check_with(&test, "unseen_one", &frame, &tol, Update::Unseen).unwrap();
    assert!(fresh.is_file() && !fresh_pending.exists());
    let shifted = Decoded { rgba: frame.rgba[4 * 6..].iter().chain(&frame.rgba[..4 * 6]).copied().collect(), ..frame.clone() };
    assert!(assert::check_with(&test, "unseen_one", &shifted, &tol, Update::Unseen).is_err());
    assert!(fresh_pending.is_file(), "a changed image is pending, not approved");
    assert_eq!(crate::common::read_png(&fresh).rgba, frame.rgba, "the approved image is left as it was");
    std::fs::remove_file(&fresh).unwrap();
    std::fs::remove_file(&fresh_pending).unwrap();
    // a change a person sees (the triangle moved) fails with where, and leaves a pending image
    let moved = Decoded { rgba: frame.rgba[4 * 6..].iter().chain(&frame.rgba[..4 * 6]).copied().collect(), ..frame.clone() };
    let why = assert::check_with(&test, "triangle", &moved, &tol, Update::New).unwrap_err();
    assert!(why.contains("triangle differs from") && why.contains("px at ("), "{why}");
    assert!(pending.is_file());
    // review: without a terminal the command; `a` at one moves the pending image over the approved
    let printed = simreel().args(["golden", "review", "--pending"]).arg(&dir).stdin(Stdio::null()).output().unwrap();
    let printed = String::from_utf8_lossy(&printed.stdout);
    assert!(printed.contains("mv -- ") && printed.contains("tests/goldens/triangle.png"), "{printed}");
    let paths = simreel::golden::Paths { goldens: "unused".into(), out: dir.join("out"), shard: None };
    let list = simreel::golden::review::pending_failures(&dir, &tol).unwrap();
    assert_eq!(list.len(), 1);
    assert!(list[0].verdict.contains("compact difference"), "{}", list[0].verdict);
    let t =
        simreel::golden::review::interactive(&mut || Ok(Vec::new()), &list, &paths, &dir, &mut "a\n".as_bytes(), &mut Vec::new()).unwrap();
    assert_eq!(t.accepted.len(), 1);
    assert!(!pending.exists());
    assert_eq!(crate::common::read_png(&approved).rgba, moved.rgba);
    assert::check_with(&test, "triangle", &moved, &tol, Update::No).unwrap();
    // reject removes the pending image and keeps the approved one
    assert::check_with(&test, "triangle", &frame, &tol, Update::New).unwrap_err();
    let list = simreel::golden::review::pending_failures(&dir, &tol).unwrap();
    simreel::golden::review::interactive(&mut || Ok(Vec::new()), &list, &paths, &dir, &mut "r\n".as_bytes(), &mut Vec::new()).unwrap();
    assert!(!pending.exists() && crate::common::read_png(&approved).rgba == moved.rgba);
    // names that are not file names are refused
    assert!(assert::check_with(&test, "../up", &frame, &tol, Update::New).unwrap_err().contains("not an image name"));
    // a name ending in .new would be read as another image's pending one
    assert!(assert::check_with(&test, "button.new", &frame, &tol, Update::Always).unwrap_err().contains("not ending in .new"));
    let empty = Decoded { width: 0, height: 4, rgba: Vec::new() };
    assert!(assert::check_with(&test, "empty", &empty, &tol, Update::New).unwrap_err().contains("no pixels"));
    // an approved file that is not a PNG (a Git LFS pointer) is replaced by `always`
    std::fs::write(&approved, "version https://git-lfs.github.com/spec/v1\n").unwrap();
    assert!(assert::check_with(&test, "triangle", &frame, &tol, Update::No).unwrap_err().contains("cannot be read"));
    assert::check_with(&test, "triangle", &frame, &tol, Update::Always).unwrap();
    assert_eq!(crate::common::read_png(&approved).rgba, frame.rgba);
    assert!(!Path::new(&dir.join("tests/up.new.png")).exists());
}
