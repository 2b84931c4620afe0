import { describe, expect, it } from 'vitest';
import { declaresCapability, type ClientCapabilities } from '../../index.js';

describe('declaresCapability', () => {
  it('reads a declaration as the server does: present and not null', () => {
    const capabilities: ClientCapabilities = {
      roots: {},
      sampling: { tools: {} },
      elicitation: null as never,
    };
    expect(declaresCapability(capabilities, 'roots')).toBe(true);
    expect(declaresCapability(capabilities, 'sampling')).toBe(true);
    expect(declaresCapability(capabilities, 'elicitation')).toBe(false); // `null` declares nothing
    expect(declaresCapability(capabilities, 'tasks')).toBe(false);
    expect(declaresCapability({ experimental: { x: false } }, 'experimental')).toBe(true);
  });

  it('reads a member of a capability the same way, and nothing of what is no object', () => {
    const capabilities: ClientCapabilities = { elicitation: { form: {}, url: null as never } };
    expect(declaresCapability(capabilities.elicitation, 'form')).toBe(true);
    expect(declaresCapability(capabilities.elicitation, 'url')).toBe(false);
    expect(declaresCapability(capabilities.sampling, 'tools')).toBe(false); // no sampling at all
    for (const value of [undefined, null, true, 'url', 3, ['url']]) {
      expect(declaresCapability(value, 'url')).toBe(false);
    }
  });
});
