// Renders a WGSL template of the contract package: the rule metadata.json's
// "webgpu.render" states, the same one liblrelu's lrelu_kernel_source uses.
import { fail } from "./errors.js";

function replaceAll(text, key, value) {
  return text.split(key).join(value);
}

/**
 * @param {Record<string, string>} files the package files by name
 * @param {object} webgpu metadata.json's "webgpu" section
 * @param {string} dtype "float32" or "float16"
 * @param {string} variantName "unary-vec4" or "unary-scalar"
 * @param {number} workgroupSize 1 .. webgpu.workgroup_size.max
 * @returns {{source: string, lanes: number, wordBytes: number}}
 */
export function renderWgsl(files, webgpu, dtype, variantName, workgroupSize) {
  const variant = webgpu.variants.find((v) => v.name === variantName);
  if (variant === undefined) {
    fail("INVALID_OPTION", `variant "${variantName}" is not one of ` +
         webgpu.variants.map((v) => `"${v.name}"`).join(", "));
  }
  const words = variant.words[dtype];
  const helpers = webgpu.helpers[dtype];
  if (words === undefined || helpers === undefined) {
    fail("UNSUPPORTED_DTYPE", `the WGSL templates render ${webgpu.dtypes.join(" and ")}, not ${dtype}`);
  }
  let source = files[variant.template];
  source = replaceAll(source, "{{HELPERS}}", helpers.map((name) => files[name]).join("\n"));
  source = replaceAll(source, "{{WORD}}", words.word);
  source = replaceAll(source, "{{LANES}}", String(words.lanes));
  source = replaceAll(source, "{{DTYPE}}", dtype);
  source = replaceAll(source, "{{WORKGROUP_SIZE}}", String(workgroupSize));
  // A word is `lanes` elements of 4 (float32) or 2 (float16) bytes.
  const wordBytes = words.lanes * (dtype === "float32" ? 4 : 2);
  return { source, lanes: words.lanes, wordBytes };
}
