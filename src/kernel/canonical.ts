/**
 * Canonical JSON (RFC 8785, key-order independent) and the hashes built on it. Everything that is hashed
 * or compared on replay goes through here, so two equal values always hash equal.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

export const canonicalJson = (value: unknown): string => {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("value has no JSON representation");
  return text;
};

/** 128-bit hex digest of a string. */
export const digest = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 32);

export const hashValue = (value: unknown): string => digest(canonicalJson(value));

/** Hash of an event (its `digest`, and the next event's `prev`): canonical JSON without `digest` and `meta`. */
export const hashEvent = (event: object): string => {
  const { meta: _meta, digest: _digest, ...hashed } = event as { meta?: unknown; digest?: unknown };
  return hashValue(hashed);
};
