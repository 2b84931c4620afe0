// An upstream's icons through the gateway, over HTTP: of a tool's, a prompt's, a resource's and a template's
// icons, only those whose src is https:, http: or data: reach the caller's tools/list, prompts/list,
// resources/list and resources/templates/list; a javascript: link or a file:// path (which a host that
// fetched it could leak credentials to) is left out, as the spec has a client reject it. So are those of the
// resource_link blocks of its call results and prompt messages, and those of its serverInfo and tools as the
// decision API (and the console) shows them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Icon } from '../src/index.js';
import { resourceLink, Server, text } from '../src/server/index.js';
import { serveGatewayFor, type ServedGateway } from './_served-gateway.js';

const HTTPS: Icon = { src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] };
const DATA: Icon = { src: 'data:image/png;base64,iVBORw0KGgo=', mimeType: 'image/png' };
const UNSAFE: Icon[] = [
  { src: 'javascript:alert(document.domain)' },
  { src: 'JavaScript:alert(1)' },
  { src: 'file://attacker.example/share/icon.png' },
  { src: 'ftp://example.com/icon.png' },
  { src: 'not a uri' },
];

let setup: ServedGateway | undefined;

beforeAll(async () => {
  const server = new Server({ name: 'icons', version: '1.0.0', icons: [UNSAFE[2]!, HTTPS] });
  server.tool('draw', { inputSchema: { type: 'object' }, icons: [UNSAFE[0]!, HTTPS, UNSAFE[2]!, DATA] }, () =>
    text('drawn'),
  );
  server.tool('plain', { inputSchema: { type: 'object' }, icons: [HTTPS] }, () => text('plain'));
  server.tool('link', { inputSchema: { type: 'object' } }, () => ({
    content: [
      resourceLink({ uri: 'notes://today', name: 'today', icons: [UNSAFE[0]!, DATA, UNSAFE[2]!] }),
      resourceLink({ uri: 'notes://day', name: 'day', icons: [UNSAFE[3]!] }),
      resourceLink({ uri: 'notes://safe', name: 'safe', icons: [HTTPS] }),
    ],
  }));
  server.prompt('linked', {}, () => ({
    messages: [
      {
        role: 'user' as const,
        content: resourceLink({ uri: 'notes://today', name: 'today', icons: [UNSAFE[1]!, HTTPS] }),
      },
    ],
  }));
  server.prompt('sketch', { icons: UNSAFE }, () => 'sketch');
  server.resource('notes://today', { name: 'today', icons: [UNSAFE[1]!, DATA] }, () => 'today');
  server.resourceTemplate('notes://{day}', { name: 'day', icons: [UNSAFE[3]!, UNSAFE[4]!] }, () => 'day');
  setup = await serveGatewayFor(server, { config: { policy: { default: 'allow' } } });
});

afterAll(() => setup?.close());

describe("an upstream's icons through the gateway", () => {
  it('passes on those of https:, http: and data: URIs only, in every listing', async () => {
    const { model } = setup!;
    const tools = await model.listTools();
    expect(tools.find((tool) => tool.name === 'files__draw')?.icons).toEqual([HTTPS, DATA]);
    expect(tools.find((tool) => tool.name === 'files__plain')?.icons).toEqual([HTTPS]);
    const prompt = (await model.listPrompts()).find((listed) => listed.name === 'files__sketch');
    expect(prompt).toMatchObject({ name: 'files__sketch' });
    expect(prompt).not.toHaveProperty('icons');
    const [resource] = await model.listResources();
    expect(resource).toMatchObject({ uri: 'notes://today', icons: [DATA] });
    const [template] = await model.listResourceTemplates();
    expect(template).toMatchObject({ uriTemplate: 'notes://{day}' });
    expect(template).not.toHaveProperty('icons');
    // The tool itself is unchanged.
    expect((await model.callTool('files__draw', {})).content).toEqual([{ type: 'text', text: 'drawn' }]);
  });

  it("passes on a call result's and a prompt's resource links with those icons only", async () => {
    const { model } = setup!;
    const { content } = await model.callTool('files__link', {});
    expect(content).toEqual([
      { type: 'resource_link', uri: 'notes://today', name: 'today', icons: [DATA] },
      { type: 'resource_link', uri: 'notes://day', name: 'day' },
      { type: 'resource_link', uri: 'notes://safe', name: 'safe', icons: [HTTPS] },
    ]);
    const { messages } = await model.getPrompt('files__linked');
    expect(messages).toEqual([
      {
        role: 'user',
        content: { type: 'resource_link', uri: 'notes://today', name: 'today', icons: [HTTPS] },
      },
    ]);
  });

  it("shows the upstream's serverInfo and tools with those icons only in the decision API", async () => {
    const { served } = setup!;
    const get = async (path: string) => {
      const response = await fetch(`${served.apiUrl}${path}`, {
        headers: { authorization: `Bearer ${served.api.token}` },
      });
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };
    const { upstreams } = (await get('/upstreams')) as { upstreams: { serverInfo?: { icons?: Icon[] } }[] };
    expect(upstreams[0]?.serverInfo).toMatchObject({ name: 'icons', icons: [HTTPS] });
    const { tools } = (await get('/tools')) as { tools: { name: string; tool: { icons?: Icon[] } }[] };
    expect(tools.find((view) => view.name === 'files__draw')?.tool.icons).toEqual([HTTPS, DATA]);
  });
});
