import { InvalidArgumentError } from "commander";

/** A seed becomes part of episode ids (file names): keep it short and plain. */
export const seedArg = (value: string) => {
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(value))
    throw new InvalidArgumentError(
      `--seed must be 1 to 100 letters, digits, '.', '_', '-' or ':', got ${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? "..." : ""}`,
    );
  return value;
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
