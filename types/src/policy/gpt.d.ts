/**
 * A GPT-style causal transformer with a scalar value head, on tfjs-core ops and variables.
 *
 *   x_0 = E[token] + P[position]                     learned position embeddings (or ALiBi, below)
 *   x_{l+1} = x_l + Attn(LN(x_l)),  then  + MLP(LN(.))  pre-LayerNorm blocks
 *   logits = LN_f(x_L) E^T   (tied)  or  LN_f(x_L) W_head
 *   value  = LN_f(x_L) w_v + b_v                     one scalar per position, for PPO
 *
 * With `copy` on, a pointer head lets the model copy from its context: position t scores every earlier
 * slot s < t (q_t . k_s over the final hidden states), and one softmax runs jointly over the vocabulary
 * logits and these copy scores; choosing slot s emits the token that followed it (id[s + 1]). The token's
 * probability is its vocabulary share plus the shares of every slot it followed, and the model returns
 * log p in place of logits (a normalised distribution, so every sampler and loss works unchanged). Copying
 * a name from a retrieved passage then needs one attention pattern ("the slot after `studio is`"), not an
 * attention pattern plus a value path that carries the name's identity to the output.
 *
 * With `positions: "alibi"` there is no P: each head h adds -m_h * (t - s) to the score of query t on key
 * s (slopes m_h = 2^(-8(h+1)/heads), Press et al.'s ALiBi). Nothing then depends on where a sequence sits,
 * only on distances, so a model trained on short episodes meets no untrained position in a longer one.
 *
 * With `attention: "turn-local"` a slot sees, besides the causal rule, only the prompt and the slots of its own
 * turn and of the turn before it. A turn starts at each id of `turnStarts` (the first token of every policy
 * action, e.g. `<search>` and `<answer>`) and runs through the observation that answers it; the prompt is every
 * slot before the first such id. Segments come from the ids alone (segment 0 the prompt, k the k-th turn), so the
 * full forward, the KV cache and the copy head (which may copy only from slots it sees) apply the same rule.
 * No slot attends to a turn before the previous one, so none reads directly how many turns came before it (with
 * L layers it still hears of L turns back, through the previous turn's hidden states).
 *
 * No dropout: RL needs the logprobs of the sampling pass and of the training pass to agree exactly.
 *
 * Speed on wasm: every projection is a plain 2-D matMul on [B*T, in] x [in, out], with a
 * gradient that transposes explicitly (matMul's own gradient uses transpose flags, measured 10-40x slower
 * there). Embeddings are gathers whose gradient is a segment sum. Log-probabilities and entropies come
 * from the vectorised Softmax kernel, not from elementwise exp/log over [B*T, V]. Attention uses batched
 * 3-D matMuls, whose speed on wasm does not depend on the transpose flags. ReLU by default (tanh is slow).
 *
 * Row layout: a row may start with `leftPad[b]` pad slots; its real tokens get positions 0, 1, ... and
 * pad slots are masked out as keys. A row's outputs therefore do not depend on its padding or on the
 * other rows of the batch (up to float summation order). The outputs *at* pad slots are meaningless (every
 * key they could see is masked): never read or train them.
 */
import * as tf from "@tensorflow/tfjs-core";
/** The model's shape and initialisation; gptConfig fills the defaults (DEFAULT_GPT_CONFIG) and checks it. */
export interface GptConfig {
    /** Number of token ids (the tokenizer's size). */
    readonly vocabSize: number;
    /** Longest sequence the position embeddings cover. */
    readonly contextLength: number;
    /** Transformer blocks. */
    readonly layers: number;
    /** Attention heads per block. */
    readonly heads: number;
    /** Model width d; must be a multiple of `heads`. */
    readonly width: number;
    /** MLP hidden width = mlpRatio * width. */
    readonly mlpRatio: number;
    /** relu is the default: tanh (gelu) measured several times slower per element on wasm. */
    readonly activation: "relu" | "gelu";
    /** Output projection shares the token embedding matrix. */
    readonly tiedEmbeddings: boolean;
    /** Standard deviation of the initial weights (residual projections are scaled by 1/sqrt(2 layers)). */
    readonly initStd: number;
    readonly layerNormEps: number;
    /** A pointer head that copies tokens from the context (see the top of this file); absent = off. */
    readonly copy?: boolean;
    /** Learned absolute position embeddings (absent: the default) or ALiBi's distance biases. */
    readonly positions?: "learned" | "alibi";
    /** Which earlier slots a slot attends to: all (absent: the default) or turn-local (see the top of this file). */
    readonly attention?: "full" | "turn-local";
    /** With turn-local attention: the ids that start a turn (the first token of each policy action). */
    readonly turnStarts?: readonly number[];
}
/** The defaults gptConfig fills in: a 2-layer, 4-head, width-64 GPT over 512 ids and 128 positions. */
export declare const DEFAULT_GPT_CONFIG: GptConfig;
/** A complete, checked config from overrides of the defaults. */
export declare const gptConfig: (overrides?: Partial<GptConfig>) => GptConfig;
type Init = {
    readonly kind: "normal";
    readonly std: number;
} | {
    readonly kind: "zeros" | "ones";
};
/** Named trainable variables, in creation order. Each is seeded by `${seed}:${name}`. */
export declare class ParameterStore {
    readonly seed: string;
    readonly variables: Map<string, tf.Variable<tf.Rank>>;
    constructor(seed: string);
    create(name: string, shape: readonly number[], init: Init): tf.Variable;
}
declare class Linear {
    readonly weight: tf.Variable;
    readonly bias: tf.Variable | null;
    constructor(store: ParameterStore, name: string, inputs: number, outputs: number, std: number, bias?: boolean);
    apply(x: tf.Tensor2D): tf.Tensor2D;
}
declare class LayerNorm {
    readonly eps: number;
    readonly gain: tf.Variable;
    readonly bias: tf.Variable;
    constructor(store: ParameterStore, name: string, width: number, eps: number);
    apply(x: tf.Tensor2D): tf.Tensor2D;
}
/** Keys and values of one layer for every slot seen so far: [B, heads, S, headWidth]. */
export interface LayerCache {
    readonly keys: tf.Tensor4D;
    readonly values: tf.Tensor4D;
}
declare class CausalSelfAttention {
    readonly config: GptConfig;
    readonly query: Linear;
    readonly key: Linear;
    readonly value: Linear;
    readonly proj: Linear;
    constructor(store: ParameterStore, name: string, config: GptConfig);
    /**
     * x [B*T, d] for T new slots; `mask` is additive, broadcastable to [B, heads, T, S] where S = past + T.
     * Returns the output [B*T, d] and this layer's keys and values over all S slots.
     */
    apply(x: tf.Tensor2D, batch: number, mask: tf.Tensor, past?: LayerCache): {
        y: tf.Tensor2D;
        cache: LayerCache;
    };
}
declare class Mlp {
    readonly config: GptConfig;
    readonly fc: Linear;
    readonly proj: Linear;
    constructor(store: ParameterStore, name: string, config: GptConfig);
    apply(x: tf.Tensor2D): tf.Tensor2D;
}
declare class Block {
    readonly ln1: LayerNorm;
    readonly attn: CausalSelfAttention;
    readonly ln2: LayerNorm;
    readonly mlp: Mlp;
    constructor(store: ParameterStore, name: string, config: GptConfig);
    apply(x: tf.Tensor2D, batch: number, mask: tf.Tensor, past?: LayerCache): {
        x: tf.Tensor2D;
        cache: LayerCache;
    };
}
/** Per-token results of scoring targets, each [B, T]. */
export interface TokenStats {
    /** log p(target_t | inputs_<=t) under the (optionally masked) distribution at temperature 1. */
    readonly logprobs: tf.Tensor2D;
    /** Entropy of that same distribution. */
    readonly entropy: tf.Tensor2D;
    /** Value head on the state inputs_<=t, i.e. before target_t is emitted. */
    readonly values: tf.Tensor2D;
}
export interface ForwardOptions {
    /** Pad slots at the start of each row (default none): masked as keys, real tokens start at position 0. */
    readonly leftPad?: readonly number[];
    /**
     * Training only (randomized positions, Ruoss et al. 2023): each row's real tokens start at this position
     * instead of 0, so every learned position embedding is trained on every kind of content. Unpadded rows
     * only; a slot past contextLength - 1 (right padding, never scored) is clamped. Ignored with ALiBi.
     */
    readonly positionOffsets?: readonly number[];
    /**
     * The ids of `tokens`, row-major, on the CPU. The copy head needs them to know what each slot would
     * copy; without them it reads the tensor back synchronously, which WebGPU under Node cannot do.
     */
    readonly ids?: ArrayLike<number>;
}
/** The KV cache of a batch being decoded. Owned by the caller: `disposeCache` it when done. */
export interface KvCache {
    readonly layers: readonly LayerCache[];
    readonly leftPad: readonly number[];
    /** Slots filled so far (pad slots included). */
    readonly slots: number;
    /** The output projection [d, V], transposed once per decode (transposes are slow on wasm). */
    readonly outputWeights: tf.Tensor2D;
    /** With the copy head: its keys for every slot [B, S, dc], and each row's ids slot by slot (pads included). */
    readonly copy?: {
        readonly keys: tf.Tensor3D;
        readonly ids: readonly (readonly number[])[];
    };
    /** With turn-local attention: each row's segment slot by slot (pads included, as 0). */
    readonly segments?: readonly (readonly number[])[];
}
/** The copy head's query and key projections (final hidden state to dc = width / heads). */
interface CopyHead {
    readonly query: Linear;
    readonly key: Linear;
    readonly width: number;
}
/**
 * The policy's model: a small decoder-only transformer with a value head (and optionally a copy head), its weights
 * initialised from `seed`. Call `dispose` to free its tensors.
 */
export declare class Gpt {
    readonly config: GptConfig;
    readonly store: ParameterStore;
    readonly tokenEmbedding: tf.Variable;
    /** Null with ALiBi. */
    readonly positionEmbedding: tf.Variable | null;
    /** ALiBi's slope per head; null with learned positions. */
    readonly slopes: readonly number[] | null;
    readonly blocks: readonly Block[];
    readonly lnF: LayerNorm;
    readonly head: tf.Variable | null;
    readonly valueHead: Linear;
    readonly copyHead: CopyHead | null;
    /** With turn-local attention: the ids that start a turn; null with full attention. */
    readonly turnStarts: ReadonlySet<number> | null;
    constructor(config: Partial<GptConfig>, seed: string);
    /** Trainable variables by name, in a fixed order. */
    get parameters(): ReadonlyMap<string, tf.Variable>;
    /** Trainable numbers in the model. */
    parameterCount(): number;
    /** Frees the model's tensors; the model cannot be used after. */
    dispose(): void;
    /** Logits [B, T, V] for every position of `tokens` [B, T] (int32). */
    logits(tokens: tf.Tensor2D, options?: ForwardOptions): tf.Tensor3D;
    /**
     * Scores `targets` [B, T] given `inputs` [B, T] (usually targets = inputs shifted left by one). The
     * additive `logitMask` [B, T, V] (0 allowed, MASKED forbidden) applies constrained decoding's masks.
     */
    tokenStats(inputs: tf.Tensor2D, targets: tf.Tensor2D, options?: ForwardOptions & {
        readonly logitMask?: tf.Tensor3D;
    }): TokenStats;
    /**
     * Runs the left-padded contexts [B][*] through the model and returns the next-token logits [B, V] and
     * the KV cache. Every context must be non-empty.
     */
    prefill(contexts: readonly (readonly number[])[]): {
        logits: tf.Tensor2D;
        cache: KvCache;
    };
    /**
     * Feeds one token per row and returns the next logits [B, V] and the extended cache. The old cache's
     * tensors are disposed (the new one shares nothing with it). A row already at contextLength keeps its
     * last position: its logits mean nothing (a finished row riding along); callers check bounds first.
     */
    decode(cache: KvCache, tokens: readonly number[]): {
        logits: tf.Tensor2D;
        cache: KvCache;
    };
    /**
     * Final-LayerNormed hidden states [B*T, d] and each layer's keys and values; with turn-local attention, each
     * row's segments (from `ids`, the tokens' ids row-major, else read back from the tensor).
     */
    private trunk;
    /**
     * Output logits [B*T, V] for hidden [B*T, d] of `tokens` [B, T]: the vocabulary logits, or with the copy
     * head log p of the mixture (position t may copy from slots leftPad <= s < t).
     */
    private outputs;
    /**
     * One decoding position per row: hidden [B, d], its vocabulary logits [B, V], the copy keys of every
     * slot [B, S, dc]; row b may copy from slots leftPad[b] <= s < `before`, emitting `emits(b, s)`.
     */
    private copyStep;
    /** Token + position embeddings [N, d] from ids [N] and positions [N] (unused, and not uploaded, with ALiBi). */
    private embed;
    /** The output projection [d, V]. */
    private outputWeights;
    /** Hidden [N, d] to logits [N, V]. */
    private project;
}
export declare const disposeCache: (cache: KvCache) => void;
/**
 * The additive logit mask [B, T, V] for per-token allowed lists (null or missing = unconstrained), or
 * null when nothing is constrained.
 */
export declare const allowedLogitMask: (allowed: readonly (readonly (readonly number[] | null | undefined)[] | undefined)[], time: number, vocab: number) => tf.Tensor3D | null;
export {};
