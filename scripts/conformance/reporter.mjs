// What the conformance run (scripts/conformance.mjs) prints for each scenario, and the results it counts:
// PASS, FAIL, SKIP, and XFAIL/XPASS for the alpha scenarios toolwire is known not to pass yet.

export class Reporter {
  /**
   * @param alpha whether the alpha suite runs (wider columns; `expectedFailures` apply to it only)
   * @param expectedFailures scenario name prefix → why toolwire does not pass it yet (EXPECTED_FAILURES
   *   in scripts/conformance.mjs): reported XFAIL, or XPASS (a failure) once it passes
   */
  constructor(alpha, expectedFailures) {
    this.alpha = alpha;
    this.expectedFailures = expectedFailures;
    /** `{ kind, scenario, ok, skipped, xfail }` per reported line. */
    this.results = [];
  }

  expectedFailure(scenario) {
    if (!this.alpha) return undefined;
    for (const [prefix, why] of this.expectedFailures) if (scenario.startsWith(prefix)) return why;
    return undefined;
  }

  /** `outcome.skipped`: nothing was checked (every check SKIPPED): neither a pass nor a failure. */
  report(kind, scenario, outcome) {
    const why = this.expectedFailure(scenario);
    if (why !== undefined && !outcome.skipped) {
      outcome = outcome.ok
        ? {
            ...outcome,
            ok: false,
            xpass: true,
            problems: [`expected to fail (${why}) but passed: update EXPECTED_FAILURES`],
          }
        : { ...outcome, xfail: true, problems: [why] };
    }
    this.results.push({
      kind,
      scenario,
      ok: outcome.ok,
      skipped: outcome.skipped === true,
      xfail: outcome.xfail === true,
    });
    const counts =
      outcome.passed === undefined
        ? ''
        : `${outcome.passed} passed, ${outcome.failed} failed${outcome.warnings ? `, ${outcome.warnings} warnings` : ''}`;
    const detail = [counts, ...outcome.problems].filter(Boolean).join(' | ');
    const verdict = outcome.xfail
      ? 'XFAIL'
      : outcome.xpass
        ? 'XPASS'
        : outcome.skipped
          ? 'SKIP'
          : outcome.ok
            ? 'PASS'
            : 'FAIL';
    const line = `${verdict}  ${kind.padEnd(this.alpha ? 17 : 6)}  ${scenario.padEnd(38)}  ${detail}`;
    console.log(line.length > 400 ? `${line.slice(0, 397)}...` : line);
  }
}
