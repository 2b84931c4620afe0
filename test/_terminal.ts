// A fake terminal for the CLI's questions (the approval prompt, elicitation forms): a TTY-flagged input a
// test types into, and the output the questions are written to.
import { PassThrough } from 'node:stream';
import { expect, vi } from 'vitest';

/** A fake terminal: what was shown, and a person who types a line once a prompt is on the screen. */
export function fakeTerminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.ReadStream &
    PassThrough;
  const output = new PassThrough();
  const screen = { text: '', seen: 0 };
  output.setEncoding('utf8').on('data', (chunk: string) => (screen.text += chunk));
  return {
    input,
    output: output as unknown as NodeJS.WriteStream,
    screen,
    /** Waits for `prompt` to appear after what was answered before, then types `line`. */
    async type(prompt: string, line: string) {
      await vi.waitFor(() => expect(screen.text.slice(screen.seen)).toContain(prompt), { timeout: 10_000 });
      screen.seen = screen.text.length;
      input.write(`${line}\n`);
    },
  };
}
