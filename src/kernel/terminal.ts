/**
 * Text a model, a tool or an environment wrote, made safe to print on a terminal: it is shown, not obeyed.
 * Terminal escapes (ESC...), other control characters and the bidirectional overrides that reorder a line on
 * screen are written as \uXXXX; tabs and newlines are kept.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export const escapeControls = (text: string): string =>
  text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/**
 * escapeControls for a message shown inside one line of a summary: its line breaks (XState's rethrow of a guard's
 * error has one, "...in state node '(machine).waiting':\n<message>") become spaces.
 */
export const oneLine = (text: string): string => escapeControls(text.replace(/\s*\n\s*/g, " "));
