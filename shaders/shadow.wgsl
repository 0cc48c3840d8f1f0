// Shadow map: depth only, from the sun's orthographic view.

struct VsIn {
    @location(0) position: vec3<f32>,
    @location(3) m0: vec4<f32>,
    @location(4) m1: vec4<f32>,
    @location(5) m2: vec4<f32>,
    @location(6) m3: vec4<f32>,
};

@vertex
fn vs_main(in: VsIn) -> @builtin(position) vec4<f32> {
    let model = mat4x4<f32>(in.m0, in.m1, in.m2, in.m3);
    return frame.light_view_proj * model * vec4<f32>(in.position, 1.0);
}
