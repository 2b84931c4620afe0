// A tool's descriptive fields are checked at registration (and on `update`), as its name is: a `title` or
// `description` that is not a string, `annotations` that are not an object of boolean hints, `icons` that
// are not an array of icons with a string `src`, or a `_meta` that is not a plain object throws ServerError
// INVALID_DEFINITION naming the field, and nothing malformed reaches `tools/list`.
import { describe, expect, it } from 'vitest';
import { Server, ServerError, text, type ToolDefinition } from '../src/server/index.js';
import { rawPeer } from './_raw-peer.js';

const BAD: Array<[string, Record<string, unknown>]> = [
  ['title must be a string', { title: 5 }],
  ['description must be a string', { description: { x: 1 } }],
  ['annotations must be an object', { annotations: 'read-only' }],
  ['annotations.readOnlyHint must be a boolean', { annotations: { readOnlyHint: 'yes' } }],
  ['annotations.openWorldHint must be a boolean', { annotations: { openWorldHint: null } }],
  ['annotations.title must be a string', { annotations: { title: 1 } }],
  ['icons must be an array of icons', { icons: { src: 'https://example.com/a.png' } }],
  ['icons[0] must be an object', { icons: ['https://example.com/a.png'] }],
  ['icons[1].src must be a string', { icons: [{ src: 'https://example.com/a.png' }, { nosrc: 1 }] }],
  ['icons[0].mimeType must be a string', { icons: [{ src: 'a.png', mimeType: 1 }] }],
  ['icons[0].sizes must be an array of strings', { icons: [{ src: 'a.png', sizes: '48x48' }] }],
  ["icons[0].theme must be 'light' or 'dark'", { icons: [{ src: 'a.png', theme: 'blue' }] }],
  ['_meta must be a plain object', { _meta: 5 }],
  ['_meta must be a plain object', { _meta: [] }],
  ['_meta must be a plain object', { _meta: new Map() }],
];

const GOOD = {
  title: 'Adder',
  description: 'Adds',
  annotations: {
    title: 'Add',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  icons: [
    { src: 'https://example.com/a.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' as const },
  ],
  _meta: { 'example.com/x': 1 },
};

function thrown(register: () => unknown): unknown {
  try {
    register();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('registering a tool with malformed descriptive fields', () => {
  it.each(BAD)('throws INVALID_DEFINITION: %s', (problem, fields) => {
    const server = new Server({ name: 's', version: '1' });
    const error = thrown(() => server.tool('t', fields as ToolDefinition, () => text('ok')));
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ code: 'INVALID_DEFINITION', message: `Tool "t": ${problem}` });
  });

  it('lists well-formed fields as given, and an update with a malformed one leaves the tool as it was', async () => {
    const server = new Server({ name: 's', version: '1' });
    const handle = server.tool('t', GOOD, () => text('ok'));
    const error = thrown(() => handle.update({ annotations: { readOnlyHint: 'yes' } } as never));
    expect(error).toMatchObject({
      code: 'INVALID_DEFINITION',
      message: 'Tool "t": annotations.readOnlyHint must be a boolean',
    });
    expect(thrown(() => server.tool('u', { _meta: 5 } as never, () => text('ok')))).toBeInstanceOf(
      ServerError,
    );
    await using peer = await rawPeer(server, '2025-11-25');
    expect(await peer.result('tools/list')).toEqual({
      tools: [{ name: 't', inputSchema: { type: 'object', additionalProperties: false }, ...GOOD }],
    });
  });
});
