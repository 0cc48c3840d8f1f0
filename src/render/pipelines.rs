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
    pub background: wgpu::RenderPipeline,
    pub shadow: wgpu::RenderPipeline,
    pub mesh: wgpu::RenderPipeline,
    pub back_faces: wgpu::RenderPipeline,
    pub front_faces: wgpu::RenderPipeline,
}

fn module(device: &wgpu::Device, name: &str) -> wgpu::ShaderModule {
    let source = shaders::module_source(name).unwrap_or_else(|| panic!("shader {name} is not in the registry"));
    device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(name), source: wgpu::ShaderSource::Wgsl(source.into()) })
}

impl Pipelines {
    pub fn new(device: &wgpu::Device, samples: u32) -> Self {
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
        let background = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("background"),
            layout: Some(&frame_only),
            vertex: wgpu::VertexState { module: &bg, entry_point: Some("vs_main"), compilation_options: Default::default(), buffers: &[] },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(false),
                depth_compare: Some(wgpu::CompareFunction::Always),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: ms,
            fragment: Some(wgpu::FragmentState {
                module: &bg,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &color,
            }),
            multiview_mask: None,
            cache: None,
        });

        let layouts = vertex_layouts();
        let sh = module(device, "shadow");
        let shadow = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("shadow"),
            layout: Some(&frame_only),
            vertex: wgpu::VertexState {
                module: &sh,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &layouts,
            },
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
        });

        let me = module(device, "mesh");
        let lit_pipeline = |label: &str, cull_mode: Option<wgpu::Face>| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&lit),
                vertex: wgpu::VertexState {
                    module: &me,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &layouts,
                },
                primitive: wgpu::PrimitiveState { cull_mode, ..Default::default() },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: ms,
                fragment: Some(wgpu::FragmentState {
                    module: &me,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &color,
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let mesh = lit_pipeline("mesh", None);
        // translucent bodies: inner (back) faces first, then the outer (front) faces over them
        let back_faces = lit_pipeline("translucent back faces", Some(wgpu::Face::Front));
        let front_faces = lit_pipeline("translucent front faces", Some(wgpu::Face::Back));
        Pipelines { frame_layout, shadow_layout, background, shadow, mesh, back_faces, front_faces }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (location, components) of every input of `vs_main` in shader `name`, as naga reads it.
    fn shader_inputs(name: &str) -> Vec<(u32, u32)> {
        let src = shaders::module_source(name).expect("registered");
        let module = naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&src)));
        let entry = module.entry_points.iter().find(|e| e.name == "vs_main").expect("vs_main");
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
            wgpu::VertexFormat::Float32x3 => 3,
            wgpu::VertexFormat::Float32x4 | wgpu::VertexFormat::Unorm8x4 => 4,
            other => panic!("add {other:?} here"),
        }
    }

    #[test]
    fn the_shaders_read_the_vertex_and_instance_layouts_the_buffers_hold() {
        let rust: Vec<(u32, u32)> = VERTEX_ATTRS.iter().chain(&INSTANCE_ATTRS).map(|a| (a.shader_location, components(a.format))).collect();
        for name in ["mesh", "shadow"] {
            assert_eq!(shader_inputs(name), rust, "{name}.wgsl's inputs against render/pipelines.rs's layouts");
        }
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
