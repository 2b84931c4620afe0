import { describe, expect, it } from 'vitest';
import { LLM_TOOL_NAME_PATTERN, ToolNamer } from './tool-namer.js';

describe('ToolNamer', () => {
  it('joins prefix, separator and name in the characters LLM APIs accept', () => {
    const namer = new ToolNamer('__', 'llm');
    expect(namer.name('files', 'read_file')).toEqual({ ok: true, name: 'files__read_file' });
    expect(namer.name('files', 'fs.read file')).toEqual({ ok: true, name: 'files__fs_read_file' });
    const named = namer.name('files', 'é');
    expect(named.ok && LLM_TOOL_NAME_PATTERN.test(named.name)).toBe(true);
  });

  it('refuses a name longer than the rule allows, saying so', () => {
    expect(new ToolNamer('__', 'llm').name('files', 'x'.repeat(58))).toEqual({
      ok: false,
      reason: `"files__${'x'.repeat(58)}" is longer than the 64 characters a tool name may have here`,
    });
    expect(new ToolNamer('.', 'mcp').name('files', `fs.${'x'.repeat(100)}`)).toEqual({
      ok: true,
      name: `files.fs.${'x'.repeat(100)}`,
    });
  });
});
