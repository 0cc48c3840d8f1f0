// Shared declarations of the 3-D pipelines: the per-frame uniform block (`FrameUniforms` in
// src/render/mod.rs) and the vertex and instance inputs (`Vertex` and `Instance` in
// src/render/pipelines.rs; a test there checks the two agree, location by location).

struct Frame {
    view_proj: mat4x4<f32>,
    light_view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    // xyz: unit vector towards the sun; w: 1 when shadows are on
    to_sun: vec4<f32>,
    // rgb: sun colour × intensity; w: shadow filter radius in texels
    sun: vec4<f32>,
    sky: vec4<f32>,
    ground: vec4<f32>,
    // rgb: fog colour; w: density per metre
    fog: vec4<f32>,
    bg_top: vec4<f32>,
    bg_bottom: vec4<f32>,
    // x: 1 / shadow map size, y: normal offset in world units per texel, zw: viewport size
    shadow: vec4<f32>,
};

@group(0) @binding(0) var<uniform> frame: Frame;

// One vertex of a mesh.
struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // sRGB, straight alpha
    @location(2) color: vec4<f32>,
};

// One instance of a mesh: model matrix (columns), normal matrix (columns), tint and surface.
struct InstanceIn {
    @location(3) m0: vec4<f32>,
    @location(4) m1: vec4<f32>,
    @location(5) m2: vec4<f32>,
    @location(6) m3: vec4<f32>,
    @location(7) n0: vec4<f32>,
    @location(8) n1: vec4<f32>,
    @location(9) n2: vec4<f32>,
    // linear rgb, and opacity
    @location(10) tint: vec4<f32>,
    // x: roughness, y: specular, z: rim (translucent bodies), w: 1 if it receives shadows
    @location(11) surface: vec4<f32>,
};

fn instance_model(i: InstanceIn) -> mat4x4<f32> {
    return mat4x4<f32>(i.m0, i.m1, i.m2, i.m3);
}
