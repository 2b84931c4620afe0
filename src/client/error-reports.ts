/**
 * What reaches a client's `onError`, rate-limited: a server can make the client fail at full speed (answers
 * with ids it never sent, requests whose answers it does not read), and one report per failure made a
 * client spend its time reporting (≈500,000 `onError` calls in 5 s). Each kind of error is reported the first
 * `perKind` times in an interval; the rest are counted, and one `REPORTS_DROPPED` error per kind says how
 * many at the interval's end.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import { ClientError } from './client-error.js';

/** How many errors `onError` hears (see `ClientOptions.errorReports`). */
export interface ErrorReportLimits {
  /** Errors of one kind reported per interval, the rest counted (default 10). */
  perKind?: number;
  /** The interval, in ms (default 10 s): the count of those dropped is reported at its end. */
  intervalMs?: number;
}

/** What `REPORTS_DROPPED` errors carry in `details`. */
export interface DroppedReports {
  /** What the errors dropped have in common: their name and code, or the start of their message. */
  kind: string;
  /** How many were not reported. */
  dropped: number;
  /** The interval they were dropped in, in ms. */
  intervalMs: number;
}

export const DEFAULT_ERRORS_PER_KIND = 10;
export const DEFAULT_ERROR_INTERVAL_MS = 10_000;
/** Kinds told apart in one interval; errors of any other kind share one count. */
const MAX_KINDS = 64;
const OTHER = 'other errors';

interface Tally {
  reported: number;
  dropped: number;
}

export class ErrorReports {
  readonly #sink: ((error: Error) => void) | undefined;
  readonly #perKind: number;
  readonly #intervalMs: number;
  readonly #tallies = new Map<string, Tally>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(sink: ((error: Error) => void) | undefined, limits: ErrorReportLimits = {}) {
    this.#sink = sink;
    this.#perKind = whole(limits.perKind ?? DEFAULT_ERRORS_PER_KIND, 'errorReports.perKind', 0);
    this.#intervalMs = whole(limits.intervalMs ?? DEFAULT_ERROR_INTERVAL_MS, 'errorReports.intervalMs', 1);
  }

  /** Reports `error` to the sink, or counts it when its kind was reported `perKind` times this interval. */
  readonly report = (error: Error): void => {
    const sink = this.#sink;
    if (!sink) return;
    let kind = kindOf(error);
    let tally = this.#tallies.get(kind);
    if (!tally) {
      if (this.#tallies.size >= MAX_KINDS) kind = OTHER;
      tally = this.#tallies.get(kind);
      if (!tally) this.#tallies.set(kind, (tally = { reported: 0, dropped: 0 }));
    }
    this.#timer ??= unref(setTimeout(this.#flush, this.#intervalMs));
    if (tally.reported < this.#perKind) {
      tally.reported += 1;
      sink(error);
    } else tally.dropped += 1;
  };

  /** Says now how many were dropped, and stops the interval (the client closed). */
  close(): void {
    this.#flush();
  }

  readonly #flush = (): void => {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const tallies = [...this.#tallies];
    this.#tallies.clear();
    for (const [kind, { dropped }] of tallies) {
      if (dropped === 0) continue;
      const details: DroppedReports = { kind, dropped, intervalMs: this.#intervalMs };
      this.#sink?.(
        new ClientError(
          LocalErrorCode.ReportsDropped,
          `${dropped} more errors (${kind}) in ${this.#intervalMs} ms were not reported; ${this.#perKind} of a kind are per interval`,
          { details },
        ),
      );
    }
  };
}

/**
 * An error's kind: its name and code, else its name and the start of its message without numbers or
 * quoted text (an unknown id's report names the id).
 */
function kindOf(error: Error): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') return `${error.name} ${String(code)}`;
  const message = error.message.slice(0, 200).replace(/"[^"]*"|'[^']*'|\d+/g, '#');
  return `${error.name}: ${message.slice(0, 80)}`;
}

function whole(value: number, name: string, min: number): number {
  if (!Number.isSafeInteger(value) || value < min)
    throw new RangeError(`${name} must be an integer of at least ${min}, got ${String(value)}`);
  return value;
}

function unref<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
