// Text an upstream wrote (a tool's title or description, a reason, its server's name and instructions) as
// the console shows it: the characters that change how text is shown rather than show themselves
// (bidirectional overrides and isolates, zero-width characters, C1 controls) appear as their escapes, so
// that a description "Reads a file. \u202etxt.exe" does not read "Reads a file. exe.txt". The argument
// tree escapes the same characters (visibleJson).

export const HIDING = /[\u007f-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** `text` with the characters that hide or reorder text written as `\uXXXX`. */
export function visibleText(text: string): string {
  return text.replace(HIDING, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function UpstreamText({ text }: { text: string | undefined }) {
  return text === undefined ? null : <>{visibleText(text)}</>;
}
