// Who decided, as the gateway names them: a principal's subject, the API token (`api-token`, or
// `console:api-token` for a console session it signed in), a one-time link (`console-link:ID`) — or a name
// typed at sign-in, which is that person's own claim (nothing checks it), put first with what signed in
// beside it: `console:NAME (api-token)`, `console:NAME (link ID)`. Such a name is marked as declared.

/** The name and what signed in, of a `decidedBy` that carries a name typed at sign-in; else undefined. */
export function declaredName(by: string): { name: string; via: string } | undefined {
  const match = /^console:(.+) \((api-token|link [0-9a-f]{8})\)$/.exec(by);
  return match ? { name: match[1]!, via: match[2]! } : undefined;
}

/** `by` as text; a name typed at sign-in marked "declared", with a description saying what that means. */
export function DeciderName({ by }: { by: string }) {
  const declared = declaredName(by);
  if (!declared) return <>{by}</>;
  const via = declared.via === 'api-token' ? 'the API token' : `the one-time ${declared.via}`;
  return (
    <>
      {by}{' '}
      <span
        class="badge declared"
        title={`"${declared.name}" is the name typed at sign-in with ${via}: their own claim, not checked`}
      >
        declared name
      </span>
    </>
  );
}
