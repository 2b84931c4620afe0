/**
 * The approver of `toolwire call`: shows the tool (name, title, annotations) and the exact arguments on
 * stderr and asks on the terminal whether to run it. With no terminal to ask on (stdin is not a TTY) no one
 * can be asked: it refuses, and the caller says so and to pass `--yes`.
 * @module
 */
import type { ApprovalRequest, Approver } from '../client/index.js';
import { displayName } from '../protocol/index.js';
import { openQuestions } from './terminal-questions.js';
import { oneLine, terminalText } from './terminal-text.js';

/** Why nothing was asked when there is no terminal. */
export const NO_TERMINAL = 'no one could be asked: there is no terminal (stdin is not a TTY)';

export interface TerminalApprover {
  approver: Approver;
  /** Set when a request was refused because there was no terminal to ask on. */
  readonly refusedWithoutTerminal: boolean;
  /** Why the policy wanted to ask (e.g. the tool may be destructive), for the last request refused unasked. */
  readonly unaskedReason: string | undefined;
}

/** An approver prompting on `process.stdin` / `process.stderr`. */
export function terminalApprover(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): TerminalApprover {
  const state: { refusedWithoutTerminal: boolean; unaskedReason: string | undefined } = {
    refusedWithoutTerminal: false,
    unaskedReason: undefined,
  };
  const approver: Approver = async (request) => {
    if (!input.isTTY) {
      state.refusedWithoutTerminal = true;
      state.unaskedReason = request.reason;
      return 'deny';
    }
    const questions = await openQuestions(input, output);
    try {
      output.write(terminalText(describeRequest(request)));
      const answer = (await questions.ask('Run it? [y]es / [n]o (default no): ')) ?? '';
      return /^\s*y(es)?\s*$/i.test(answer) ? 'once' : 'deny';
    } finally {
      questions.close();
    }
  };
  return {
    approver,
    get refusedWithoutTerminal() {
      return state.refusedWithoutTerminal;
    },
    get unaskedReason() {
      return state.unaskedReason;
    },
  };
}

/** What the person is asked about: the tool, why, its annotations and the exact arguments. */
export function describeRequest(request: ApprovalRequest): string {
  const { tool } = request;
  const title = displayName(tool);
  // The server's names are one line each: a line break in a title cannot write an annotations line.
  const lines = [
    oneLine(`toolwire: approval needed to call tool ${tool.name}${title === tool.name ? '' : ` (${title})`}`),
    `  server:      ${request.server ? oneLine(`${request.server.name} ${request.server.version}`) : 'unknown'}`,
    `  why:         ${oneLine(request.reason)}`,
    `  annotations: ${tool.annotations ? JSON.stringify(tool.annotations) : 'none'}`,
  ];
  if (tool.description) lines.push(`  description: ${tool.description.split('\n')[0] ?? ''}`);
  lines.push('  arguments:', indent(JSON.stringify(request.arguments, null, 2)), '');
  return lines.join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
