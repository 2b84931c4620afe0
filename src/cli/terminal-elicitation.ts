/**
 * How `toolwire call` answers a server that asks the person something (`elicitation/create`, or the stateless
 * era's `input_required`): on the terminal, when there is one. A form is asked field by field (see
 * `terminal-form.ts`) after the person agrees to answer it; declining sends nothing, Ctrl-D cancels, Ctrl-C
 * interrupts the command (see `terminal-questions.ts`). A page to open (URL mode) is shown whole, with its
 * host as the browser will see it (an internationalized name in its punycode form, so that a look-alike
 * shows), and is never opened by toolwire: the person opens it, or declines. With no terminal (stdin is not a
 * TTY) the CLI declares no `elicitation` capability, so servers do not ask.
 * @module
 */
import type { ElicitationHandler } from '../client/index.js';
import { isJsonObject, type ElicitParams, type ElicitResult, type JsonObject } from '../protocol/index.js';
import { fieldPrompt, readField, type FieldAnswer, type FieldValue } from './terminal-form.js';
import { openQuestions, type TerminalQuestions } from './terminal-questions.js';
import { terminalText } from './terminal-text.js';

export interface TerminalElicitation {
  handler: ElicitationHandler;
  /** Says that the server finished a page it sent the person to (`notifications/elicitation/complete`). */
  onComplete: (elicitationId: string) => void;
}

/** Characters of a server's message shown; the rest is cut (a server's text must not flood the terminal). */
const SHOWN_MESSAGE = 2_000;
/** Tries per field before the form is cancelled. */
const TRIES = 3;

const YES = /^\s*y(es)?\s*$/i;
const CANCEL = /^\s*c(ancel)?\s*$/i;

function shown(message: string): string {
  return message.length > SHOWN_MESSAGE
    ? `${message.slice(0, SHOWN_MESSAGE)}… (${message.length - SHOWN_MESSAGE} more characters)`
    : message;
}

/** The elicitation handler of the terminal, or undefined when stdin is not one. */
export function terminalElicitation(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): TerminalElicitation | undefined {
  if (!input.isTTY) return undefined;
  const say = (text: string) => output.write(terminalText(text));
  return {
    handler: async (params, { signal }) => {
      const questions = await openQuestions(input, output, signal);
      try {
        const answer =
          params.mode === 'url'
            ? await askToOpen(params, questions, say)
            : await askForm(params, questions, say);
        if (signal.aborted) say('\ntoolwire: the question is withdrawn (the call ended)\n');
        return answer;
      } finally {
        questions.close();
      }
    },
    onComplete: (elicitationId) => say(`toolwire: the server says the page is done (${elicitationId})\n`),
  };
}

/** Whether to go on: accept on yes, cancel on cancel or Ctrl-D, decline on anything else. */
async function consent(questions: TerminalQuestions, prompt: string): Promise<'yes' | ElicitResult> {
  const typed = await questions.ask(`${prompt} [y]es / [n]o / [c]ancel (default no): `);
  if (typed === undefined || CANCEL.test(typed)) return { action: 'cancel' };
  return YES.test(typed) ? 'yes' : { action: 'decline' };
}

async function askForm(
  params: ElicitParams,
  questions: TerminalQuestions,
  say: (text: string) => void,
): Promise<ElicitResult> {
  say(`toolwire: the server asks: ${shown(params.message)}\n`);
  const schema: JsonObject = params.requestedSchema ?? {};
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const fields = Object.entries(properties).filter((entry): entry is [string, JsonObject] =>
    isJsonObject(entry[1]),
  );
  const go = await consent(questions, fields.length > 0 ? 'Answer it?' : 'Confirm?');
  if (go !== 'yes') return go;
  const content: { [key: string]: FieldValue } = {};
  for (const [key, field] of fields) {
    const isRequired = required.includes(key);
    let answer: FieldAnswer = { ok: false, problem: 'no answer' };
    for (let tries = 0; tries < TRIES && !answer.ok; tries++) {
      const typed = await questions.ask(terminalText(fieldPrompt(key, field, isRequired)));
      if (typed === undefined) return { action: 'cancel' };
      answer = readField(typed, key, field, isRequired);
      if (!answer.ok) say(`    ${answer.problem}\n`);
    }
    if (!answer.ok) {
      say(`toolwire: no valid answer for ${key} after ${TRIES} tries: the form is cancelled\n`);
      return { action: 'cancel' };
    }
    if (answer.value !== undefined) content[key] = answer.value;
  }
  return { action: 'accept', content };
}

async function askToOpen(
  params: ElicitParams,
  questions: TerminalQuestions,
  say: (text: string) => void,
): Promise<ElicitResult> {
  // The client let only an http(s) URL through.
  const url = new URL(params.url ?? '');
  say(
    `toolwire: the server asks you to open a page: ${shown(params.message)}\n  ${url.href}\n  (on ${url.host})\n`,
  );
  const go = await consent(questions, 'Will you open it in your browser?');
  if (go !== 'yes') return go;
  say('toolwire: open the page above in your browser; toolwire does not open it for you\n');
  return { action: 'accept' };
}
