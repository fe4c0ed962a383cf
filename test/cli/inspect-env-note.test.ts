/**
 * `inspect --html` of journals it cannot decode says what to pass, and what was wrong with the --env given; of a
 * built-in's, that an --env of another environment is not used; the terminal view says an --env of another
 * environment than the journals' too, rather than ignore it.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/index.ts";

/** One expert episode of `env` recorded into `out`. */
const recorded = async (env: string, out: string) => {
  const { code, stderr } = await runCli("record", "--env", env, "--policy", "expert", "--episodes", "1", "--out", out);
  expect(code, stderr).toBe(0);
};

describe("inspect --html of a module's journals", () => {
  it("names the environment an --env of another one defines, instead of asking for the --env it was given", async () => {
    const dir = tempDir();
    const demos = join(dir, "demos");
    const weather = "actors/weather/env.ts";
    await recorded(weather, demos);
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

  it("of a built-in environment's journals, says an --env of another one is not used for them, as the terminal says it", async () => {
    const dir = tempDir();
    const lookups = join(dir, "lookups");
    const weather = "actors/weather/env.ts";
    await recorded("lookup", lookups);
    // Before, the page was written (decoded with the built-in) and the --env given went unmentioned.
    const other = await runCli("inspect", lookups, "--env", weather, "--html", join(dir, "other.html"));
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toContain(
      `note: --env ${weather} defines weather, not lookup, the environment of journals here: the built-in lookup is used for them; leave --env out`,
    );
    const same = await runCli("inspect", lookups, "--env", "lookup", "--html", join(dir, "same.html"));
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).not.toContain("note:");
  });

  it("in the terminal, says an --env of another environment than the journals' is not used for them", async () => {
    const dir = tempDir();
    const demos = join(dir, "demos");
    const weather = "actors/weather/env.ts";
    await recorded(weather, demos);
    // Before, the terminal view said nothing of it: --env names the line an environment error was thrown at.
    const wrong = await runCli("inspect", demos, "--env", "lookup");
    expect(wrong.code, wrong.stderr).toBe(0);
    expect(wrong.stdout).toContain("env weather v2");
    expect(wrong.stderr).toContain(
      "note: --env lookup defines lookup, not weather, the environment of journals here: it is not used for them (to name the line an environment error was thrown at): pass --env with the module that defines weather",
    );
    const right = await runCli("inspect", demos, "--env", weather);
    expect(right.stderr).not.toContain("note:");
    // A built-in environment's journals are read with it, whatever --env says.
    const lookups = join(dir, "lookups");
    await recorded("lookup", lookups);
    const builtIn = await runCli("inspect", lookups, "--env", weather);
    expect(builtIn.code, builtIn.stderr).toBe(0);
    expect(builtIn.stderr).toContain(
      `note: --env ${weather} defines weather, not lookup, the environment of journals here: the built-in lookup is used for them; leave --env out`,
    );
  });
});
