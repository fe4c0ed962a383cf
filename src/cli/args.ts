import { InvalidArgumentError } from "commander";

/** A seed becomes part of episode ids (file names): keep it short and plain. */
export const seedArg = (value: string) => {
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(value))
    throw new InvalidArgumentError(
      `--seed must be 1 to 100 letters, digits, '.', '_', '-' or ':', got ${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? "..." : ""}`,
    );
  return value;
};
