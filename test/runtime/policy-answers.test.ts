/**
 * A policy of one's own that answers in the wrong shape (act() resolving to nothing, a row that is not an action,
 * an action without logprobs) aborts only its episode, with a reason that says what was wrong, not a TypeError
 * from inside the runtime.
 */
import { lastValueFrom, toArray } from "rxjs";
import { expect, it } from "vitest";
import weather from "../../actors/weather/env.ts";
import * as r1 from "../../src/index.ts";

const expert = weather.policies!.expert();
const reasonOf = async (act: r1.Policy["act"]) => {
  const episode = await r1.runEpisode({
    env: weather,
    policy: new r1.PolicyActor({ ...expert, act }),
    journal: new r1.MemoryJournal(),
    seed: "shape",
  });
  expect(episode.turns).toBe(0);
  return episode.reason;
};

it("says what a policy's answer was when it is not an array of actions, or an action is not one", async () => {
  expect(await reasonOf(async () => undefined as never)).toBe(
    "aborted: policy weather-expert failed: policy weather-expert's act() resolved to undefined, not an array of actions (one per request, in order)",
  );
  expect(await reasonOf(async (requests) => requests.map(() => null as never))).toBe(
    "aborted: policy weather-expert returned an invalid action: the action is null, not { tokens, text, logprobs, version }",
  );
  expect(
    await reasonOf(async (requests) => (await expert.act(requests)).map(({ logprobs: _, ...rest }) => rest as never)),
  ).toBe(
    "aborted: policy weather-expert returned an invalid action: logprobs is undefined, not an array (one per token; 0 for each where none are known)",
  );
});

it("says what an action's tokens were when they are not an array (a text where ids belong)", async () => {
  const withTokens =
    (tokens: unknown): r1.Policy["act"] =>
    async (requests) =>
      (await expert.act(requests)).map((action) => ({ ...action, tokens }) as never);
  expect(await reasonOf(withTokens("<weather>oslo</weather>"))).toBe(
    'aborted: policy weather-expert returned an invalid action: tokens is "<weather>oslo</weather>" (a string), not an array of token ids (the ids of tokenizer.encode(text))',
  );
  expect(await reasonOf(withTokens(undefined))).toBe(
    "aborted: policy weather-expert returned an invalid action: no token ids",
  );
});

it("a policy's timeoutMs ends a call that never answers: only the episode whose own row hangs aborts, and act()'s signal aborts", async () => {
  const signals: AbortSignal[] = [];
  const hangs: r1.Policy = {
    ...expert,
    timeoutMs: 200,
    act: (requests, options) => {
      if (options) signals.push(options.signal);
      // An API request that never comes back for one episode (and so for any batch that holds its row).
      return requests.some((r) => r.seed.startsWith("t:1:")) ? new Promise(() => {}) : expert.act(requests);
    },
  };
  const journal = new r1.MemoryJournal();
  const run = r1.rollout({
    env: weather,
    policy: new r1.PolicyActor(hangs),
    journal,
    seed: "t",
    episodes: 3,
    concurrency: 3,
  });
  const episodes = await lastValueFrom(run.episodes.pipe(toArray()));
  const reasons = Object.fromEntries(episodes.map((e) => [e.episode, e.reason]));
  expect(reasons).toEqual({
    "ep-t-0": "answered",
    "ep-t-1":
      "aborted: policy weather-expert failed: policy weather-expert's act() did not answer within 200 ms (its timeoutMs)",
    "ep-t-2": "answered",
  });
  const aborted = signals.filter((s) => s.aborted);
  expect(aborted.length).toBeGreaterThan(0);
  expect(String(aborted[0]!.reason)).toMatch(/TimeoutError: .* did not answer within 200 ms/);
});

it("a batch whose every row times out ends in 2 x timeoutMs when retryConcurrency covers it, not one timeoutMs per row (a service that is down)", async () => {
  let calls = 0;
  const signals: AbortSignal[] = [];
  /** For each call, how many calls before it had timed out (their signals aborted) when it was made. */
  const timedOutBefore: number[] = [];
  const down: r1.Policy = {
    ...expert,
    timeoutMs: 250,
    retryConcurrency: 20,
    act: (_requests, options) => {
      calls += 1;
      timedOutBefore.push(signals.filter((s) => s.aborted).length);
      if (options) signals.push(options.signal);
      return new Promise(() => {});
    },
  };
  const started = Date.now();
  const actor = new r1.PolicyActor(down);
  const run = r1.rollout({
    env: weather,
    policy: actor,
    journal: new r1.MemoryJournal(),
    seed: "down",
    episodes: 20,
    concurrency: 20,
  });
  const episodes = await lastValueFrom(run.episodes.pipe(toArray()));
  const took = Date.now() - started;
  expect(new Set(episodes.map((e) => e.reason))).toEqual(
    new Set([
      "aborted: policy weather-expert failed: policy weather-expert's act() did not answer within 250 ms (its timeoutMs)",
    ]),
  );
  // The batch of 20 (all 20 first turns meet in one), then each row alone: 21 calls. Asked one after another, the
  // rows took 21 x 250 ms = 5.25 s; 20 at a time, 2 x 250 ms. Each row is asked before any other row's call has
  // timed out: only the batch's had. (That, not the time alone, says they ran together: a bound near 2 x 250 ms
  // leaves a busy machine little room; 21 x 250 ms is the least that asking one after another takes.)
  expect(actor.batches).toBe(1);
  expect(calls).toBe(21);
  expect(signals).toHaveLength(21);
  expect(timedOutBefore).toEqual([0, ...Array(20).fill(1)]);
  expect(signals.every((s) => s.aborted)).toBe(true);
  expect(took).toBeLessThan(21 * 250);
});

it("a failed batch's rows are asked again at most retryConcurrency at a time (default 8): a rate-limited API gets no burst", async () => {
  const inFlightAtMost = async (retryConcurrency: number | undefined) => {
    let inFlight = 0;
    let most = 0;
    const limited: r1.Policy = {
      ...expert,
      ...(retryConcurrency === undefined ? {} : { retryConcurrency }),
      act: async (requests) => {
        // The batch is refused (a 429); a row alone is answered after a while.
        if (requests.length > 1) throw new Error("429 Too Many Requests");
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 10));
        inFlight -= 1;
        return expert.act(requests);
      },
    };
    const run = r1.rollout({
      env: weather,
      policy: new r1.PolicyActor(limited),
      journal: new r1.MemoryJournal(),
      seed: "burst",
      episodes: 20,
      concurrency: 20,
    });
    const episodes = await lastValueFrom(run.episodes.pipe(toArray()));
    // Every row answered alone: no episode lost to the batch's failure.
    expect(episodes.map((e) => e.reason)).toEqual(Array(20).fill("answered"));
    return most;
  };
  expect(await inFlightAtMost(undefined)).toBe(8);
  expect(await inFlightAtMost(3)).toBe(3);
  expect(await inFlightAtMost(1)).toBe(1);
});

it("a retryConcurrency that is no positive integer is refused when the PolicyActor is made", () => {
  for (const retryConcurrency of [0, -1, 1.5, Number.NaN, "4"])
    expect(() => new r1.PolicyActor({ ...expert, retryConcurrency } as r1.Policy)).toThrow(
      /^PolicyActor takes a Policy .*: policy weather-expert's retryConcurrency is .*, not a positive integer \(the most rows of a failed batch asked again at a time; leave it out for 8\)$/,
    );
});

it("a scriptedPolicy's callback gets act()'s signal: a service it awaits is cancelled when timeoutMs passes", async () => {
  const cancelled: string[] = [];
  const script = r1.scriptedPolicy(
    "slow-service",
    weather.tokenizer,
    (request, _rng, { signal }) =>
      // A service that never answers unless cancelled, as fetch(url, { signal }) would be.
      new Promise<string>((_, reject) =>
        signal.addEventListener("abort", () => {
          cancelled.push(request.seed);
          reject(signal.reason);
        }),
      ),
  );
  const episode = await r1.runEpisode({
    env: weather,
    policy: new r1.PolicyActor({ ...script, timeoutMs: 100 }),
    journal: new r1.MemoryJournal(),
    seed: "slow",
  });
  expect(episode.reason).toBe(
    "aborted: policy slow-service failed: policy slow-service's act() did not answer within 100 ms (its timeoutMs)",
  );
  // Every call that timed out cancelled its request: nothing is left waiting on the service.
  expect(cancelled.length).toBeGreaterThan(0);
  // Called without options (act(requests) directly), the signal is one that never aborts.
  let seen: AbortSignal | undefined;
  const direct = r1.scriptedPolicy("direct", weather.tokenizer, (_request, _rng, { signal }) => {
    seen = signal;
    return "<answer>oslo</answer>";
  });
  const [request] = await capturedRequests();
  await direct.act([request]);
  expect(seen?.aborted).toBe(false);
});

/** One request as the runtime makes it (the first turn of a weather episode). */
const capturedRequests = async (): Promise<r1.PolicyRequest[]> => {
  const seen: r1.PolicyRequest[] = [];
  await r1.runEpisode({
    env: weather,
    policy: new r1.PolicyActor({
      ...expert,
      act: (requests) => {
        seen.push(...requests);
        return expert.act(requests);
      },
    }),
    journal: new r1.MemoryJournal(),
    seed: "capture",
  });
  return seen.slice(0, 1);
};

it("a timeoutMs that is no whole number of milliseconds is refused when the PolicyActor is made", () => {
  for (const timeoutMs of [0, -1, 1.5, Number.POSITIVE_INFINITY, "1000", 2 ** 31])
    expect(() => new r1.PolicyActor({ ...expert, timeoutMs } as r1.Policy)).toThrow(
      /^PolicyActor takes a Policy .*: policy weather-expert's timeoutMs is .*, not an integer from 1 to 2147483647/,
    );
});

it("a Promise given as a policy (an async factory's result) is named as one", () => {
  expect(() => new r1.PolicyActor(Promise.resolve(expert) as unknown as r1.Policy)).toThrow(
    "PolicyActor takes a Policy ({ id, version, tokenizer, act }): got a Promise (from an async function? this must answer at once)",
  );
});
