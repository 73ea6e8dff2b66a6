// Finding a contract package (bundled, or fetched from a base URL) and
// checking every file it uses against the sha256 in its metadata.json.
import { BUNDLED } from "./bundled.js";
import { fail } from "./errors.js";

const NAMESPACE = "webgpu-kernels/";

/** "webgpu-kernels/ai.onnx.LeakyRelu" or "ai.onnx.LeakyRelu" -> the id. */
export function normaliseId(id) {
  if (typeof id !== "string") {
    fail("UNKNOWN_KERNEL", `the kernel id must be a string, not ${typeof id}`);
  }
  return id.startsWith(NAMESPACE) ? id.slice(NAMESPACE.length) : id;
}

function bundledIds() {
  return [...new Set(Object.keys(BUNDLED).map((k) => k.split("@")[0]))];
}

function bundledVersions(id) {
  return Object.keys(BUNDLED).filter((k) => k.startsWith(id + "@"))
      .map((k) => Number(k.split("@")[1]));
}

/** The lowercase hex SHA-256 of bytes (WebCrypto). */
export async function sha256Hex(bytes) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (!subtle) {
    fail("NO_WEBGPU", "WebCrypto (crypto.subtle) is missing: it exists only in " +
         "secure contexts (https:, or http://localhost / 127.0.0.1); WebGPU needs one too");
  }
  const digest = new Uint8Array(await subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function fetchText(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    fail("FETCH_FAILED", `cannot fetch ${url}: ${e.message}`);
  }
  if (!response.ok) {
    fail("FETCH_FAILED", `cannot fetch ${url}: HTTP ${response.status}`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

function parseJson(bytes, where) {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    fail("FETCH_FAILED", `${where} is not JSON: ${e.message}`);
  }
}

/**
 * Resolves getKernel's options to verified package files.
 * @returns {Promise<{metadata: object, manifest: object, files: Record<string,string>, origin: string}>}
 */
export async function loadPackage(id, options) {
  const { version, revision, sha256, baseUrl } = options;
  const pins = [version, revision, sha256].filter((p) => p !== undefined);
  if (pins.length !== 1) {
    fail("INVALID_OPTION", "pass exactly one of { version: 1 }, { revision: \"<40 hex digits>\" } " +
         "or { sha256: \"<64 hex digits of manifest.json>\" }");
  }
  if (version !== undefined && !(Number.isInteger(version) && version > 0)) {
    fail("INVALID_OPTION", `version must be a positive integer, not ${JSON.stringify(version)}`);
  }
  if (revision !== undefined && !/^[0-9a-f]{40}$/.test(String(revision))) {
    fail("INVALID_OPTION", `revision must be 40 lowercase hex digits (a commit), not ${JSON.stringify(revision)}`);
  }
  if (sha256 !== undefined && !/^[0-9a-f]{64}$/.test(String(sha256))) {
    fail("INVALID_OPTION", `sha256 must be 64 lowercase hex digits (manifest.json's digest), not ${JSON.stringify(sha256)}`);
  }
  if (!bundledIds().includes(id)) {
    fail("UNKNOWN_KERNEL", `no kernel "${id}" (this package has: ${bundledIds().join(", ")})`);
  }

  // Where the bytes come from: the bundle by default, else baseUrl, where
  // "{revision}" and "{version}" are replaced by the pin.
  let read;
  let origin;
  if (baseUrl === undefined) {
    if (revision !== undefined) {
      fail("INVALID_OPTION", "a revision pin needs options.baseUrl: where the package files of " +
           "that commit are served (\"{revision}\" in it is replaced by the commit)");
    }
    const versions = bundledVersions(id);
    let key;
    if (version !== undefined) {
      key = `${id}@${version}`;
      if (!(key in BUNDLED)) {
        fail("UNKNOWN_VERSION", `no ${id} contract version ${version} (this package has: ${versions.join(", ")})`);
      }
    } else {
      key = await findBySha256(id, sha256, versions);
    }
    const texts = BUNDLED[key];
    read = async (name) => {
      if (!(name in texts)) fail("FETCH_FAILED", `the bundled ${key} has no ${name}`);
      return new TextEncoder().encode(texts[name]);
    };
    origin = `bundled:${key}`;
  } else {
    let base = String(baseUrl);
    if (revision !== undefined) {
      if (!base.includes("{revision}")) {
        fail("INVALID_OPTION", "with a revision pin, baseUrl must contain \"{revision}\"");
      }
      base = base.split("{revision}").join(revision);
    }
    if (version !== undefined) base = base.split("{version}").join(String(version));
    if (!base.endsWith("/")) base += "/";
    const resolved = new URL(base, globalThis.location ? globalThis.location.href : undefined).href;
    read = (name) => fetchText(resolved + name);
    origin = resolved;
  }

  const metadataBytes = await read("metadata.json");
  const metadata = parseJson(metadataBytes, `${origin} metadata.json`);
  if (metadata.id !== id) {
    fail("UNKNOWN_KERNEL", `${origin} holds ${metadata.id}, not ${id}`);
  }
  if (version !== undefined && metadata.contract_version !== version) {
    fail("UNKNOWN_VERSION", `${origin} holds ${id} version ${metadata.contract_version}, not ${version}`);
  }
  if (!metadata.webgpu) {
    fail("UNKNOWN_VERSION", `${origin} metadata.json has no "webgpu" section (no WGSL templates)`);
  }
  const listed = { ...metadata.templates, "manifest.json": metadata.files["manifest.json"] };
  if (sha256 !== undefined && listed["manifest.json"].sha256 !== sha256) {
    fail("UNKNOWN_VERSION", `${origin} has manifest sha256 ${listed["manifest.json"].sha256}, not the pinned ${sha256}`);
  }
  const files = {};
  await Promise.all(Object.entries(listed).map(async ([name, entry]) => {
    const bytes = await read(name);
    const have = await sha256Hex(bytes);
    if (have !== entry.sha256 || bytes.length !== entry.bytes) {
      fail("DIGEST_MISMATCH", `${origin} ${name}: sha256 ${have} (${bytes.length} bytes) does not match ` +
           `metadata.json's ${entry.sha256} (${entry.bytes} bytes); the file was modified, refusing it`);
    }
    files[name] = new TextDecoder().decode(bytes);
  }));
  const manifest = JSON.parse(files["manifest.json"]);
  return { metadata, manifest, files, origin };
}

async function findBySha256(id, sha256, versions) {
  for (const v of versions) {
    const key = `${id}@${v}`;
    const meta = JSON.parse(BUNDLED[key]["metadata.json"]);
    if (meta.files["manifest.json"].sha256 === sha256) return key;
  }
  fail("UNKNOWN_VERSION", `no bundled ${id} contract has manifest sha256 ${sha256}`);
}
