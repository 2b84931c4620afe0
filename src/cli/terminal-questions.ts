/**
 * Questions asked on the terminal, one at a time: `toolwire call`'s approval prompt and a server's
 * elicitation forms share the one terminal, so a question waits until the one before it is answered.
 * @module
 */
import { createInterface } from 'node:readline';

export interface TerminalQuestions {
  /** The answer typed, or undefined when the input ended (Ctrl-D) or the questions were closed. */
  ask(prompt: string): Promise<string | undefined>;
  close(): void;
}

/** Whoever asks waits here for the terminal: the chain of the sessions opened so far. */
let terminalFree: Promise<void> = Promise.resolve();

/**
 * Waits for the terminal, then opens a session of questions on it; `close()` (or `signal`) ends the
 * session and frees the terminal. A pending question then answers undefined.
 */
export async function openQuestions(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  signal?: AbortSignal,
): Promise<TerminalQuestions> {
  let free!: () => void;
  const before = terminalFree;
  terminalFree = new Promise<void>((resolve) => (free = resolve));
  await before;
  const lines = createInterface({ input, output, terminal: true });
  let closed = false;
  let pending: ((answer: string | undefined) => void) | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    signal?.removeEventListener('abort', close);
    lines.close();
    pending?.(undefined);
    free();
  };
  lines.on('close', close);
  if (signal?.aborted) close();
  else signal?.addEventListener('abort', close);
  return {
    ask: (prompt) =>
      closed
        ? Promise.resolve(undefined)
        : new Promise<string | undefined>((resolve) => {
            pending = resolve;
            lines.question(prompt, (answer) => {
              pending = undefined;
              resolve(answer);
            });
          }),
    close,
  };
}
