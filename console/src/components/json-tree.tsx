// A JSON value as a tree a person can fold: objects and arrays are <details> (open to a depth), leaves are
// text. Everything is text — a string that looks like HTML stays a string. Large nodes show their first
// items and say how many more there are. Characters that change how text is shown rather than show
// themselves (bidirectional overrides and isolates, zero-width characters, C1 controls) are shown as their
// escapes: a path argument "evil\u202egnp.sh" would otherwise read "evilhs.png" to the person approving it.
// A closed node's children are not drawn until it is opened (a tool's schema, a result, may be huge).
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { visibleText } from './upstream-text.js';

/** JSON text (JSON.stringify has escaped the C0 controls) with the characters that hide or reorder text escaped. */
export function visibleJson(value: unknown, indent?: number): string {
  return visibleText(JSON.stringify(value, null, indent) ?? String(value));
}

const SHOWN = 200;
const MAX_DEPTH = 40;

function Leaf({ value }: { value: unknown }) {
  if (typeof value === 'string') return <span class="json-string">{visibleJson(value)}</span>;
  if (typeof value === 'number') return <span class="json-number">{String(value)}</span>;
  if (typeof value === 'boolean') return <span class="json-boolean">{String(value)}</span>;
  if (value === null) return <span class="json-null">null</span>;
  return <span class="json-other">{typeof value}</span>;
}

function Node({
  name,
  value,
  depth,
  open,
}: {
  name: ComponentChildren;
  value: unknown;
  depth: number;
  open: number;
}) {
  const [shown, setShown] = useState(depth < open);
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) {
    return (
      <div class="json-row">
        {name}
        <Leaf value={depth >= MAX_DEPTH && typeof value === 'object' ? '…' : value} />
      </div>
    );
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.slice(0, SHOWN + 1).map((item, index) => [String(index), item])
    : Object.entries(value);
  const count = Array.isArray(value) ? value.length : entries.length;
  const summary = Array.isArray(value) ? `[${count}]` : `{${count}}`;
  return (
    <details
      class="json-node"
      open={shown}
      onToggle={(event) => setShown((event.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>
        {name}
        <span class="json-count">{summary}</span>
      </summary>
      {shown && (
        <div class="json-children">
          {entries.slice(0, SHOWN).map(([key, item]) => (
            <Node
              key={key}
              name={
                <span class="json-key">{Array.isArray(value) ? key : visibleJson(key).slice(1, -1)}: </span>
              }
              value={item}
              depth={depth + 1}
              open={open}
            />
          ))}
          {count > SHOWN && <div class="json-more">… {count - SHOWN} more</div>}
        </div>
      )}
    </details>
  );
}

export function JsonTree({ value, label, open = 2 }: { value: unknown; label?: string; open?: number }) {
  return (
    <div class="json-tree" role="group" aria-label={label ?? 'JSON'}>
      <Node name={null} value={value} depth={0} open={open} />
    </div>
  );
}

/** The raw JSON, pretty-printed, in a block that keeps it as text. */
export function RawJson({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre class="raw-json" aria-label={label ?? 'raw JSON'} tabIndex={0}>
      {visibleJson(value, 2)}
    </pre>
  );
}
