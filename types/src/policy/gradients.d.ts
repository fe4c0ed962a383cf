/** Registers the gradients above for every kernel that has none yet. Idempotent. */
export declare const registerGradients: () => void;
