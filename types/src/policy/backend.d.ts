/*
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
export type BackendName = "tensorflow" | "webgpu" | "wasm" | "cpu";
/** A tfjs backend by name, or "auto" for the fastest one available. */
export type BackendChoice = "auto" | BackendName;
export declare const BACKEND_ORDER: readonly BackendName[];
declare const BackendUnavailableError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "BackendUnavailableError";
} & Readonly<A>;
/** The backend asked for cannot be loaded here; says why and which ones can. */
export declare class BackendUnavailableError extends BackendUnavailableError_base<{
    readonly requested: BackendName;
    readonly reason: string;
    readonly available: readonly BackendName[];
}> {
    get message(): string;
}
export interface InitBackendOptions {
    /** Where the one line naming the chosen backend goes. Default: stderr. */
    readonly log?: (line: string) => void;
}
/**
 * Makes `preferred` the active tfjs backend ("auto": the fastest that works) and returns its name. The
 * choice is logged once (again only when it changes). An explicit choice that cannot be used throws
 * BackendUnavailableError and leaves the active backend as it was.
 */
export declare const initBackend: (preferred?: BackendChoice, options?: InitBackendOptions) => Promise<BackendName>;
/** A wasm memory trap, by its message: what tfjs-backend-wasm throws when its heap is full. */
export declare const isWasmMemoryTrap: (message: string) => boolean;
/** Said with a wasm memory trap: in a command's error, and with episodes that aborted on one while sampling. */
export declare const WASM_MEMORY_HINT: string;
/**
 * The wasm backend out of memory, as one line: its heap cannot grow past 4 GiB, and tfjs says so only as
 * "memory access out of bounds" (or a failed allocation) deep in a stack. Undefined for any other error.
 */
export declare const wasmOutOfMemory: (cause: unknown) => string | undefined;
export {};
