// Background: one full-screen triangle with a vertical gradient (linear light, encoded to sRGB
// by the render target).

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) v: f32,
};

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> VsOut {
    let x = f32((i << 1u) & 2u) * 2.0 - 1.0;
    let y = f32(i & 2u) * 2.0 - 1.0;
    var out: VsOut;
    out.clip = vec4<f32>(x, y, 0.0, 1.0);
    out.v = y * 0.5 + 0.5;
    return out;
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    // a slightly eased blend keeps the horizon band soft
    let t = smoothstep(0.0, 1.0, in.v);
    return vec4<f32>(mix(frame.bg_bottom.rgb, frame.bg_top.rgb, t), 1.0);
}
