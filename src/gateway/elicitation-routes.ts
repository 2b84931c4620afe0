/**
 * Where an upstream's `notifications/elicitation/complete` goes (2025-11-25): to the caller its URL-mode
 * elicitation was relayed to — by an `elicitation/create` in URL mode during a call, or in a `-32042`
 * error the call ended with. The spec has a server send it only to the client that the elicitation was
 * asked of; the gateway has one connection per upstream for all its callers, so it remembers, per
 * upstream and id, the call's context (the most recent `MAX_ROUTES`; a completion is routed once). An id
 * it does not know (never relayed, already completed, or a hostile upstream's guess) goes nowhere.
 * @module
 */
import type { ToolContext } from '../server/index.js';

/** How many relayed URL elicitations the gateway remembers (the oldest is forgotten first). */
export const MAX_ROUTES = 1024;

export class ElicitationRoutes {
  readonly #routes = new Map<string, Pick<ToolContext, 'completeElicitation'>>();

  /** The elicitation `elicitationId` of `upstream` was relayed to the caller of `ctx`. */
  relayed(upstream: string, elicitationId: string, ctx: Pick<ToolContext, 'completeElicitation'>): void {
    const key = `${upstream}\n${elicitationId}`;
    const routes = this.#routes;
    routes.delete(key);
    routes.set(key, ctx);
    if (routes.size > MAX_ROUTES) for (const oldest of routes.keys()) return void routes.delete(oldest);
  }

  /** `upstream` completed `elicitationId`: its caller is told, if the gateway relayed it to one. */
  complete(upstream: string, elicitationId: string): void {
    const key = `${upstream}\n${elicitationId}`;
    const ctx = this.#routes.get(key);
    if (!ctx) return;
    this.#routes.delete(key);
    // The caller may be gone: nothing to tell then.
    void ctx.completeElicitation(elicitationId).catch(() => undefined);
  }
}
