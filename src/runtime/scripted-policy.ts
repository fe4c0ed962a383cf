/**
 * A policy written as a function from the request to the action's text: experts, baselines, test
 * doubles. The text is encoded with the tokenizer; its ids are what the journal records.
 */

import type { Json } from "effect/Schema";
import { ActionTooLongError, BODY_LIMIT_TEXT, surelyTooLongToJournal } from "../journal/stamp.ts";
import { allKeys, didYouMean, firstUnknownKey, shownValue } from "../kernel/errors.ts";
import { Rng } from "../kernel/prng.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import type { Policy, PolicyCallOptions, PolicyRequest } from "./policy.ts";

/** A scripted action with its probability, for scripts that draw at random. */
export interface ScriptedChoice {
  readonly text: string;
  /** Log-probability of the whole action under the script (0 for a deterministic script). */
  readonly logprob?: number;
}

const CHOICE_FIELDS = allKeys<ScriptedChoice>()(["text", "logprob"]);

/** What a scripted policy's function is given: the policy's request, with the task typed as the environment's. */
export type ScriptedRequest<Task = Json> = Omit<PolicyRequest, "task"> & { readonly task: Task };

/**
 * `scriptedPolicy<Task>(...)` types `request.task` as the environment's tasks (the runtime passes the task
 * its environment drew; the type is the author's word for it, as for `legalActions`).
 */
export const scriptedPolicy = <Task = Json>(
  id: string,
  tokenizer: Tokenizer,
  decide: (
    request: ScriptedRequest<Task>,
    rng: Rng,
    options: PolicyCallOptions,
  ) => string | ScriptedChoice | PromiseLike<string | ScriptedChoice>,
): Policy => {
  // Checked where it is made (tsx runs a module without typechecking it): an undefined tokenizer failed with
  // "Cannot read properties of undefined (reading 'idOf')", and one forgotten shifts the function into its place.
  const made = `scriptedPolicy(${typeof id === "string" ? JSON.stringify(id) : "id"}, tokenizer, decide)`;
  if (typeof id !== "string" || id === "")
    throw new TypeError(`${made}: id must be the policy's name, a non-empty string, got ${shownValue(id)}`);
  const tok = tokenizer as Partial<Tokenizer> | null | undefined;
  if (typeof tok?.encode !== "function" || typeof tok.decode !== "function" || typeof tok.idOf !== "function")
    throw new TypeError(
      `${made}: tokenizer must be the environment's Tokenizer (encode, decode, idOf; e.g. WordTokenizer.fromCorpus(...)), got ${typeof tokenizer === "function" ? "a function (the arguments are id, tokenizer, decide)" : shownValue(tokenizer)}`,
    );
  if (typeof decide !== "function")
    throw new TypeError(
      `${made}: decide must be a function (request, rng) => the action's text, got ${shownValue(decide)}`,
    );
  const eos = tokenizer.idOf("<eos>");
  // Called without options (a direct act(requests)): a signal that never aborts, so a script may always read one.
  const never = { signal: new AbortController().signal };
  return {
    id,
    version: 0,
    tokenizer,
    act: (requests, options) =>
      Promise.all(
        requests.map(async (request) => {
          // An async script (one that awaits a service) is awaited; its answer must still be the same for the
          // same request. It gets act()'s signal, which aborts when the call outlives the policy's timeoutMs.
          const choice = (await decide(
            request as ScriptedRequest<Task>,
            Rng.fromSeed(request.seed),
            options ?? never,
          )) as string | ScriptedChoice | undefined | null;
          if (typeof choice !== "string" && typeof choice?.text !== "string")
            throw new TypeError(
              `scripted policy ${id} returned ${choice === undefined ? "nothing" : JSON.stringify(choice)} at turn ${request.turn}; ` +
                "it must return the action's text (a string or { text, logprob }) for every turn the episode reaches",
            );
          // A misspelt field (`logprobs: -1.2`) was ignored, the action journaled with logprob 0; TypeScript lets it
          // through (an arrow function's returned object gets no excess-property check).
          const unknown = typeof choice === "string" ? undefined : firstUnknownKey(choice, CHOICE_FIELDS);
          if (unknown)
            throw new TypeError(
              `scripted policy ${id} returned an unknown field \`${unknown.key}\`${didYouMean(unknown.meant)} at turn ${request.turn}; it must return the action's text (a string or { text, logprob })`,
            );
          const { text, logprob = 0 } = typeof choice === "string" ? { text: choice } : choice;
          // Refused before encoding: a runaway script's 20 MB took seconds to tokenize, for an action the episode
          // then refused as too long to journal (it ends only this episode, as that refusal does).
          const bytes = surelyTooLongToJournal(text);
          if (bytes !== undefined) {
            const detail = `${text.length} characters, at least ${bytes} bytes as JSON; ${BODY_LIMIT_TEXT} (cap the script's output)`;
            throw new ActionTooLongError(
              `scripted policy ${id} returned an action too long to journal at turn ${request.turn}: ${detail}`,
              detail,
            );
          }
          // An action ends with <eos>, as a model's does: a model cloned from these actions learns to stop.
          const tokens = eos === undefined ? tokenizer.encode(text) : [...tokenizer.encode(text), eos];
          // Spread the action's log-probability evenly over its tokens.
          const perToken = tokens.length > 0 ? logprob / tokens.length : 0;
          return { tokens, text, logprobs: tokens.map(() => perToken), version: 0 };
        }),
      ),
  };
};
