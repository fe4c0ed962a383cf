import { type Command, CommanderError, InvalidArgumentError } from "commander";
import { closestName } from "../kernel/errors.ts";

/**
 * Why `value` is no seed, naming it as `name` (the CLI's `--seed`, evaluate's `evaluate: seed`), or undefined when it
 * is one. A seed becomes part of episode ids (file names): keep it short and plain.
 */
export const seedProblem = (value: string, name = "--seed"): string | undefined =>
  /^[A-Za-z0-9._:-]{1,100}$/.test(value)
    ? undefined
    : `${name} must be 1 to 100 ASCII letters (a-z, A-Z), digits, '.', '_', '-' or ':', got ${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? "..." : ""}`;

/** The `--seed` option's parser: the value when it is a seed (seedProblem), a usage error otherwise. */
export const seedArg = (value: string) => {
  const problem = seedProblem(value);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return value;
};

/**
 * A whole-number option: decimal digits only (not 1e3, 0x10, +5 or 2.5), at least `min` and at most 2^53 - 1,
 * so a value too large to count exactly is refused rather than run. With `min` 1 the refusal says "a positive
 * integer", as every command's does.
 */
export const intArg =
  (name: string, min: number) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(
        `${name} must be ${min === 1 ? "a positive integer" : `an integer >= ${min}`}${/^\d+$/.test(value.trim()) && !Number.isSafeInteger(n) ? " below 2^53" : ""}, got "${value}"${!/^\d+$/.test(value.trim()) && Number.isSafeInteger(n) && n >= min ? " (write it in decimal digits)" : ""}`,
      );
    return n;
  };

/**
 * An option of a few named values, parsed after commander's `.choices()` (whose list the help keeps): a value not
 * among them is refused with the list, and the one it most likely meant (`--algo grop`, `--algo GRPO`: grpo).
 */
export const choiceArg =
  (choices: readonly string[]) =>
  (value: string): string => {
    if (choices.includes(value)) return value;
    const meant = closestName(value, choices);
    throw new InvalidArgumentError(
      `Allowed choices are ${choices.join(", ")}.${meant === undefined ? "" : ` Did you mean ${meant}?`}`,
    );
  };

/**
 * A summary as one JSON line, its fractions rounded to 12 significant digits: a mean of rewards prints as
 * 0.9, not 0.8999999999999997 (float sums' noise). Integers and non-numbers are written as they are.
 */
export const summaryJson = (summary: unknown): string =>
  JSON.stringify(summary, (_, value) =>
    typeof value === "number" && Number.isFinite(value) && !Number.isInteger(value)
      ? Number(value.toPrecision(12))
      : value,
  );

/**
 * An option that takes one value, given twice (`--seed 1 --seed 2`, a flag pasted at the end of a long command):
 * commander keeps the last and says nothing, so the run may not be the one meant. No option of agent-r1's (or of
 * `npm run experiment`) collects its values; a flag without a value (`--quick`) may be repeated.
 */
export const refuseRepeatedOptions = (command: Command): void => {
  for (const option of command.options) {
    if (!(option.required || option.optional) || option.variadic) continue;
    const given: string[] = [];
    command.on(`option:${option.name()}`, (value: string | undefined) => {
      given.push(String(value));
      if (given.length > 1)
        command.error(`error: ${option.long ?? option.short} given twice (${given.join(", ")}): give it once`, {
          exitCode: 2,
          code: "agent-r1.repeatedOption",
        });
    });
  }
};

/** A value that names a file or folder (`<dir>`, `<file>`, `<path>`, `<id|path>`, `<runs...>`). */
const PATH_VALUE = /dir|file|path|runs|checkpoints/;
const emptyMeans = (placeholder: string) =>
  PATH_VALUE.test(placeholder) ? "; an empty path would be the working folder" : "";

/**
 * An option or argument given an empty value (`--out ""`, an unset `$VAR`): an empty path resolves to the working
 * folder, so `average --out ""` wrote its checkpoint over the folder the command ran in, and `record --out ""`
 * failed with Node's `ENOENT: ... open ''`. No option or argument of agent-r1's takes an empty value. A value
 * that a parser checks (a number, a seed) is refused by it first, with its own message.
 */
export const refuseEmptyValues = (command: Command): void => {
  const refuse = (what: string, placeholder: string) =>
    command.error(`error: ${what} is empty (""): give ${placeholder}${emptyMeans(placeholder)}`, {
      exitCode: 2,
      code: "agent-r1.emptyValue",
    });
  for (const option of command.options) {
    if (!(option.required || option.optional)) continue;
    const placeholder = /<[^>]+>|\[[^\]]+\]/.exec(option.flags)?.[0] ?? "a value";
    command.on(`option:${option.name()}`, (value: unknown) => {
      if (value === "") refuse(option.long ?? option.name(), placeholder);
    });
  }
  command.hook("preAction", (_, action) => {
    action.registeredArguments.forEach((argument, index) => {
      const given = argument.variadic ? action.args.slice(index) : [action.args[index]];
      const shown = `<${argument.name()}${argument.variadic ? "..." : ""}>`;
      if (given.includes("")) refuse(`the ${shown} argument`, shown);
    });
  });
};

/**
 * An option whose value is the command's next option (`--policy --episodes 2`, `--seed --out runs/x`: a value
 * forgotten): commander takes the flag as the value, and the error came from what was left (`too many arguments
 * for 'record'`, `required option '--out <dir>' not specified`), naming neither. A value that is none of the
 * command's flags (a seed `-x`) is left to the option's own checks, and so is one given in the option's own
 * argument (`--seed=-h`: no value was forgotten there), which the refusal names as the way to give it.
 */
export const refuseOptionAsValue = (command: Command): void => {
  const flags = new Set(command.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined));
  flags.add("--help").add("-h");
  // The arguments this command parses, to tell `--seed=-h` (one argument) from `--seed -h` (two).
  let parsed: readonly string[] = [];
  const parseOptions = command.parseOptions.bind(command);
  command.parseOptions = (args) => {
    parsed = args;
    return parseOptions(args);
  };
  for (const option of command.options) {
    if (!(option.required || option.optional)) continue;
    const placeholder = /<[^>]+>|\[[^\]]+\]/.exec(option.flags)?.[0] ?? "a value";
    const flag = option.long ?? option.short;
    command.on(`option:${option.name()}`, (value: unknown) => {
      if (typeof value !== "string" || !flags.has(value.split("=", 1)[0])) return;
      if (option.long !== undefined && parsed.includes(`${option.long}=${value}`)) return;
      command.error(
        `error: ${flag} took ${JSON.stringify(value)} as its value: give ${flag} ${placeholder} before ${value.split("=", 1)[0]}${option.long === undefined ? "" : ` (or, for the value ${JSON.stringify(value)}, ${option.long}=${value})`}`,
        { exitCode: 2, code: "agent-r1.optionAsValue" },
      );
    });
  }
};

/**
 * A flag given with its negation (`--constrained --no-constrained`, in either order or more than once): commander
 * keeps the last and says nothing, as for a repeated value. A flag repeated in one form (`--quick --quick`) may be.
 */
export const refuseBothForms = (command: Command): void => {
  const flags = command.options.filter((option) => !(option.required || option.optional));
  for (const option of flags.filter((o) => o.negate)) {
    const positive = flags.find((o) => !o.negate && o.attributeName() === option.attributeName());
    if (positive === undefined) continue;
    const given: string[] = [];
    for (const form of [positive, option])
      command.on(`option:${form.name()}`, () => {
        const flag = form.long ?? form.name();
        if (given.length > 0 && !given.includes(flag))
          command.error(`error: ${given[0]} and ${flag} both given: give one of them`, {
            exitCode: 2,
            code: "agent-r1.contradictoryOptions",
          });
        given.push(flag);
      });
  }
};

/**
 * Parses a script's arguments (`npm run experiment`, `npm run recipe:left`) as agent-r1 parses its own: an option
 * given twice, a flag with its negation, or a flag taken as a value is refused. Returns the exit code when the
 * parse ended the command (0 after --help, 2 for bad usage, which commander has printed), else undefined. The
 * program must call exitOverride().
 */
export const parseScriptArgs = (program: Command, argv: readonly string[]): number | undefined => {
  refuseRepeatedOptions(program);
  refuseBothForms(program);
  refuseOptionAsValue(program);
  try {
    program.parse([...argv], { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return error.code === "commander.helpDisplayed" || error.code === "commander.help" ? 0 : 2;
  }
  return undefined;
};
