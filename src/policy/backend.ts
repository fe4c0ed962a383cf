/**
 * Chooses the tfjs backend the policy runs on, fastest first:
 *
 *   tensorflow  @tensorflow/tfjs-node-gpu or @tensorflow/tfjs-node (optional; the user installs them)
 *   webgpu      the `webgpu` npm package (Dawn) + @tensorflow/tfjs-backend-webgpu (optional), with a GPU adapter
 *   wasm        @tensorflow/tfjs-backend-wasm, the default on CPU machines (about 20x the pure-JS cpu backend)
 *   cpu         @tensorflow/tfjs-backend-cpu
 *
 * Optional packages are imported by a computed name inside try/catch, so nothing requires them. On wasm we
 * register the one kernel training needs that the package lacks (UnsortedSegmentSum, the gradient of gather),
 * and on every backend the gradients that tfjs-core's Node build leaves out (see gradients.ts).
 */
import { createRequire } from "node:module";
import path from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import * as Data from "effect/Data";
import { UsageError } from "../kernel/errors.ts";
import { registerGradients } from "./gradients.ts";

export type BackendName = "tensorflow" | "webgpu" | "wasm" | "cpu";
/** A tfjs backend by name, or "auto" for the fastest one available. */
export type BackendChoice = "auto" | BackendName;

export const BACKEND_ORDER: readonly BackendName[] = ["tensorflow", "webgpu", "wasm", "cpu"];

/** The backend asked for cannot be loaded here; says why and which ones can. */
export class BackendUnavailableError extends Data.TaggedError("BackendUnavailableError")<{
  readonly requested: BackendName;
  readonly reason: string;
  readonly available: readonly BackendName[];
}> {
  override get message(): string {
    const available = this.available.join(", ") || "none";
    return `tfjs backend "${this.requested}" is not available (${this.reason}); available here: ${available}`;
  }
}

export interface InitBackendOptions {
  /** Where the one line naming the chosen backend goes. Default: stderr. */
  readonly log?: (line: string) => void;
}

/** Outcome of trying one backend: null when it is now active, else why not. */
type Attempt = string | null;

/** Imports a module by a name TypeScript and bundlers do not resolve, so it stays optional. */
const importOptional = (name: string): Promise<Record<string, unknown>> => import(name);

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const activate = async (name: BackendName): Promise<Attempt> => {
  if (tf.findBackendFactory(name) === null) return `no "${name}" backend is registered with this tfjs-core`;
  try {
    if (!(await tf.setBackend(name))) return `the "${name}" backend failed to initialise`;
    await tf.ready();
    return null;
  } catch (error) {
    return errorText(error);
  }
};

const tryTensorflow = async (): Promise<Attempt> => {
  const reasons: string[] = [];
  for (const pkg of ["@tensorflow/tfjs-node-gpu", "@tensorflow/tfjs-node"]) {
    try {
      await importOptional(pkg);
    } catch {
      reasons.push(`${pkg} is not installed`);
      continue;
    }
    // A copy of tfjs-core other than ours would register the backend where we cannot see it.
    const outcome = await activate("tensorflow");
    if (outcome === null) return null;
    reasons.push(`${pkg}: ${outcome} (its @tensorflow/tfjs-core must be the same copy, version ${tf.version_core})`);
  }
  return reasons.join("; ");
};

interface AdapterLike {
  readonly isFallbackAdapter?: boolean;
  readonly info?: { readonly isFallbackAdapter?: boolean; readonly description?: string; readonly device?: string };
}

/**
 * Dawn's globals and navigator.gpu, which the webgpu backend expects to find before it is imported. A
 * software adapter (Mesa's llvmpipe through lavapipe, SwiftShader) counts only when `allowSoftware`: it
 * computes the same numbers as a GPU, slower than wasm, so "auto" passes it by and `--backend webgpu`
 * takes it (this is how the WebGPU path is checked on a machine without a GPU, docs/gpu.md).
 */
const installWebGpuGlobals = async (allowSoftware: boolean): Promise<string | null> => {
  let dawn: Record<string, unknown>;
  try {
    dawn = await importOptional("webgpu");
  } catch {
    return "the `webgpu` package is not installed";
  }
  const create = dawn.create as ((options: string[]) => unknown) | undefined;
  if (typeof create !== "function") return "the `webgpu` package has no create()";
  Object.assign(globalThis, (dawn.globals as object | undefined) ?? {});
  const gpu = create([]) as { requestAdapter(): Promise<AdapterLike | null> };
  Object.defineProperty(globalThis, "navigator", { value: { gpu }, configurable: true, writable: true });
  let adapter: AdapterLike | null;
  try {
    adapter = await gpu.requestAdapter();
  } catch (error) {
    return `no GPU adapter: ${errorText(error)}`;
  }
  if (adapter === null) return "no GPU adapter was found";
  const software = adapter.isFallbackAdapter === true || adapter.info?.isFallbackAdapter === true;
  if (software && !allowSoftware) {
    const name = adapter.info?.description || adapter.info?.device || "unnamed";
    return `only a software adapter was found (${name}); --backend webgpu uses it anyway`;
  }
  return null;
};

const tryWebGpu = async (allowSoftware: boolean): Promise<Attempt> => {
  const missing = await installWebGpuGlobals(allowSoftware);
  if (missing !== null) return missing;
  // A host that bundles the backend with its own copy of tfjs-core has registered it already.
  if (tf.findBackendFactory("webgpu") === null) {
    try {
      await importOptional("@tensorflow/tfjs-backend-webgpu");
    } catch {
      return "@tensorflow/tfjs-backend-webgpu is not installed";
    }
  }
  return activate("webgpu");
};

/**
 * The folder holding the .wasm binaries, as a file path (Node reads them with fs); TFJS_WASM_PATH overrides
 * it (a bundled copy of the project, e.g. scripts/gpu-check.sh's, ships them beside itself).
 */
const wasmDirectory = (): string => {
  const override = process.env.TFJS_WASM_PATH;
  if (override) return override.endsWith(path.sep) ? override : override + path.sep;
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm/package.json")), "dist") + path.sep;
};

const tryWasm = async (): Promise<Attempt> => {
  let wasm: Record<string, unknown>;
  try {
    wasm = await import("@tensorflow/tfjs-backend-wasm");
    (wasm.setWasmPaths as (prefix: string) => void)(wasmDirectory());
  } catch (error) {
    return `@tensorflow/tfjs-backend-wasm could not be loaded: ${errorText(error)}`;
  }
  registerMissingWasmKernels();
  return activate("wasm");
};

const tryCpu = async (): Promise<Attempt> => {
  try {
    await import("@tensorflow/tfjs-backend-cpu");
  } catch (error) {
    return `@tensorflow/tfjs-backend-cpu could not be loaded: ${errorText(error)}`;
  }
  return activate("cpu");
};

/** Each backend's attempt; `explicit` when the user named it (not "auto"). */
const ATTEMPTS: Record<BackendName, (explicit: boolean) => Promise<Attempt>> = {
  tensorflow: tryTensorflow,
  webgpu: tryWebGpu,
  wasm: tryWasm,
  cpu: tryCpu,
};

/** Whether each backend could be used, without switching to it. */
const availableBackends = async (): Promise<BackendName[]> => {
  const found: BackendName[] = [];
  const probes: Record<BackendName, () => Promise<boolean>> = {
    tensorflow: async () => {
      for (const pkg of ["@tensorflow/tfjs-node-gpu", "@tensorflow/tfjs-node"]) {
        try {
          await importOptional(pkg);
          return tf.findBackendFactory("tensorflow") !== null;
        } catch {}
      }
      return false;
    },
    webgpu: async () => {
      try {
        if ((await installWebGpuGlobals(true)) !== null) return false;
        await importOptional("@tensorflow/tfjs-backend-webgpu");
        return true;
      } catch {
        return false;
      }
    },
    wasm: async () => {
      try {
        await import("@tensorflow/tfjs-backend-wasm");
        return true;
      } catch {
        return false;
      }
    },
    cpu: async () => {
      try {
        await import("@tensorflow/tfjs-backend-cpu");
        return true;
      } catch {
        return false;
      }
    },
  };
  for (const name of BACKEND_ORDER) if (await probes[name]()) found.push(name);
  return found;
};

let announced: BackendName | null = null;

/** The first backend of BACKEND_ORDER that initialises. */
const activateFastest = async (): Promise<BackendName> => {
  const reasons: string[] = [];
  for (const name of BACKEND_ORDER) {
    const reason = await ATTEMPTS[name](false);
    if (reason === null) return name;
    reasons.push(`${name}: ${reason}`);
  }
  throw new Error(`no tfjs backend could be initialised (${reasons.join("; ")})`);
};

/**
 * Makes `preferred` the active tfjs backend ("auto": the fastest that works) and returns its name. The
 * choice is logged once (again only when it changes). An explicit choice that cannot be used throws
 * BackendUnavailableError and leaves the active backend as it was.
 */
export const initBackend = async (
  preferred: BackendChoice = "auto",
  options: InitBackendOptions = {},
): Promise<BackendName> => {
  // The wasm backend's Emscripten runtime adds process handlers that rethrow every uncaught error from its
  // own minified file, so Node prints 38 KB of it before the error and exits 7. Dropped once it has loaded:
  // a script's own errors then read as Node prints them.
  const before = {
    uncaughtException: new Set(process.listeners("uncaughtException")),
    unhandledRejection: new Set(process.listeners("unhandledRejection")),
  };
  try {
    return await chooseBackend(preferred, options);
  } finally {
    for (const listener of process.listeners("uncaughtException"))
      if (!before.uncaughtException.has(listener)) process.removeListener("uncaughtException", listener);
    for (const listener of process.listeners("unhandledRejection"))
      if (!before.unhandledRejection.has(listener)) process.removeListener("unhandledRejection", listener);
  }
};

const chooseBackend = async (preferred: BackendChoice, options: InitBackendOptions): Promise<BackendName> => {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (preferred !== "auto" && !BACKEND_ORDER.includes(preferred))
    throw new UsageError({
      detail: `backend must be "auto" or one of ${BACKEND_ORDER.join(", ")}; got ${JSON.stringify(preferred)}`,
    });
  const ready = announced !== null && tf.getBackend() === announced;
  if (ready && (preferred === "auto" || preferred === announced)) return announced as BackendName;
  let chosen: BackendName;
  if (preferred === "auto") chosen = await activateFastest();
  else {
    const reason = await ATTEMPTS[preferred](true);
    if (reason !== null) {
      throw new BackendUnavailableError({ requested: preferred, reason, available: await availableBackends() });
    }
    chosen = preferred;
  }
  if (chosen === "wasm") registerMissingWasmKernels();
  if (chosen === "cpu") registerLinearCpuSegmentSum();
  registerGradients();
  if (announced !== chosen) log(`tfjs backend: ${chosen}`);
  announced = chosen;
  return chosen;
};

interface WasmBackendLike {
  readSync(dataId: object): ArrayLike<number>;
  makeOutput(shape: number[], dtype: tf.DataType, memoryOffset?: number, values?: ArrayLike<number>): tf.TensorInfo;
}

/** out[segmentIds[i], ...] += x[i, ...] in one pass over x (ids outside [0, numSegments) are dropped, as tfjs does). */
const segmentSums = (
  values: ArrayLike<number>,
  ids: ArrayLike<number>,
  numSegments: number,
  dtype: tf.DataType,
): Int32Array | Float32Array => {
  const inner = ids.length === 0 ? 0 : values.length / ids.length;
  const out = dtype === "int32" ? new Int32Array(numSegments * inner) : new Float32Array(numSegments * inner);
  for (let i = 0; i < ids.length; i++) {
    const segment = ids[i] as number;
    if (segment < 0 || segment >= numSegments) continue;
    const from = i * inner;
    const to = segment * inner;
    for (let j = 0; j < inner; j++) out[to + j] += values[from + j] as number;
  }
  return out;
};

/**
 * UnsortedSegmentSum on wasm, in JS: out[segmentIds[i], ...] += x[i, ...]. It is the gradient of gather
 * (embedding lookups) and wasm ships without it. Cheap for embedding-sized tensors.
 */
const unsortedSegmentSumWasm: tf.KernelFunc = ({ inputs, attrs, backend }) => {
  const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
  const numSegments = (attrs as { numSegments: number }).numSegments;
  const wasm = backend as unknown as WasmBackendLike;
  const out = segmentSums(wasm.readSync(x.dataId), wasm.readSync(segmentIds.dataId), numSegments, x.dtype);
  const shape = [numSegments, ...x.shape.slice(segmentIds.shape.length)];
  return wasm.makeOutput(shape, x.dtype, undefined, out);
};

interface CpuBackendLike {
  readSync(dataId: object): ArrayLike<number>;
  makeTensorInfo(shape: number[], dtype: tf.DataType, values?: ArrayLike<number>): tf.TensorInfo;
}

/**
 * UnsortedSegmentSum on cpu in one pass, as on wasm. tfjs-backend-cpu's own runs one equal, multiply and sum over
 * the whole input per segment (numSegments x size work, allocating tensors each time): the copy head sums its
 * [rows x slots] scores into rows x vocab segments, so scoring 4 rows of 40 tokens took 35 s and an update of a
 * lookup run sat for minutes. The sum adds the same values in the same order, so results do not change.
 */
const unsortedSegmentSumCpu: tf.KernelFunc = ({ inputs, attrs, backend }) => {
  const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
  const numSegments = (attrs as { numSegments: number }).numSegments;
  const cpu = backend as unknown as CpuBackendLike;
  const out = segmentSums(cpu.readSync(x.dataId), cpu.readSync(segmentIds.dataId), numSegments, x.dtype);
  return cpu.makeTensorInfo([numSegments, ...x.shape.slice(segmentIds.shape.length)], x.dtype, out);
};

const registerLinearCpuSegmentSum = (): void => {
  if (tf.getKernel("UnsortedSegmentSum", "cpu")?.kernelFunc === unsortedSegmentSumCpu) return;
  tf.unregisterKernel("UnsortedSegmentSum", "cpu");
  tf.registerKernel({ kernelName: "UnsortedSegmentSum", backendName: "cpu", kernelFunc: unsortedSegmentSumCpu });
};

const registerMissingWasmKernels = (): void => {
  if (tf.getKernel("UnsortedSegmentSum", "wasm") === undefined) {
    tf.registerKernel({ kernelName: "UnsortedSegmentSum", backendName: "wasm", kernelFunc: unsortedSegmentSumWasm });
  }
};

/** A wasm memory trap, by its message: what tfjs-backend-wasm throws when its heap is full. */
export const isWasmMemoryTrap = (message: string): boolean => /memory access out of bounds/.test(message);

/** Said with a wasm memory trap: in a command's error, and with episodes that aborted on one while sampling. */
export const WASM_MEMORY_HINT =
  "most likely the TensorFlow.js wasm backend ran out of memory (its heap cannot grow past 4 GiB). A long " +
  "--context-length is the usual cause (attention holds context x context numbers per head and layer, in " +
  "sampling and in each pass of an update); a run keeps its context and model when resumed, so start a new " +
  "run with a shorter --context-length or a smaller model, or go on with --backend tensorflow or cpu, which " +
  "have no such limit";

/**
 * The wasm backend out of memory, as one line: its heap cannot grow past 4 GiB, and tfjs says so only as
 * "memory access out of bounds" (or a failed allocation) deep in a stack. Undefined for any other error.
 */
export const wasmOutOfMemory = (cause: unknown): string | undefined => {
  const message = cause instanceof Error ? cause.message : "";
  const trap =
    cause instanceof Error &&
    cause.name === "RuntimeError" &&
    (isWasmMemoryTrap(message) || /out of memory/i.test(message));
  const allocation = cause instanceof RangeError && /WebAssembly\.Memory/i.test(message);
  return trap || allocation ? `${message}: ${WASM_MEMORY_HINT}` : undefined;
};
