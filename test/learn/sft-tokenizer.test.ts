/**
 * sft clones token ids. Demonstrations recorded before the environment's tokenizer changed (a word added, spaces
 * made implicit) replay fine, since replay re-judges their texts, but their ids spell other words under the new
 * tokenizer: cloning them trained a model that wrote `</a>` and empty actions with a low loss. Refused instead.
 */
import { join } from "node:path";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { lookup } from "../../actors/lookup/index.ts";
import { defineEnv, JsonlJournal, PolicyActor, rollout, UsageError, WordTokenizer } from "../../src/index.ts";
import { sft } from "../../src/learn/sft.ts";
import { tempDir } from "../support/index.ts";

describe("sft of demonstrations recorded with another tokenizer", () => {
  it("is refused before cloning, naming the file and both tokenizers", async () => {
    const data = join(tempDir(), "demos");
    const run = rollout({
      env: lookup,
      policy: new PolicyActor(lookup.policies!.expert!()),
      journal: new JsonlJournal(data, "none"),
      seed: "tok",
      episodes: 2,
    });
    await lastValueFrom(run.episodes, { defaultValue: null });
    // The same environment, its tokenizer since changed.
    const changed = defineEnv({
      ...lookup,
      tokenizer: WordTokenizer.fromCorpus(["find the value stored under lookup answer"], { spaces: "implicit" }),
    });
    const out = join(tempDir(), "clone");
    const attempt = sft({ env: changed, data, out, epochs: 1, model: { layers: 1, heads: 2, width: 16 } });
    await expect(attempt).rejects.toThrow(UsageError);
    await expect(
      sft({ env: changed, data, out, epochs: 1, model: { layers: 1, heads: 2, width: 16 } }),
    ).rejects.toThrow(
      new RegExp(
        `ep-tok-\\d\\.jsonl was recorded with tokenizer ${lookup.tokenizer.id}, not environment lookup's \\(${changed.tokenizer.id}\\)`,
      ),
    );
    // Under the tokenizer they were recorded with, the same demonstrations clone.
    const cloned = await sft({ env: lookup, data, out, epochs: 1, model: { layers: 1, heads: 2, width: 16 } });
    expect(cloned.episodes).toBe(2);
  }, 60_000);
});
