// The console's entry: a login token in the address (#token=…, from the link the gateway printed) is
// taken out of the address bar at once — before anything else runs, so it is not left in the history —
// and traded for the session cookie; then the app starts. The authorization server sends a person who signed
// in to an upstream back to /console/callback?code=…&state=…: that address, too, leaves the address bar at
// once, and goes to the gateway, which completes the sign-in its state names.
import { render } from 'preact';
import { api, ApiError } from './api.js';
import { App } from './app.js';
import { live } from './live.js';
import './styles.css';

/** Hands the address the authorization server sent the browser back to to the gateway. */
async function finishSignIn(callback: string): Promise<void> {
  try {
    const { upstream } = await api.finishSignIn(callback);
    const text =
      upstream.status === 'ready'
        ? `Signed in to ${upstream.name}: connected, ${upstream.tools.length} tools.`
        : `Signed in to ${upstream.name}; it is ${upstream.status}${upstream.error ? `: ${upstream.error}` : ''}.`;
    live.set({ signInNotice: { ok: upstream.status === 'ready', text } });
  } catch (error) {
    live.set({
      signInNotice: { ok: false, text: `The sign-in did not complete: ${(error as Error).message}` },
    });
  }
}

/** Why the link the gateway printed did not sign this browser in. */
function linkProblem(error: unknown): string {
  if (error instanceof ApiError && error.status === 401)
    return 'This sign-in link was used already or has expired: each link signs one browser in, once, within 24 hours. Sign in with the API token the gateway printed (TOOLWIRE_TOKEN).';
  return `The sign-in link did not work: ${(error as Error).message}`;
}

async function boot(callback: string | undefined): Promise<void> {
  if (callback !== undefined) {
    await live.start();
    if (live.state.session) await finishSignIn(callback);
    return;
  }
  const match = /^#token=([^&]+)/.exec(location.hash);
  if (match?.[1]) {
    history.replaceState(null, '', `${location.pathname}${location.search}#/approvals`);
    try {
      await api.signIn(decodeURIComponent(match[1]));
    } catch (error) {
      // Said on the sign-in form, unless this browser is signed in already.
      live.set({ signedOut: linkProblem(error) });
    }
  }
  await live.start();
}

// Before the app reads its view from the address.
const callback = location.pathname.endsWith('/callback') ? location.href : undefined;
if (callback !== undefined) {
  history.replaceState(null, '', `${location.pathname.replace(/callback$/, '')}#/upstreams`);
}
render(<App />, document.getElementById('app')!);
void boot(callback);
