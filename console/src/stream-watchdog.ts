// Whether the event stream still lives. A dead link (a laptop that slept, a VPN that switched, a NAT that
// forgot) gives no error for minutes: the gateway sends a `ping` event every KEEP_ALIVE_MS, and SILENCE_MS
// without any event counts as a dead stream (`onSilence`: another is opened). The browser going back online,
// and the page becoming visible again after a silence, call for another too (`watch`).

/** The gateway's keep-alive interval: a `ping` event this often (src/gateway/event-streams.ts). */
export const KEEP_ALIVE_MS = 15_000;
/** Silence (no event of any kind) after which the stream is taken for dead: two and a half pings. */
export const SILENCE_MS = KEEP_ALIVE_MS * 2.5;

export class StreamWatchdog {
  readonly #onSilence: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #heardAt = 0;
  #watching = false;

  /** `onSilence`: called when nothing came for SILENCE_MS since the last `heard`. */
  constructor(onSilence: () => void) {
    this.#onSilence = onSilence;
  }

  /** Something came on the stream: it lives; the next silence is counted from now. */
  heard(): void {
    this.#heardAt = Date.now();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#onSilence(), SILENCE_MS);
  }

  /** No stream to watch (closed, or given up on). */
  stop(): void {
    clearTimeout(this.#timer);
  }

  /**
   * Calls `again` when the browser is back online, or when the page becomes visible again and the stream is
   * not live (`live()`) or said nothing for longer than a keep-alive interval. Once: later calls do nothing.
   */
  watch(again: () => void, live: () => boolean): void {
    if (this.#watching) return;
    this.#watching = true;
    addEventListener('online', again);
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState !== 'visible') return;
      if (!live() || Date.now() - this.#heardAt > KEEP_ALIVE_MS) again();
    });
  }
}
