//! Bent meshes: instances with a [`BezierVolume`] get their own vertex buffer each frame, filled by
//! the `deform` compute shader from the mesh's rest vertices, or on the CPU (same formula) where the
//! adapter has no compute shaders.

use crate::frame::{BezierVolume, MeshData};

use super::pipelines::Vertex;
use super::shaders;

/// Bytes of one volume's control points in the storage buffer (64 × vec4<f32>).
const CONTROL_BYTES: u64 = 64 * 16;
const WORKGROUP: u32 = 64;

struct Output {
    buffer: wgpu::Buffer,
    size: u64,
}

pub struct Deformer {
    /// `None`: bend on the CPU.
    gpu: Option<(wgpu::ComputePipeline, wgpu::BindGroupLayout)>,
    control: Option<(wgpu::Buffer, usize)>,
    outputs: Vec<Output>,
}

/// One instance to bend this frame.
pub struct Bend<'a> {
    pub rest: &'a wgpu::Buffer,
    pub mesh: &'a MeshData,
    pub volume: &'a BezierVolume,
}

impl Deformer {
    pub fn new(device: &wgpu::Device, compute: bool) -> Self {
        let gpu = compute.then(|| {
            let storage = |binding: u32, read_only: bool| wgpu::BindGroupLayoutEntry {
                binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            };
            let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("deform"),
                entries: &[storage(0, true), storage(1, true), storage(2, false)],
            });
            let src = shaders::module_source("deform").expect("deform shader registered");
            let module = device
                .create_shader_module(wgpu::ShaderModuleDescriptor { label: Some("deform"), source: wgpu::ShaderSource::Wgsl(src.into()) });
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("deform"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("deform"),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
            (pipeline, layout)
        });
        Deformer { gpu, control: None, outputs: Vec::new() }
    }

    pub fn on_gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// Usage the rest vertex buffers need.
    pub fn rest_usage(&self) -> wgpu::BufferUsages {
        if self.gpu.is_some() { wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::STORAGE } else { wgpu::BufferUsages::VERTEX }
    }

    fn output(&mut self, device: &wgpu::Device, slot: usize, bytes: u64) {
        let usage =
            wgpu::BufferUsages::VERTEX | if self.gpu.is_some() { wgpu::BufferUsages::STORAGE } else { wgpu::BufferUsages::COPY_DST };
        let make = |size: u64| Output {
            buffer: device.create_buffer(&wgpu::BufferDescriptor { label: Some("bent vertices"), size, usage, mapped_at_creation: false }),
            size,
        };
        let bytes = bytes.max(28);
        if slot == self.outputs.len() {
            self.outputs.push(make(bytes));
        } else if self.outputs[slot].size < bytes {
            self.outputs[slot] = make(bytes);
        }
    }

    /// Bends every job into its slot's vertex buffer (slot = position in `jobs`), recording the
    /// compute work in `encoder` ahead of the frame's passes.
    pub fn prepare(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, encoder: &mut wgpu::CommandEncoder, jobs: &[Bend]) {
        for (slot, job) in jobs.iter().enumerate() {
            self.output(device, slot, (job.mesh.positions.len() * size_of::<Vertex>()) as u64);
        }
        let Some((pipeline, layout)) = &self.gpu else {
            for (slot, job) in jobs.iter().enumerate() {
                let bent = bend_cpu(job.mesh, job.volume);
                if !bent.is_empty() {
                    queue.write_buffer(&self.outputs[slot].buffer, 0, bytemuck::cast_slice(&bent));
                }
            }
            return;
        };
        if jobs.is_empty() {
            return;
        }
        if self.control.as_ref().is_none_or(|c| c.1 < jobs.len()) {
            let cap = jobs.len().next_power_of_two();
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("control points"),
                size: cap as u64 * CONTROL_BYTES,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.control = Some((buffer, cap));
        }
        let Some((control, _)) = &self.control else { return };
        let points: Vec<[f32; 4]> = jobs.iter().flat_map(|j| j.volume.control.iter().map(|c| [c[0], c[1], c[2], 0.0])).collect();
        queue.write_buffer(control, 0, bytemuck::cast_slice(&points));
        let groups: Vec<(wgpu::BindGroup, u32)> = jobs
            .iter()
            .enumerate()
            .map(|(slot, job)| {
                let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("deform"),
                    layout,
                    entries: &[
                        wgpu::BindGroupEntry { binding: 0, resource: job.rest.as_entire_binding() },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: control,
                                offset: slot as u64 * CONTROL_BYTES,
                                size: wgpu::BufferSize::new(CONTROL_BYTES),
                            }),
                        },
                        wgpu::BindGroupEntry { binding: 2, resource: self.outputs[slot].buffer.as_entire_binding() },
                    ],
                });
                (group, (job.mesh.positions.len() as u32).div_ceil(WORKGROUP))
            })
            .collect();
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("deform"), timestamp_writes: None });
        pass.set_pipeline(pipeline);
        for (group, workgroups) in &groups {
            if *workgroups > 0 {
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups(*workgroups, 1, 1);
            }
        }
    }

    /// The bent vertices of slot `slot`.
    pub fn vertices(&self, slot: usize) -> &wgpu::Buffer {
        &self.outputs[slot].buffer
    }
}

/// The CPU twin of `shaders/deform.wgsl`.
pub fn bend_cpu(mesh: &MeshData, volume: &BezierVolume) -> Vec<Vertex> {
    mesh.positions
        .iter()
        .enumerate()
        .map(|(i, &uvw)| {
            let (position, normal) = volume.apply(uvw, mesh.normals.get(i).copied().unwrap_or([0.0, 1.0, 0.0]));
            Vertex { position, normal, color: mesh.colors.get(i).copied().unwrap_or([255; 4]) }
        })
        .collect()
}
