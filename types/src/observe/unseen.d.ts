/*
 * Recorded text (a model's, a tool's) shown in a page or an image: characters that would not show as
 * themselves are written as `\uXXXX`. Controls (but tab and line breaks) are invisible, and some are no XML
 * at all (an SVG holding one is no image); bidi embeddings, overrides and isolates turn the page's own text
 * after them around (an end reason ending in U+202E showed "· success 1" as "1 sseccus ·"); lone surrogates
 * and U+FFFE/U+FFFF are no text. The viewer and plot both write through this.
 */
export declare const escapeUnseen: (text: string) => string;
