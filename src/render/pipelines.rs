//! The render pipelines (background gradient, shadow depth, lit meshes: two-sided, and the two
//! passes of translucent ones), their bind group layouts and vertex layouts.

use super::shaders;

pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Per-vertex data: position, normal (f32×3 each), sRGB colour (unorm8×4). 28 bytes.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Vertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub color: [u8; 4],
}

/// Per-instance data: model matrix, normal matrix (3 columns, padded), tint, surface parameters.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Instance {
    pub model: [[f32; 4]; 4],
    pub normal: [[f32; 4]; 3],
    pub tint: [f32; 4],
    pub surface: [f32; 4],
}

impl Instance {
    /// The record of one mesh instance: its model matrix, the normal matrix (inverse transpose of
    /// the model's 3×3), and its material.
    pub fn of(m: &crate::frame::MeshInstance) -> Self {
        let model = glam::Mat4::from_cols_array_2d(&m.transform);
        let nm = glam::Mat3::from_mat4(model).inverse().transpose();
        let col = |v: glam::Vec3| [v.x, v.y, v.z, 0.0];
        Instance {
            model: m.transform,
            normal: [col(nm.x_axis), col(nm.y_axis), col(nm.z_axis)],
            tint: m.material.tint,
            surface: [m.material.roughness, m.material.specular, m.material.rim, if m.material.receives_shadow { 1.0 } else { 0.0 }],
        }
    }
}

const VERTEX_ATTRS: [wgpu::VertexAttribute; 3] = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Unorm8x4];
const INSTANCE_ATTRS: [wgpu::VertexAttribute; 9] = wgpu::vertex_attr_array![
    3 => Float32x4, 4 => Float32x4, 5 => Float32x4, 6 => Float32x4,
    7 => Float32x4, 8 => Float32x4, 9 => Float32x4, 10 => Float32x4, 11 => Float32x4
];

/// An instanced batch's placement (`Placement` in src/frame/batch.rs) and motion (`Motion`).
const PLACEMENT_ATTRS: [wgpu::VertexAttribute; 4] = wgpu::vertex_attr_array![3 => Float32x3, 4 => Float32, 5 => Float32x3, 6 => Unorm8x4];
const MOTION_ATTRS: [wgpu::VertexAttribute; 2] = wgpu::vertex_attr_array![7 => Float32x4, 8 => Float32x4];

/// Batch records in one bind group of the batch pipelines (`array<Batch, 256>` in batch.wgsl; 12 KiB, within the 16 KiB every adapter binds).
pub const BATCH_RECORDS: u64 = 256;

/// The per-batch uniform record (`Batch` in shaders/batch.wgsl).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BatchUniforms {
    pub tint: [f32; 4],
    pub surface: [f32; 4],
    /// x: deformation (0 rigid, 1 spine, 2 bend), y: the mesh's height.
    pub deform: [f32; 4],
}

fn batch_layouts() -> [Option<wgpu::VertexBufferLayout<'static>>; 3] {
    let per_instance = |array_stride: usize, attributes| {
        Some(wgpu::VertexBufferLayout { array_stride: array_stride as u64, step_mode: wgpu::VertexStepMode::Instance, attributes })
    };
    [
        vertex_layouts()[0].clone(),
        per_instance(size_of::<crate::frame::Placement>(), &PLACEMENT_ATTRS[..]),
        per_instance(size_of::<crate::frame::Motion>(), &MOTION_ATTRS[..]),
    ]
}

fn vertex_layouts() -> [Option<wgpu::VertexBufferLayout<'static>>; 2] {
    [
        Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<Vertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &VERTEX_ATTRS,
        }),
        Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<Instance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &INSTANCE_ATTRS,
        }),
    ]
}

pub struct Pipelines {
    pub frame_layout: wgpu::BindGroupLayout,
    pub shadow_layout: wgpu::BindGroupLayout,
    /// Group 2 of the batch pipelines: an array of `BATCH_RECORDS` `BatchUniforms`.
    pub batch_layout: wgpu::BindGroupLayout,
    pub batch: wgpu::RenderPipeline,
    pub batch_shadow: wgpu::RenderPipeline,
    pub background: wgpu::RenderPipeline,
    /// `background` for a single-sampled pass without depth (a frame with nothing else in 3-D).
    pub background_single: wgpu::RenderPipeline,
    pub shadow: wgpu::RenderPipeline,
    pub mesh: wgpu::RenderPipeline,
    /// `mesh` without back faces, for closed meshes.
    pub closed_mesh: wgpu::RenderPipeline,
    pub back_faces: wgpu::RenderPipeline,
    pub front_faces: wgpu::RenderPipeline,
    /// Meshes whose fill is hidden: depth only, no colour.
    pub hidden: wgpu::RenderPipeline,
    /// Wireframe edges (edges.wgsl), blended over what is drawn, depth-tested, not written.
    pub edges: wgpu::RenderPipeline,
}

/// A bind group layout of one texture read texel by texel (`textureLoad`, no sampler) in the
/// fragment stage: a canvas's raster layer, the image drawn onto a page's canvas.
pub(super) fn texel_layout(device: &wgpu::Device, label: &str) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        }],
    })
}

pub(super) fn module(device: &wgpu::Device, name: &str) -> wgpu::ShaderModule {
    let source = shaders::module_source(name).unwrap_or_else(|| panic!("shader {name} is not in the registry"));
    device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(name), source: wgpu::ShaderSource::Wgsl(source.into()) })
}

/// The bind group layouts: the frame's uniforms (group 0), the shadow map (group 1 of the lit
/// pipelines) and a batch's uniform record at a dynamic offset (group 2 of the batch pipelines).
fn bind_group_layouts(device: &wgpu::Device) -> (wgpu::BindGroupLayout, wgpu::BindGroupLayout, wgpu::BindGroupLayout) {
    let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("frame"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
            ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, has_dynamic_offset: false, min_binding_size: None },
            count: None,
        }],
    });
    let shadow_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("shadow map"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Depth,
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                count: None,
            },
        ],
    });
    let batch_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("batch"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: wgpu::BufferSize::new(BATCH_RECORDS * size_of::<BatchUniforms>() as u64),
            },
            count: None,
        }],
    });
    (frame_layout, shadow_layout, batch_layout)
}

impl Pipelines {
    /// `es3`: the adapter speaks GLSL ES 3.0 only (WebGL2), which lacks screen-space varyings.
    pub fn new(device: &wgpu::Device, samples: u32, es3: bool) -> Self {
        let (frame_layout, shadow_layout, batch_layout) = bind_group_layouts(device);
        let frame_only = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("frame only"),
            bind_group_layouts: &[Some(&frame_layout)],
            immediate_size: 0,
        });
        let lit = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("lit"),
            bind_group_layouts: &[Some(&frame_layout), Some(&shadow_layout)],
            immediate_size: 0,
        });
        let ms = wgpu::MultisampleState { count: samples, mask: !0, alpha_to_coverage_enabled: false };
        let color = [Some(wgpu::ColorTargetState {
            format: COLOR_FORMAT,
            blend: Some(wgpu::BlendState::ALPHA_BLENDING),
            write_mask: wgpu::ColorWrites::ALL,
        })];

        let bg = module(device, "background");
        let background = background_pipeline(device, &frame_only, &bg, ms, &color, true);
        let background_single = background_pipeline(device, &frame_only, &bg, Default::default(), &color, false);

        // depth only, into the shadow map
        let depth_pipeline = |label: &str, layout: &wgpu::PipelineLayout, module: &wgpu::ShaderModule, entry: &str, buffers| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState { module, entry_point: Some(entry), compilation_options: Default::default(), buffers },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::LessEqual),
                    stencil: Default::default(),
                    // slope-scaled bias against shadow acne on grazing slopes
                    bias: wgpu::DepthBiasState { constant: 2, slope_scale: 2.0, clamp: 0.0 },
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: None,
                multiview_mask: None,
                cache: None,
            })
        };
        // shaded by lit.wgsl's fs_main into the colour target
        let lit_pipeline = |label: &str, layout: &wgpu::PipelineLayout, module: &wgpu::ShaderModule, buffers, cull_mode, bias| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState { module, entry_point: Some("vs_main"), compilation_options: Default::default(), buffers },
                primitive: wgpu::PrimitiveState { cull_mode, ..Default::default() },
                depth_stencil: Some(wgpu::DepthStencilState { bias, ..depth(true, wgpu::CompareFunction::Less).expect("a depth state") }),
                multisample: ms,
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &color,
                }),
                multiview_mask: None,
                cache: None,
            })
        };

        let layouts = vertex_layouts();
        let shadow = depth_pipeline("shadow", &frame_only, &module(device, "shadow"), "vs_main", &layouts);
        let me = module(device, "mesh");
        let flat = wgpu::DepthBiasState::default();
        let mesh = lit_pipeline("mesh", &lit, &me, &layouts, None, flat);
        let closed_mesh = lit_pipeline("closed mesh", &lit, &me, &layouts, Some(wgpu::Face::Back), flat);
        // translucent bodies: inner (back) faces first, then the outer (front) faces over them.
        // An inner face lying on an opaque surface (the underside of a body resting on the
        // ground) is pushed behind it: without the push, which of the two is nearer is left to
        // the last bit of each adapter's depth arithmetic, and the underside shows through
        // speckled, a different speckle on every adapter
        let behind = wgpu::DepthBiasState { constant: 4, slope_scale: 2.0, clamp: 0.0 };
        let back_faces = lit_pipeline("translucent back faces", &lit, &me, &layouts, Some(wgpu::Face::Front), behind);
        let front_faces = lit_pipeline("translucent front faces", &lit, &me, &layouts, Some(wgpu::Face::Back), flat);

        let hidden = hidden_pipeline(device, &lit, &me, &layouts, ms);
        let edges = edges_pipeline(device, &frame_only, &layouts[1], ms, &color, es3);

        let batch_lit = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("batch lit"),
            bind_group_layouts: &[Some(&frame_layout), Some(&shadow_layout), Some(&batch_layout)],
            immediate_size: 0,
        });
        let batch_depth = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("batch depth"),
            bind_group_layouts: &[Some(&frame_layout), None, Some(&batch_layout)],
            immediate_size: 0,
        });
        let ba = module(device, "batch");
        let batch_buffers = batch_layouts();
        let batch = lit_pipeline("batch", &batch_lit, &ba, &batch_buffers, None, flat);
        let batch_shadow = depth_pipeline("batch shadow", &batch_depth, &ba, "vs_shadow", &batch_buffers);
        Pipelines {
            frame_layout,
            shadow_layout,
            batch_layout,
            batch,
            batch_shadow,
            background,
            background_single,
            shadow,
            mesh,
            closed_mesh,
            back_faces,
            front_faces,
            hidden,
            edges,
        }
    }
}

/// Depth testing with `compare`, writing depth when `write`, no bias.
fn depth(write: bool, compare: wgpu::CompareFunction) -> Option<wgpu::DepthStencilState> {
    Some(wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(write),
        depth_compare: Some(compare),
        stencil: Default::default(),
        bias: Default::default(),
    })
}

/// The background gradient: one full-screen triangle, no depth test (in a pass with depth when
/// `with_depth`).
fn background_pipeline(
    device: &wgpu::Device,
    frame_only: &wgpu::PipelineLayout,
    bg: &wgpu::ShaderModule,
    ms: wgpu::MultisampleState,
    color: &[Option<wgpu::ColorTargetState>],
    with_depth: bool,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("background"),
        layout: Some(frame_only),
        vertex: wgpu::VertexState { module: bg, entry_point: Some("vs_main"), compilation_options: Default::default(), buffers: &[] },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: if with_depth { depth(false, wgpu::CompareFunction::Always) } else { None },
        multisample: ms,
        fragment: Some(wgpu::FragmentState {
            module: bg,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: color,
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// Meshes whose fill is hidden: lit.wgsl's vertex stage, depth written, no colour.
fn hidden_pipeline(
    device: &wgpu::Device,
    lit: &wgpu::PipelineLayout,
    me: &wgpu::ShaderModule,
    layouts: &[Option<wgpu::VertexBufferLayout<'static>>],
    ms: wgpu::MultisampleState,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("hidden fill"),
        layout: Some(lit),
        vertex: wgpu::VertexState { module: me, entry_point: Some("vs_main"), compilation_options: Default::default(), buffers: layouts },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: depth(true, wgpu::CompareFunction::Less),
        multisample: ms,
        fragment: Some(wgpu::FragmentState {
            module: me,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState { format: COLOR_FORMAT, blend: None, write_mask: wgpu::ColorWrites::empty() })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// Wireframe edges (edges.wgsl): edge corners in slot 0, the mesh instance records in slot 1;
/// blended, depth-tested, not written.
fn edges_pipeline(
    device: &wgpu::Device,
    frame_only: &wgpu::PipelineLayout,
    instances: &Option<wgpu::VertexBufferLayout<'static>>,
    ms: wgpu::MultisampleState,
    color: &[Option<wgpu::ColorTargetState>],
    es3: bool,
) -> wgpu::RenderPipeline {
    let ed = if es3 {
        let source = shaders::edges_for_es3();
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("edges (ES 3.0)"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        })
    } else {
        module(device, "edges")
    };
    let buffers = [
        Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<super::edges::EdgeVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &super::edges::EDGE_ATTRS,
        }),
        instances.clone(),
    ];
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("edges"),
        layout: Some(frame_only),
        vertex: wgpu::VertexState { module: &ed, entry_point: Some("vs_main"), compilation_options: Default::default(), buffers: &buffers },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: depth(false, wgpu::CompareFunction::LessEqual),
        multisample: ms,
        fragment: Some(wgpu::FragmentState {
            module: &ed,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: color,
        }),
        multiview_mask: None,
        cache: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (location, components) of every input of `vs_main` in shader `name`, as naga reads it.
    fn shader_inputs(name: &str, entry: &str) -> Vec<(u32, u32)> {
        let src = shaders::module_source(name).expect("registered");
        let module = naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&src)));
        let entry = module.entry_points.iter().find(|e| e.name == entry).expect("entry point");
        let mut out = Vec::new();
        for arg in &entry.function.arguments {
            let naga::TypeInner::Struct { members, .. } = &module.types[arg.ty].inner else { panic!("{name}: inputs come in structs") };
            for m in members {
                let Some(naga::Binding::Location { location, .. }) = m.binding else { continue };
                let components = match module.types[m.ty].inner {
                    naga::TypeInner::Vector { size, scalar } => {
                        assert_eq!(scalar.kind, naga::ScalarKind::Float, "{name} location {location}");
                        size as u32
                    }
                    naga::TypeInner::Scalar(scalar) => {
                        assert_eq!(scalar.kind, naga::ScalarKind::Float, "{name} location {location}");
                        1
                    }
                    ref other => panic!("{name} location {location}: {other:?}"),
                };
                out.push((location, components));
            }
        }
        out.sort_unstable();
        out
    }

    fn components(f: wgpu::VertexFormat) -> u32 {
        match f {
            wgpu::VertexFormat::Float32 => 1,
            wgpu::VertexFormat::Float32x3 => 3,
            wgpu::VertexFormat::Float32x4 | wgpu::VertexFormat::Unorm8x4 => 4,
            other => panic!("add {other:?} here"),
        }
    }

    #[test]
    fn the_shaders_read_the_vertex_and_instance_layouts_the_buffers_hold() {
        let rust: Vec<(u32, u32)> = VERTEX_ATTRS.iter().chain(&INSTANCE_ATTRS).map(|a| (a.shader_location, components(a.format))).collect();
        for name in ["mesh", "shadow"] {
            assert_eq!(shader_inputs(name, "vs_main"), rust, "{name}.wgsl's inputs against render/pipelines.rs's layouts");
        }
        let batch: Vec<(u32, u32)> =
            VERTEX_ATTRS.iter().chain(&PLACEMENT_ATTRS).chain(&MOTION_ATTRS).map(|a| (a.shader_location, components(a.format))).collect();
        for entry in ["vs_main", "vs_shadow"] {
            assert_eq!(shader_inputs("batch", entry), batch, "batch.wgsl's {entry} against the batch layouts");
        }
        // the placement and motion records: their fields where the attributes read them
        use crate::frame::{Motion, Placement};
        let offsets = |attrs: &[wgpu::VertexAttribute]| attrs.iter().map(|a| a.offset as usize).collect::<Vec<_>>();
        assert_eq!(
            offsets(&PLACEMENT_ATTRS),
            [
                std::mem::offset_of!(Placement, position),
                std::mem::offset_of!(Placement, yaw),
                std::mem::offset_of!(Placement, scale),
                std::mem::offset_of!(Placement, color)
            ]
        );
        assert_eq!(offsets(&MOTION_ATTRS), [std::mem::offset_of!(Motion, a), std::mem::offset_of!(Motion, b)]);
        assert_eq!((size_of::<Placement>(), size_of::<Motion>()), (32, 32), "the batch layouts' strides");
        // and each attribute starts at its field of the structs the buffers are filled from
        let at =
            |attrs: &[wgpu::VertexAttribute], loc: u32| attrs.iter().find(|a| a.shader_location == loc).expect("attribute").offset as usize;
        assert_eq!(
            [at(&VERTEX_ATTRS, 0), at(&VERTEX_ATTRS, 1), at(&VERTEX_ATTRS, 2)],
            [std::mem::offset_of!(Vertex, position), std::mem::offset_of!(Vertex, normal), std::mem::offset_of!(Vertex, color)]
        );
        assert_eq!(
            [at(&INSTANCE_ATTRS, 3), at(&INSTANCE_ATTRS, 7), at(&INSTANCE_ATTRS, 10), at(&INSTANCE_ATTRS, 11)],
            [
                std::mem::offset_of!(Instance, model),
                std::mem::offset_of!(Instance, normal),
                std::mem::offset_of!(Instance, tint),
                std::mem::offset_of!(Instance, surface)
            ]
        );
        let last = INSTANCE_ATTRS.last().expect("attributes");
        assert_eq!(last.offset as usize + 16, size_of::<Instance>());
    }
}
