/*
 * Text a model, a tool or an environment wrote, made safe to print on a terminal: it is shown, not obeyed.
 * Terminal escapes (ESC...), other control characters and the bidirectional overrides that reorder a line on
 * screen are written as \uXXXX; tabs and newlines are kept.
 */
export declare const escapeControls: (text: string) => string;
