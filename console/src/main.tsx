// The console's entry: a login token in the address (#token=…, from the link the gateway printed) is
// taken out of the address bar at once — before anything else runs, so it is not left in the history —
// and traded for the session cookie; then the app starts.
import { render } from 'preact';
import { api } from './api.js';
import { App } from './app.js';
import { live } from './live.js';
import './styles.css';

async function boot(): Promise<void> {
  const match = /^#token=([^&]+)/.exec(location.hash);
  if (match?.[1]) {
    history.replaceState(null, '', `${location.pathname}${location.search}#/approvals`);
    try {
      await api.signIn(decodeURIComponent(match[1]));
    } catch {
      // a used or expired link: the sign-in form says what to do
    }
  }
  await live.start();
}

render(<App />, document.getElementById('app')!);
void boot();
