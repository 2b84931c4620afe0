import { describe, expect, it } from 'vitest';
import { profileFor } from '../protocol/revisions/index.js';
import { Pages, cursorParam, encodeCursor } from './pages.js';

interface Entry {
  name: string;
  title: string;
}

const entries: Entry[] = Array.from({ length: 5 }, (_, i) => ({ name: `p${i}`, title: `P${i}` }));
const latest = profileFor('2025-11-25');

function prompts(pageSize: number): Pages<Entry, { name: string; title?: string }, 'prompts'> {
  return new Pages('prompts', pageSize, (entry, profile) => profile.shapePrompt(entry));
}

describe('Pages', () => {
  it('puts the items under the list field and links pages by cursors, the last without nextCursor', () => {
    const pages = prompts(2);
    const first = pages.page(entries, 1, latest, undefined);
    expect(first).toEqual({ prompts: [entries[0], entries[1]], nextCursor: encodeCursor(2) });
    const second = pages.page(entries, 1, latest, first.nextCursor);
    const third = pages.page(entries, 1, latest, second.nextCursor);
    expect(third).toEqual({ prompts: [entries[4]] });
  });

  it('returns one empty page for an empty list', () => {
    expect(prompts(2).page([], 1, latest, undefined)).toEqual({ prompts: [] });
  });

  it('shapes each entry once per registry version and revision, then shares the pages', () => {
    let shaped = 0;
    const pages = new Pages('items', 10, (entry: Entry) => (shaped++, entry.name));
    const first = pages.page(entries, 1, latest, undefined);
    expect(pages.page(entries, 1, latest, undefined)).toBe(first);
    expect(shaped).toBe(5);
    pages.page(entries, 2, latest, undefined);
    pages.page(entries, 2, profileFor('2025-06-18'), undefined);
    expect(shaped).toBe(15);
  });

  it('shapes the items for the revision', () => {
    const pages = prompts(10);
    expect(pages.page(entries, 1, profileFor('2024-11-05'), undefined).prompts[0]).toEqual({ name: 'p0' });
    expect(pages.page(entries, 1, latest, undefined).prompts[0]).toEqual({ name: 'p0', title: 'P0' });
  });

  it('rejects a cursor it did not issue with -32602', () => {
    expect(() => prompts(2).page(entries, 1, latest, 'nope')).toThrow(
      expect.objectContaining({ code: -32602 }),
    );
    expect(() => prompts(2).page(entries, 1, latest, encodeCursor(3))).toThrow(
      expect.objectContaining({ code: -32602 }),
    );
  });

  it('refuses a page size that is not a positive integer', () => {
    expect(() => prompts(0)).toThrow(RangeError);
    expect(() => prompts(1.5)).toThrow(RangeError);
  });
});

describe('cursorParam', () => {
  it('reads a string cursor or none, and rejects anything else with -32602', () => {
    expect(cursorParam({ cursor: 'c' })).toBe('c');
    expect(cursorParam({})).toBeUndefined();
    expect(() => cursorParam({ cursor: 3 })).toThrow(expect.objectContaining({ code: -32602 }));
  });
});
