// Try a tool: a form made from the tool's inputSchema (or raw JSON), checked before anything is sent —
// invalid input shows its messages at the fields and sends nothing. The call goes through the gateway
// like a model's: the same policy and approvals, the person recorded as the caller. While it runs it
// shows its progress and can be cancelled; then its result. The schema is the upstream's: one too large
// for a form (formFits) is edited as JSON, and one too complex to check here is sent for the gateway to
// check. The tool is picked by typing part of its name (a gateway may expose thousands).
import type { CallToolResult } from 'toolwire';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, type ExposedToolView } from '../api.js';
import { ResultView } from '../components/result-view.js';
import { UpstreamText } from '../components/upstream-text.js';
import { fieldId, SchemaField } from '../schema/schema-field.js';
import { formFits, initialValue, type Schema } from '../schema/schema.js';
import { blocking, patternsReady, validate, type Issue } from '../schema/validate.js';
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
  const { calls, approvals } = useLive();
  const now = useNow(250);
  const fits = useMemo(() => formFits(schema, schema), [schema]);
  const [value, setValue] = useState<unknown>(() => initialValue(schema, schema, true));
  const [raw, setRaw] = useState<string | undefined>(() =>
    fits ? undefined : JSON.stringify(value ?? {}, null, 2),
  );
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
  // The policy asks about it: the approval waits here too (the Approvals view is another view, which this
  // form and its result would not outlive).
  const waiting = running && approvals.find((a) => a.caller.sessionId === `console-${running.tryId}`);
  const [decideError, setDecideError] = useState<string | undefined>();
  const decide = (run: () => Promise<unknown>) => {
    setDecideError(undefined);
    run().catch((error: Error) => setDecideError(error.message));
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    await patternsReady();
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
    const problems = blocking(found);
    if (problems.length > 0) {
      // Focus the first field that has a message, so that a keyboard user lands on it.
      const first = document.getElementById(fieldId(problems[0]!.path));
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
    <form class="try-form" noValidate onSubmit={(e) => void submit(e)} aria-label={`call ${name}`}>
      {!fits && (
        <p class="notice" role="note">
          This schema is too large for a form here: edit the arguments as JSON.
        </p>
      )}
      <div class="mode">
        <label>
          <input
            type="checkbox"
            disabled={!fits}
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
      {issues !== undefined && blocking(issues).length > 0 && (
        <div class="form-issues" role="alert">
          <p>
            Nothing was sent:{' '}
            {blocking(issues).length === 1 ? 'one field needs' : `${blocking(issues).length} fields need`}{' '}
            attention.
          </p>
          <ul>
            {blocking(issues).map((issue, index) => (
              <li key={index}>
                {issue.path === '' ? 'arguments' : issue.path.slice(1)} {issue.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {issues?.some((issue) => issue.kind === 'too-complex') && (
        <p class="notice" role="note">
          The arguments were not checked here: {issues.find((i) => i.kind === 'too-complex')!.message}.
        </p>
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
      {waiting && (
        <p class="notice waiting" role="status">
          Waiting for approval (the policy asks); decide here or in Approvals:{' '}
          <button
            type="button"
            class="primary"
            onClick={() => decide(() => api.approve(waiting.id, waiting.argumentsDigest, false))}
          >
            Approve
          </button>{' '}
          <button type="button" class="danger" onClick={() => decide(() => api.deny(waiting.id, ''))}>
            Deny
          </button>
        </p>
      )}
      {decideError && (
        <p class="error-text" role="alert">
          {decideError}
        </p>
      )}
      {outcome?.error && (
        <p class="error-text" role="alert">
          {outcome.error}
        </p>
      )}
      {outcome?.result && (
        <section aria-label="result">
          <h3>Result</h3>
          <ResultView result={outcome.result} outputSchema={outputSchema} fresh />
        </section>
      )}
    </form>
  );
}

/** The most tools listed as matches of what is typed. */
const MATCHES = 50;

function ToolPicker({ name, tools }: { name: string | undefined; tools: ExposedToolView[] }) {
  const [text, setText] = useState(name ?? '');
  useEffect(() => setText(name ?? ''), [name]);
  const needle = text.trim().toLowerCase();
  const typing = text !== (name ?? '');
  const matches = useMemo(() => {
    if (!typing) return [];
    const found: ExposedToolView[] = [];
    for (const t of tools) {
      if (!t.name.toLowerCase().includes(needle)) continue;
      found.push(t);
      if (found.length > MATCHES) break;
    }
    return found;
  }, [tools, needle, typing]);
  const go = (tool: string) => (location.hash = `#/try/${encodeURIComponent(tool)}`);
  return (
    <div class="tool-picker">
      <label for="try-tool-picker">Tool</label>{' '}
      <input
        id="try-tool-picker"
        type="search"
        autoComplete="off"
        placeholder="type part of a tool's name"
        aria-controls="try-tool-matches"
        value={text}
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          e.preventDefault();
          const exact = tools.find((t) => t.name === text.trim());
          const pick = exact ?? matches[0];
          if (pick) go(pick.name);
        }}
      />
      {typing && (
        <ul id="try-tool-matches" class="tool-matches" aria-label="matching tools">
          {matches.slice(0, MATCHES).map((t) => (
            <li key={t.name}>
              <a href={`#/try/${encodeURIComponent(t.name)}`}>
                <UpstreamText text={t.name} />
              </a>
            </li>
          ))}
          {matches.length === 0 && <li class="muted">No tool matches.</li>}
          {matches.length > MATCHES && <li class="muted">More match: type more of the name.</li>}
        </ul>
      )}
    </div>
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
      <ToolPicker name={name} tools={tools} />
      {view ? (
        <>
          {view.tool.description && (
            <p class="description">
              <UpstreamText text={view.tool.description} />
            </p>
          )}
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
        <p class="empty">
          {name === undefined ? (
            'Pick a tool.'
          ) : (
            <>
              No tool <UpstreamText text={name} />.
            </>
          )}
        </p>
      )}
    </section>
  );
}
