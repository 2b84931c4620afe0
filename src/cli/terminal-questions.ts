/**
 * Questions asked on the terminal, one at a time: `toolwire call`'s approval prompt and a server's
 * elicitation forms share the one terminal, so a question waits until the one before it is answered.
 *
 * While a question is asked the terminal is in raw mode: a Ctrl-C reaches readline as a key, not the
 * process as SIGINT. It is raised as SIGINT then, so that Ctrl-C at a prompt does what it does elsewhere
 * in the command (see `interruptOnSignals`: the call is cancelled, the server stopped, exit 130), never
 * taken for an answer (the approval's "no", the form's "cancel").
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
  let interrupting = false;
  let pending: ((answer: string | undefined) => void) | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    signal?.removeEventListener('abort', close);
    process.removeListener('SIGINT', close);
    lines.close();
    pending?.(undefined);
    free();
  };
  lines.on('close', close);
  // Without a listener here, readline would close on Ctrl-C: the question would answer undefined.
  lines.on('SIGINT', () => {
    if (interrupting) return;
    interrupting = true;
    output.write('^C\n');
    // The question stays pending until the command's SIGINT listeners (added before this one) have
    // taken over: its answer comes after the call was cancelled, and is not waited for. With no listener,
    // the signal stops the process, as Ctrl-C does.
    if (process.listenerCount('SIGINT') > 0) process.once('SIGINT', close);
    process.kill(process.pid, 'SIGINT');
  });
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
