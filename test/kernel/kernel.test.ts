import { createHash } from "node:crypto";
import { test as fcTest } from "@fast-check/vitest";
import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, hashEvent, hashValue, Rng, splitSeed, WordTokenizer } from "../../src/index.ts";
import { checkBooleans, closestName, shownValue } from "../../src/kernel/errors.ts";

describe("canonical JSON and hashes", () => {
  fcTest.prop([fc.dictionary(fc.string(), fc.jsonValue())])("key order never changes the hash", (object) => {
    const reversed = Object.fromEntries(Object.entries(object).reverse());
    expect(canonicalJson(reversed)).toBe(canonicalJson(object));
    expect(hashValue(reversed)).toBe(hashValue(object));
  });

  // canonicalJson takes a faster path than the RFC 8785 reference library; its output must be the same
  // text, and it must refuse what the library refuses (lone surrogates, NaN, Infinity), or hashes change.
  const sameAsReference = (value: unknown) => {
    let expected: string | undefined;
    try {
      expected = canonicalize(value);
    } catch {
      expect(() => canonicalJson(value)).toThrow();
      return;
    }
    expect(canonicalJson(value)).toBe(expected);
  };
  fcTest.prop([fc.jsonValue({ stringUnit: "binary" })], { numRuns: 300 })(
    "is RFC 8785's text: any JSON, lone surrogates included",
    sameAsReference,
  );
  // UTF-16 units, lone surrogate halves and escape-like text ("\\ud8") included.
  const text = fc.string({
    unit: fc.oneof(
      fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
      fc.constantFrom("\\", "u", "d", "8", '"'),
    ),
  });
  fcTest.prop([
    fc.dictionary(text, fc.oneof(fc.double(), text, fc.constant(undefined), fc.array(fc.oneof(fc.double(), text)))),
  ])(
    "is RFC 8785's text: any number or UTF-16 text, undefined properties, keys sorted by UTF-16 units",
    sameAsReference,
  );
  it("is RFC 8785's text on the edge cases", () => {
    for (const value of [
      -0,
      1e21,
      5e-324,
      "\\ud800",
      "\ud83d\ude00",
      "\ud800",
      { "\ud83d\ude00": 1, "\uffff": 2, a: [undefined, 1] },
      NaN,
      { b: Infinity },
    ])
      sameAsReference(value);
  });

  it("refuses a value with no JSON text (undefined, a function) rather than hashing nothing", () => {
    expect(() => canonicalJson(undefined)).toThrow("value has no JSON representation");
    expect(() => canonicalJson(() => 1)).toThrow();
  });

  it("a hash is the first 128 bits of the SHA-256 of the RFC 8785 text, as journals recorded before hold it", () => {
    const sha = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 32);
    const value = { b: [1, "é\n", -0, 1e21, 0.1], a: null, "": { z: true, y: false } };
    expect(canonicalJson(value)).toBe('{"":{"y":false,"z":true},"a":null,"b":[1,"é\\n",0,1e+21,0.1]}');
    expect(hashValue(value)).toBe(sha(canonicalJson(value)));
    expect(hashValue(value)).toMatch(/^[0-9a-f]{32}$/);
    // An event's digest leaves out its own digest and its meta.
    const event = { type: "episode.started", seq: 0, prev: "p", digest: "d", meta: { at: 1 } };
    expect(hashEvent(event)).toBe(sha('{"prev":"p","seq":0,"type":"episode.started"}'));
  });

  it("different values hash differently", () => {
    expect(hashValue({ a: 1 })).not.toBe(hashValue({ a: 2 }));
  });
});

describe("seeded splittable randomness", () => {
  fcTest.prop([fc.string(), fc.nat(100)])("a stream depends only on its seed", (seed, index) => {
    const a = Rng.fromSeed(splitSeed(seed, index));
    const b = Rng.fromSeed(splitSeed(seed, index));
    Rng.fromSeed(splitSeed(seed, index + 1)).float(); // other streams do not interfere
    expect([a.float(), a.int(0, 9), a.float()]).toEqual([b.float(), b.int(0, 9), b.float()]);
  });

  it("child streams differ from each other and from the parent", () => {
    const draws = ["7", "7:0", "7:1", "7:0:0"].map((s) => Rng.fromSeed(s).float());
    expect(new Set(draws).size).toBe(4);
  });

  fcTest.prop([fc.string(), fc.integer({ min: -50, max: 50 }), fc.nat(50)])(
    "int stays in range",
    (seed, from, span) => {
      const rng = Rng.fromSeed(seed);
      for (let i = 0; i < 20; i++) {
        const n = rng.int(from, from + span);
        expect(n).toBeGreaterThanOrEqual(from);
        expect(n).toBeLessThanOrEqual(from + span);
      }
    },
  );
});

describe("draws over a range and shuffles", () => {
  fcTest.prop([fc.string(), fc.integer({ min: -50, max: 50 }), fc.nat(4)])(
    "int draws both ends of its range (from and to are included)",
    (seed, from, span) => {
      const rng = Rng.fromSeed(seed);
      const drawn = new Set(Array.from({ length: 200 }, () => rng.int(from, from + span)));
      expect(drawn.has(from) && drawn.has(from + span), [...drawn].join(", ")).toBe(true);
    },
  );

  fcTest.prop([fc.string(), fc.integer({ min: 1, max: 5 })])("pick can pick every item", (seed, n) => {
    const rng = Rng.fromSeed(seed);
    const items = Array.from({ length: n }, (_, i) => `item ${i}`);
    expect(new Set(Array.from({ length: 200 }, () => rng.pick(items))).size).toBe(n);
  });

  fcTest.prop([fc.string(), fc.array(fc.jsonValue(), { maxLength: 30 })])(
    "shuffle returns a permutation of the items, and leaves the list it was given as it was",
    (seed, items) => {
      const before = structuredClone(items);
      const shuffled = Rng.fromSeed(seed).shuffle(items);
      expect(items).toEqual(before);
      const key = (x: unknown) => JSON.stringify(x) ?? "undefined";
      expect(shuffled.map(key).sort()).toEqual(items.map(key).sort());
    },
  );

  it("shuffle draws every order about equally often (Fisher-Yates: an item may stay where it was)", () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 1200; i++) {
      const order = Rng.fromSeed(splitSeed("shuffle", i)).shuffle([0, 1, 2]).join("");
      counts.set(order, (counts.get(order) ?? 0) + 1);
    }
    // 6 orders, 200 each expected: a binomial standard deviation of about 13, so 150-250 is nearly 4 of them.
    expect([...counts.keys()].sort()).toEqual(["012", "021", "102", "120", "201", "210"]);
    for (const [order, n] of counts) expect(n, `order ${order}`).toBeGreaterThan(150);
    for (const [order, n] of counts) expect(n, `order ${order}`).toBeLessThan(250);
  });

  it("splitSeed names the child stream seed:index, so two parents' children never share a name", () => {
    expect(splitSeed("7", 3)).toBe("7:3");
    expect(splitSeed(splitSeed("7", 3), 0)).toBe("7:3:0");
    expect(splitSeed("1", 12)).not.toBe(splitSeed("11", 2));
  });
});

it("fromSeed refuses a seed that is no string, naming it (a task(seed) called with a number from a script)", () => {
  expect(() => Rng.fromSeed(7 as unknown as string)).toThrow(
    new TypeError('Rng.fromSeed: a seed is a string, got the number 7 (write String(7) or "7")'),
  );
  expect(() => Rng.fromSeed(undefined as unknown as string)).toThrow("Rng.fromSeed: a seed is a string, got undefined");
  expect(() => Rng.fromSeed(null as unknown as string)).toThrow("Rng.fromSeed: a seed is a string, got null");
  expect(Rng.fromSeed("7").float()).toBe(Rng.fromSeed(String(7)).float());
});

it("int refuses bounds it cannot draw within: reversed, fractional, NaN, unsafe (int(5, 2) drew 6)", () => {
  const rng = Rng.fromSeed("bounds");
  for (const [from, to] of [
    [5, 2],
    [0.5, 2.5],
    [0, 2.5],
    [0, Number.NaN],
    [Number.NaN, 3],
    [0, Number.POSITIVE_INFINITY],
    [-(2 ** 53), 0],
    [-(2 ** 52), 2 ** 52],
  ])
    expect(() => rng.int(from as number, to as number), `int(${from}, ${to})`).toThrow(RangeError);
  expect(rng.int(3, 3)).toBe(3);
  expect(rng.int(-4, -4)).toBe(-4);
  const big = rng.int(0, Number.MAX_SAFE_INTEGER);
  expect(Number.isSafeInteger(big)).toBe(true);
});

describe("word tokenizer with byte fallback", () => {
  const tokenizer = new WordTokenizer(["the", "key", "k1", "<", ">", "/", "lookup"]);

  fcTest.prop([fc.string({ unit: "binary" })])("decode(encode(text)) is the text, for any string", (text) => {
    // Lone surrogates cannot be encoded as UTF-8; everything else must round-trip exactly.
    const wellFormed = text.toWellFormed();
    const ids = tokenizer.encode(wellFormed);
    expect(ids.every((id) => Number.isInteger(id) && id >= 0 && id < tokenizer.size)).toBe(true);
    expect(tokenizer.decode(ids)).toBe(wellFormed);
  });

  const vocabularyWord = fc.oneof(
    { arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 6 }), weight: 4 },
    fc.constantFrom("<pad>", "<bos>", "<eos>", "<obs>", "<act>", "<glue>", "e-mail", "a.b"),
  );
  fcTest.prop([fc.array(vocabularyWord, { maxLength: 8 }), fc.string(), fc.constantFrom("explicit", "implicit")])(
    "any vocabulary builds a tokenizer: its words are one token each, and any text round-trips",
    (words, text, spaces) => {
      // A hyphenated word such as "e-mail" made the cutter an invalid regular expression (a "\-" under the u flag).
      const vocab = new WordTokenizer(words, { spaces: spaces as "explicit" | "implicit" });
      for (const word of words) expect(vocab.decode(vocab.encode(word))).toBe(word);
      const specials = ["<pad>", "<bos>", "<eos>", "<obs>", "<act>"];
      if (spaces === "implicit") specials.push("<glue>");
      for (const word of words) if (!specials.includes(word)) expect(vocab.encode(word)).toHaveLength(1);
      expect(vocab.decode(vocab.encode(text.toWellFormed()))).toBe(text.toWellFormed());
    },
  );

  it.each(["explicit", "implicit"] as const)(
    "a vocabulary word spelt like a special token keeps its text (%s spaces; <act>x</act> decoded as x</act>)",
    (spaces) => {
      const specials = ["<pad>", "<bos>", "<eos>", "<obs>", "<act>", "<glue>"];
      const vocab = new WordTokenizer([...specials, "</act>", "x", "<", ">", "act"], { spaces });
      for (const text of ["<act>x</act>", ...specials, "<glue> <eos>x"])
        expect(vocab.decode(vocab.encode(text))).toBe(text);
    },
  );

  it("a hyphenated vocabulary word is one token", () => {
    const vocab = new WordTokenizer(["e-mail", "a.b", "x|y", "(", "\\d"]);
    for (const word of vocab.words) expect(vocab.encode(word)).toHaveLength(1);
  });

  it.each(["\uFEFFthe", "the \uFEFFx", "\uFEFF", "a\uFEFF\uFEFFb"])(
    "keeps a U+FEFF (byte order mark) wherever it is: %j (the default decoder dropped one)",
    (text) => {
      expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
    },
  );

  it("vocabulary words are one token each; unknown words fall back to bytes", () => {
    expect(tokenizer.encode("<lookup>k1</lookup>")).toHaveLength(8);
    expect(tokenizer.encode("zz")).toEqual([122, 122]);
  });

  it("a word piece outside the vocabulary is spelt in bytes, even when a vocabulary word begins it", () => {
    // "the" is a word, "there" is not: bytes, as recorded journals encoded it.
    expect(tokenizer.encode("there")).toEqual([...new TextEncoder().encode("there")]);
    expect(tokenizer.encode("k12")).toEqual([...new TextEncoder().encode("k12")]);
  });

  it("a multi-piece vocabulary word that begins a longer one leaves the longer one whole", () => {
    const vocab = new WordTokenizer(["e-mail", "e-mail-x", "<a>", "<a>b"]);
    for (const word of vocab.words) expect(vocab.encode(word)).toEqual([vocab.idOf(word)]);
  });

  it("a repeated word, or one spelt like a special token, takes no new id", () => {
    const plain = new WordTokenizer(["a", "b"]);
    const repeated = new WordTokenizer(["a", "b", "a", "<eos>", " "]);
    expect(repeated.size).toBe(plain.size);
    expect(repeated.id).toBe(plain.id);
    expect(repeated.idOf("a")).toBe(plain.idOf("a"));
    expect(repeated.idOf("<eos>")).toBe(258);
  });

  it("fromCorpus gives the same vocabulary whatever the order of its texts", () => {
    const one = WordTokenizer.fromCorpus(["the key", "lookup k1"]);
    const other = WordTokenizer.fromCorpus(["k1 lookup", "key the"]);
    expect(other.id).toBe(one.id);
    expect(other.words).toEqual(one.words);
  });

  it("fromCorpus refuses one string (its characters were taken as the texts) and items that are no strings", () => {
    // Before: fromCorpus("alice bob") made a vocabulary of characters without a word; a nested list threw
    // "text.matchAll is not a function".
    expect(() => WordTokenizer.fromCorpus("alice bob" as never)).toThrow(
      "WordTokenizer.fromCorpus: texts must be a list of texts (an array of strings, or another iterable of them), got one string: wrap it in an array, [text]",
    );
    expect(() => WordTokenizer.fromCorpus(["alice", ["bob"]] as never)).toThrow(
      "WordTokenizer.fromCorpus: texts[1] is an array, not a string (flatten nested lists: [...a, ...b])",
    );
    expect(() => WordTokenizer.fromCorpus(undefined as never)).toThrow("got undefined");
    // Any iterable of strings is a list of texts.
    expect(WordTokenizer.fromCorpus(new Set(["alice bob"])).words).toEqual(
      WordTokenizer.fromCorpus(["alice bob"]).words,
    );
  });

  it("refuses a misspelt option or spaces value, which fell back to explicit spaces without a word", () => {
    // Before: both made an explicit-spaces tokenizer, every episode about twice as many tokens as asked for.
    expect(() => WordTokenizer.fromCorpus(["a b"], { space: "implicit" } as never)).toThrow(
      "WordTokenizer: unknown option `space` (did you mean `spaces`?)",
    );
    expect(() => WordTokenizer.fromCorpus(["a b"], { spaces: "none" } as never)).toThrow(
      'WordTokenizer: spaces must be "explicit" (a space is a token; the default) or "implicit" (one space between two words is free), got "none" (a string)',
    );
    expect(() => new WordTokenizer(["a"], { spaces: true } as never)).toThrow(
      /^WordTokenizer: spaces must be .* got true$/,
    );
    expect(WordTokenizer.fromCorpus(["a b"], { spaces: "implicit" }).encode("a b")).toHaveLength(2);
  });

  it("the id names the vocabulary", () => {
    expect(new WordTokenizer(["a", "b"]).id).toBe(new WordTokenizer(["a", "b"]).id);
    expect(new WordTokenizer(["a", "b"]).id).not.toBe(new WordTokenizer(["a", "c"]).id);
    expect(() => tokenizer.decode([tokenizer.size])).toThrow(/token id/);
  });

  describe("implicit spaces", () => {
    const words = ["the", "key", "k1", "<", ">", "/", "lookup", ",", ".", "<lookup>", "</lookup>"];
    const implicit = new WordTokenizer(words, { spaces: "implicit" });
    const piece = fc.constantFrom(...words, " ", "  ", "\n", "zz", "é", ",", "<eos>");

    fcTest.prop([
      fc.oneof(
        fc.string({ unit: "binary" }),
        fc.array(piece).map((p) => p.join("")),
      ),
    ])("decode(encode(text)) is the text, for any string and any mix of words, spaces and bytes", (text) => {
      const wellFormed = text.toWellFormed();
      expect(implicit.decode(implicit.encode(wellFormed))).toBe(wellFormed);
    });

    it("one space between words costs no token; words written together get a glue token", () => {
      expect(implicit.encode("the key k1 .")).toHaveLength(4);
      expect(tokenizer.encode("the key k1 .")).toHaveLength(7);
      expect(implicit.encode("k1.")).toHaveLength(3);
      expect(implicit.decode(implicit.encode("k1.the , key"))).toBe("k1.the , key");
      // A tag in the vocabulary is one token: <lookup> glue k1 glue </lookup>.
      expect(implicit.encode("<lookup>k1</lookup>")).toHaveLength(5);
      expect(implicit.decode(implicit.encode("<lookup>k1</lookup>"))).toBe("<lookup>k1</lookup>");
    });

    it("has its own id: a checkpoint of one mode never loads as the other", () => {
      expect(implicit.id).not.toBe(new WordTokenizer(words).id);
      expect(new WordTokenizer(words).id).toMatch(/^words-v1:/);
    });
  });
});

describe("did you mean: the known name a misspelt one meant", () => {
  const name = fc.stringMatching(/^[a-z][a-zA-Z]{2,14}$/);

  fcTest.prop([name, fc.nat()])("two neighbouring letters swapped suggest the name", (known, at) => {
    const i = at % (known.length - 1);
    fc.pre(known[i] !== known[i + 1]);
    const slip = known.slice(0, i) + known[i + 1] + known[i] + known.slice(i + 2);
    expect(closestName(slip, ["zzzzzzzzzzzzzzzzzz", known])).toBe(known);
  });

  fcTest.prop([name])("a case slip suggests the name; a name far from every known one suggests none", (known) => {
    expect(closestName(known.toUpperCase(), [known])).toBe(known);
    expect(closestName("9".repeat(known.length), [known])).toBeUndefined();
  });

  it("a name cut short suggests the one known name it begins (4 letters or more), none where two or more begin so", () => {
    // Far from it by edit distance: `allowRetry` named nothing, though it is how one recalls allowRetryAfterFailure.
    expect(closestName("allowRetry", ["callOf", "allowRetryAfterFailure"])).toBe("allowRetryAfterFailure");
    expect(closestName("counterexample", ["counterexampleDir", "seed"])).toBe("counterexampleDir");
    expect(closestName("maxResult", ["maxResultChars", "timeoutMs"])).toBe("maxResultChars");
    expect(closestName("world", ["worlds", "world-seed"])).toBe("worlds"); // by distance first, as before
    expect(closestName("wor", ["wording"])).toBeUndefined(); // too short to say
    expect(closestName("maxT", ["maxTurns", "maxTokens"])).toBeUndefined(); // which one?
  });
});

describe("checkBooleans: a switch given as anything but true or false", () => {
  const refuse = (rule: string, value: unknown) => new RangeError(`fn: ${rule}, got ${shownValue(value)}`);

  it("is refused with the caller's own error, the first such key named; true, false and left out pass", () => {
    // From plain JavaScript, "false" is truthy: it turned on what it meant to turn off.
    expect(() => checkBooleans({ a: true, b: "false", c: 1 }, ["a", "b", "c"], refuse)).toThrow(
      new RangeError('fn: b must be true or false, got "false" (a string)'),
    );
    expect(() => checkBooleans({ a: null }, ["a"], refuse)).toThrow("fn: a must be true or false, got null");
    expect(() => checkBooleans({ a: false, b: undefined }, ["a", "b", "c" as never], refuse)).not.toThrow();
    // Only the keys asked about: another option's text is another check's business.
    expect(() => checkBooleans({ a: true, name: "x" }, ["a"], refuse)).not.toThrow();
  });
});
