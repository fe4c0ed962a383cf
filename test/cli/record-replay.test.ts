import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/index.ts";

/** A command run as a user runs it, in a new process: for what depends on the process (its exit status). */
const spawned = (...args: string[]) => {
  const run = spawnSync(process.execPath, ["bin/agent-r1.js", ...args], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
};
/** The messages, files and exit codes: the CLI's main in this process (runCli). */
const cli = runCli;

describe("agent-r1 record / replay, as a user runs them", () => {
  const out = join(tempDir(), "r");

  it("records 20 expert episodes and replay --verify exits 0", async () => {
    const recorded = await cli(
      "record",
      "--env",
      "lookup",
      "--policy",
      "expert",
      "--episodes",
      "20",
      "--seed",
      "7",
      "--out",
      out,
    );
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stdout).toMatch(/recorded 20 episodes of lookup .* success 1\.000/);
    expect(readdirSync(out).filter((f) => f.endsWith(".jsonl"))).toHaveLength(20);
    const replayed = await cli("replay", out, "--verify");
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain("verified 20 journal(s) ok, 0 failed");

    // --env of another environment than the journals': verified with their own, and said so.
    const other = await cli("replay", out, "--verify", "--env", "./actors/weather/env.ts");
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toContain(
      'note: --env ./actors/weather/env.ts defines "weather", and no journal here was recorded with it: each was verified with the environment it names',
    );
    expect((await cli("replay", out, "--verify", "--env", "lookup")).stderr).not.toContain("note:");
  });

  it("replay --verify of a run folder finds a module environment in its config.json, with no --env", async () => {
    const run = tempDir();
    const recorded = await cli(
      "record",
      "--env",
      "./actors/weather/env.ts",
      "--policy",
      "expert",
      "--episodes",
      "3",
      "--out",
      join(run, "episodes"),
    );
    expect(recorded.code, recorded.stderr).toBe(0);
    expect((await cli("replay", run, "--verify")).code).toBe(2); // no config.json: which environment is unknown
    writeFileSync(join(run, "config.json"), JSON.stringify({ env: "./actors/weather/env.ts" }));
    const verified = await cli("replay", run, "--verify");
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain("verified 3 journal(s) ok, 0 failed");

    // A journal of --env's environment that cannot be read names no environment: the note does not claim
    // that it was recorded with another one.
    const damaged = join(run, "damaged");
    mkdirSync(damaged);
    const name = readdirSync(join(run, "episodes")).find((f) => f.endsWith(".jsonl"))!;
    const lines = readFileSync(join(run, "episodes", name), "utf8").split("\n");
    writeFileSync(join(damaged, name), [`${lines[0].slice(0, 40)}`, ...lines.slice(1)].join("\n"));
    const failed = await cli("replay", damaged, "--verify", "--env", "./actors/weather/env.ts");
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toContain(
      'note: --env ./actors/weather/env.ts defines "weather" and was not used: the 1 that failed was refused before the environment it names was looked up',
    );
    // A journal cut short names its environment: no note, only the failure.
    writeFileSync(join(damaged, name), `${lines.slice(0, 4).join("\n")}\n`);
    const cut = await cli("replay", damaged, "--verify", "--env", "./actors/weather/env.ts");
    expect(cut.code, cut.stderr).toBe(1);
    expect(cut.stderr).toContain("the episode has no episode.ended");
    expect(cut.stderr).not.toContain("note:");
  });

  it("plain replay counts the journals cut short among those read ok; --verify fails them", async () => {
    const folder = tempDir();
    expect(
      (await cli("record", "--env", "lookup", "--policy", "expert", "--episodes", "3", "--out", folder)).code,
    ).toBe(0);
    const file = join(folder, readdirSync(folder).sort()[0]);
    writeFileSync(file, `${readFileSync(file, "utf8").split("\n").slice(0, 4).join("\n")}\n`);
    const read = await cli("replay", folder, "--quiet");
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain(
      "read 3 journal(s) ok (1 of them not ended: cut short, or still recording; --verify fails them), 0 failed",
    );
    expect((await cli("replay", folder, "--verify", "--quiet")).stdout).toContain("verified 2 journal(s) ok, 1 failed");
  });

  it("says which journals hold the same episode (a copied file), with --verify or without, and counts them", async () => {
    const folder = tempDir();
    expect(
      (await cli("record", "--env", "lookup", "--policy", "expert", "--episodes", "2", "--out", folder)).code,
    ).toBe(0);
    const original = join(folder, "ep-0-1.jsonl");
    const copy = join(folder, "ep-0-1 (copy).jsonl");
    copyFileSync(original, copy);
    for (const verify of [["--verify"], []]) {
      const replayed = await cli("replay", folder, "--quiet", ...verify);
      expect(replayed.code, replayed.stderr).toBe(0);
      // The copy sorts first: neither is named the copy.
      expect(replayed.stderr).toBe(
        `warning: ${copy} and ${original} hold the same episode (ep-0-1, the same events): one is a copy of the other, or the same seed recorded twice (the same last digest), counted here as two; sft refuses them until one is removed\n`,
      );
      expect(replayed.stdout).toContain(
        `${verify.length ? "verified" : "read"} 3 journal(s) ok (1 of them a copy of another: the same episode), 0 failed`,
      );
    }
  });

  it("names the first 5 pairs of journals of one episode and counts the rest: one seed recorded in two folders", async () => {
    // Recording is deterministic: two folders (two train runs' warm starts) of one seed hold the same journals,
    // and replay of their parent listed every pair, 651 warnings for a folder of a few runs.
    const parent = tempDir();
    for (const folder of ["a", "b"])
      expect(
        (await cli("record", "--env", "lookup", "--policy", "expert", "--episodes", "8", "--out", join(parent, folder)))
          .code,
      ).toBe(0);
    const replayed = await cli("replay", parent, "--quiet");
    expect(replayed.code, replayed.stderr).toBe(0);
    const warnings = replayed.stderr.trimEnd().split("\n");
    expect(warnings).toHaveLength(6);
    expect(warnings[0]).toMatch(
      /^warning: \S+ and \S+ hold the same episode \(ep-0-\d, the same events\): one is a copy of the other, or the same seed recorded twice \(the same last digest\), counted here as two/,
    );
    expect(warnings[5]).toBe(
      "warning: 3 more journals hold the same episode as another, not listed (the first 5 are above)",
    );
    expect(replayed.stdout).toContain(
      "read 16 journal(s) ok (8 of them copies of another: the same episode), 0 failed",
    );
    // inspect reads every journal too, and its page the ones it shows: the same five, then the count.
    for (const html of [[], ["--html", join(parent, "page.html")]]) {
      const inspected = await cli("inspect", parent, ...html);
      expect(inspected.code, inspected.stderr).toBe(0);
      const said = inspected.stderr.split("\n").filter((line) => line.startsWith("warning: "));
      expect(said).toHaveLength(6);
      expect(said[5]).toBe(
        "warning: 3 more journals hold the same episode as another, not listed (the first 5 are above)",
      );
    }
  });

  it("editing one value makes replay exit 1 naming the file and line", async () => {
    const file = join(out, readdirSync(out).sort()[3]);
    const lines = readFileSync(file, "utf8").split("\n");
    const k = lines.findIndex((l) => l.includes('"type":"reward.assigned"'));
    lines[k] = lines[k].replace(/"value":[-0-9.]+/, '"value":9');
    writeFileSync(file, lines.join("\n"));
    const replayed = await cli("replay", out, "--verify");
    expect(replayed.code).toBe(1);
    expect(replayed.stderr).toContain(`${file}:${k + 1}`);
    expect(replayed.stdout).toContain("19 journal(s) ok, 1 failed");
  });

  it("replay takes several paths (a shell glob's files), reading each in turn", async () => {
    // `replay runs/x/ep-7-1*.jsonl --verify`: the shell hands over the files; one path only was refused,
    // "too many arguments for 'replay'".
    const files = readdirSync(out)
      .sort()
      .slice(0, 3)
      .map((f) => join(out, f));
    const replayed = await cli("replay", ...files, "--verify");
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain("verified 3 journal(s) ok, 0 failed");
    // A folder and a file, the folder holding the journal edited in the test above: one summary of both.
    const mixed = await cli("replay", out, files[0], "--verify", "--quiet");
    expect(mixed.code).toBe(1);
    // The file named twice is read once (it was counted twice, 20 ok of a folder of 20).
    expect(mixed.stdout).toContain("verified 19 journal(s) ok, 1 failed");
    expect(mixed.stderr).not.toContain("hold the same episode");
    // A copy among a glob's files is said, as it is in a folder (each path had its own list of episodes).
    const copies = tempDir();
    copyFileSync(files[0], join(copies, "ep-a.jsonl"));
    copyFileSync(files[0], join(copies, "ep-b.jsonl"));
    const copied = await cli("replay", join(copies, "ep-a.jsonl"), join(copies, "ep-b.jsonl"), "--quiet");
    expect(copied.stdout).toContain("read 2 journal(s) ok (1 of them a copy of another: the same episode), 0 failed");
    expect(copied.stderr).toContain(
      `${join(copies, "ep-a.jsonl")} and ${join(copies, "ep-b.jsonl")} hold the same episode`,
    );
    // A wrong path among several is refused before any is read, not after the others were reported.
    const wrong = await cli("replay", files[0], join(copies, "nope.jsonl"));
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toBe("");
    expect(wrong.stderr).toContain(`no such file or folder: ${join(copies, "nope.jsonl")}`);
  });

  it("a torn tail is reported, and --repair truncates it and says what it removed", async () => {
    const file = join(out, readdirSync(out).sort()[5]);
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length - 20));
    const before = await cli("replay", file);
    expect(before.code).toBe(1);
    expect(before.stderr).toMatch(/torn-tail.*--repair/);
    const repaired = await cli("replay", file, "--repair");
    expect(repaired.code).toBe(0);
    expect(repaired.stderr).toMatch(/repaired .*: kept \d+ events, removed \d+ bytes/);
  });

  it("--repair says which files it removed (nothing whole left) and does not count them as read ok", async () => {
    const dir = tempDir();
    const [first, second] = readdirSync(out).sort();
    copyFileSync(join(out, first), join(dir, first));
    // A journal cut inside its first line, as a crash mid-write leaves it.
    const cut = join(dir, second);
    writeFileSync(cut, readFileSync(join(out, second), "utf8").slice(0, 40));
    writeFileSync(join(dir, "empty.jsonl"), "");
    const before = await cli("replay", join(dir, "empty.jsonl"));
    expect(before.stderr).toContain(
      `${join(dir, "empty.jsonl")}: empty: the file holds no event (a journal created and never written: a crash before its first write); run \`npx agent-r1 replay --repair ${join(dir, "empty.jsonl")}\` to remove it`,
    );
    const repaired = await cli("replay", dir, "--repair");
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stderr).toContain(`removed ${cut}: it held no whole event (40 bytes of a cut write`);
    expect(repaired.stderr).toContain(`removed ${join(dir, "empty.jsonl")}: it held no whole event (an empty file)`);
    expect(repaired.stdout).toContain("read 1 journal(s) ok, 0 failed; removed 2 file(s) that held no whole event");
    expect(readdirSync(dir)).toEqual([first]);
  });

  it("bad usage is a one-line error with exit code 2", async () => {
    const cases = [
      ["record", "--env", "nope", "--policy", "expert", "--out", out],
      ["record", "--env", "lookup", "--policy", "genius", "--out", out],
      ["record", "--env", "lookup", "--policy", "expert", "--episodes", "0", "--out", out],
      ["replay", join(out, "missing")],
      ["frobnicate"],
    ];
    for (const args of cases) {
      const run = await cli(...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr.split("\n")[0]).toMatch(/^error: /);
    }
    expect((await cli("record", "--env", "nope", "--policy", "x", "--out", out)).stderr).toContain(
      `unknown environment "nope"; known: lookup`,
    );
    // The process's own exit status, as a shell sees it.
    const process = spawned("record", "--env", "lookup", "--policy", "genius", "--out", out);
    expect(process.code, process.stderr).toBe(2);
    expect(process.stderr).toMatch(/^error: [^\n]*genius[^\n]*\n$/);
  });

  it("--help documents every subcommand", async () => {
    const help = await cli("--help");
    expect(help.code).toBe(0);
    for (const command of ["record", "replay", "start"]) expect(help.stdout).toContain(command);
    expect((await cli("record", "--help")).stdout).toContain("--durability");
  });
});

/** A long recording of lookup, stopped by `signal` once `journals` journals are in `dir`. */
const recordUntil = async (dir: string, journals: number, signal: NodeJS.Signals) => {
  const child = spawn(
    process.execPath,
    ["bin/agent-r1.js", "record", "--env", "lookup", "--policy", "expert", "--episodes", "100000", "--out", dir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  while (!existsSync(dir) || readdirSync(dir).length < journals) await new Promise((r) => setTimeout(r, 100));
  child.kill(signal);
  const code = await exited;
  return { code, stderr: () => stderr };
};

describe("agent-r1 record, SIGTERM", () => {
  it("exits 143 with the summary Ctrl-C gets: what is journaled and how to go on", async () => {
    const dir = join(tempDir(), "terminated");
    const recording = await recordUntil(dir, 5, "SIGTERM");
    const stderr = recording.stderr();
    expect(recording.code, stderr).toBe(143);
    expect(stderr).toMatch(/interrupted by SIGTERM: \d+ of 100000 episodes ended and are journaled in /);
    expect(stderr).toContain("the same command with --resume records the rest");
    expect(readdirSync(dir)).not.toContain(".agent-r1.lock");
  }, 60_000);
});

describe("agent-r1 record, Ctrl-C", () => {
  it("exits 130 saying what is journaled and how to go on; --resume then completes the recording", async () => {
    const dir = join(tempDir(), "interrupted");
    const recording = await recordUntil(dir, 20, "SIGINT");
    const stderr = recording.stderr();
    expect(recording.code).toBe(130);
    expect(stderr).toMatch(/interrupted: \d+ of 100000 episodes ended and are journaled in /);
    expect(stderr).toContain("the same command with --resume records the rest");
    // --resume (here with fewer --episodes: the first ones) keeps what ended and records what was cut short.
    const highest = Math.max(...readdirSync(dir).map((name) => Number(/^ep-0-(\d+)\.jsonl$/.exec(name)?.[1] ?? 0)));
    const episodes = String(highest + 5);
    const resumed = await cli(
      ...["record", "--env", "lookup", "--policy", "expert", "--episodes", episodes, "--out", dir, "--resume"],
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(
      new RegExp(`record --resume: \\d+ of ${episodes} episodes are journaled already and kept`),
    );
    expect(resumed.stdout).toContain(`recorded ${episodes} episodes of lookup`);
    const replayed = await cli("replay", dir, "--verify", "--quiet");
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain(`verified ${readdirSync(dir).length} journal(s) ok, 0 failed`);
  }, 120_000);
});

describe("agent-r1 replay of a run folder (train --out)", () => {
  it("verifies the journals under episodes/ and warm-start/demos/, and reads metrics.jsonl as no journal", async () => {
    const run = tempDir();
    const golden = readdirSync("replays/lookup/expert").sort();
    // The demos are another policy's episodes: a copy of one of the run's would be said as a copy.
    const demo = readdirSync("replays/lookup/random").sort()[0];
    for (const [folder, names, from] of [
      [join(run, "episodes", "u00001"), golden.slice(0, 2), "expert"],
      [join(run, "episodes", "u00002"), golden.slice(2), "expert"],
      [join(run, "warm-start", "demos"), [demo], "random"],
    ] as const) {
      mkdirSync(folder, { recursive: true });
      for (const name of names) writeFileSync(join(folder, name), readFileSync(join("replays/lookup", from, name)));
    }
    writeFileSync(join(run, "metrics.jsonl"), '{"update":1,"return":0.5}\n');
    const replayed = await cli("replay", run, "--verify");
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain(`verified ${golden.length + 1} journal(s) ok, 0 failed`);
    expect(replayed.stdout).toContain(join(run, "episodes", "u00002", golden[2]));
    expect(`${replayed.stdout}${replayed.stderr}`).not.toContain("metrics.jsonl");
    const empty = tempDir();
    const none = await cli("replay", empty);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`no .jsonl journal files in ${empty}`);
  });
});

describe("agent-r1 inspect", () => {
  it("prints an episode as a timeline with actions, tool calls, results, rewards and the ending", async () => {
    const run = await cli("inspect", "replays/lookup/expert/ep-golden-1.jsonl");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('action  turn 0 (9 tokens, logprob 0.00, policy v0): "<lookup>k35</lookup>"');
    expect(run.stdout).toContain('call  c0 lookup({"key":"k35"})');
    expect(run.stdout).toContain("reward +0.2 (process, turn 0): retrieved a needed key");
    expect(run.stdout).toMatch(/ended: answered; return 1\.4, 3 turns/);
    expect((await cli("inspect", "no/such/file.jsonl")).code).toBe(2);
  });

  it("inspect takes several paths (a shell glob's files) as one list; --html one only", async () => {
    // `inspect runs/x/ep-7-1*.jsonl` was refused: "too many arguments for 'inspect'".
    const [a, b] = readdirSync("replays/lookup/expert")
      .filter((f) => f.endsWith(".jsonl"))
      .sort()
      .map((f) => join("replays/lookup/expert", f));
    const run = await cli("inspect", a, b);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`# ${a}\n`);
    expect(run.stdout).toContain(`# ${b}\n`);
    const page = await cli("inspect", a, b, "--html", join(tempDir(), "p.html"));
    expect(page.code).toBe(2);
    expect(page.stderr).toContain(
      `inspect --html takes one journal, folder or run (got 2 paths: ${a}, ${b}); give the folder that holds them`,
    );
    // A folder and a file in it: the file is shown once, not as a copy of itself.
    const twice = await cli("inspect", "replays/lookup/expert", a, "--max-episodes", "1");
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.stderr).not.toContain("hold the same episode");
    expect(twice.stdout).toContain(
      `showed the first 1 of ${readdirSync("replays/lookup/expert").filter((f) => f.endsWith(".jsonl")).length} journals`,
    );
    expect((await cli("inspect", a, "no/such/file.jsonl")).stderr).toContain(
      "no such file or folder: no/such/file.jsonl",
    );
  });

  it("says a journal that stops between two whole lines is not ended (it read as a finished episode)", async () => {
    const dir = tempDir();
    const lines = readFileSync("replays/lookup/expert/ep-golden-1.jsonl", "utf8").trimEnd().split("\n");
    writeFileSync(join(dir, "ep-golden-1.jsonl"), `${lines.slice(0, -2).join("\n")}\n`);
    writeFileSync(join(dir, "ep-golden-2.jsonl"), readFileSync("replays/lookup/expert/ep-golden-2.jsonl"));
    const run = await cli("inspect", dir);
    // Nothing in it is damaged: a recording still going looks the same.
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `  … not ended: the journal stops after its ${lines.length - 2} events (an episode still being recorded, or a recording stopped between two writes)`,
    );
    expect(run.stdout.match(/not ended: the journal/g)).toHaveLength(1);
    expect(run.stdout).toContain(`1 of 2 journals not ended (no episode.ended event)`);
    expect(run.stdout).toContain(`\`npx agent-r1 replay ${dir}\` checks each`);
  });

  it("shows a torn journal up to the damage and goes on with the others (a run killed mid-write)", async () => {
    const dir = tempDir();
    for (const name of ["ep-golden-1", "ep-golden-2"])
      writeFileSync(join(dir, `${name}.jsonl`), readFileSync(`replays/lookup/expert/${name}.jsonl`));
    const torn = readFileSync(join(dir, "ep-golden-1.jsonl"), "utf8");
    writeFileSync(join(dir, "ep-golden-1.jsonl"), torn.slice(0, torn.length - 40));
    const run = await cli("inspect", dir);
    expect(run.code, run.stderr).toBe(1); // shown, and said by the exit status, as replay does
    expect(run.stdout).toContain('call  c0 lookup({"key":"k35"})'); // the torn journal's readable events
    expect(run.stdout).toMatch(/ {2}! \S+ep-golden-1\.jsonl:\d+: torn-tail/);
    expect(run.stdout).toContain("# ".concat(join(dir, "ep-golden-2.jsonl"))); // and the next journal
    expect(run.stdout).toContain(
      `1 of 2 journals damaged (shown up to the damage); \`npx agent-r1 replay ${dir} --repair\` cuts the torn last line back`,
    );
    // Damage inside a journal is not what --repair mends, and inspect does not suggest it for that.
    const lines = readFileSync(join(dir, "ep-golden-2.jsonl"), "utf8").split("\n");
    writeFileSync(join(dir, "ep-golden-2.jsonl"), [...lines.slice(0, 3), "garbage {", ...lines.slice(3)].join("\n"));
    const inside = await cli("inspect", join(dir, "ep-golden-2.jsonl"));
    expect(inside.code).toBe(1);
    expect(inside.stdout).toMatch(/ {2}! \S+ep-golden-2\.jsonl:4: /);
    expect(inside.stdout).toContain(
      "1 damaged otherwise than by a cut last write (an edited, removed or added line), which --repair does not touch",
    );
    expect(inside.stdout).not.toContain("cuts the");
    // Junk appended after the last event, without a newline: no cut write leaves that, so no --repair advice.
    const junk = join(dir, "junk");
    mkdirSync(junk);
    writeFileSync(
      join(junk, "ep-golden-1.jsonl"),
      `${readFileSync("replays/lookup/expert/ep-golden-1.jsonl", "utf8")}garbage-no-newline`,
    );
    const appended = await cli("inspect", junk);
    expect(appended.code).toBe(1);
    expect(appended.stdout).toMatch(
      / {2}! \S+ep-golden-1\.jsonl:\d+: parse: the last line is incomplete .*no cut write left it/,
    );
    expect(appended.stdout).not.toContain("cuts the");
    expect((await cli("inspect", "replays/lookup/expert/ep-golden-2.jsonl")).code).toBe(0);
    // An empty journal has no "last line" to be damaged before.
    writeFileSync(join(dir, "empty.jsonl"), "");
    const empty = await cli("inspect", join(dir, "empty.jsonl"));
    expect(empty.code).toBe(1);
    expect(empty.stdout).toContain("1 of 1 journal damaged (shown up to the damage); 1 with no readable event");
    expect(empty.stdout).not.toContain("before their last line");
    const repair = await cli("replay", join(dir, "ep-golden-2.jsonl"), "--repair");
    expect(repair.code).toBe(1);
    expect(repair.stderr).toContain("ep-golden-2.jsonl:4: parse:");
    expect(repair.stderr).toContain(
      "--repair cuts back only a torn last line, or blank lines after the last event; it does not mend damage before the end",
    );
    const metrics = await cli("inspect", "docs/long/run-records/plan.json");
    expect(metrics.code).toBe(2);
    expect(metrics.stderr).toContain("is not an episode journal");
  });

  it("shows the first --max-episodes journals (20 unless told), and still counts damage in the rest", async () => {
    const dir = tempDir();
    const golden = readFileSync("replays/lookup/expert/ep-golden-1.jsonl", "utf8");
    for (let i = 0; i < 23; i++) writeFileSync(join(dir, `ep-${String(i).padStart(2, "0")}.jsonl`), golden);
    const many = await cli("inspect", dir);
    expect(many.code, many.stderr).toBe(0);
    expect(many.stdout.match(/^# /gm)).toHaveLength(20);
    expect(many.stdout).toContain(
      "showed the first 20 of 23 journals; --max-episodes 23 shows them all, --html FILE writes a page",
    );
    // A folder of journals has no charts to put on the page: only a run folder (train --out) has.
    expect(many.stdout).toContain("writes a page with a sample of them\n");
    expect(many.stdout).not.toContain("the run's charts");
    const run = tempDir();
    mkdirSync(join(run, "episodes"));
    for (let i = 0; i < 21; i++) writeFileSync(join(run, "episodes", `ep-${String(i).padStart(2, "0")}.jsonl`), golden);
    expect((await cli("inspect", run)).stdout).toContain("writes a page with a sample of them and the run's charts");
    writeFileSync(join(dir, "ep-22.jsonl"), golden.slice(0, golden.length - 40));
    const one = await cli("inspect", dir, "--max-episodes", "1");
    expect(one.code).toBe(1);
    expect(one.stdout.match(/^# /gm)).toHaveLength(1);
    expect(one.stdout).toContain(`damaged among those not shown: ${join(dir, "ep-22.jsonl")}`);
    expect(one.stdout).toContain("1 of 23 journals damaged");
    const all = await cli("inspect", dir, "--max-episodes", "23");
    expect(all.stdout.match(/^# /gm)).toHaveLength(23);
    expect(all.stdout).not.toContain("showed the first");
  });
});
