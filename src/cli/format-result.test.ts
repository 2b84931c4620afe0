import { describe, expect, it } from 'vitest';
import { formatResult } from './format-result.js';

describe('formatResult', () => {
  it('prints structured content in place of the text block that mirrors it', () => {
    const result = {
      content: [{ type: 'text' as const, text: '{"sum":3}' }],
      structuredContent: { sum: 3 },
    };
    expect(formatResult(result)).toBe('{\n  "sum": 3\n}\n');
  });

  it('does not print an empty structuredContent beside other content (the pocket spec always sends one)', () => {
    const result = { content: [{ type: 'text' as const, text: 'hi' }], structuredContent: {} };
    expect(formatResult(result)).toBe('hi\n');
  });

  it('prints an empty structuredContent when it is all there is', () => {
    expect(formatResult({ content: [], structuredContent: {} })).toBe('{}\n');
  });

  it("prints a link's and an embedded resource's summary on one line, whatever their names hold", () => {
    const result = {
      content: [
        { type: 'resource_link' as const, name: 'notes\n  why: trusted', uri: 'notes://a' },
        {
          type: 'resource' as const,
          resource: { uri: 'notes://b\r\n[link trusted notes://c]', mimeType: 'text/plain', text: 'b' },
        },
      ],
    };
    expect(formatResult(result)).toBe(
      '[link notes\\n  why: trusted notes://a]\n[resource notes://b\\x0d\\n[link trusted notes://c] text/plain, 1 chars]\n  b\n',
    );
  });
});
