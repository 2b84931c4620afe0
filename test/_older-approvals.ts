// Approvals pending before a console test's own: a store filled with as many as the test needs (older than
// any call it makes, for `up__delete_file`), and the next approval a gateway asks for — for the tests of the
// console at and past the pending approvals its page keeps.
import { createHash, randomUUID } from 'node:crypto';
import { MemoryApprovalStore, type GatewayEvent } from '../src/gateway/index.js';
import {
  ASK_BEFORE_DELETE,
  filesUpstream,
  useConsoleGateway,
  type ConsoleFixture,
  type ConsoleSuite,
} from './_console.js';

/** The pending approvals the console's page keeps (console/src/approval-pages.ts KEPT_APPROVALS). */
export const KEPT_BY_PAGE = 2_000;

/** An approval store holding `count` approvals pending, oldest first in `ids`. */
export async function olderApprovals(
  count: number,
): Promise<{ approvals: MemoryApprovalStore; ids: string[] }> {
  const approvals = new MemoryApprovalStore();
  const ids: string[] = [];
  const asked = Date.now() - 60_000;
  for (let i = 0; i < count; i++) {
    const args = { path: `/tmp/old-${i}` };
    const id = randomUUID();
    ids.push(id);
    await approvals.create({
      id,
      createdAt: new Date(asked + i).toISOString(),
      expiresAt: new Date(asked + 3_600_000).toISOString(),
      caller: { principal: 'someone' },
      upstream: 'up',
      tool: 'delete_file',
      exposedName: 'up__delete_file',
      arguments: args,
      argumentsDigest: `sha256:${createHash('sha256').update(JSON.stringify(args)).digest('hex')}`,
      reason: 'the policy asks',
    });
  }
  return { approvals, ids };
}

/** The next approval the fixture's gateway asks for. */
export function nextPending(fixture: ConsoleFixture): Promise<{ id: string; callId?: number }> {
  return new Promise((resolve) => {
    const stop = fixture.gateway.on((event: GatewayEvent) => {
      if (event.type !== 'approval.pending') return;
      stop();
      resolve(event.approval);
    });
  });
}

/**
 * For the test file that calls it: a browser and a console gateway in front of the `files` upstream (a person
 * asked before each `delete_file`) whose approval store holds `count` approvals pending before the test's own
 * (their ids in `older`, oldest first); after its tests, both closed.
 */
export function useOlderApprovals(count: number): ConsoleSuite & { readonly older: readonly string[] } {
  let older: string[] = [];
  const suite = useConsoleGateway(filesUpstream, ASK_BEFORE_DELETE, async () => {
    const { approvals, ids } = await olderApprovals(count);
    older = ids;
    return { stores: { approvals } };
  });
  return {
    get browser() {
      return suite.browser;
    },
    get fixture() {
      return suite.fixture;
    },
    get older() {
      return older;
    },
  };
}
