/**
 * One call of an exposed tool, end to end: the policy decides (allow, deny, or ask a person and wait,
 * telling a caller that asked for progress why it waits), then the call goes to its upstream with the
 * caller's cancellation, its progress relayed back, and the upstream's questions (elicitation, sampling,
 * roots) relayed to the caller — a request to its client in the handshake era, an `input_required` round
 * in the stateless era. Nothing reaches the upstream unless allowed; a denial, an expiry or a down
 * upstream is an `isError` result that says so. Every call ends with an audit record.
 * @module
 */
import {
  ErrorCode,
  ProtocolError,
  UrlElicitationRequiredError,
  CancellationSource,
  canonicalJson,
  errorMessage,
  isHandshakeRevision,
  type Cancellation,
  type CallToolResult,
  type Client,
  type JsonObject,
  type LoggingMessageParams,
  type ProgressParams,
} from '../index.js';
import type { CallToolOptions } from '../client/index.js';
import { toolError, type ToolContext } from '../server/index.js';
import { digestOfText } from '../stores/digest-of-text.js';
import {
  cancelledBy,
  decide,
  hasToken,
  isAllowed,
  refusal,
  retryKey,
  type Verdict,
  type VerdictDeps,
} from './call-verdict.js';
import type { CallOutcome, GatewayAuditRecord } from './gateway-audit-sink.js';
import type { CallEnd, CallLog } from './call-log.js';
import { callerKey, callerOf } from './caller.js';
import type { ExposedTool } from './exposed-tools.js';
import type { CallInfo, GatewayEvents } from './gateway-events.js';
import type { Policy } from './policy.js';
import { unavailable, type Upstream } from './upstream.js';
import {
  following,
  mayBeAsked,
  relayedInput,
  REQUEST_ENDED,
  sessionless,
  takesUrlElicitation,
} from './relayed-input.js';
import type { ElicitationRoutes } from './elicitation-routes.js';
import { forwardedMeta } from './forwarded-meta.js';
import type { CallsInFlight } from './calls-in-flight.js';
import { HeldRun, isInputWait } from './held-run.js';
import type { ParkedCalls } from './parked-calls.js';
import { withSafeResultIcons } from './safe-icons.js';
import { isoNow } from './iso-now.js';
import { parkOwner, type RelayedCall } from './relayed-call.js';
import { ActiveCalls } from './active-calls.js';

/** What the relay needs of the gateway: with `approvals` and `progressIntervalMs` (see `VerdictDeps`). */
export interface CallRelayDeps extends VerdictDeps {
  policy(): Policy;
  events: GatewayEvents;
  /** Records a call; `argumentsText` stands for the record's digest when given (see `AuditTrail.record`). */
  audit(record: Omit<GatewayAuditRecord, 'seq'>, argumentsText?: string): void;
  /** The latest calls with their arguments and results, and the way to cancel one (while someone watches). */
  calls: CallLog;
  /** Which caller each relayed URL-mode elicitation went to (its completion goes there too). */
  elicitations: ElicitationRoutes;
  /** Stateless-era calls held upstream between their caller's rounds. */
  parked: ParkedCalls;
  /** The requests in flight on each upstream, and their callers' connections (see `CallsInFlight`). */
  inFlight: CallsInFlight;
}

/** How long the retry of an approved stateless-era call that asked its caller for input stays approved. */
const RETRY_GRANT_MS = 10 * 60_000;

export class CallRelay {
  readonly #deps: CallRelayDeps;
  #calls = 0;
  /** Where call ids start: 0, or (instances sharing events) a range no other instance uses. */
  idBase = 0;
  /**
   * Calls in flight per upstream, so that its log messages reach the caller when there is one. Kept while
   * its upstream is (a set made per call, one at a time, was a noticeable cost; see `ActiveCalls`).
   */
  readonly #active = new WeakMap<Upstream, ActiveCalls>();

  constructor(deps: CallRelayDeps) {
    this.#deps = deps;
  }

  /**
   * A log message of an upstream: to the caller of its only call in flight, if it has exactly one;
   * otherwise false (the gateway logs it itself).
   */
  log(upstream: Upstream, params: LoggingMessageParams): boolean {
    const ctx = this.#active.get(upstream)?.only();
    if (!ctx) return false;
    void ctx.log(params.level, params.data, params.logger).catch(() => undefined);
    return true;
  }

  /**
   * Relays one call. Not async: an allowed call (nearly all) is decided, sent and finished in one promise
   * chain, with no frame kept across its await; a call that waits (for a person, a task) or fails takes
   * the async paths.
   */
  call(entry: ExposedTool, args: JsonObject, ctx: ToolContext): Promise<CallToolResult> {
    const started = performance.now();
    const time = isoNow();
    const { upstream, tool } = entry;
    const { events, calls } = this.#deps;
    // An allowed call (nearly all) is decided at once: no await (a microtask hop) for it.
    const policy = this.#deps.policy().decide(upstream.name, tool);
    // Someone watches the calls (a console's event stream), or did a moment ago (the grace after the last
    // one left, counted by `events`): the call is logged with its arguments and result, and a person can
    // cancel it. Nobody watching, none of this costs anything.
    const watched = events.wants('call.started');
    // The arguments' digest (a SHA-256, ≈5% of a relayed call's CPU) is computed now where something shows
    // it at once: a watched call, a call that may wait for a person. An allowed call nobody watches leaves
    // it to its audit record, which computes it when first read (by a store that can).
    const text = canonicalJson(args);
    const digested = watched || policy.action !== 'allow';
    const info: CallInfo = {
      id: this.idBase + ++this.#calls,
      caller: callerOf(ctx),
      upstream: upstream.name,
      tool: tool.name,
      exposedName: entry.name,
      argumentsDigest: digested ? digestOfText(text) : '',
    };
    const cancel = watched ? calls.start(info, args, time) : undefined;
    // The caller's cancellation (its `notifications/cancelled`, its connection closing), followed without
    // an AbortSignal: nearly every call ends uncancelled, and a signal per call is a noticeable cost.
    let cancellation: Cancellation = ctx.cancellation;
    let detach: (() => void) | undefined;
    if (cancel) {
      // Cancelled by the caller or by a person.
      const { own: stopped, unfollow } = following(ctx.cancellation);
      const byPerson = cancel.onAbort((reason) => stopped.abort(reason));
      cancellation = stopped;
      detach = () => {
        unfollow?.();
        byPerson();
      };
    }
    if (cancel) events.emit({ type: 'call.started', call: info, startedAt: time }); // wanted: it was logged above
    // One object per call, its end a method (not a closure over the call's variables).
    const call: RelayedCall = {
      entry,
      args,
      argumentsText: digested ? undefined : text,
      ctx,
      info,
      cancellation,
      cancel,
      started,
      time,
      detach,
    };
    if (policy.action === 'allow') {
      return this.#run(call, { decision: 'allowed', decidedBy: 'policy', reason: policy.reason, waited: 0 });
    }
    return decide(this.#deps, entry, args, info, ctx, cancellation, policy, Buffer.byteLength(text)).then(
      (verdict) => this.#run(call, verdict),
    );
  }

  /** Ends a call: its audit record, its log entry and event (when someone watches). */
  #finish(
    call: RelayedCall,
    verdict: Omit<Verdict, 'waited'>,
    outcome: CallOutcome,
    end: Pick<CallEnd, 'result' | 'error'> = {},
  ): void {
    const { info, cancel } = call;
    const { events, calls } = this.#deps;
    call.detach?.();
    const durationMs = Math.round((performance.now() - call.started) * 1000) / 1000;
    // `seq: 0`, numbered by the store: a record that has the member already is copied by V8's fast clone.
    const record: GatewayAuditRecord = {
      seq: 0,
      time: call.time,
      kind: 'call',
      callId: info.id,
      caller: info.caller,
      upstream: info.upstream,
      tool: info.tool,
      argumentsDigest: info.argumentsDigest,
      decision: verdict.decision,
      reason: verdict.reason,
      decidedBy: verdict.decidedBy,
      outcome,
      durationMs,
    };
    if (verdict.approvalId !== undefined) record.approvalId = verdict.approvalId;
    if (verdict.grant !== undefined) record.grant = verdict.grant;
    this.#deps.audit(record, call.argumentsText);
    if (cancel) {
      calls.finish(info.id, {
        decision: verdict.decision,
        outcome,
        durationMs,
        ...(verdict.approvalId === undefined ? {} : { approvalId: verdict.approvalId }),
        ...(verdict.grant === undefined ? {} : { grant: verdict.grant }),
        ...end,
      });
    }
    if (events.wants('call.finished')) {
      events.emit({
        type: 'call.finished',
        callId: info.id,
        startedAt: call.time,
        decision: verdict.decision,
        ...(verdict.grant === undefined ? {} : { grant: verdict.grant }),
        outcome,
        durationMs,
      });
    }
  }

  /** A decided call: refused, or sent upstream (as a task where it runs as one). */
  #run(call: RelayedCall, verdict: Verdict): Promise<CallToolResult> {
    const { entry, ctx, info, cancellation, cancel } = call;
    const { upstream, tool } = entry;
    if (!isAllowed(verdict.decision)) {
      // A retry refused now (the policy changed): the call it would have taken back ends upstream too.
      if (ctx.carried !== undefined) {
        this.#deps.parked.drop(ctx.carried, parkOwner(call), new Error('The retry was refused'));
      }
      const person = cancel && this.#deps.calls.cancelledBy(info.id);
      const result = toolError(
        cancellation.aborted && person !== undefined
          ? cancelledBy(entry.name, person)
          : refusal(entry.name, verdict),
      );
      this.#finish(
        call,
        verdict,
        cancellation.aborted ? 'cancelled' : verdict.unavailable ? 'unavailable' : 'refused',
        {
          result,
        },
      );
      return Promise.resolve(result);
    }
    const client = upstream.client;
    if (!client || upstream.status !== 'ready') {
      // The call a retry would have taken back gets no answer from the upstream either: it ends now.
      if (ctx.carried !== undefined) {
        this.#deps.parked.drop(ctx.carried, parkOwner(call), new Error(unavailable(upstream)));
      }
      const result = toolError(unavailable(upstream));
      this.#finish(call, verdict, 'unavailable', { result });
      return Promise.resolve(result);
    }
    // A tool that requires a task upstream runs as one, and so does a caller's task (cancelling it cancels
    // the upstream task); otherwise the call runs inline upstream.
    const support = tool.execution?.taskSupport;
    if (support === 'optional' || support === 'required') {
      return ctx
        .startTask()
        .then((task) =>
          this.#send(call, verdict, client, support === 'required' || task !== undefined, task !== undefined),
        );
    }
    return this.#send(call, verdict, client, false, false);
  }

  /**
   * Sends an allowed call upstream; its result (or error) is finished when it settles. `callerTask`: the
   * caller holds a task of its own (which it follows, and may cancel), so the call's whole length is not
   * bounded here; a caller waiting on its call is answered within `maxCallMs`, even when the call runs as a
   * task upstream.
   */
  #send(
    call: RelayedCall,
    verdict: Verdict,
    client: Client,
    asTask: boolean,
    callerTask: boolean,
  ): Promise<CallToolResult> {
    const { entry, args, ctx } = call;
    const { upstream, tool } = entry;
    const stateless = !isHandshakeRevision(ctx.client.protocolVersion);
    if (stateless && !asTask && mayBeAsked(ctx)) return this.#held(call, verdict, client);
    // Stateless era: a question the caller has not answered yet ends this attempt (and the upstream
    // call), so a call that may relay questions has a cancellation of its own, which follows the caller's
    // (or a person's). A `CancellationSource`, not an `AbortController`: on Node 20 an `AbortSignal`
    // outlives the young-generation collections.
    let stop: CancellationSource | undefined;
    let ended: { error: unknown } | undefined;
    // Fires when the upstream call ends: a question relayed for it then is withdrawn (see relayedInput).
    const settled = mayBeAsked(ctx) ? new CancellationSource() : undefined;
    // A caller that can be asked nothing (most) gets no handlers, and no closure is made for them.
    const handlers = settled
      ? relayedInput(
          ctx,
          stateless,
          (error) => {
            ended ??= { error };
            stop?.abort(error);
          },
          (elicitationId) => this.#deps.elicitations.relayed(upstream.name, elicitationId, ctx),
          // A question nothing on the wire ties to a call (stdio, an HTTP upstream's standalone stream) goes
          // to the only call in flight that may be asked, though another caller's (one that may be asked
          // nothing) may have asked it.
          () => this.#mine(upstream, ctx),
          settled,
          // A question only attributed to this call, which ends first, is its caller's next request's there.
          () => this.#deps.inFlight.heir(upstream.name, ctx.connection),
          // At most so many open with the caller's connection (a stateless-era task call: with the call).
          () => this.#deps.inFlight.questions.take(ctx.connection ?? call, upstream.name),
        )
      : undefined;
    let cancellation = call.cancellation;
    let unfollow: (() => void) | undefined;
    if (stateless && handlers) {
      ({ own: stop, unfollow } = following(cancellation));
      cancellation = stop;
    }
    const calls = this.#activeOn(upstream);
    const active = calls.add(ctx);
    const options: CallToolOptions = {
      cancellation,
      timeout: upstream.timeoutMs,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: upstream.maxCallMs,
      // The gateway's server checks structuredContent against the same outputSchema on the way out.
      validateOutput: false,
    };
    const meta = forwardedMeta(ctx.meta);
    if (meta) options.meta = meta;
    // Progress is asked of the upstream only when someone wants it (the caller, or an event listener).
    if (hasToken(ctx) || this.#deps.events.wants('call.progress')) {
      options.onProgress = (progress: ProgressParams) => this.#progress(call, verdict.waited, progress);
    }
    if (handlers) options.handlers = handlers;
    if (asTask) options.task = true;
    if (callerTask) delete options.maxTotalTimeout;
    // Counted in flight on the upstream with its caller's connection: whose a question is that names no call.
    const { inFlight } = this.#deps;
    const uncount = inFlight.add(upstream.name, {
      connection: ctx.connection,
      caller: ctx.connection === undefined ? inFlight.callerOf(ctx) : undefined,
      handlers,
      sessionless: handlers === undefined && sessionless(ctx, inFlight.hostAlone()),
    });
    return client.callTool(tool.name, args, options).then(
      (relayed) => {
        uncount();
        settled?.abort(REQUEST_ENDED);
        const result = withSafeResultIcons(relayed);
        unfollow?.();
        calls.remove(active);
        this.#finish(call, verdict, result.isError === true ? 'tool-error' : 'ok', { result });
        return result;
      },
      (error: unknown) => {
        uncount();
        settled?.abort(REQUEST_ENDED);
        unfollow?.();
        calls.remove(active);
        return this.#failed(call, verdict, error, ended);
      },
    );
  }

  /**
   * Stateless era, a caller that may be asked: the upstream call runs once over the caller's rounds (see
   * held-run.ts). A retry takes back the call its `requestState` names, parked for it; otherwise (a first
   * attempt, or nothing parked here for it) the call is sent upstream. An attempt that ends with
   * `input_required` parks the call, or, none may be parked, stops it (the retry sends it again).
   */
  #held(call: RelayedCall, verdict: Verdict, client: Client): Promise<CallToolResult> {
    const { entry, args, ctx, info } = call;
    const { upstream, tool } = entry;
    const { parked } = this.#deps;
    // The arguments' digest is computed only for a call that parks or may take one back (a SHA-256).
    let run =
      ctx.carried === undefined ? undefined : parked.take<CallToolResult>(ctx.carried, parkOwner(call));
    if (!run) {
      const { inFlight } = this.#deps;
      run = new HeldRun(ctx.client.capabilities, (handlers) => inFlight.isOwner(upstream.name, handlers));
      const sent = run;
      const options: CallToolOptions = {
        cancellation: sent.stop,
        timeout: upstream.timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: upstream.maxCallMs,
        validateOutput: false,
        handlers: sent.handlers,
      };
      const meta = forwardedMeta(ctx.meta);
      if (meta) options.meta = meta;
      if (hasToken(ctx) || this.#deps.events.wants('call.progress')) {
        // To the attempt under way, if any (the caller's progress token is its first attempt's).
        options.onProgress = (progress: ProgressParams) => {
          const current = attempts.get(sent);
          if (current) this.#progress(current.call, current.waited, progress);
        };
      }
      // In flight until the upstream answers, parked or not; no connection of its own (the stateless era).
      const uncount = inFlight.add(upstream.name, {
        connection: undefined,
        caller: inFlight.callerOf(ctx),
        handlers: sent.handlers,
      });
      const pending = client.callTool(tool.name, args, options);
      pending.then(uncount, uncount);
      sent.start(pending);
    }
    const held = run;
    attempts.set(held, { call, waited: verdict.waited });
    // The caller's cancellation (or a person's) during this attempt stops the upstream call.
    const unfollow = call.cancellation.onAbort((reason) => held.stop.abort(reason));
    if (call.cancellation.aborted) held.stop.abort(call.cancellation.reason);
    const calls = this.#activeOn(upstream);
    const active = calls.add(ctx);
    const done = () => {
      unfollow?.();
      calls.remove(active);
      attempts.delete(held);
    };
    return held.attempt(ctx).then(
      (relayed) => {
        const result = withSafeResultIcons(relayed);
        done();
        this.#finish(call, verdict, result.isError === true ? 'tool-error' : 'ok', { result });
        return result;
      },
      (error: unknown) => {
        done();
        if (!isInputWait(error)) return this.#failed(call, verdict, error, undefined);
        // Parked even if the upstream call has just ended: a result waits for the retry, an error is dropped.
        const carried = parked.park(held, callerKey(info.caller), parkOwner(call), upstream.name);
        if (carried) ctx.carry(carried);
        else held.stop.abort(new Error('No more calls may be parked; the retry runs the call again'));
        return this.#failed(call, verdict, error, { error });
      },
    );
  }

  /** An upstream call that failed: ended for the caller's input, cancelled, or an error (said as such). */
  async #failed(
    call: RelayedCall,
    verdict: Verdict,
    error: unknown,
    ended: { error: unknown } | undefined,
  ): Promise<CallToolResult> {
    const { entry, ctx, info, cancellation, cancel } = call;
    const { upstream, tool } = entry;
    if (ended) {
      if (verdict.decision === 'approved') {
        // The retry with the caller's answer may reach another instance: the allowance is in the grant store.
        await this.#deps.approvals.retryPermits.allow(retryKey(info), RETRY_GRANT_MS).catch(() => undefined); // not stored: the retry is asked about again
      }
      this.#finish(call, verdict, 'input_required', { error: errorMessage(ended.error) });
      throw ended.error;
    }
    if (ctx.cancellation.aborted) {
      this.#finish(call, verdict, 'cancelled', { error: errorMessage(error) });
      throw error;
    }
    const person = cancel && this.#deps.calls.cancelledBy(info.id);
    if (cancellation.aborted && person !== undefined) {
      const result = toolError(cancelledBy(entry.name, person));
      this.#finish(call, verdict, 'cancelled', { result });
      return result;
    }
    if (
      error instanceof ProtocolError &&
      error.code === ErrorCode.UrlElicitationRequired &&
      !(error instanceof UrlElicitationRequiredError)
    ) {
      // A -32042 whose elicitations no person may be sent to (a `javascript:` URL, no id, …): not passed on.
      const result = toolError(
        `Upstream ${upstream.name} asked for a URL elicitation the gateway does not pass on: ${errorMessage(error)}`,
      );
      this.#finish(call, verdict, 'error', { result });
      return result;
    }
    // A parse error is never the caller's: the upstream's answer could not be read (nested too deep, the
    // client says so with -32700), or the upstream could not read the gateway's request. Passed on as it
    // was, the caller was told its own well-formed request was not JSON.
    if (error instanceof ProtocolError && error.code !== ErrorCode.ParseError) {
      this.#finish(call, verdict, 'error', { error: errorMessage(error) });
      // -32042: the gateway's server hands it on as the caller can take it (url-elicitation-answer.ts);
      // a caller that gets it as it is may later hear of its completion.
      if (error instanceof UrlElicitationRequiredError && takesUrlElicitation(ctx))
        for (const { elicitationId } of error.elicitations)
          this.#deps.elicitations.relayed(upstream.name, elicitationId, ctx);
      throw error; // the upstream's JSON-RPC error, as it sent it
    }
    upstream.failed(error);
    const result = toolError(`Upstream ${upstream.name} failed to run ${tool.name}: ${errorMessage(error)}`);
    this.#finish(call, verdict, 'error', { result });
    return result;
  }

  /** The calls in flight on `upstream` (made on its first call, kept while it is). */
  #activeOn(upstream: Upstream): ActiveCalls {
    let active = this.#active.get(upstream);
    if (!active) this.#active.set(upstream, (active = new ActiveCalls()));
    return active;
  }

  /** Whether a question of `upstream` that names no call may be the caller of `ctx`'s (`CallsInFlight.owner`). */
  #mine(upstream: Upstream, ctx: ToolContext): boolean {
    const owner = this.#deps.inFlight.owner(upstream.name);
    return owner !== undefined && owner.connection === ctx.connection;
  }

  #progress({ info, ctx, time }: RelayedCall, waited: number, progress: ProgressParams): void {
    const event: Extract<Parameters<GatewayEvents['emit']>[0], { type: 'call.progress' }> = {
      type: 'call.progress',
      callId: info.id,
      startedAt: time,
      progress: progress.progress,
    };
    if (progress.total !== undefined) event.total = progress.total;
    if (progress.message !== undefined) event.message = progress.message;
    if (this.#deps.events.wants('call.progress')) {
      const { type: _type, callId: _callId, startedAt: _startedAt, ...reported } = event;
      this.#deps.calls.progress(info.id, reported);
      this.#deps.events.emit(event);
    }
    // Counted on from the waiting notifications, so that the caller sees progress increase.
    const total = progress.total === undefined ? undefined : waited + progress.total;
    void ctx.progress(waited + progress.progress, total, progress.message).catch(() => undefined);
  }
}

/** The attempt under way of each held run: where the upstream's progress goes. */
const attempts = new WeakMap<HeldRun, { call: RelayedCall; waited: number }>();
