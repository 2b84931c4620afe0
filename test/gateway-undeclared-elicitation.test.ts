// A host that declared no elicitation behind `toolwire gateway --stdio`, in front of the official
// server-everything, whose trigger-elicitation-request tool asks its client for a form: the gateway declares
// elicitation to its upstreams, so the question reaches the gateway, which cannot relay it. Nobody was
// asked, so the upstream must not hear that a person declined (`decline`, what it heard before): it gets
// -32602 saying why, as sampling does, and the model reads that in the tool's error.
import { describe, expect, it } from 'vitest';
import { everythingHost } from './_gateway.js';

describe("an upstream's elicitation during the call of a host that declared no elicitation", () => {
  it.each([
    { declared: 'nothing', capabilities: {} },
    { declared: 'sampling only', capabilities: { sampling: {} } },
  ])('fails with -32602 saying why, not as declined by a person ($declared)', async ({ capabilities }) => {
    const client = await everythingHost(capabilities);
    const result = await client.callTool({ name: 'everything__trigger-elicitation-request', arguments: {} });
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: 'MCP error -32602: The gateway could not relay elicitation/create: the client of the call did not declare elicitation, no call is in flight on this server, or several calls in flight there leave unclear whose call asks; nobody was asked',
        },
      ],
      isError: true,
    });
  });
});
