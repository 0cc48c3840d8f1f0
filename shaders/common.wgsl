// Shared declarations: the per-frame uniform block (see render/frame_uniforms.rs for the layout).

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
