// A host that declared no sampling (Claude Desktop declares none) behind `toolwire gateway --stdio`, in front
// of the official server-everything, whose trigger-sampling-request tool asks its client for sampling: the
// gateway declares sampling to its upstreams, so the question reaches the gateway, which cannot relay it.
// What the upstream gets, and so what the model reads in the tool's error, must say why.
import { describe, expect, it } from 'vitest';
import { everythingHost } from './_gateway.js';

describe("an upstream's sampling request during the call of a host that declared no sampling", () => {
  it.each([
    { declared: 'nothing', capabilities: {} },
    { declared: 'elicitation only', capabilities: { elicitation: {} } },
  ])(
    'fails with -32602 saying why: the caller did not declare sampling ($declared)',
    async ({ capabilities }) => {
      const client = await everythingHost(capabilities);
      const result = await client.callTool({
        name: 'everything__trigger-sampling-request',
        arguments: { prompt: 'hello' },
      });
      expect(result).toEqual({
        content: [
          {
            type: 'text',
            text: 'MCP error -32602: The gateway could not relay sampling/createMessage: the client of the call did not declare sampling, no call is in flight on this server, or several calls in flight there leave unclear whose call asks; nobody was asked',
          },
        ],
        isError: true,
      });
    },
  );
});
