/**
 * Journals that hold the same episode: a copied file (a file manager's "ep-7-0 (copy).jsonl", a folder copied in
 * twice, the same --seed recorded twice) ends with the same digest, and the hash chain covers every event.
 */
export class EpisodeCopies {
  /** Each episode's file by its last digest. */
  readonly #fileOf = new Map<string, string>();

  /** The file seen before with this last digest, if any; otherwise `file` is remembered as the episode's. */
  earlier(file: string, lastDigest: string | undefined): string | undefined {
    if (lastDigest === undefined) return undefined;
    const earlier = this.#fileOf.get(lastDigest);
    if (earlier === undefined) this.#fileOf.set(lastDigest, file);
    return earlier;
  }
}

/**
 * "A and B hold the same episode (ep-7-0, the same events)". Neither is named the copy: which file is read first
 * is the listing's order ("ep-7-0 (copy).jsonl" sorts before "ep-7-0.jsonl"), not which was there first.
 */
export const sameEpisode = (earlier: string, file: string, episode: string | undefined): string =>
  `${earlier} and ${file} hold the same episode (${episode}, the same events)`;

/**
 * Why two journals hold the same episode: a hash chain ends in the same digest only for the same events, which a
 * copied file holds, and so does a second recording of the same seed (recording is deterministic: two train runs
 * of one --seed record the same warm-start demonstrations).
 */
export const SAME_LAST_DIGEST = "one is a copy of the other, or the same seed recorded twice (the same last digest)";

/** Journals holding another's episode that replay and inspect name one by one; the rest are counted in one line. */
export const COPIES_LISTED = 5;

/** The line that counts the journals past the first COPIES_LISTED that hold another's episode, or undefined. */
export const moreCopies = (copies: number): string | undefined =>
  copies > COPIES_LISTED
    ? `warning: ${copies - COPIES_LISTED} more journals hold the same episode as another, not listed (the first ${COPIES_LISTED} are above)`
    : undefined;
