// One compute pass, shared by the package's runners and bench/wgsl/cost.js.

// Records on `encoder` a pass of `pipeline` with bind group 0 = `group` over
// `groups` workgroups; past `maxGroups` the grid's y dimension is used.
export function encodePass(encoder, pipeline, group, groups, maxGroups) {
  const gx = Math.min(groups, maxGroups);
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group);
  pass.dispatchWorkgroups(gx, Math.ceil(groups / gx), 1);
  pass.end();
}
