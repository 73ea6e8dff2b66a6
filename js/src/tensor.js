// Checking a tensor argument ({ data, shape, dtype? }) and making outputs.
import { fail } from "./errors.js";

const HAS_FLOAT16_ARRAY = typeof globalThis.Float16Array === "function";

function arrayName(data) {
  return data === null ? "null" : (data && data.constructor ? data.constructor.name : typeof data);
}

/**
 * @param {string} name the input's name ("x", "dy", ...) for messages
 * @param {object} tensor { data, shape, dtype? }
 * @param {string[]} dtypes the dtypes the kernel computes
 * @returns {{dtype: string, shape: number[], count: number, bytes: Uint8Array, float16Array: boolean}}
 */
export function checkTensor(name, tensor, dtypes) {
  if (tensor === null || typeof tensor !== "object") {
    fail("INVALID_OPTION", `input ${name} is missing: pass ${name}: { data, shape }`);
  }
  const { data, shape } = tensor;
  let { dtype } = tensor;
  if (dtype !== undefined && !dtypes.includes(dtype)) {
    fail("UNSUPPORTED_DTYPE", `${name}.dtype "${dtype}" is not supported (supported: ${dtypes.join(", ")})`);
  }
  let float16Array = false;
  if (data instanceof Float32Array) {
    if (dtype !== undefined && dtype !== "float32") {
      fail("UNSUPPORTED_ARRAY", `${name}.data is a Float32Array but dtype is "${dtype}" ` +
           "(float16 takes a Uint16Array of bit patterns or a Float16Array)");
    }
    dtype = "float32";
  } else if (HAS_FLOAT16_ARRAY && data instanceof globalThis.Float16Array) {
    if (dtype !== undefined && dtype !== "float16") {
      fail("UNSUPPORTED_ARRAY", `${name}.data is a Float16Array but dtype is "${dtype}"`);
    }
    dtype = "float16";
    float16Array = true;
  } else if (data instanceof Uint16Array) {
    if (dtype !== "float16") {
      fail("UNSUPPORTED_ARRAY", `${name}.data is a Uint16Array: it holds float16 bit patterns ` +
           "only with dtype: \"float16\"");
    }
  } else {
    fail("UNSUPPORTED_ARRAY", `${name}.data is a ${arrayName(data)}: use a Float32Array (float32), ` +
         "a Uint16Array of bit patterns with dtype: \"float16\"" +
         (HAS_FLOAT16_ARRAY ? " or a Float16Array" : ""));
  }
  if (!dtypes.includes(dtype)) {
    fail("UNSUPPORTED_DTYPE", `${name}: dtype ${dtype} is not supported (supported: ${dtypes.join(", ")})`);
  }
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    fail("SHAPE_MISMATCH", `${name}.shape must be an array of non-negative integers, not ${JSON.stringify(shape)}`);
  }
  const count = shape.reduce((a, d) => a * d, 1);  // 1 for rank 0
  if (count !== data.length) {
    fail("SHAPE_MISMATCH", `${name}.data has ${data.length} elements but shape ` +
         `[${shape.join(", ")}] needs ${count}`);
  }
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return { dtype, shape: shape.slice(), count, bytes, float16Array };
}

/** An output tensor over `bytes` (a fresh ArrayBuffer) like the input `like`. */
export function makeTensor(like, buffer) {
  let data;
  if (like.dtype === "float32") {
    data = new Float32Array(buffer, 0, like.count);
  } else if (like.float16Array) {
    data = new globalThis.Float16Array(buffer, 0, like.count);
  } else {
    data = new Uint16Array(buffer, 0, like.count);
  }
  return { data, shape: like.shape.slice(), dtype: like.dtype };
}

/** The bits of alpha rounded to float32 (contract v1: rounded once). */
export function alphaBits(alpha) {
  const f = new Float32Array([alpha]);
  return new Uint32Array(f.buffer)[0];
}
