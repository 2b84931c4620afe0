// Each view behind its own error boundary: a view that fails to draw (an upstream's data the console did
// not expect) shows what failed and a way to try again, and the rest of the console — the tabs, the
// other views, Approvals above all — keeps working.
import type { ComponentChildren } from 'preact';
import { useErrorBoundary } from 'preact/hooks';

/** A thrown value that is not an Error, as text (it may not even be JSON). */
function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

export function ViewBoundary({ children }: { children: ComponentChildren }) {
  const [error, reset] = useErrorBoundary() as [unknown, () => void];
  if (error) {
    const message = error instanceof Error ? error.message : describe(error);
    return (
      <section class="view-error" role="alert">
        <h2>This view failed</h2>
        <p>
          It could not be drawn ({message}). The other views work; this one may draw once what it shows
          changes.
        </p>
        <button type="button" onClick={reset}>
          Try again
        </button>
      </section>
    );
  }
  return <>{children}</>;
}
