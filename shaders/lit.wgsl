// Lighting shared by the lit 3-D pipelines (meshes and instanced batches): a directional sun with
// a filtered shadow map, hemispheric sky/ground light, a Blinn-Phong highlight and exponential
// distance fog, all in linear light; the sRGB render target encodes the result. Each pipeline's
// vertex stage fills `VsOut`; `fs_main` shades it.

@group(1) @binding(0) var shadow_map: texture_depth_2d;
@group(1) @binding(1) var shadow_sampler: sampler_comparison;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
    @location(3) surface: vec4<f32>,
};

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + vec3<f32>(0.055)) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

// 12 taps of a Poisson disc in the unit circle.
const DISC = array<vec2<f32>, 12>(
    vec2<f32>(-0.326, -0.406), vec2<f32>(-0.840, -0.074), vec2<f32>(-0.696, 0.457),
    vec2<f32>(-0.203, 0.621), vec2<f32>(0.962, -0.195), vec2<f32>(0.473, -0.480),
    vec2<f32>(0.519, 0.767), vec2<f32>(0.185, -0.893), vec2<f32>(0.507, 0.064),
    vec2<f32>(0.896, 0.412), vec2<f32>(-0.322, -0.933), vec2<f32>(-0.792, -0.598)
);

fn sun_visibility(world: vec3<f32>, n: vec3<f32>, frag: vec2<f32>) -> f32 {
    if (frame.to_sun.w < 0.5) {
        return 1.0;
    }
    // offset along the normal by about a texel to keep flat ground from shadowing itself
    let p = world + n * frame.shadow.y * 1.5;
    let l = frame.light_view_proj * vec4<f32>(p, 1.0);
    let ndc = l.xyz / l.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    if (any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0) {
        return 1.0;
    }
    // rotate the disc per pixel (interleaved gradient noise) so the filter never bands
    let noise = fract(52.9829189 * fract(dot(frag, vec2<f32>(0.06711056, 0.00583715))));
    let a = noise * 6.2831853;
    let rot = mat2x2<f32>(cos(a), sin(a), -sin(a), cos(a));
    let radius = max(frame.sun.w, 0.5) * frame.shadow.x;
    var lit = 0.0;
    for (var i = 0u; i < 12u; i = i + 1u) {
        lit = lit + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + rot * DISC[i] * radius, ndc.z);
    }
    return lit / 12.0;
}

@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    var n = normalize(in.normal);
    if (!front) {
        n = -n;
    }
    let l = frame.to_sun.xyz;
    let v = normalize(frame.eye.xyz - in.world);
    let base = in.color.rgb;
    let ndl = max(dot(n, l), 0.0);
    var vis = 1.0;
    if (in.surface.w > 0.5) {
        vis = sun_visibility(in.world, n, in.clip.xy);
    }
    let hemi = mix(frame.ground.rgb, frame.sky.rgb, n.y * 0.5 + 0.5);
    let roughness = clamp(in.surface.x, 0.02, 1.0);
    let shininess = 2.0 / (roughness * roughness * roughness * roughness) - 2.0;
    let h = normalize(l + v);
    let spec = in.surface.y * (shininess + 8.0) / 25.13274 * pow(max(dot(n, h), 0.0), shininess);
    var alpha = in.color.a;
    var color = base * hemi + base / 3.14159265 * frame.sun.rgb * ndl * vis;
    var highlight = vec3<f32>(spec) * frame.sun.rgb * ndl * vis;
    let rim = in.surface.z;
    if (rim > 0.0 && alpha < 1.0) {
        // jelly and glass turn opaque and reflective at grazing angles (Schlick's Fresnel shape);
        // inner faces, seen through the body, take the light that passed through it
        let fresnel = pow(1.0 - abs(dot(n, v)), 4.0);
        alpha = mix(alpha, 1.0, fresnel * rim);
        highlight = highlight + frame.sky.rgb * fresnel * rim * 0.6;
        if (!front) {
            color = base * (hemi + frame.sun.rgb * 0.25);
            highlight = vec3<f32>(0.0);
        }
    }
    // the target blends by alpha; a highlight is reflected light and must not be dimmed by it
    color = color + highlight / max(alpha, 0.05);
    let dist = length(frame.eye.xyz - in.world);
    let fog = 1.0 - exp(-frame.fog.w * dist);
    color = mix(color, frame.fog.rgb, fog);
    return vec4<f32>(color, alpha);
}
