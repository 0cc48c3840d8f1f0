// The finished image copied onto a page's canvas by drawing, where the canvas takes no copies
// (WebGL2): one triangle over the target, each pixel the image's own, read without filtering.
// `fs_same` writes to a target that encodes sRGB as the image does (the bytes come out as they
// went in); `fs_encode` to a plain RGBA8 target, encoding sRGB itself.

@group(0) @binding(0) var image: texture_2d<f32>;

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_same(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return textureLoad(image, vec2<i32>(p.xy), 0);
}

fn encode(c: f32) -> f32 {
    if c <= 0.0031308 {
        return c * 12.92;
    }
    return 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

@fragment
fn fs_encode(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let c = textureLoad(image, vec2<i32>(p.xy), 0);
    return vec4<f32>(encode(c.r), encode(c.g), encode(c.b), c.a);
}
