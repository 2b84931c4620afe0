// Where the focus goes when the element holding it leaves the page: an approval card decided (here or by
// someone else), a Cancel button gone with the call it cancelled. A browser drops the focus of a removed
// element on <body>, so that the next Tab starts again at the top of the page; the element hands it on
// instead — to its next sibling, else its previous one (an element of the same list, made focusable with
// tabIndex -1), else to what `fallback` names (the list's heading, the row the button was in).
//
// Preact runs a component's effect clean-ups before it takes the component's elements out of the page, so
// the clean-up still sees the focus inside (or knows it was inside when it fell to <body>: a button
// disabled while it works drops it first); the new elements are in the page once the render is done, after
// which (a microtask later) the focus moves, unless something else took it meanwhile.
import type { RefObject } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

/** The focus has gone nowhere (a removed element's focus falls to <body>). */
const dropped = () => document.activeElement === null || document.activeElement === document.body;

/**
 * A ref for the element whose focus is handed on when it leaves the page: to its next or previous sibling
 * (when `siblings`) still in the page, else to `fallback()`'s element.
 */
export function useFocusHandoff<T extends HTMLElement>(
  fallback: () => HTMLElement | null | undefined,
  siblings = false,
): RefObject<T | null> {
  const ref = useRef<T>(null);
  const latest = useRef(fallback);
  latest.current = fallback;
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    // Whether the focus is inside, or was when it went nowhere: a button disabled while it works (Approve,
    // busy) drops its focus on <body> before its card leaves the page.
    let inside = element.contains(document.activeElement);
    const focusIn = () => (inside = true);
    const focusOut = ({ target, relatedTarget }: FocusEvent) => {
      if (relatedTarget instanceof Node && element.contains(relatedTarget)) return;
      // Out of it, unless it fell from a control disabled while it works (blur(), another window: it left).
      inside = relatedTarget === null && target instanceof HTMLButtonElement && target.disabled;
    };
    element.addEventListener('focusin', focusIn);
    element.addEventListener('focusout', focusOut);
    return () => {
      element.removeEventListener('focusin', focusIn);
      element.removeEventListener('focusout', focusOut);
      if (!element.contains(document.activeElement) && !(inside && dropped())) return;
      const near = siblings ? [element.nextElementSibling, element.previousElementSibling] : [];
      const fallbackOf = latest.current;
      queueMicrotask(() => {
        if (!dropped()) return;
        const next = near.find((e): e is HTMLElement => e instanceof HTMLElement && e.isConnected);
        (next ?? fallbackOf())?.focus();
      });
    };
  }, []);
  return ref;
}
