// A schema's `pattern` as the console runs it: on re2js, a linear-time engine (RE2), never on the
// browser's backtracking RegExp, on which an upstream's `^(a+)+$` against a few dozen characters freezes
// the tab. re2js is loaded on first need, in its own file, so that the console's first load stays small.
// Until it has loaded, and for a pattern that is not JavaScript syntax or that RE2 cannot run in linear
// time (backreferences, lookaround), nothing is checked here: the gateway checks every pattern itself.

import type * as Re2js from 're2js';

type Re2 = typeof Re2js;

let engine: Re2 | undefined;
let loading: Promise<void> | undefined;

/** Loads re2js (once); resolves when patterns can be checked, or when they cannot (a failed load). */
export function patternsReady(): Promise<void> {
  loading ??= import('re2js').then(
    (module) => void (engine = module),
    () => undefined,
  );
  return loading;
}

const compiled = new Map<string, ((text: string) => boolean) | null>();
const KEPT = 500;

/** A test for `source`, or null when it is not checked here (see above). */
export function pattern(source: string): ((text: string) => boolean) | null {
  if (!engine) {
    void patternsReady();
    return null;
  }
  let test = compiled.get(source);
  if (test === undefined) {
    test = null;
    try {
      new RegExp(source, 'u'); // JavaScript's syntax (what JSON Schema means), compiled only: never run
      const re2 = engine.RE2JS.compile(source);
      test = (text) => re2.test(text);
    } catch {
      // not a pattern this engine runs in linear time, or not a pattern at all
    }
    if (compiled.size >= KEPT) compiled.clear();
    compiled.set(source, test);
  }
  return test;
}
