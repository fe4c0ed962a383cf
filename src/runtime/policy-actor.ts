/**
 * The shared policy actor: one mailbox for every concurrent episode. Requests that arrive while the
 * policy is busy (or within the same event-loop turn) are answered by one batched `act` call, at most
 * `maxBatch` rows at a time. Rows are independent (each carries its own seed), so batching changes
 * throughput, not what is sampled: only the last digits of a GPT's logprobs (about 1e-6: a row padded to a
 * longer neighbour is summed in another float order), and a token only where a draw falls that close to a
 * boundary. Which rows meet in a batch is itself deterministic unless tools take varying time. Independence
 * holds for failures too: when a batched call throws or outlives the policy's
 * timeoutMs, each of its rows is asked again alone (at most the policy's retryConcurrency at a time, default 8), so
 * only the episodes whose own row fails are aborted, and a batch of B rows takes at most
 * (1 + ceil(B / retryConcurrency)) x timeoutMs: 2 x timeoutMs for a batch no larger than retryConcurrency.
 */
import { isThenable, shownValue } from "../kernel/errors.ts";
import type { Policy, PolicyAction, PolicyRequest } from "./policy.ts";

interface Pending {
  readonly request: PolicyRequest;
  readonly resolve: (action: PolicyAction) => void;
  readonly reject: (cause: unknown) => void;
}

/** What is wrong with a value given as a Policy, or undefined for one that has its parts. */
export const notAPolicy = (policy: unknown): string | undefined => {
  // A factory of env.policies where the policy it makes was due: its source code was printed as the value.
  if (typeof policy === "function")
    return `got a function${policy.name ? ` (${policy.name})` : ""}, not a Policy: a factory of env.policies makes one when called, env.policies.${policy.name || "expert"}()`;
  if (typeof policy !== "object" || policy === null || isThenable(policy))
    return `got ${policy === undefined ? "nothing (undefined)" : shownValue(policy)}`;
  const { id, version, tokenizer, act } = policy as Partial<Record<keyof Policy, unknown>>;
  // A PolicyActor where its Policy was due (evaluate, collect and PolicyActor wrap it themselves): said as such,
  // not as "its id is undefined", which sent the reader looking for a missing field of their own policy.
  if (policy instanceof PolicyActor)
    return "that is a PolicyActor, which wraps a Policy; give the Policy itself (the one you passed to new PolicyActor(...), or actor.policy)";
  if (typeof id !== "string") return `its id is ${shownValue(id)}, not a string`;
  if (typeof act !== "function") return `policy ${id} has no act(requests) function`;
  if (typeof (tokenizer as { encode?: unknown } | undefined)?.encode !== "function")
    return `policy ${id} has no tokenizer (give it the environment's, env.tokenizer)`;
  if (!(typeof version === "number" && Number.isInteger(version) && version >= 0))
    return `policy ${id}'s version is ${shownValue(version)}, not a natural number`;
  const { timeoutMs } = policy as { timeoutMs?: unknown };
  if (
    timeoutMs !== undefined &&
    !(typeof timeoutMs === "number" && Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_TIMEOUT_MS)
  )
    return `policy ${id}'s timeoutMs is ${shownValue(timeoutMs)}, not an integer from 1 to ${MAX_TIMEOUT_MS} (milliseconds; leave it out for no limit)`;
  const { retryConcurrency } = policy as { retryConcurrency?: unknown };
  if (
    retryConcurrency !== undefined &&
    !(typeof retryConcurrency === "number" && Number.isInteger(retryConcurrency) && retryConcurrency >= 1)
  )
    return `policy ${id}'s retryConcurrency is ${shownValue(retryConcurrency)}, not a positive integer (the most rows of a failed batch asked again at a time; leave it out for ${DEFAULT_RETRY_CONCURRENCY})`;
  return undefined;
};

/** The most rows of a failed batch asked again at a time, for a policy that does not say (its retryConcurrency). */
const DEFAULT_RETRY_CONCURRENCY = 8;

/** Node's timers' limit (about 24.8 days), as for a tool's timeoutMs. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * The `act` calls in flight in this process, each described (`policy stuck's act() for ep-0-1 turn 2`): the CLI
 * names them when the process runs out of work while one never settles (a promise that holds nothing open).
 */
const inFlight = new Set<{ readonly call: string }>();
export const policyCallsInFlight = (): readonly string[] => [...inFlight].map(({ call }) => call);

/**
 * Batches concurrent episodes' requests into `act` calls of at most `maxBatch` rows (default 64): give one to
 * runEpisode or rollout. Throws a RangeError on a maxBatch that is not a positive integer.
 */
export class PolicyActor {
  private queue: Pending[] = [];
  private scheduled = false;
  private running = false;
  /** Batches answered so far and rows in them: batching efficiency is rows / batches. */
  batches = 0;
  /** Rows answered so far. */
  rows = 0;

  constructor(
    readonly policy: Policy,
    /** Most rows in one `act` call. */
    readonly maxBatch = 64,
  ) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1)
      throw new RangeError(`PolicyActor: maxBatch must be a positive integer, got ${shownValue(maxBatch)}`);
    // Anything else failed at the episode's start as "Cannot read properties of undefined (reading 'id')".
    const problem = notAPolicy(policy);
    if (problem) throw new TypeError(`PolicyActor takes a Policy ({ id, version, tokenizer, act }): ${problem}`);
  }

  /** Queues one request; it is answered in the next batch, and rejects only when its own row fails. */
  request(request: PolicyRequest): Promise<PolicyAction> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    // A canonical row order: what a batch computes never depends on which episode asked first.
    this.queue.sort((a, b) =>
      a.request.episode === b.request.episode
        ? a.request.turn - b.request.turn
        : a.request.episode < b.request.episode
          ? -1
          : 1,
    );
    const batch = this.queue.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    this.running = true;
    this.batches += 1;
    this.rows += batch.length;
    try {
      const failed = await this.answer(batch);
      if (failed && batch.length === 1) batch[0]!.reject(failed.cause);
      else if (failed) {
        // At most retryConcurrency rows at a time, each slot taking the next row as its call settles. One after
        // another (as it once was), when every row hangs (a service that is down), took (rows + 1) x timeoutMs (32
        // minutes for 64 rows at 30 s) while every other episode waited; all at once took 2 x timeoutMs but sent a
        // rate-limited API (a 429 on the batch) a burst of single-row calls. The cap bounds both: at most
        // (1 + ceil(rows / retryConcurrency)) x timeoutMs, and never more calls in flight than the cap.
        const rows = [...batch];
        const slot = async (): Promise<void> => {
          for (let p = rows.shift(); p !== undefined; p = rows.shift()) {
            const alone = await this.answer([p]);
            if (alone) p.reject(alone.cause);
          }
        };
        const slots = Math.min(rows.length, this.policy.retryConcurrency ?? DEFAULT_RETRY_CONCURRENCY);
        await Promise.all(Array.from({ length: slots }, slot));
      }
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  /** One `act` call for these rows: resolves them all, or returns what it threw (rejecting none). */
  private async answer(rows: readonly Pending[]): Promise<{ cause: unknown } | undefined> {
    const { id, timeoutMs } = this.policy;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const first = rows[0]!.request;
    const call = {
      call: `policy ${id}'s act() for ${first.episode} turn ${first.turn}${rows.length > 1 ? ` and ${rows.length - 1} other row(s)` : ""}`,
    };
    inFlight.add(call);
    try {
      const answered = this.policy.act(
        rows.map((p) => p.request),
        { signal: controller.signal },
      );
      const actions: unknown =
        timeoutMs === undefined
          ? await answered
          : await Promise.race([
              answered,
              new Promise<never>((_, reject) => {
                timer = setTimeout(() => {
                  const error = new Error(`policy ${id}'s act() did not answer within ${timeoutMs} ms (its timeoutMs)`);
                  error.name = "TimeoutError";
                  controller.abort(error);
                  reject(error);
                }, timeoutMs);
              }),
            ]);
      if (!Array.isArray(actions))
        throw new Error(
          `policy ${this.policy.id}'s act() resolved to ${shownValue(actions)}, not an array of actions (one per request, in order)`,
        );
      if (actions.length !== rows.length)
        throw new Error(`policy ${this.policy.id} answered ${actions.length} rows for a batch of ${rows.length}`);
      rows.forEach((p, i) => {
        p.resolve(actions[i]);
      });
      return undefined;
    } catch (cause) {
      return { cause };
    } finally {
      clearTimeout(timer);
      inFlight.delete(call);
    }
  }
}
