/**
 * What `OAuthClient` loads when it first needs it: the flows, with oauth4webapi and jose (whose import
 * costs more than the rest of the HTTP client transports together).
 * @module
 */
export { ResourceAuthorization } from './resource-authorization.js';
export { discoverAuthorizationServer } from './authorization-server.js';
