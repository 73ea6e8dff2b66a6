// TypeScript declarations for lrelu-webgpu (written by hand; they describe
// src/index.js).

/** The codes a KernelError carries. */
export type KernelErrorCode =
  | "NO_WEBGPU"          // no navigator.gpu, no adapter or no device (or no WebCrypto)
  | "UNKNOWN_KERNEL"     // an id this package does not have
  | "UNKNOWN_VERSION"    // a version, revision or sha256 pin that matches nothing
  | "INVALID_OPTION"     // options, inputs or attributes of the wrong form
  | "UNSUPPORTED_DTYPE"  // a dtype other than float32 and float16
  | "UNSUPPORTED_ARRAY"  // a data array of the wrong type for its dtype
  | "SHAPE_MISMATCH"     // data length vs shape, or dy vs x
  | "INVALID_ALPHA"      // gradient from y with alpha <= 0 or NaN
  | "DIGEST_MISMATCH"    // a package file whose sha256 is not metadata.json's
  | "FETCH_FAILED"       // a package file that could not be loaded
  | "SHADER_FAILED";     // the WGSL did not compile on this device

/** Every error this package throws. */
export class KernelError extends Error {
  readonly name: "KernelError";
  readonly code: KernelErrorCode;
  constructor(code: KernelErrorCode, message: string);
}

export const ERROR_CODES: readonly KernelErrorCode[];

export type DType = "float32" | "float16";

/** The parts of a WebGPU GPUDevice this package uses (a real GPUDevice fits). */
export interface WebGPUDevice {
  readonly limits: object;
  readonly queue: object;
  createBuffer(descriptor: object): object;
  createShaderModule(descriptor: object): object;
  createComputePipelineAsync(descriptor: object): Promise<object>;
  destroy(): void;
}
export type Variant = "unary-vec4" | "unary-scalar";
/** kernel.prelu's WGSL templates (ai.onnx.PRelu v1): four elements an invocation, or one u32 word. */
export type PreluVariant = "prelu-vec4" | "prelu";

/**
 * float32: a Float32Array. float16: a Uint16Array of bit patterns with
 * dtype "float16", or a Float16Array where the browser has one.
 */
export type TensorData = Float32Array | Uint16Array | { readonly BYTES_PER_ELEMENT: 2; readonly length: number; readonly buffer: ArrayBufferLike; readonly byteOffset: number; readonly byteLength: number };

export interface TensorInput {
  data: TensorData;
  /** Row-major dimensions; [] is a scalar (one element). */
  shape: readonly number[];
  /** Required for a Uint16Array ("float16"); inferred otherwise. */
  dtype?: DType;
}

export interface Tensor {
  /** A new array: Float32Array, or for float16 the input's kind (Uint16Array bits or Float16Array). */
  data: TensorData;
  shape: number[];
  dtype: DType;
}

export interface Attributes {
  /** Default: the manifest's 0.01. Rounded to float32 once (contract v1). */
  alpha?: number;
}

export interface CallOptions {
  /** Overrides the kernel's variant for this call. */
  variant?: Variant | "auto";
}

export interface PreluCallOptions {
  /** The template for this call: "prelu-vec4" (the default, also "auto") or "prelu"; the same bits. */
  variant?: PreluVariant | "auto";
}

export interface GetKernelOptions {
  /** The contract version (1); exactly one of version, revision, sha256. */
  version?: number;
  /** A 40-hex commit: the package files at that commit; needs baseUrl with "{revision}". */
  revision?: string;
  /** manifest.json's sha256: refuses any package whose manifest differs. */
  sha256?: string;
  /**
   * Where the package files are served (metadata.json, manifest.json, the
   * templates); "{version}" and "{revision}" are replaced. Default: the
   * files bundled with this module. Either way every file's sha256 is
   * checked with WebCrypto against metadata.json.
   */
  baseUrl?: string;
  /** A device the caller owns; default: navigator.gpu's adapter's device. */
  device?: WebGPUDevice;
  powerPreference?: "low-power" | "high-performance";
  /** Default "auto" (unary-vec4). */
  variant?: Variant | "auto";
  /** 1..256, default 256. */
  workgroupSize?: number;
  /** The most bytes one dispatch covers (a multiple of 16; default 64 MiB); larger tensors go in chunks. */
  chunkBytes?: number;
}

export interface KernelInfo {
  readonly id: string;
  readonly version: number;
  readonly manifestSha256: string;
  /** "bundled:ai.onnx.LeakyRelu@1" or the base URL the files came from. */
  readonly origin: string;
  readonly dtypes: readonly DType[];
  readonly variants: readonly Variant[];
  /** The variant calls use unless they pick one. */
  readonly variant: Variant;
  readonly workgroupSize: number;
  /** GPUAdapterInfo fields, when the browser reports them. */
  readonly adapter: { vendor: string; architecture: string; device: string; description: string } | null;
}

export interface LeakyReluKernel {
  /** y = x < 0 ? alpha * x : x, bit-exact (contract v1). The input is never modified. */
  (inputs: { x: TensorInput }, attributes?: Attributes, options?: CallOptions):
    Promise<{ y: Tensor; variant: Variant }>;
  /**
   * dx = s < 0 ? alpha * dy : dy with s = x, or s = y (then alpha must be > 0).
   */
  backward(inputs: { dy: TensorInput; x: TensorInput } | { dy: TensorInput; y: TensorInput },
           attributes?: Attributes, options?: CallOptions): Promise<{ dx: Tensor; variant: Variant }>;
  /**
   * PReLU forward (contract ai.onnx.PRelu v1): y = x < 0 ? alpha * x : x,
   * alpha a tensor of x's dtype that broadcasts to x by ONNX's
   * unidirectional rule (per channel: shape [C, 1, 1] for NCHW, [C] for
   * NHWC; [] or [1] is one slope). Bit-exact, as the contract's LeakyReLU
   * per element. x goes through in chunks of the kernel's chunkBytes; the
   * whole alpha must fit one storage binding of the device.
   */
  prelu(inputs: { x: TensorInput; alpha: TensorInput }, options?: PreluCallOptions):
    Promise<{ y: Tensor; variant: PreluVariant }>;
  /** The WGSL this kernel runs (the contract package's template, rendered). */
  source(dtype: DType, variant?: Variant): string;
  readonly info: KernelInfo;
  readonly device: WebGPUDevice;
  readonly metadata: unknown;
  readonly manifest: unknown;
  /** Frees buffers and pipelines, and the device when getKernel created it. */
  destroy(): void;
}

/**
 * Loads a kernel of the package: "ai.onnx.LeakyRelu" or
 * "webgpu-kernels/ai.onnx.LeakyRelu".
 */
export function getKernel(id: string, options: GetKernelOptions): Promise<LeakyReluKernel>;
