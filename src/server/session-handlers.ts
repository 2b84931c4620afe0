/**
 * The session-level methods every server serves from its shared handler table: `logging/setLevel`
 * (handshake era: the session's log level) and `server/discover` (stateless era: versions, capabilities
 * and instructions). The handshake's own methods are in `handshake.ts`.
 * @module
 */
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { echoedName } from '../protocol/echoed-name.js';
import { isLoggingLevel } from '../protocol/types/lifecycle.js';
import type { HandlerTable } from './handler-table.js';
import type { ServerCore } from './server-core.js';

/** The session-level methods every server serves: `logging/setLevel` and `server/discover`. */
export function installSessionHandlers(table: HandlerTable, core: ServerCore): void {
  table.handle(
    'logging/setLevel',
    ({ params, session }) => {
      if (!isLoggingLevel(params.level)) {
        throw new ProtocolError(
          ErrorCode.InvalidParams,
          `Invalid params: unknown logging level ${echoedName(String(params.level))}`,
        );
      }
      session.setLogLevel(params.level);
      return {};
    },
    { eras: ['handshake'] },
  );
  table.handle(
    'server/discover',
    ({ scope }) => ({
      supportedVersions: [...core.versions],
      capabilities: scope.profile.shapeServerCapabilities(core.capabilities),
      ...(core.options.instructions === undefined ? {} : { instructions: core.options.instructions }),
    }),
    { eras: ['stateless'], cacheable: true },
  );
}
