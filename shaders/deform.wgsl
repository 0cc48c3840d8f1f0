// Bends a mesh through a tricubic Bézier volume: each vertex (28 bytes: position as (u, v, w) in
// the unit cube, normal, packed sRGB colour) becomes Σ Bi(u)·Bj(v)·Bk(w)·P[i + 4j + 16k], and its
// normal is carried by the cofactor of the volume's Jacobian (det J · J^-T), so normals stay
// perpendicular to the bent surface. Same layout in and out, so the result is a vertex buffer.

@group(0) @binding(0) var<storage, read> rest: array<u32>;
@group(0) @binding(1) var<storage, read> control: array<vec4<f32>, 64>;
@group(0) @binding(2) var<storage, read_write> bent: array<u32>;

fn bernstein(t: f32) -> vec4<f32> {
    let s = 1.0 - t;
    return vec4<f32>(s * s * s, 3.0 * t * s * s, 3.0 * t * t * s, t * t * t);
}

fn bernstein_d(t: f32) -> vec4<f32> {
    let s = 1.0 - t;
    return vec4<f32>(-3.0 * s * s, 3.0 * s * s - 6.0 * t * s, 6.0 * t * s - 3.0 * t * t, 3.0 * t * t);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let count = arrayLength(&rest) / 7u;
    let i = id.x;
    if (i >= count) {
        return;
    }
    let b = i * 7u;
    let uvw = vec3<f32>(bitcast<f32>(rest[b]), bitcast<f32>(rest[b + 1u]), bitcast<f32>(rest[b + 2u]));
    let n = vec3<f32>(bitcast<f32>(rest[b + 3u]), bitcast<f32>(rest[b + 4u]), bitcast<f32>(rest[b + 5u]));
    let bu = bernstein(uvw.x);
    let bv = bernstein(uvw.y);
    let bw = bernstein(uvw.z);
    let du = bernstein_d(uvw.x);
    let dv = bernstein_d(uvw.y);
    let dw = bernstein_d(uvw.z);
    var p = vec3<f32>(0.0);
    var ju = vec3<f32>(0.0);
    var jv = vec3<f32>(0.0);
    var jw = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k = k + 1u) {
        for (var j = 0u; j < 4u; j = j + 1u) {
            for (var ii = 0u; ii < 4u; ii = ii + 1u) {
                let c = control[ii + 4u * j + 16u * k].xyz;
                p = p + (bu[ii] * bv[j] * bw[k]) * c;
                ju = ju + (du[ii] * bv[j] * bw[k]) * c;
                jv = jv + (bu[ii] * dv[j] * bw[k]) * c;
                jw = jw + (bu[ii] * bv[j] * dw[k]) * c;
            }
        }
    }
    let m = cross(jv, jw) * n.x + cross(jw, ju) * n.y + cross(ju, jv) * n.z;
    let len = length(m);
    var nn = n;
    if (len > 0.0) {
        nn = m / len;
    }
    bent[b] = bitcast<u32>(p.x);
    bent[b + 1u] = bitcast<u32>(p.y);
    bent[b + 2u] = bitcast<u32>(p.z);
    bent[b + 3u] = bitcast<u32>(nn.x);
    bent[b + 4u] = bitcast<u32>(nn.y);
    bent[b + 5u] = bitcast<u32>(nn.z);
    bent[b + 6u] = rest[b + 6u];
}
