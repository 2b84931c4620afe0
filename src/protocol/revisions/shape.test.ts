// Per-revision shaping of structured output (SEP-2106): the other shaping rules are exercised on the wire in
// test/protocol.test.ts.
import { describe, expect, it } from 'vitest';
import type { CallToolResult, Tool } from '../types/tools.js';
import { profileFor } from './index.js';

const ARRAY_SCHEMA = { type: 'array', items: { type: 'integer' } };
const arrayTool: Tool = { name: 'a', inputSchema: { type: 'object' }, outputSchema: ARRAY_SCHEMA };
const objectTool: Tool = {
  name: 'o',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
};
const WRAPPED_ARRAY = { type: 'object', properties: { result: ARRAY_SCHEMA }, required: ['result'] };

describe('shapeTool', () => {
  it('lists a non-object outputSchema as it is for 2026-07-28 and wrapped for 2025-11-25 and 2025-06-18', () => {
    expect(profileFor('2026-07-28').shapeTool(arrayTool).outputSchema).toEqual(ARRAY_SCHEMA);
    expect(profileFor('2025-11-25').shapeTool(arrayTool).outputSchema).toEqual(WRAPPED_ARRAY);
    expect(profileFor('2025-06-18').shapeTool(arrayTool).outputSchema).toEqual(WRAPPED_ARRAY);
    expect(profileFor('2025-03-26').shapeTool(arrayTool).outputSchema).toBeUndefined();
  });

  it('never wraps an object outputSchema', () => {
    expect(profileFor('2025-11-25').shapeTool(objectTool).outputSchema).toEqual(objectTool.outputSchema);
  });

  it('drops $schema with the wrapper for 2025-06-18, which has no $schema', () => {
    const tool = {
      ...arrayTool,
      outputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array' },
    };
    expect(profileFor('2025-06-18').shapeTool(tool).outputSchema).toEqual({
      type: 'object',
      properties: { result: { type: 'array' } },
      required: ['result'],
    });
  });
});

describe('shapeCallResult', () => {
  const result: CallToolResult = { content: [{ type: 'text', text: '[1,2]' }], structuredContent: [1, 2] };

  it('returns the value as it is for 2026-07-28, wrapped for the handshake era, as text before that', () => {
    expect(profileFor('2026-07-28').shapeCallResult(result, arrayTool)).toEqual(result);
    for (const version of ['2025-11-25', '2025-06-18'] as const) {
      expect(profileFor(version).shapeCallResult(result, arrayTool)).toEqual({
        content: result.content,
        structuredContent: { result: [1, 2] },
      });
    }
    for (const version of ['2025-03-26', '2024-11-05'] as const) {
      expect(profileFor(version).shapeCallResult(result, arrayTool)).toEqual({ content: result.content });
    }
  });

  it('wraps an object value too when the tool’s schema is wrapped, so the value matches the listed schema', () => {
    const anyTool: Tool = { ...arrayTool, outputSchema: { anyOf: [{ type: 'object' }, { type: 'array' }] } };
    const value = { content: [], structuredContent: { a: 1 } };
    expect(profileFor('2025-11-25').shapeCallResult(value, anyTool).structuredContent).toEqual({
      result: { a: 1 },
    });
    expect(profileFor('2025-11-25').shapeCallResult(value, objectTool).structuredContent).toEqual({ a: 1 });
  });

  it('wraps per value when the tool has no outputSchema', () => {
    const noSchema: Tool = { name: 'n', inputSchema: { type: 'object' } };
    const f = profileFor('2025-11-25');
    expect(f.shapeCallResult({ content: [], structuredContent: 'x' }, noSchema).structuredContent).toEqual({
      result: 'x',
    });
    expect(f.shapeCallResult({ content: [], structuredContent: null }).structuredContent).toEqual({
      result: null,
    });
    expect(f.shapeCallResult({ content: [], structuredContent: { a: 1 } }).structuredContent).toEqual({
      a: 1,
    });
  });

  it('adds the JSON of a non-object value as text when no text block carries it, in every revision', () => {
    const imageOnly: CallToolResult = {
      content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }],
      structuredContent: 'hi',
    };
    for (const version of ['2026-07-28', '2025-11-25', '2024-11-05'] as const) {
      expect(profileFor(version).shapeCallResult(imageOnly).content).toEqual([
        imageOnly.content[0],
        { type: 'text', text: '"hi"' },
      ]);
    }
    const summarized: CallToolResult = {
      content: [{ type: 'text', text: 'two numbers' }],
      structuredContent: [1, 2],
    };
    expect(profileFor('2026-07-28').shapeCallResult(summarized).content).toEqual(summarized.content);
  });
});
