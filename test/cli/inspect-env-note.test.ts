/** `inspect --html` of journals it cannot decode says what to pass, and what was wrong with the --env given. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/index.ts";

describe("inspect --html of a module's journals", () => {
  it("names the environment an --env of another one defines, instead of asking for the --env it was given", async () => {
    const dir = tempDir();
    const demos = join(dir, "demos");
    const weather = "actors/weather/env.ts";
    expect(
      (await runCli("record", "--env", weather, "--policy", "expert", "--episodes", "1", "--out", demos)).code,
    ).toBe(0);
    // Before, the note said "pass --env with the module that defines it" to a user who had passed one.
    const wrong = await runCli("inspect", demos, "--env", "lookup", "--html", join(dir, "wrong.html"));
    expect(wrong.code, wrong.stderr).toBe(0);
    expect(wrong.stderr).toContain(
      "note: the page shows the tokens of environment weather as ids: --env lookup defines lookup, not weather: pass --env with the module that defines weather to decode them",
    );
    const none = await runCli("inspect", demos, "--html", join(dir, "none.html"));
    expect(none.stderr).toContain(
      "note: the page shows the tokens of environment weather as ids: pass --env with the module that defines it to decode them",
    );
    const right = await runCli("inspect", demos, "--env", weather, "--html", join(dir, "right.html"));
    expect(right.stderr).not.toContain("as ids");
  });
});
