// A tool's annotation hints as badges. They are the server's claims, not facts: the console shows them as
// said, and the gateway trusts them only for upstreams marked trusted.
import type { ToolAnnotations } from 'toolwire';

export function AnnotationBadges({ annotations }: { annotations: ToolAnnotations | undefined }) {
  const a = annotations ?? {};
  const badges: [string, string][] = [];
  if (a.readOnlyHint === true) badges.push(['read-only', 'ok']);
  // The spec's defaults: destructive and open-world unless said otherwise (for tools that are not read-only).
  if (a.readOnlyHint !== true && a.destructiveHint !== false) badges.push(['destructive', 'bad']);
  if (a.idempotentHint === true) badges.push(['idempotent', '']);
  if (a.openWorldHint !== false) badges.push(['open-world', 'warn']);
  return (
    <span class="badges">
      {badges.map(([label, tone]) => (
        <span key={label} class={`badge ${tone}`}>
          {label}
        </span>
      ))}
    </span>
  );
}

/** Who made a call: the principal, else the HTTP session, else anonymous. */
export function callerName(caller: { principal?: string; sessionId?: string }): string {
  if (caller.principal !== undefined) return caller.principal;
  if (caller.sessionId !== undefined) return `session ${caller.sessionId.slice(0, 8)}`;
  return 'anonymous';
}
