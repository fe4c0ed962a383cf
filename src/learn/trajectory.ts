/**
 * Journal -> training sequences, token-in/token-out.
 *
 * Append layout (the paper's): one sequence per episode,
 *   tokens = prompt ++ a_0 ++ o_1 ++ a_1 ++ o_2 ++ ... ++ a_T [++ o_{T+1}]
 * the exact concatenation of the recorded ids (never decoded and re-encoded: that drift cost Python
 * frameworks whole runs). Step layout (Agent-R1 v0.1.0's step-level MDP): one sequence per turn t whose
 * prompt is the context before a_t and whose response is a_t alone.
 *
 * Reward placement: a process reward of turn t sits on the last token of a_t, the outcome reward on the
 * last action token of the episode. A reward whose action has no token (empty action, or no such turn)
 * cannot be placed: it is dropped and counted in `droppedRewards`.
 */
import * as Data from "effect/Data";
import { checkGivenEvents } from "../journal/validate.ts";
import { hashValue } from "../kernel/canonical.ts";
import type { EpisodeEvent, EventOf } from "../kernel/events.ts";

/** Token span [start, end) of one action inside its sequence. */
export interface ActionSpan {
  readonly turn: number;
  readonly start: number;
  readonly end: number;
}

/**
 * An episode as the learner sees it: one token sequence with per-token masks, logprobs and rewards (or, in the step
 * layout, one sequence per action).
 */
export interface Sequence {
  readonly episode: string;
  /** Episodes of one group are compared with each other (GRPO, RLOO, ...): same task, same group. */
  readonly group: string;
  /** Step layout only: the turn whose action is this sequence's response. */
  readonly turn?: number;
  readonly tokens: readonly number[];
  /** Tokens before the response: the prompt (append) or the whole context before the action (step). */
  readonly promptLength: number;
  /** 1 on tokens the policy sampled, 0 on prompt and observation tokens: the loss and advantage mask. */
  readonly actionMask: readonly number[];
  /** 1 on every token after the prompt (actions and observations); the "no mask" ablations use it. */
  readonly responseMask: readonly number[];
  /** Recorded logprob of each sampled token; 0 where not sampled. */
  readonly logprobs: readonly number[];
  /** Policy version that sampled each token; -1 where not sampled. */
  readonly versions: readonly number[];
  /** Constrained decoding: ids allowed at each sampled token; null where unconstrained or not sampled. */
  readonly allowed: readonly (readonly number[] | null)[];
  /** Per-token reward r_t (process rewards already weighted); non-zero only on action tokens. */
  readonly rewards: readonly number[];
  /** Sum of the placed process rewards, unweighted. Step layout: the whole episode's. */
  readonly processReturn: number;
  /** Sum of the placed outcome rewards. Step layout: the whole episode's. */
  readonly outcomeReturn: number;
  /**
   * R = processRewardWeight * processReturn + outcomeReturn. In the append layout it equals sum(rewards).
   * In the step layout every step carries its episode's R (so sequence-level estimators give all steps
   * of an episode one advantage) while `rewards` holds only this step's share.
   */
  readonly totalReturn: number;
  readonly turns: readonly ActionSpan[];
  readonly metrics: Readonly<Record<string, number>>;
  /** Reward events that could not be placed on an action token (episode-wide). */
  readonly droppedRewards: number;
  /** Set by `fitToContext` on an episode cut to the model's context: its length in tokens before the cut. */
  readonly cutFrom?: number;
}

/** Options of episodeToSequence. */
export interface TrajectoryOptions {
  /** Weight of process rewards in `rewards` and `totalReturn`; 0 turns them off. Default 1. */
  readonly processRewardWeight?: number;
  /** Longest sequence accepted; a longer one is an error, never silently truncated. Default unbounded. */
  readonly maxTokens?: number;
  /** Group id. Default hashValue(task) of episode.started, so G episodes of one task share a group. */
  readonly group?: string;
}

type Acted = EventOf<"agent.acted">;

/** Builds the append layout; `maxTokens` is left to the callers, which check their own layout. */
const buildAppend = (events: readonly EpisodeEvent[], options: TrajectoryOptions): Sequence => {
  const started = events.find((e): e is EventOf<"episode.started"> => e.type === "episode.started");
  if (started === undefined) throw new Error("episode has no episode.started event");
  const episode = started.episode;
  const ended = events.find((e): e is EventOf<"episode.ended"> => e.type === "episode.ended");
  if (ended === undefined) throw new Error(`episode ${episode} has no episode.ended event (incomplete journal)`);
  const weight = options.processRewardWeight ?? 1;

  const tokens: number[] = [];
  const actionMask: number[] = [];
  const logprobs: number[] = [];
  const versions: number[] = [];
  const allowed: (readonly number[] | null)[] = [];
  const turns: ActionSpan[] = [];
  let promptLength: number | undefined;

  const appendAction = (acted: Acted): void => {
    const n = acted.tokens.length;
    if (acted.logprobs.length !== n) {
      throw new Error(
        `episode ${episode} turn ${acted.turn}: ${n} tokens but ${acted.logprobs.length} logprobs recorded`,
      );
    }
    if (acted.allowed !== undefined && acted.allowed.length !== n) {
      throw new Error(
        `episode ${episode} turn ${acted.turn}: ${n} tokens but ${acted.allowed.length} allowed-id lists recorded`,
      );
    }
    promptLength ??= tokens.length;
    const start = tokens.length;
    for (let i = 0; i < n; i++) {
      tokens.push(acted.tokens[i]);
      actionMask.push(1);
      logprobs.push(acted.logprobs[i]);
      versions.push(acted.policy.version);
      allowed.push(acted.allowed?.[i] ?? null);
    }
    turns.push({ turn: acted.turn, start, end: tokens.length });
  };

  for (const event of events) {
    if (event.episode !== episode) {
      throw new Error(`episode ${episode}: event seq ${event.seq} belongs to episode ${event.episode}`);
    }
    if (event.type === "agent.acted") appendAction(event);
    else if (event.type === "env.observed") {
      for (const id of event.tokens) {
        tokens.push(id);
        actionMask.push(0);
        logprobs.push(0);
        versions.push(-1);
        allowed.push(null);
      }
    }
  }
  const prompt = promptLength ?? tokens.length;

  const rewards: number[] = new Array(tokens.length).fill(0);
  const spanOfTurn = new Map(turns.map((span) => [span.turn, span]));
  const lastActionToken = actionMask.lastIndexOf(1);
  let processReturn = 0;
  let outcomeReturn = 0;
  let droppedRewards = 0;
  for (const event of events) {
    if (event.type !== "reward.assigned") continue;
    if (event.kind === "process") {
      const span = spanOfTurn.get(event.turn);
      if (span === undefined || span.end === span.start) {
        droppedRewards++;
        continue;
      }
      rewards[span.end - 1] += weight * event.value;
      processReturn += event.value;
    } else {
      if (lastActionToken < 0) {
        droppedRewards++;
        continue;
      }
      rewards[lastActionToken] += event.value;
      outcomeReturn += event.value;
    }
  }

  return {
    episode,
    group: options.group ?? hashValue(started.task),
    tokens,
    promptLength: prompt,
    actionMask,
    responseMask: tokens.map((_, i) => (i < prompt ? 0 : 1)),
    logprobs,
    versions,
    allowed,
    rewards,
    processReturn,
    outcomeReturn,
    totalReturn: weight * processReturn + outcomeReturn,
    turns,
    metrics: ended.metrics,
    droppedRewards,
  };
};

/** An episode (or step) longer than the model's context: the trainer drops it, cloning refuses it. */
export class EpisodeTooLongError extends Data.TaggedError("EpisodeTooLongError")<{
  /** What was too long (an episode, or one step of one), for the message. */
  readonly what: string;
  readonly tokens: number;
  /** The model's context length. */
  readonly maxTokens: number;
}> {
  override get message(): string {
    return (
      `${this.what} has ${this.tokens} tokens, more than the model's context of ${this.maxTokens}; ` +
      "give the model a longer context or bound the environment's episodes (fewer turns, shorter observations)"
    );
  }
}

const checkLength = (sequence: Sequence, maxTokens: number | undefined, what: string): void => {
  if (maxTokens !== undefined && sequence.tokens.length > maxTokens)
    throw new EpisodeTooLongError({ what, tokens: sequence.tokens.length, maxTokens });
};

/** One sequence per episode: prompt, actions and observations, in journal order. */
export const episodeToSequence = (events: readonly EpisodeEvent[], options: TrajectoryOptions = {}): Sequence => {
  checkGivenEvents(events, "episodeToSequence");
  const sequence = buildAppend(events, options);
  checkLength(sequence, options.maxTokens, `episode ${sequence.episode}`);
  return sequence;
};

/**
 * An append-layout episode cut to a model's context, for training, instead of leaving it out. A policy
 * samples an action from a context cut at the front once the episode no longer fits (the last
 * contextLength - maxNewTokens tokens, `TransformerPolicy`), and the learner, which scores the sequence from
 * its start, must see the context each token was sampled from: so the sequence keeps the actions whose
 * sampler saw the whole episode before them (start + max(maxNewTokens, length) <= contextLength) and ends
 * after the last of them. The journal does not record a request's budget: under constrained decoding a
 * legal action longer than maxNewTokens raised it for that request (cutting its context sooner), so pass
 * the largest budget the run sampled with to be exact; the trainer passes its configured one. The rewards of the turns cut away move onto the last action token kept, so the
 * episode's return (`totalReturn`, the sum of `rewards`) is unchanged: a runaway episode that overflows the
 * context still pays for what it did. Returns the sequence itself when it fits, and undefined when not even
 * its first action was sampled from the whole context (nothing left to train on).
 */
export const fitToContext = (sequence: Sequence, contextLength: number, maxNewTokens: number): Sequence | undefined => {
  if (sequence.tokens.length <= contextLength) return sequence;
  const kept: ActionSpan[] = [];
  for (const span of sequence.turns) {
    if (span.start + Math.max(maxNewTokens, span.end - span.start) > contextLength) break;
    kept.push(span);
  }
  const end = kept.length > 0 ? kept[kept.length - 1].end : 0;
  const lastAction = end > 0 ? sequence.actionMask.lastIndexOf(1, end - 1) : -1;
  if (lastAction < 0) return undefined;
  const rewards = sequence.rewards.slice(0, end);
  for (let i = end; i < sequence.rewards.length; i++) rewards[lastAction] += sequence.rewards[i];
  return {
    ...sequence,
    tokens: sequence.tokens.slice(0, end),
    actionMask: sequence.actionMask.slice(0, end),
    responseMask: sequence.responseMask.slice(0, end),
    logprobs: sequence.logprobs.slice(0, end),
    versions: sequence.versions.slice(0, end),
    allowed: sequence.allowed.slice(0, end),
    rewards,
    turns: kept,
    cutFrom: sequence.tokens.length,
  };
};

/**
 * One sequence per turn t: prompt = every token before a_t (prompt, earlier actions, observations),
 * response = a_t. Only a_t is masked as sampled. `rewards` holds the rewards placed on a_t (its process
 * reward, and the outcome if a_t holds the episode's last action token), so chaining the steps of an
 * episode in turn order gives the same reward stream as the append layout (step-level GAE does that).
 * The returns (processReturn, outcomeReturn, totalReturn) are the episode's, shared by all its steps.
 */
export const episodeToSteps = (events: readonly EpisodeEvent[], options: TrajectoryOptions = {}): Sequence[] => {
  const whole = buildAppend(events, options);
  return whole.turns.map((span) => {
    const inAction = (i: number): boolean => i >= span.start;
    const length = span.end;
    const indices = Array.from({ length }, (_, i) => i);
    const step: Sequence = {
      ...whole,
      turn: span.turn,
      tokens: whole.tokens.slice(0, length),
      promptLength: span.start,
      actionMask: indices.map((i) => (inAction(i) ? 1 : 0)),
      responseMask: indices.map((i) => (inAction(i) ? 1 : 0)),
      logprobs: indices.map((i) => (inAction(i) ? whole.logprobs[i] : 0)),
      versions: indices.map((i) => (inAction(i) ? whole.versions[i] : -1)),
      allowed: indices.map((i) => (inAction(i) ? whole.allowed[i] : null)),
      rewards: indices.map((i) => (inAction(i) ? whole.rewards[i] : 0)),
      turns: [span],
    };
    checkLength(step, options.maxTokens, `episode ${whole.episode} turn ${span.turn}`);
    return step;
  });
};
