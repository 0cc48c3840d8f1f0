// Lit meshes: one instance record each (common.wgsl's InstanceIn); shaded by lit.wgsl.

@vertex
fn vs_main(v: VertexIn, i: InstanceIn) -> VsOut {
    let normal_m = mat3x3<f32>(i.n0.xyz, i.n1.xyz, i.n2.xyz);
    let world = instance_model(i) * vec4<f32>(v.position, 1.0);
    var out: VsOut;
    out.clip = frame.view_proj * world;
    out.world = world.xyz;
    out.normal = normal_m * v.normal;
    out.color = vec4<f32>(srgb_to_linear(v.color.rgb), v.color.a) * i.tint;
    out.surface = i.surface;
    return out;
}

