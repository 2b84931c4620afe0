import { describe, expect, it } from 'vitest';
import { profileFor } from '../../protocol/revisions/index.js';
import { buildTool } from './tool-definition.js';
import { ToolPages, decodeCursor, encodeCursor } from './tool-pages.js';

const tools = Array.from({ length: 7 }, (_, i) => buildTool(`t${i}`, { title: `T${i}`, handler: () => 'x' }));

describe('ToolPages', () => {
  it('splits the list into pages linked by cursors, the last without nextCursor', () => {
    const pages = new ToolPages(3);
    const profile = profileFor('2025-11-25');
    const first = pages.page(tools, 1, profile, undefined);
    expect(first.tools.map((t) => t.name)).toEqual(['t0', 't1', 't2']);
    const second = pages.page(tools, 1, profile, first.nextCursor);
    const third = pages.page(tools, 1, profile, second.nextCursor);
    expect(third.tools.map((t) => t.name)).toEqual(['t6']);
    expect(third.nextCursor).toBeUndefined();
  });

  it('builds pages once per registry version and revision', () => {
    const pages = new ToolPages(3);
    const profile = profileFor('2025-11-25');
    const a = pages.page(tools, 1, profile, undefined);
    expect(pages.page(tools, 1, profile, undefined)).toBe(a);
    expect(pages.page(tools, 2, profile, undefined)).not.toBe(a);
  });

  it('shapes the pages for the revision', () => {
    const pages = new ToolPages(10);
    expect(pages.page(tools, 1, profileFor('2024-11-05'), undefined).tools[0]).toEqual({
      name: 't0',
      inputSchema: { type: 'object', additionalProperties: false },
    });
    expect(pages.page(tools, 1, profileFor('2025-06-18'), undefined).tools[0]).toMatchObject({ title: 'T0' });
  });

  it('returns an empty page for a cursor past the end of a list that shrank', () => {
    const pages = new ToolPages(3);
    const cursor = encodeCursor(6);
    expect(pages.page(tools.slice(0, 2), 2, profileFor('2025-11-25'), cursor)).toEqual({ tools: [] });
  });

  it.each(['', 'abc', 'tw1.', 'tw1.!!!', encodeCursor(4), `tw1.${btoa('-3')}`, `tw1.${btoa('3.5')}`])(
    'rejects the cursor %j with -32602',
    (cursor) => {
      expect(() => decodeCursor(cursor, 3)).toThrow(expect.objectContaining({ code: -32602 }));
    },
  );
});
