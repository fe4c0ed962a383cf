import { InvalidArgumentError } from "commander";

/** A seed becomes part of episode ids (file names): keep it short and plain. */
export const seedArg = (value: string) => {
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(value))
    throw new InvalidArgumentError(
      `--seed must be 1 to 100 ASCII letters (a-z, A-Z), digits, '.', '_', '-' or ':', got ${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? "..." : ""}`,
    );
  return value;
};

/**
 * A whole-number option: decimal digits only (not 1e3, 0x10, +5 or 2.5), at least `min` and at most 2^53 - 1,
 * so a value too large to count exactly is refused rather than run.
 */
export const intArg =
  (name: string, min: number, positive = false) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(
        `${name} must be ${positive ? "a positive integer" : `an integer >= ${min}`}${/^\d+$/.test(value.trim()) && !Number.isSafeInteger(n) ? " below 2^53" : ""}, got "${value}"${!/^\d+$/.test(value.trim()) && Number.isSafeInteger(n) && n >= min ? " (write it in decimal digits)" : ""}`,
      );
    return n;
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
