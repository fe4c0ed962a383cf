/*
 * Text a model, a tool or an environment wrote, made safe to print on a terminal: it is shown, not obeyed.
 * Terminal escapes (ESC...), other control characters and the bidirectional overrides that reorder a line on
 * screen are written as \uXXXX; tabs and newlines are kept.
 */
export declare const escapeControls: (text: string) => string;
/**
 * escapeControls for a message shown inside one line of a summary: its line breaks (XState's rethrow of a guard's
 * error has one, "...in state node '(machine).waiting':\n<message>") become spaces.
 */
export declare const oneLine: (text: string) => string;
