// What a person did to the rows of a windowed list (WindowedList draws only the rows near the viewport, so a
// row scrolled far away is taken out and drawn anew when it comes back): its state kept outside it, by key,
// so a typed text, a toggle or something loaded on request is there again when the row is. The states of the
// keys no longer listed go (`keep`), so they are bounded by the list.
import { useState } from 'preact/hooks';

export class RowStates<S extends object> {
  readonly #states = new Map<string, S>();
  readonly #initial: () => S;

  constructor(initial: () => S) {
    this.#initial = initial;
  }

  /** The state of the row `key`: the same object each time, until `keep` drops it. */
  of(key: string): S {
    let state = this.#states.get(key);
    if (state === undefined) this.#states.set(key, (state = this.#initial()));
    return state;
  }

  /** Drops the states of the keys not in `keys` (the rows no longer listed). */
  keep(keys: Iterable<string>): void {
    const listed = new Set(keys);
    for (const key of this.#states.keys()) if (!listed.has(key)) this.#states.delete(key);
  }
}

/**
 * `useState` for one field of a row's kept state: it starts from the field and each change is written to it,
 * so the row drawn anew finds it (a change made after the row was taken out, a load ending, is kept too).
 */
export function useRowState<S extends object, K extends keyof S>(
  state: S,
  field: K,
): [S[K], (value: S[K]) => void] {
  const [value, setValue] = useState(state[field]);
  return [
    value,
    (next) => {
      state[field] = next;
      setValue(next);
    },
  ];
}
