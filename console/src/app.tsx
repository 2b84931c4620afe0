// The console's frame: who is signed in, whether the live connection holds, the views (by the address's
// fragment: #/approvals, #/tools, #/activity, #/try/NAME, #/upstreams, #/audit), the pending count in the
// title, and browser notifications for new approvals when the person asked for them.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api.js';
import { callerName } from './components/badges.js';
import { UpstreamText } from './components/upstream-text.js';
import { ViewBoundary } from './components/view-boundary.js';
import { live, useLive } from './live.js';
import { Activity } from './views/activity.js';
import { Approvals } from './views/approvals.js';
import { Audit } from './views/audit.js';
import { SignIn } from './views/sign-in.js';
import { Tools } from './views/tools.js';
import { TryTool } from './views/try-tool.js';
import { Upstreams } from './views/upstreams.js';

const VIEWS = [
  ['approvals', 'Approvals'],
  ['activity', 'Activity'],
  ['tools', 'Tools'],
  ['try', 'Try a tool'],
  ['upstreams', 'Upstreams'],
  ['audit', 'Audit'],
] as const;

/** A part of the address as written, when it is not a valid % escape (a link anyone can send). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function route(): { view: string; arg: string | undefined } {
  const [view = 'approvals', arg] = location.hash.replace(/^#\/?/, '').split('/');
  return {
    view: VIEWS.some(([id]) => id === view) ? view : 'approvals',
    arg: arg === undefined ? undefined : decoded(arg),
  };
}

function useRoute() {
  const [current, setCurrent] = useState(route);
  useEffect(() => {
    const update = () => setCurrent(route());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return current;
}

const NOTIFY_KEY = 'toolwire-console-notify';

function useNotifications(): [boolean, () => void] {
  const supported = typeof Notification !== 'undefined';
  const [on, setOn] = useState(
    () => supported && Notification.permission === 'granted' && localStorage.getItem(NOTIFY_KEY) === '1',
  );
  useEffect(
    () =>
      live.onPending((approval) => {
        if (!on || !document.hidden) return;
        new Notification('Approval needed', {
          body: `${approval.exposedName} (${approval.upstream})`,
          tag: approval.id,
        });
      }),
    [on],
  );
  const toggle = () => {
    if (on) {
      localStorage.removeItem(NOTIFY_KEY);
      return setOn(false);
    }
    void Notification.requestPermission().then((permission) => {
      const granted = permission === 'granted';
      if (granted) localStorage.setItem(NOTIFY_KEY, '1');
      setOn(granted);
    });
  };
  return [supported && on, supported ? toggle : () => undefined];
}

/**
 * What a screen reader is told when an approval arrives, whatever view is shown and wherever the focus is (a
 * polite live region): the count in the tab and the title are not announced.
 */
function useArrivals(): string {
  const [text, setText] = useState('');
  useEffect(
    () =>
      live.onPending((approval) =>
        setText(
          `Approval needed: ${approval.exposedName} (${approval.upstream}), from ${callerName(approval.caller)}`,
        ),
      ),
    [],
  );
  return text;
}

export function App() {
  const state = useLive();
  const arrival = useArrivals();
  const { view, arg } = useRoute();
  const [notify, toggleNotify] = useNotifications();
  // Those listed and those the page did not read (past what it keeps): all that wait.
  const pending = state.approvals.length + state.unlistedApprovals;
  // The view shown names the page too (a screen reader says the title as the view changes).
  const viewLabel = VIEWS.find(([id]) => id === view)?.[1] ?? 'Approvals';
  useEffect(() => {
    const title = `${viewLabel} · toolwire console`;
    document.title = pending > 0 ? `(${pending}) ${title}` : title;
  }, [pending, viewLabel]);
  // Signed in from the form (which goes, and the focus with it): the focus goes to the view's heading.
  const fromForm = useRef(false);
  useEffect(() => {
    if (state.session === null) fromForm.current = true;
    else if (state.session && fromForm.current) {
      fromForm.current = false;
      const heading = document.querySelector<HTMLElement>('main h2');
      if (heading && !heading.hasAttribute('tabindex')) heading.tabIndex = -1;
      heading?.focus();
    }
  }, [state.session]);
  if (state.session === undefined) return <p class="loading">Loading…</p>;
  if (state.session === null) return <SignIn message={state.signedOut} />;
  return (
    <div class="shell">
      <header class="top">
        <h1>toolwire console</h1>
        <span class={`connection ${state.connection}`} role="status">
          {state.connection === 'live'
            ? 'live'
            : state.connection === 'offline'
              ? 'reconnecting…'
              : 'connecting…'}
        </span>
        <span class="who">
          {state.session.by}
          {!state.session.canDecide && ' (watching)'}
        </span>
        <button type="button" aria-pressed={notify} onClick={toggleNotify}>
          {notify ? 'Notifications on' : 'Notify me'}
        </button>
        <button
          type="button"
          onClick={() => {
            void api.signOut().finally(() => live.signedOut());
          }}
        >
          Sign out
        </button>
      </header>
      <nav class="tabs" aria-label="views">
        {VIEWS.map(([id, label]) => (
          <a
            key={id}
            href={`#/${id}`}
            aria-current={view === id ? 'page' : undefined}
            // The count is said apart from the name ("Approvals, 1 pending", not "Approvals1 pending").
            aria-label={id === 'approvals' && pending > 0 ? `${label}, ${pending} pending` : undefined}
          >
            {label}
            {id === 'approvals' && pending > 0 && (
              <span class="count" aria-hidden="true">
                {pending}
              </span>
            )}
          </a>
        ))}
      </nav>
      {state.warnings.length > 0 && (
        <details class="warnings">
          <summary>{state.warnings.length} warnings from the gateway</summary>
          <ul>
            {state.warnings.map((w, i) => (
              <li key={i}>
                <UpstreamText text={w} />
              </li>
            ))}
          </ul>
        </details>
      )}
      <p class="visually-hidden" role="status">
        <UpstreamText text={arrival} />
      </p>
      <main>
        <ViewBoundary key={`${view}/${arg ?? ''}`}>
          {view === 'approvals' && <Approvals only={arg} />}
          {view === 'activity' && <Activity />}
          {view === 'tools' && <Tools />}
          {view === 'try' && <TryTool name={arg} />}
          {view === 'upstreams' && <Upstreams />}
          {view === 'audit' && <Audit />}
        </ViewBoundary>
      </main>
    </div>
  );
}
