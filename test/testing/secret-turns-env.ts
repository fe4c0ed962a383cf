/**
 * A module that default-exports `secret` with a `turns` option: its `configure` builds another machine (the turn
 * limit is in the machine), as `--env "test/testing/secret-turns-env.ts?turns=1"` or `env.configure({ turns: "1" })`
 * makes it.
 */
import * as r1 from "../../src/index.ts";
import { createSecretEnv, TURN_LIMIT } from "./fixtures.ts";

const withTurns = (turns: number): r1.EnvDefinition<{ secret: string }> =>
  r1.defineEnv({
    ...createSecretEnv({}, { turnLimit: turns }),
    options: { turns },
    optionKeys: ["turns"],
    configure: ({ turns = String(TURN_LIMIT) }) => {
      if (!/^[1-9]\d*$/.test(turns)) throw new RangeError(`turns must be a whole number >= 1, got ${turns}`);
      return withTurns(Number(turns));
    },
  });

export default withTurns(TURN_LIMIT);
