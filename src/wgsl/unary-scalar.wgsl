// lrelu WGSL, template unary-scalar, dtype {{DTYPE}}: contract v1,
// out = s < 0 ? alpha * v : v, one scalar word per invocation.
// Storage is bound as {{WORD}} words of raw bits, {{LANES}} element(s) per
// word ({{DTYPE}} in memory order, little-endian), so no value is ever
// loaded as a float: the pass-through is a select on bit patterns and only
// the product is computed in f32. Entry points: `forward` (y from x: bind x
// at 0, y at 2) and `backward` (dx from dy at 0 and s = x or y at 1, dx at
// 2). Binding 3 is the uniform Params: alpha (already rounded to f32) and n,
// the element count. Buffers hold whole words; in the last word the lanes
// at n and beyond of out keep their contents.
// Dispatch ceil(ceil(n / {{LANES}}) / {{WORKGROUP_SIZE}}) workgroups, in x and
// y when that exceeds 65535 (word i = x + y * num_workgroups.x * size).

struct Params {
  alpha: f32,
  n: u32,
}

@group(0) @binding(0) var<storage, read> v: array<{{WORD}}>;
@group(0) @binding(1) var<storage, read> s: array<{{WORD}}>;
@group(0) @binding(2) var<storage, read_write> out: array<{{WORD}}>;
@group(0) @binding(3) var<uniform> params: Params;

{{HELPERS}}
fn word_index(id: vec3<u32>, groups: vec3<u32>) -> u32 {
  return id.x + id.y * groups.x * {{WORKGROUP_SIZE}}u;
}

// Writes word i; a last, partial word keeps the lanes past n.
fn store_word(i: u32, r: {{WORD}}) {
  let first = i * {{LANES}}u;
  if (first + {{LANES}}u <= params.n) {
    out[i] = r;
  } else {
    out[i] = lrelu_merge(out[i], r, params.n - first);
  }
}

@compute @workgroup_size({{WORKGROUP_SIZE}})
fn forward(@builtin(global_invocation_id) id: vec3<u32>,
           @builtin(num_workgroups) groups: vec3<u32>) {
  let i = word_index(id, groups);
  if (i * {{LANES}}u >= params.n) {
    return;
  }
  let x = v[i];
  store_word(i, lrelu_apply(x, x, params.alpha));
}

@compute @workgroup_size({{WORKGROUP_SIZE}})
fn backward(@builtin(global_invocation_id) id: vec3<u32>,
            @builtin(num_workgroups) groups: vec3<u32>) {
  let i = word_index(id, groups);
  if (i * {{LANES}}u >= params.n) {
    return;
  }
  store_word(i, lrelu_apply(v[i], s[i], params.alpha));
}
