/** The command line of a bench script, parsed as the CLI's are. */
import { type Command, CommanderError } from "commander";

/**
 * Parses `process.argv` with `program`: a problem commander printed (an unknown option or workload, a value it
 * refuses) exits 2, as every agent-r1 command's bad flag does (commander's own exit code is 1); --help exits 0.
 */
export const parseOrExit = (program: Command): void => {
  program.showHelpAfterError("(run with --help for usage)").exitOverride();
  try {
    program.parse();
  } catch (error) {
    process.exit(error instanceof CommanderError && error.code.startsWith("commander.help") ? 0 : 2);
  }
};
