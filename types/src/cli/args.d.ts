import { type Command } from "commander";
/**
 * Why `value` is no seed, naming it as `name` (the CLI's `--seed`, evaluate's `evaluate: seed`), or undefined when it
 * is one. A seed becomes part of episode ids (file names): keep it short and plain.
 */
export declare const seedProblem: (value: string, name?: string) => string | undefined;
/** The `--seed` option's parser: the value when it is a seed (seedProblem), a usage error otherwise. */
export declare const seedArg: (value: string) => string;
/**
 * A whole-number option: decimal digits only (not 1e3, 0x10, +5 or 2.5), at least `min` and at most 2^53 - 1,
 * so a value too large to count exactly is refused rather than run. With `min` 1 the refusal says "a positive
 * integer", as every command's does.
 */
export declare const intArg: (name: string, min: number) => (value: string) => number;
/**
 * An option of a few named values, parsed after commander's `.choices()` (whose list the help keeps): a value not
 * among them is refused with the list, and the one it most likely meant (`--algo grop`, `--algo GRPO`: grpo).
 */
export declare const choiceArg: (choices: readonly string[]) => (value: string) => string;
/**
 * A summary as one JSON line, its fractions rounded to 12 significant digits: a mean of rewards prints as
 * 0.9, not 0.8999999999999997 (float sums' noise). Integers and non-numbers are written as they are.
 */
export declare const summaryJson: (summary: unknown) => string;
/**
 * An option that takes one value, given twice (`--seed 1 --seed 2`, a flag pasted at the end of a long command):
 * commander keeps the last and says nothing, so the run may not be the one meant. No option of agent-r1's (or of
 * `npm run experiment`) collects its values; a flag without a value (`--quick`) may be repeated.
 */
export declare const refuseRepeatedOptions: (command: Command) => void;
/**
 * An option or argument given an empty value (`--out ""`, an unset `$VAR`): an empty path resolves to the working
 * folder, so `average --out ""` wrote its checkpoint over the folder the command ran in, and `record --out ""`
 * failed with Node's `ENOENT: ... open ''`. No option or argument of agent-r1's takes an empty value. A value
 * that a parser checks (a number, a seed) is refused by it first, with its own message.
 */
export declare const refuseEmptyValues: (command: Command) => void;
/**
 * An option whose value is the command's next option (`--policy --episodes 2`, `--seed --out runs/x`: a value
 * forgotten): commander takes the flag as the value, and the error came from what was left (`too many arguments
 * for 'record'`, `required option '--out <dir>' not specified`), naming neither. A value that is none of the
 * command's flags (a seed `-x`) is left to the option's own checks, and so is one given in the option's own
 * argument (`--seed=-h`: no value was forgotten there), which the refusal names as the way to give it.
 */
export declare const refuseOptionAsValue: (command: Command) => void;
/**
 * A flag given with its negation (`--constrained --no-constrained`, in either order or more than once): commander
 * keeps the last and says nothing, as for a repeated value. A flag repeated in one form (`--quick --quick`) may be.
 */
export declare const refuseBothForms: (command: Command) => void;
/**
 * Parses a script's arguments (`npm run experiment`, `npm run recipe:left`) as agent-r1 parses its own: an option
 * given twice, a flag with its negation, or a flag taken as a value is refused. Returns the exit code when the
 * parse ended the command (0 after --help, 2 for bad usage, which commander has printed), else undefined. The
 * program must call exitOverride().
 */
export declare const parseScriptArgs: (program: Command, argv: readonly string[]) => number | undefined;
