/**
 * The upstream call of a stateless-era caller that may be asked questions, run once however many rounds
 * its questions take. The upstream's questions are held, each under the key the caller sees in
 * `inputRequests` (`elicit-1`, `sample-2`, … numbered over the upstream call, as a handler's asks are), and
 * each attempt of the caller (its call, then each retry with answers) offers every held question to its
 * own context: the answers its retry brought go upstream, and the attempt ends with `input_required`
 * listing every question still unanswered — all the upstream asked so far, not only those that came before
 * the first — or, all answered, waits for the upstream's result or its next questions. At most
 * `MAX_OPEN_QUESTIONS` are held unanswered, so a round lists 16 at most: one past them is refused at once
 * (-31429, question-budget.ts), and the upstream may ask it again once one is answered. Between attempts the
 * run is parked (parked-calls.ts); a retry that finds it parked answers it, one that does not starts
 * another run, whose questions the answers carried in `requestState` answer as they come.
 * @module
 */
import {
  CancellationSource,
  declaresCapability,
  type CallToolResult,
  type ClientCapabilities,
  type ClientHandlers,
  type CreateMessageParams,
  type ElicitParams,
  type TiedBy,
} from '../index.js';
import type { ToolContext } from '../server/index.js';
import { MAX_OPEN_QUESTIONS, tooManyQuestions } from './question-budget.js';
import { notMine, upstreamError } from './relayed-input.js';

/** The caller's context as an attempt uses it: what it may ask the caller (elicitation, sampling, roots). */
export type CallerQuestions = Pick<ToolContext, 'elicit' | 'sample' | 'listRoots'>;

/** A question of the upstream's, waiting for the caller's answer. */
interface Held {
  readonly key: string;
  readonly ask: (ctx: CallerQuestions, key: string) => Promise<unknown>;
  readonly answer: (value: unknown) => void;
  readonly refuse: (error: unknown) => void;
}

type Outcome<T> = { value: T } | { error: unknown };

/** The rejection of an ask whose answer the caller has not given yet (the server's InputRequiredSignal). */
export function isInputWait(error: unknown): error is Error {
  return error instanceof Error && error.name === 'InputRequiredSignal';
}

/** One turn of the event loop: the questions already read from the upstream's stream are held by then. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A relayed request's run (a tool call's result by default; a prompt's or a resource's as well). */
export class HeldRun<T = CallToolResult> {
  /** Stops the upstream call: the caller cancelled, the run expired parked, the gateway closed. */
  readonly stop = new CancellationSource();
  /** The handlers the upstream call is sent with (what the caller declared). */
  readonly handlers: ClientHandlers = {};
  readonly #held = new Map<string, Held>();
  #asked = 0;
  #outcome: Outcome<T> | undefined;
  /** Wakes the attempt waiting for a question or the outcome. */
  #wake: (() => void) | undefined;
  #settled: ((failed: boolean) => void)[] = [];

  /**
   * `mine(handlers)`: whether a question given to these handlers is this run's, asked only of a question that
   * nothing on the wire ties to the run's call (`tiedBy: 'only'`: stdio, an HTTP upstream's standalone
   * stream), which the upstream's client gives to the only request in flight that may be asked, though
   * another caller's, one that may be asked nothing, may have asked it (see `CallsInFlight.owner`). One that
   * is not is asked of nobody: refused with -32602 (`notMine`), or no roots.
   */
  constructor(capabilities: ClientCapabilities, mine?: (handlers: ClientHandlers) => boolean) {
    // Only a question nothing on the wire ties to this run's call (see `HandlerContext.tiedBy`) may be another's.
    const theirs = (tiedBy: TiedBy | undefined) =>
      mine !== undefined && tiedBy === 'only' && !mine(this.handlers);
    if (declaresCapability(capabilities, 'elicitation')) {
      this.handlers.elicitation = (params: ElicitParams, { signal, tiedBy }) => {
        if (theirs(tiedBy)) throw notMine('elicitation/create');
        return this.#hold('elicitation/create', 'elicit', signal, (ctx, key) =>
          ctx.elicit(params, { key, validate: false }),
        );
      };
    }
    if (declaresCapability(capabilities, 'sampling')) {
      this.handlers.sampling = (params: CreateMessageParams, { signal, tiedBy }) => {
        if (theirs(tiedBy)) throw notMine('sampling/createMessage');
        return this.#hold('sampling/createMessage', 'sample', signal, (ctx, key) =>
          ctx.sample(params, { key }),
        );
      };
    }
    if (declaresCapability(capabilities, 'roots')) {
      this.handlers.roots = ({ signal, tiedBy }) =>
        theirs(tiedBy)
          ? []
          : this.#hold('roots/list', 'roots', signal, (ctx, key) => ctx.listRoots({ key })).then(
              (result) => result.roots,
            );
    }
  }

  /** Runs the upstream call (once). */
  start(call: Promise<T>): void {
    call.then(
      (value) => this.#settle({ value }),
      (error: unknown) => this.#settle({ error }),
    );
  }

  /** `listener(failed)` once the upstream call has ended (at once if it has). */
  onSettled(listener: (failed: boolean) => void): void {
    if (this.#outcome) listener('error' in this.#outcome);
    else this.#settled.push(listener);
  }

  #settle(outcome: Outcome<T>): void {
    this.#outcome = outcome;
    this.#wake?.();
    for (const listener of this.#settled.splice(0)) listener('error' in outcome);
  }

  /**
   * Holds a question of the upstream's (`method`) for the caller's rounds, under a key named by `prefix`;
   * past `MAX_OPEN_QUESTIONS` held unanswered (what one round lists), refused at once (-31429).
   */
  #hold<A>(
    method: string,
    prefix: string,
    signal: AbortSignal | undefined,
    ask: (ctx: CallerQuestions, key: string) => Promise<A>,
  ): Promise<A> {
    if (this.#held.size >= MAX_OPEN_QUESTIONS) return Promise.reject(tooManyQuestions(method));
    const key = `${prefix}-${++this.#asked}`;
    return new Promise<A>((resolve, reject) => {
      // The upstream cancelled its question (or its call ended): no longer asked.
      const withdrawn = () => {
        if (!this.#held.delete(key)) return;
        reject(signal?.reason instanceof Error ? signal.reason : new Error('The question was cancelled'));
      };
      const held: Held = {
        key,
        ask,
        answer: (value) => {
          signal?.removeEventListener('abort', withdrawn);
          resolve(value as A);
        },
        refuse: (error: unknown) => {
          signal?.removeEventListener('abort', withdrawn);
          reject(error as Error);
        },
      };
      this.#held.set(key, held);
      if (signal?.aborted) withdrawn();
      else signal?.addEventListener('abort', withdrawn, { once: true });
      this.#wake?.();
    });
  }

  /**
   * One attempt of the caller whose context is `ctx`: the upstream's result once it has it, its error,
   * or — some question unanswered — the rejection that ends the attempt with `input_required`, thrown once
   * every question held by then was offered (the attempt's `input_required` lists them all). Another error
   * of an ask (a capability the caller did not declare, a malformed answer) stops the upstream call and
   * ends the attempt with it, as a relayed question's error always has.
   */
  async attempt(ctx: CallerQuestions): Promise<T> {
    const offered = new Set<string>();
    let waiting: Error | undefined;
    let drained = false;
    try {
      for (;;) {
        const outcome = this.#outcome;
        if (outcome) {
          if ('value' in outcome) return outcome.value;
          throw outcome.error;
        }
        const fresh = [...this.#held.values()].filter((held) => !offered.has(held.key));
        if (fresh.length === 0) {
          if (waiting) {
            if (drained) throw waiting;
            drained = true;
            await turn();
            continue;
          }
          await new Promise<void>((resolve) => (this.#wake = resolve));
          continue;
        }
        drained = false;
        for (const held of fresh) offered.add(held.key);
        const answers = await Promise.allSettled(fresh.map((held) => held.ask(ctx, held.key)));
        let failed: { error: unknown } | undefined;
        answers.forEach((answer, i) => {
          const held = fresh[i]!;
          if (answer.status === 'fulfilled') {
            if (this.#held.delete(held.key)) held.answer(answer.value);
          } else if (isInputWait(answer.reason)) {
            waiting ??= answer.reason;
          } else {
            failed ??= { error: answer.reason };
            if (this.#held.delete(held.key)) held.refuse(upstreamError(answer.reason));
          }
        });
        if (failed) {
          this.stop.abort(failed.error);
          throw failed.error;
        }
      }
    } finally {
      this.#wake = undefined;
    }
  }
}
