/**
 * Runs a callback once after a burst of triggers (trailing edge), e.g. one `list_changed` per burst.
 * @module
 */
export class Coalescer {
  readonly #delayMs: number;
  readonly #run: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(delayMs: number, run: () => void) {
    this.#delayMs = delayMs;
    this.#run = run;
  }

  trigger(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#run();
    }, this.#delayMs);
  }

  cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
