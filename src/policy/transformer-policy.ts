/**
 * The GPT as a Policy: every request of a call goes into one batched sampler call, each row with its own
 * seed (so an action never depends on the batch it shared). Contexts longer than the model allows are
 * cut from the front: the last contextLength - maxNewTokens tokens are kept, so the prompt and the whole
 * action fit the position embeddings.
 *
 * `version` is bumped by the learner after each update; an action carries the version current when
 * act() was called.
 */
import { checkKnownKeys, shownValue } from "../kernel/errors.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import type { Policy, PolicyAction, PolicyRequest } from "../runtime/policy.ts";
import type { Gpt } from "./gpt.ts";
import { type AllowedNext, type SampleRow, sample } from "./sampler.ts";

/** How TransformerPolicy samples actions. */
export interface SamplingConfig {
  /** Sampling temperature (logprobs are always reported at temperature 1; see sampler.ts). */
  readonly temperature: number;
  /** Nucleus sampling: draw from the smallest set of tokens whose probability reaches this (1: all). */
  readonly topP: number;
  /** Most tokens one action takes; a longer one is cut (and so comes out malformed). */
  readonly maxNewTokens: number;
  /** Ids that end an action (included in it). Default: the tokenizer's <eos>. */
  readonly stopTokens: readonly number[];
  /** Argmax decoding, for evaluation and ReMax baselines. */
  readonly greedy: boolean;
}

/** Constrained decoding: the allowed next ids, and (when known) how many tokens the longest legal action takes. */
export type Constraint = AllowedNext & { readonly longest?: number };

export interface TransformerPolicyOptions {
  readonly id: string;
  readonly model: Gpt;
  readonly tokenizer: Tokenizer;
  readonly version?: number;
  readonly sampling?: Partial<SamplingConfig>;
  /** Constrained decoding: per request, a callback giving the allowed next ids (or null: unconstrained). */
  readonly constrain?: (request: PolicyRequest) => Constraint | null | undefined;
}

/** What TransformerPolicy's `sampling` holds, each field checked: a wrong one is named with its value. */
const checkSampling = (sampling: Partial<SamplingConfig>): void => {
  checkKnownKeys("TransformerPolicy's sampling", sampling, [
    "temperature",
    "topP",
    "maxNewTokens",
    "stopTokens",
    "greedy",
  ]);
  const { temperature, topP, maxNewTokens, stopTokens, greedy } = sampling;
  const refuse = (field: string, must: string, value: unknown): never => {
    throw new RangeError(`TransformerPolicy: sampling.${field} must be ${must}, got ${shownValue(value)}`);
  };
  if (
    temperature !== undefined &&
    !(typeof temperature === "number" && Number.isFinite(temperature) && temperature >= 0)
  )
    refuse("temperature", "a finite number >= 0 (0: greedy)", temperature);
  if (topP !== undefined && !(typeof topP === "number" && topP > 0 && topP <= 1))
    refuse("topP", "a number in (0, 1]", topP);
  if (maxNewTokens !== undefined && !(Number.isInteger(maxNewTokens) && maxNewTokens >= 1))
    refuse("maxNewTokens", "an integer >= 1 (the most tokens one action takes)", maxNewTokens);
  if (
    stopTokens !== undefined &&
    !(Array.isArray(stopTokens) && stopTokens.every((id) => Number.isInteger(id) && id >= 0))
  )
    refuse("stopTokens", "an array of token ids", stopTokens);
  if (greedy !== undefined && typeof greedy !== "boolean") refuse("greedy", "true or false", greedy);
};

/**
 * A Policy that samples from a Gpt (defaults: temperature 1, topP 1, maxNewTokens 32, stop at <eos>). Throws a
 * RangeError when the tokenizer has more ids than the model, or maxNewTokens leaves no room for a context.
 */
export class TransformerPolicy implements Policy {
  readonly id: string;
  readonly tokenizer: Tokenizer;
  readonly model: Gpt;
  readonly sampling: SamplingConfig;
  /** Constrained decoding's allowed next ids per request; absent: unconstrained. */
  readonly constrain?: (request: PolicyRequest) => Constraint | null | undefined;
  /** Bumped by the learner after each update. */
  version: number;

  constructor(options: TransformerPolicyOptions) {
    // A misspelt option (`sampling: { temp: 0.5 }`) was dropped without a word, and a value out of range
    // (temperature -1, topP 2) aborted every episode later, "row 0: temperature must be >= 0": refused here.
    checkKnownKeys("TransformerPolicy", options, ["id", "model", "tokenizer", "version", "sampling", "constrain"]);
    if (options.sampling !== undefined) checkSampling(options.sampling);
    const { model, tokenizer } = options;
    if (tokenizer.size > model.config.vocabSize) {
      throw new RangeError(`tokenizer has ${tokenizer.size} ids but the model only ${model.config.vocabSize}`);
    }
    const eos = tokenizer.idOf("<eos>");
    this.id = options.id;
    this.tokenizer = tokenizer;
    this.model = model;
    this.version = options.version ?? 0;
    this.constrain = options.constrain;
    this.sampling = {
      temperature: options.sampling?.temperature ?? 1,
      topP: options.sampling?.topP ?? 1,
      maxNewTokens: options.sampling?.maxNewTokens ?? 32,
      stopTokens: options.sampling?.stopTokens ?? (eos === undefined ? [] : [eos]),
      greedy: options.sampling?.greedy ?? false,
    };
    if (this.sampling.maxNewTokens >= model.config.contextLength) {
      throw new RangeError(
        `maxNewTokens ${this.sampling.maxNewTokens} leaves no room for a context in contextLength ${model.config.contextLength}`,
      );
    }
  }

  /**
   * The request's context, cut to fit. No token is ever invented (an empty context is an error): the
   * learner must see exactly the tokens the sampler saw.
   */
  private contextOf(request: PolicyRequest, maxNewTokens: number): readonly number[] {
    if (request.context.length === 0) {
      throw new RangeError(`request ${request.episode} turn ${request.turn} has an empty context`);
    }
    return request.context.slice(-(this.model.config.contextLength - maxNewTokens));
  }

  async act(requests: readonly PolicyRequest[]): Promise<readonly PolicyAction[]> {
    const version = this.version;
    const rows = requests.map((request): SampleRow => {
      const allowedNext = this.constrain?.(request) ?? undefined;
      // Under a constraint the longest legal action sets the budget: cut short, it would come out malformed.
      const longest = allowedNext?.longest ?? 0;
      const maxNewTokens = Math.max(this.sampling.maxNewTokens, longest);
      if (maxNewTokens >= this.model.config.contextLength)
        throw new RangeError(
          `a legal action of ${request.episode} turn ${request.turn} takes ${longest} tokens, which leaves no room for a context in contextLength ${this.model.config.contextLength}`,
        );
      return {
        context: this.contextOf(request, maxNewTokens),
        seed: request.seed,
        maxNewTokens,
        temperature: this.sampling.temperature,
        topP: this.sampling.topP,
        stopTokens: this.sampling.stopTokens,
        greedy: this.sampling.greedy,
        allowedNext,
      };
    });
    if (rows.length === 0) return [];
    const results = await sample(this.model, rows);
    return results.map(
      (result): PolicyAction => ({
        tokens: result.tokens,
        text: this.tokenizer.decode(result.tokens),
        logprobs: result.logprobs,
        version,
        ...(result.allowed ? { allowed: result.allowed } : {}),
      }),
    );
  }
}
