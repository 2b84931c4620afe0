// Try a tool: a form made from the tool's inputSchema (or raw JSON), checked before anything is sent —
// invalid input shows its messages at the fields and sends nothing. The call goes through the gateway
// like a model's: the same policy and approvals, the person recorded as the caller. While it runs it
// shows its progress and can be cancelled; then its result.
import type { CallToolResult } from 'toolwire';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ResultView } from '../components/result-view.js';
import { fieldId, SchemaField } from '../schema/schema-field.js';
import { initialValue, type Schema } from '../schema/schema.js';
import { validate, type Issue } from '../schema/validate.js';
import { useLive, useNow } from '../live.js';
import { CallProgress } from './activity.js';

function byPath(issues: readonly Issue[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const issue of issues) map.set(issue.path, [...(map.get(issue.path) ?? []), issue.message]);
  return map;
}

function newTryId(): string {
  return crypto.randomUUID();
}

function ToolForm({
  name,
  schema,
  outputSchema,
  canDecide,
}: {
  name: string;
  schema: Schema;
  outputSchema: unknown;
  canDecide: boolean;
}) {
  const { calls } = useLive();
  const now = useNow(250);
  const [value, setValue] = useState<unknown>(() => initialValue(schema, schema, true));
  const [raw, setRaw] = useState<string | undefined>(undefined);
  const [unparsed, setUnparsed] = useState<ReadonlyMap<string, string>>(new Map());
  const [issues, setIssues] = useState<Issue[] | undefined>(undefined);
  const [running, setRunning] = useState<{ tryId: string; controller: AbortController } | undefined>();
  const [outcome, setOutcome] = useState<{ result?: CallToolResult; error?: string } | undefined>();
  const check = (v: unknown): Issue[] => [
    ...validate(schema, v, schema),
    ...[...unparsed].map(([path, message]) => ({ path, message })),
  ];
  const shown = useMemo(() => byPath(issues ?? []), [issues]);
  const call = running && calls.find((c) => c.call.caller.sessionId === `console-${running.tryId}`);

  const submit = (event: Event) => {
    event.preventDefault();
    let args = value;
    if (raw !== undefined) {
      try {
        args = JSON.parse(raw);
      } catch {
        setIssues([{ path: '', message: 'The raw JSON does not parse' }]);
        return;
      }
    }
    const found = check(args);
    setIssues(found);
    if (found.length > 0) {
      // Focus the first field that has a message, so that a keyboard user lands on it.
      const first = document.getElementById(fieldId(found[0]!.path));
      first?.focus();
      return;
    }
    const tryId = newTryId();
    const controller = new AbortController();
    setRunning({ tryId, controller });
    setOutcome(undefined);
    api.call(name, args, tryId, controller.signal).then(
      ({ result }) => {
        setRunning(undefined);
        setOutcome({ result });
      },
      (error: Error) => {
        setRunning(undefined);
        setOutcome({ error: error.message });
      },
    );
  };

  return (
    <form class="try-form" noValidate onSubmit={submit} aria-label={`call ${name}`}>
      <div class="mode">
        <label>
          <input
            type="checkbox"
            checked={raw !== undefined}
            onChange={(e) => {
              if ((e.target as HTMLInputElement).checked) setRaw(JSON.stringify(value ?? {}, null, 2));
              else {
                try {
                  if (raw !== undefined) setValue(JSON.parse(raw));
                  setRaw(undefined);
                } catch {
                  setIssues([{ path: '', message: 'The raw JSON does not parse' }]);
                }
              }
            }}
          />{' '}
          Raw JSON
        </label>
      </div>
      {raw !== undefined ? (
        <div class="field">
          <label for="raw-arguments" class="field-label">
            Arguments (JSON)
          </label>
          <textarea
            id="raw-arguments"
            rows={12}
            spellcheck={false}
            value={raw}
            onInput={(e) => setRaw((e.target as HTMLTextAreaElement).value)}
          />
        </div>
      ) : (
        <SchemaField
          schema={schema}
          root={schema}
          value={value}
          onChange={(next) => {
            setValue(next);
            if (issues !== undefined) setIssues(check(next));
          }}
          path=""
          label="arguments"
          required
          issues={shown}
          unparsed={(path, message) => {
            const next = new Map(unparsed);
            if (message === undefined) next.delete(path);
            else next.set(path, message);
            setUnparsed(next);
          }}
        />
      )}
      {issues !== undefined && issues.length > 0 && (
        <div class="form-issues" role="alert">
          <p>
            Nothing was sent: {issues.length === 1 ? 'one field needs' : `${issues.length} fields need`}{' '}
            attention.
          </p>
          <ul>
            {issues.map((issue, index) => (
              <li key={index}>
                {issue.path === '' ? 'arguments' : issue.path.slice(1)} {issue.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={!canDecide || running !== undefined}>
          Call
        </button>
        {running && (
          <>
            {call ? (
              <CallProgress call={call} now={now} />
            ) : (
              <span class="spinner" role="status" aria-label="running" />
            )}
            <button
              type="button"
              class="danger"
              onClick={() => {
                if (call) void api.cancel(call.call.id).catch(() => undefined);
                else running.controller.abort();
              }}
            >
              Cancel
            </button>
          </>
        )}
      </div>
      {outcome?.error && (
        <p class="error-text" role="alert">
          {outcome.error}
        </p>
      )}
      {outcome?.result && (
        <section aria-label="result">
          <h3>Result</h3>
          <ResultView result={outcome.result} outputSchema={outputSchema} />
        </section>
      )}
    </form>
  );
}

export function TryTool({ name }: { name: string | undefined }) {
  const { tools, session } = useLive();
  const view = tools.find((t) => t.name === name);
  useEffect(() => {
    if (name === undefined && tools[0]) location.hash = `#/try/${encodeURIComponent(tools[0].name)}`;
  }, [name, tools]);
  return (
    <section aria-labelledby="try-heading">
      <h2 id="try-heading">Try a tool</h2>
      <label for="try-tool-picker">Tool</label>{' '}
      <select
        id="try-tool-picker"
        value={name ?? ''}
        onChange={(e) =>
          (location.hash = `#/try/${encodeURIComponent((e.target as HTMLSelectElement).value)}`)
        }
      >
        {tools.map((t) => (
          <option key={t.name} value={t.name}>
            {t.name}
          </option>
        ))}
      </select>
      {view ? (
        <>
          {view.tool.description && <p class="description">{view.tool.description}</p>}
          <p class="muted">
            The call goes through the gateway&apos;s policy ({view.policy.action}: {view.policy.reason}), with
            you as the caller.
          </p>
          <ToolForm
            key={view.name}
            name={view.name}
            schema={view.tool.inputSchema as Schema}
            outputSchema={view.tool.outputSchema}
            canDecide={session?.canDecide === true}
          />
        </>
      ) : (
        <p class="empty">{name === undefined ? 'Pick a tool.' : `No tool ${name}.`}</p>
      )}
    </section>
  );
}
