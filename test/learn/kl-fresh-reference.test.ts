/**
 * A KL coefficient with neither an init checkpoint nor a warm start has the fresh model as its reference: the
 * run says so, since a user who gives klCoef means "stay near the policy I started from" and has none.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEnv, train, trainConfigFor } from "../../src/learn/index.ts";
import { tempDir } from "../support/index.ts";

const dir = tempDir("agent-r1-kl-fresh-");
const tiny = { steps: 1, tasksPerStep: 2, groupSize: 2, evalEpisodes: 0, warmStart: null } as const;
const model = { layers: 1, heads: 2, width: 16 } as const;

describe("klCoef with no reference to keep near", () => {
  it("says that the KL reference is the fresh model when there is no init and no warm start", async () => {
    const lookup = await loadEnv("lookup");
    const lines: string[] = [];
    const out = join(dir, "fresh");
    const config = trainConfigFor(lookup, { ...tiny, algo: "grpo", klCoef: 0.1, model });
    await train({ env: lookup, config, out, log: (line) => lines.push(line) });
    expect(lines.join("\n")).toMatch(
      /klCoef \(--kl\) is 0\.1 but the run starts from a fresh model .*KL reference is that fresh model/,
    );
    rmSync(out, { recursive: true, force: true });
    // Without a KL there is nothing to say.
    const quiet: string[] = [];
    await train({ env: lookup, config: { ...config, klCoef: 0 }, out, log: (line) => quiet.push(line) });
    expect(quiet.join("\n")).not.toMatch(/KL reference/);
  }, 60_000);
});
