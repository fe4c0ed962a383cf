/**
 * Recorded text (a model's, a tool's) shown in a page or an image: characters that would not show as
 * themselves are written as `\uXXXX`. Controls (but tab and line breaks) are invisible, and some are no XML
 * at all (an SVG holding one is no image); bidi embeddings, overrides and isolates turn the page's own text
 * after them around (an end reason ending in U+202E showed "· success 1" as "1 sseccus ·"); lone surrogates
 * and U+FFFE/U+FFFF are no text. The viewer and plot both write through this.
 */
const UNSEEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters to escape is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export const escapeUnseen = (text: string): string =>
  text.replace(UNSEEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
