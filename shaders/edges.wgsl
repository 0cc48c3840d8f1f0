// Wireframes: each edge of a mesh a screen-space quad of constant pixel width (the instance's
// surface.x) with an analytic anti-aliased profile, in the instance's tint. Both ends are pulled
// a little toward the eye, so an edge wins the depth test against the faces it borders.

struct EdgeIn {
    @location(0) a: vec3<f32>,
    @location(1) b: vec3<f32>,
    // x: 0 at end a, 1 at end b; y: −1 or +1, the side of the line
    @location(2) corner: vec2<f32>,
};

struct EdgeOut {
    @builtin(position) clip: vec4<f32>,
    // pixels from the centre line, across it
    @location(0) @interpolate(linear) across: f32,
    @location(1) @interpolate(flat) color: vec4<f32>,
    @location(2) @interpolate(flat) half_width: f32,
};

// fraction of the way to the eye an edge is pulled (0.2 %): enough to beat its faces' depth at
// grazing angles, too little to show through anything in front of them
const PULL: f32 = 0.002;

@vertex
fn vs_main(e: EdgeIn, i: InstanceIn) -> EdgeOut {
    let model = instance_model(i);
    let eye = frame.eye.xyz;
    let wa = mix((model * vec4<f32>(e.a, 1.0)).xyz, eye, PULL);
    let wb = mix((model * vec4<f32>(e.b, 1.0)).xyz, eye, PULL);
    let ca = frame.view_proj * vec4<f32>(wa, 1.0);
    let cb = frame.view_proj * vec4<f32>(wb, 1.0);
    var out: EdgeOut;
    out.color = i.tint;
    out.half_width = i.surface.x * 0.5;
    out.across = 0.0;
    if (ca.w <= 1e-6 || cb.w <= 1e-6) {
        // an end behind the eye: not drawn (outside the clip volume)
        out.clip = vec4<f32>(0.0, 0.0, -2.0, 1.0);
        return out;
    }
    let half_size = frame.shadow.zw * 0.5;
    let sa = ca.xy / ca.w * half_size;
    let sb = cb.xy / cb.w * half_size;
    let delta = sb - sa;
    let len = length(delta);
    var dir = vec2<f32>(1.0, 0.0);
    if (len > 1e-6) {
        dir = delta / len;
    }
    let normal = vec2<f32>(-dir.y, dir.x);
    // one pixel beyond the line's half width for the anti-aliased fringe
    let reach = out.half_width + 1.0;
    let at_b = e.corner.x > 0.5;
    let c = select(ca, cb, at_b);
    let s = select(sa, sb, at_b);
    let along = select(-1.0, 1.0, at_b);
    let p = s + normal * e.corner.y * reach + dir * along * out.half_width;
    out.clip = vec4<f32>(p / half_size * c.w, c.z, c.w);
    out.across = e.corner.y * reach;
    return out;
}

@fragment
fn fs_main(in: EdgeOut) -> @location(0) vec4<f32> {
    let cover = clamp(in.half_width + 0.5 - abs(in.across), 0.0, 1.0);
    if (cover <= 0.0) {
        discard;
    }
    return vec4<f32>(in.color.rgb, in.color.a * cover);
}
