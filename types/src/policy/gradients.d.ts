/*
 * Gradients for the kernels the GPT and the losses use.
 *
 * The Node build of tfjs-core registers no gradients (the full `@tensorflow/tfjs` bundle does), and its
 * ESM files cannot be imported by Node (extensionless specifiers). So we register our own, only for
 * kernels that have none yet: with the full bundle installed, its gradients stay in charge.
 *
 * Each gradient is the textbook derivative; binary ops sum the incoming gradient over broadcast axes.
 * Only kernels that exist on wasm are used inside them.
 */
/** Registers the gradients above for every kernel that has none yet. Idempotent. */
export declare const registerGradients: () => void;
