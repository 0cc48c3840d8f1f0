// Shadow map: depth only, from the sun's orthographic view.

@vertex
fn vs_main(v: VertexIn, i: InstanceIn) -> @builtin(position) vec4<f32> {
    return frame.light_view_proj * instance_model(i) * vec4<f32>(v.position, 1.0);
}
