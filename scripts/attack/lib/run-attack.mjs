// Runs one attack against a fresh target with a bystander beside it, and judges the invariants every attack
// shares: no crash, no hang, the bystander answered right and in time, the heap after GC came back.
import { setTimeout as sleep } from 'node:timers/promises';
import { BystanderThread } from './bystander-thread.mjs';
import { startTarget, watchRss } from './target.mjs';

const HANG = Symbol('hang');
/**
 * The most RSS any attack may drive the server to: ≈70 MB idle, plus what the caps allow in flight (4 MiB
 * bodies, 1 MiB results, 8 MiB of unread output per connection) for the attacks' few dozen connections.
 */
const RSS_CEILING_MB = 384;

/**
 * An attack is `{ name, title, target?, budgetMs?, heapBudgetMb?, rssCeilingMb?, latencyBoundMs?, run(ctx) }`. `target` is the spec for
 * `startTarget` (transport, flags, env), or an async function of the context returning one; a spec may add
 * `bystander: { headers, stateful }` and `cleanup()`. `target: false`: the attack brings its own victim (the
 * client attacks) and reports `ctx.delayMs` and `ctx.peakRssMb` itself. `run(ctx)` counts its tries in
 * `ctx.tries` and reports wrong answers with `ctx.fail(message)` / `ctx.check(condition, message)`.
 */
export async function runAttack(attack, options) {
  let result = await attempt(attack, options);
  const delays = [result.delayMs];
  // Up to two reruns when the bystander's wait was the only failure: a defect shows every time, a busy
  // machine's scheduling hiccup rarely three times in a row.
  // A stall of twice the bound in the server's own CPU time is no hiccup: no rerun then.
  while (
    !result.ok &&
    result.onlyLatency &&
    !(result.stallCpuMs >= 2 * (attack.latencyBoundMs ?? options.latencyBoundMs)) &&
    delays.length < 3
  ) {
    result = await attempt(attack, options);
    delays.push(result.delayMs);
  }
  return delays.length === 1 ? result : { ...result, rerun: true, delays };
}

/** The context an attack runs with; what it reports after the attempt ended (a hang) is dropped. */
function context(options, failures, notes) {
  const ctx = {
    ...options,
    tries: 0,
    target: undefined,
    ended: false,
    /** Something worth printing whatever the verdict (the slowest frame, a count). */
    note: (message) => ctx.ended || notes.push(message),
    fail: (message) => {
      if (!ctx.ended && failures.length < 8) failures.push(message);
    },
    check: (condition, message) => condition || ctx.fail(typeof message === 'function' ? message() : message),
  };
  return ctx;
}

/** Runs the attack within its budget; resolves undefined, the error it threw, or HANG. */
async function within(attack, ctx, budgetMs) {
  let timer;
  const outcome = await Promise.race([
    Promise.resolve()
      .then(() => attack.run(ctx))
      .then(
        () => undefined,
        (error) => error,
      ),
    new Promise((resolve) => (timer = setTimeout(() => resolve(HANG), budgetMs))),
  ]);
  clearTimeout(timer);
  if (outcome === HANG) ctx.fail(`hang: the attack did not finish within ${budgetMs / 1000} s`);
  else if (outcome !== undefined) ctx.fail(`the attack itself failed: ${outcome?.stack ?? outcome}`);
  return outcome;
}

async function attempt(attack, options) {
  const started = performance.now();
  const failures = [];
  const notes = [];
  const ctx = context(options, failures, notes);
  const result = { name: attack.name, title: attack.title, ok: false, failures, notes, tries: 0 };
  const budgetMs = attack.budgetMs ?? (options.quick ? 20_000 : 30_000);
  let spec;
  let target;
  let bystander;
  let baseline = { p50: 0, max: 0 };
  let during;
  try {
    if (attack.target === false) {
      await within(attack, ctx, budgetMs);
      during = { max: ctx.delayMs ?? Number.NaN, errorCount: 0, errors: [] };
      result.peakRssMb = ctx.peakRssMb;
    } else {
      spec = typeof attack.target === 'function' ? await attack.target(ctx) : (attack.target ?? {});
      target = ctx.target = await startTarget(spec);
      const stateful = spec.bystander?.stateful ?? !(spec.flags ?? []).includes('--stateless');
      bystander = new BystanderThread(target.url, { headers: spec.bystander?.headers ?? {}, stateful });
      await bystander.open();
      baseline = await bystander.baseline(options.quick ? 200 : 1000);
      const before = await bystander.memory();
      await bystander.memory(); // the stall of the first probe's own collection is not the attack's
      /** The server's heap after GC and RSS now, in MB (through the bystander's session). */
      ctx.memory = () => bystander.memory();
      const rss = watchRss(target);
      await bystander.start();
      await within(attack, ctx, budgetMs);
      during = await bystander.stop();
      result.peakRssMb = rss.stop();
      const ceiling = attack.rssCeilingMb ?? RSS_CEILING_MB;
      ctx.check(
        !(result.peakRssMb > ceiling),
        () => `memory: the server's RSS peaked at ${result.peakRssMb.toFixed(0)} MB (ceiling ${ceiling} MB)`,
      );
      await sleep(50); // a crash in flight shows as an exit
      if (!target.alive()) {
        const { code, signal } = target.exit;
        ctx.fail(`crash: the server exited (${signal ?? `code ${code}`}): ${lastLines(target.stderr())}`);
      } else {
        const after = await heapGrowth(ctx, bystander, before, attack.heapBudgetMb ?? 16);
        result.heapGrowthMb = after.growth;
        result.stallWallMs = after.stallWallMs;
        result.stallCpuMs = after.stallCpuMs;
      }
      if (during.errorCount > 0)
        ctx.fail(`bystander: ${during.errorCount} wrong or missing answers: ${during.errors.join('; ')}`);
    }
    ctx.ended = true;
    result.tries = ctx.tries;
    result.baselineMs = baseline.p50;
    result.delayMs = during.max - baseline.p50;
    // A wait over the bound counts when the server explains it: its event loop stalled that long in CPU
    // time too (or it could not say: it hung, or the victim is a client). On a machine busy with other
    // work, a wait the server's CPU does not explain is the scheduler's, and is only noted.
    // An attack may name a bound of its own (`latencyBoundMs`), saying why its victim cannot meet the usual one.
    const bound = attack.latencyBoundMs ?? options.latencyBoundMs;
    const explained = !(result.stallCpuMs <= bound);
    const stall = Number.isFinite(result.stallCpuMs)
      ? `the server stalled ${result.stallCpuMs.toFixed(0)} ms of CPU`
      : 'the server could not say how long it stalled';
    const overBound = result.delayMs > bound && explained;
    const waited =
      `bystander waited ${during.max.toFixed(0)} ms (baseline median ${baseline.p50.toFixed(1)} ms, ` +
      `max ${baseline.max.toFixed(0)} ms): +${result.delayMs.toFixed(0)} ms`;
    if (overBound)
      failures.push(
        `${waited}, over the +${bound} ms bound; ${attack.target === false ? 'the client was blocked' : stall}`,
      );
    else if (result.delayMs > bound)
      notes.push(
        `${waited}, while the server's longest stall was ${result.stallCpuMs.toFixed(0)} ms of CPU (${result.stallWallMs.toFixed(0)} ms wall): the machine's scheduling, not the server`,
      );
    result.onlyLatency = overBound && failures.length === 1;
  } catch (error) {
    ctx.fail(`setup: ${error.message}`);
  } finally {
    ctx.ended = true;
    await bystander?.close();
    if (target) {
      const wasAlive = target.alive();
      const ended = await target.close();
      if (wasAlive && ended.signal === 'SIGKILL')
        failures.push('the server did not exit within 15 s of SIGTERM');
    }
    await spec?.cleanup?.();
  }
  result.ok = failures.length === 0;
  result.ms = performance.now() - started;
  return result;
}

/**
 * The heap after GC now minus `before` (MB), checked against the attack's budget, and the longest the
 * server's event loop was blocked since `before` (ms, by the server's own monitorEventLoopDelay).
 */
async function heapGrowth(ctx, bystander, before, budget) {
  try {
    const after = await bystander.memory();
    const growth = after.heapMb - before.heapMb;
    ctx.check(growth <= budget, `memory: heap after GC grew ${growth.toFixed(1)} MB (budget ${budget} MB)`);
    return { growth, stallWallMs: after.stallWallMs, stallCpuMs: after.stallCpuMs };
  } catch (error) {
    ctx.fail(`unresponsive after the attack: ${error.message}`);
    return { growth: Number.NaN, stallWallMs: Number.NaN, stallCpuMs: Number.NaN };
  }
}

function lastLines(text) {
  return text.trim().split('\n').slice(-3).join(' | ').slice(0, 300) || '(no stderr)';
}
