// A list that draws only the rows near the viewport, whatever its length: the rows above and below the window
// are the list's padding, of their measured height (a row not drawn yet counts as `estimate`). The page
// scrolls as usual (the window, not a box of its own), so the scroll bar, Page Down, End and Find's "scroll
// into view" of a drawn row behave as on any page. At most `MAX_DRAWN` rows are drawn, however tall the
// viewport or short the rows, so the page's DOM stays bounded with 10,000 calls as with 10.
//
// Each row `render` gives is one element or more, every one carrying `data-row={key}` (a call and the note
// before it, say): their height is measured after each drawing, and the window is computed again when it
// changes, when the page scrolls or is resized, and when the items change. Rows say their place in the whole
// list (`aria-posinset`, `aria-setsize` from `render`'s index and `items.length`), since most are not there.
//
// The row holding the focus is never taken out: scrolled out of the window, it stays drawn beside it, out of
// view, so the focus stays in it rather than falling to `<body>`; and so do the rows before and after it in
// the list, so that Tab and Shift+Tab from it go to the next and previous rows (not to the window's, skipping
// those between). The padding is shorter by the rows so drawn. The window is computed again whenever the
// focus moves within the list, before the next key; when the focus lands on a row drawn outside the window
// (Tab from a row so kept), the page first scrolls to that row's real place in the list.
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** Rows drawn at most at once. */
export const MAX_DRAWN = 120;
/** How far beyond the viewport rows are drawn, in px (above and below). */
const OVERSCAN = 600;

interface Props<T> {
  items: readonly T[];
  keyOf: (item: T) => string | number;
  /** A row's height before it is measured, gap included (px). */
  estimate: number;
  render: (item: T, index: number) => ComponentChildren;
  class: string;
  label: string;
}

interface Window {
  start: number;
  end: number;
  /** The key of the row holding the focus when it or a row beside it is outside [start, end). */
  pinned?: string | undefined;
}

/** The key (`data-row`) of the row of `list` holding the focus, if one does. */
function focusedRow(list: HTMLElement): string | undefined {
  let node = document.activeElement;
  while (node && node.parentElement !== list) node = node.parentElement;
  return node instanceof HTMLElement ? node.dataset.row : undefined;
}

export function WindowedList<T>({ items, keyOf, estimate, render, class: className, label }: Props<T>) {
  const list = useRef<HTMLUListElement>(null);
  /** Measured heights by key, gap included; kept for the items there are (see below). */
  const heights = useRef(new Map<string | number, number>());
  const [range, setRange] = useState<Window>({ start: 0, end: Math.min(items.length, 30) });
  const pitch = (item: T) => heights.current.get(keyOf(item)) ?? estimate;

  const compute = () => {
    const element = list.current;
    if (!element) return;
    const top = -element.getBoundingClientRect().top - OVERSCAN;
    const bottom = top + innerHeight + 2 * OVERSCAN;
    let offset = 0;
    let start = 0;
    while (start < items.length && offset + pitch(items[start]!) <= top) offset += pitch(items[start++]!);
    // Scrolled past the end (the list shrank): the last row at least.
    if (start === items.length && start > 0) offset -= pitch(items[--start]!);
    const focused = focusedRow(element);
    const at = focused === undefined ? -1 : items.findIndex((item) => String(keyOf(item)) === focused);
    // The rows held back for the focus (it, and those beside it) count among the rows drawn.
    const most = at === -1 ? MAX_DRAWN : MAX_DRAWN - 3;
    let end = start;
    while (end < items.length && offset < bottom && end - start < most) offset += pitch(items[end++]!);
    const pinned = at !== -1 && (at <= start || at >= end - 1) ? focused : undefined;
    setRange((now) =>
      now.start === start && now.end === end && now.pinned === pinned ? now : { start, end, pinned },
    );
  };

  /**
   * The focus landed on a row drawn outside the window (Tab or Shift+Tab from a row kept drawn for its focus):
   * the browser showed it where it is drawn, beside the window; the page scrolls to the row's real place
   * instead (centred, as the browser centres a focused element), so that the window is drawn around it.
   */
  const reveal = () => {
    const element = list.current;
    const focused = element ? focusedRow(element) : undefined;
    if (!element || focused === undefined) return;
    const at = items.findIndex((item) => String(keyOf(item)) === focused);
    if (at === -1 || (at >= range.start && at < range.end)) return;
    let offset = 0;
    for (let i = 0; i < at; i++) offset += pitch(items[i]!);
    const top = element.getBoundingClientRect().top + scrollY + offset;
    scrollTo(scrollX, top - (innerHeight - pitch(items[at]!)) / 2);
  };

  // The items changed: the heights of those no longer there go (memory bounded by the items), the window again.
  useLayoutEffect(() => {
    const keys = new Set(items.map(keyOf));
    for (const key of heights.current.keys()) if (!keys.has(key)) heights.current.delete(key);
    compute();
  }, [items]);

  // Scrolling and resizing compute the window (the latest render's `compute`), at most once a frame.
  const latest = useRef(compute);
  latest.current = compute;
  useEffect(() => {
    let frame = 0;
    const later = () => {
      if (frame === 0)
        frame = requestAnimationFrame(() => {
          frame = 0;
          latest.current();
        });
    };
    addEventListener('scroll', later, { passive: true });
    addEventListener('resize', later);
    return () => {
      removeEventListener('scroll', later);
      removeEventListener('resize', later);
      cancelAnimationFrame(frame);
    };
  }, []);

  // The rows drawn: the window's, and the focused row with those beside it where they are outside it, in the
  // list's order. (By key: until the window is computed again, the items may have changed.)
  const held = range.pinned;
  const found = held === undefined ? -1 : items.findIndex((item) => String(keyOf(item)) === held);
  const end = Math.min(range.end, items.length);
  const outside = (i: number) => i >= 0 && i < items.length && (i < range.start || i >= end);
  const extra = found === -1 ? [] : [found - 1, found, found + 1].filter(outside);
  const drawn: [T, number][] = [];
  for (const i of extra) if (i < range.start) drawn.push([items[i]!, i]);
  for (let i = range.start; i < end; i++) drawn.push([items[i]!, i]);
  for (const i of extra) if (i >= end) drawn.push([items[i]!, i]);

  // After each drawing: the drawn rows' heights (a row's elements, from its first top to the next row's).
  useLayoutEffect(() => {
    const element = list.current;
    if (!element) return;
    const gap = parseFloat(getComputedStyle(element).rowGap) || 0;
    const tops = new Map<string, number>();
    let last: { key: string; bottom: number } | undefined;
    for (const child of Array.from(element.children)) {
      const key = (child as HTMLElement).dataset.row;
      if (key === undefined) continue;
      const box = child.getBoundingClientRect();
      if (!tops.has(key)) tops.set(key, box.top);
      last = { key, bottom: box.bottom };
    }
    const ordered = [...tops];
    const drawnKeys = new Map(drawn.map(([item]) => [String(keyOf(item)), keyOf(item)]));
    let changed = false;
    ordered.forEach(([key, at], i) => {
      const next = ordered[i + 1]?.[1] ?? (last ? last.bottom + gap : at);
      const measured = next - at;
      const rowKey = drawnKeys.get(key);
      if (rowKey === undefined || measured <= 0) return;
      const known = heights.current.get(rowKey);
      if (known === undefined || Math.abs(known - measured) > 0.5) {
        heights.current.set(rowKey, measured);
        changed = true;
      }
    });
    if (changed) compute();
  });

  let before = 0;
  for (let i = 0; i < range.start && i < items.length; i++)
    if (!extra.includes(i)) before += pitch(items[i]!);
  let after = 0;
  for (let i = end; i < items.length; i++) if (!extra.includes(i)) after += pitch(items[i]!);
  return (
    <ul
      ref={list}
      class={className}
      role="list"
      aria-label={label}
      style={{ paddingTop: `${before}px`, paddingBottom: `${after}px` }}
      onFocusIn={() => {
        reveal();
        compute();
      }}
    >
      {drawn.map(([item, index]) => render(item, index))}
    </ul>
  );
}
