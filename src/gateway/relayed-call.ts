/**
 * A call on its way through the relay (`CallRelay`), one object per call, and who may take it back once
 * parked.
 * @module
 */
import { canonicalJson, type Cancellation, type JsonObject } from '../index.js';
import type { ToolContext } from '../server/index.js';
import { digestOfText } from '../stores/digest-of-text.js';
import { callerKey } from './caller.js';
import type { ExposedTool } from './exposed-tools.js';
import type { CallInfo } from './gateway-events.js';

/** A call on its way through the relay. */
export interface RelayedCall {
  entry: ExposedTool;
  args: JsonObject;
  /** The arguments' canonical JSON while their digest is not computed (`info.argumentsDigest` is empty). */
  argumentsText: string | undefined;
  ctx: ToolContext;
  info: CallInfo;
  /** The caller's cancellation, or (someone watching) the caller's or a person's. */
  cancellation: Cancellation;
  /** A person's cancellation, while someone watches the calls. */
  cancel: Cancellation | undefined;
  /** When it started (`performance.now()`), and as ISO time. */
  started: number;
  time: string;
  /** Stops following the caller's and the person's cancellation (while someone watches the calls). */
  detach: (() => void) | undefined;
}

/** Who may take a parked call back: the same caller, for the same tool and the same arguments. */
export function parkOwner(call: RelayedCall): string {
  const { info, args, argumentsText } = call;
  const digest = info.argumentsDigest || digestOfText(argumentsText ?? canonicalJson(args));
  return `${callerKey(info.caller)}\u0000tools/call\u0000${call.entry.name}\u0000${digest}`;
}
