import { describe, expect, it } from 'vitest';
import type { ClientCapabilities } from '../index.js';
import { takesUrlElicitation } from './relayed-input.js';

const caller = (capabilities: unknown, protocolVersion = '2025-11-25') => ({
  client: { protocolVersion, info: undefined, capabilities: capabilities as ClientCapabilities },
});

describe('takesUrlElicitation', () => {
  it('reads elicitation.url as the server does: declared unless absent or null', () => {
    expect(takesUrlElicitation(caller({ elicitation: { url: {} } }))).toBe(true);
    expect(takesUrlElicitation(caller({ elicitation: { url: null } }))).toBe(false);
    expect(takesUrlElicitation(caller({ elicitation: { form: {} } }))).toBe(false);
    expect(takesUrlElicitation(caller({ elicitation: null }))).toBe(false);
    expect(takesUrlElicitation(caller({}))).toBe(false);
  });

  it('is false before 2025-11-25 and in the stateless era', () => {
    expect(takesUrlElicitation(caller({ elicitation: { url: {} } }, '2025-06-18'))).toBe(false);
    expect(takesUrlElicitation(caller({ elicitation: { url: {} } }, '2026-07-28'))).toBe(false);
  });
});
