// Every failure of this package is a KernelError whose `code` names the
// problem and whose message says what was wrong and what is accepted.

/** @type {readonly string[]} */
export const ERROR_CODES = Object.freeze([
  "NO_WEBGPU",          // no navigator.gpu, no adapter, no device
  "UNKNOWN_KERNEL",     // an id this package does not have
  "UNKNOWN_VERSION",    // a contract version, revision or sha256 it cannot find
  "INVALID_OPTION",     // getKernel options or call attributes of the wrong form
  "UNSUPPORTED_DTYPE",  // a dtype the kernel does not compute
  "UNSUPPORTED_ARRAY",  // a data array of the wrong type for its dtype
  "SHAPE_MISMATCH",     // data length vs shape, or dy vs x
  "INVALID_ALPHA",      // gradient from y with alpha <= 0 or NaN
  "DIGEST_MISMATCH",    // a package file whose sha256 is not metadata.json's
  "FETCH_FAILED",       // a package file that could not be loaded
  "SHADER_FAILED",      // a WGSL compile or pipeline error on this device
]);

export class KernelError extends Error {
  /**
   * @param {string} code one of ERROR_CODES
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = "KernelError";
    this.code = code;
  }
}

/** Throws a KernelError. */
export function fail(code, message) {
  throw new KernelError(code, message);
}
