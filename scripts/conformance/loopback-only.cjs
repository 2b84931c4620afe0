// Preload (`node --require`) for the MCP conformance suite's process, started by scripts/conformance.mjs:
// every listener of the suite stays on 127.0.0.1 and `localhost` means 127.0.0.1.
//
// The suite's mock servers (the client scenarios' MCP servers, the auth scenarios' authorization
// servers) call `listen(0)` with no host, which binds every interface of the machine. Here a listen()
// that names no host, or the unspecified address, gets 127.0.0.1. A listen() with a host looks that host
// up before binding, so `server.address()` is null right after it returns; the suite reads
// `server.address().port` right after `listen(0)`, so that lookup (and only the one made inside our
// listen() call, for 127.0.0.1 or localhost) is answered synchronously: the bind happens inside listen()
// as it does without a host. Node 20 asks the lookup for one address, Node 22 for all of them
// (`{ all: true }`): both forms are answered.
//
// The suite prints and connects to `http://localhost:<port>` URLs: every other lookup of `localhost` in
// this process answers 127.0.0.1 (asynchronously, as dns.lookup does), whatever /etc/hosts says first.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a --require preload is CommonJS */
const dns = require('node:dns');
const net = require('node:net');

const LOOPBACK = '127.0.0.1';
/** Host values that mean "every interface". */
const UNSPECIFIED = new Set(['', '0.0.0.0', '::', '::0']);
/** Above 0 while a listen() of ours runs (listen() does not re-enter, but a count costs nothing). */
let inListen = 0;

function isLocalhost(hostname) {
  return typeof hostname === 'string' && /^localhost\.?$/i.test(hostname);
}

/** Whether a lookup's options (a family number, an options object or nothing) accept an IPv4 answer. */
function acceptsIPv4(options) {
  if (typeof options === 'function') return true; // lookup(hostname, callback)
  const family = typeof options === 'object' && options !== null ? options.family : options;
  return family === undefined || family === 0 || family === 4 || family === 'IPv4';
}

const lookup = dns.lookup;
dns.lookup = function lookupLoopback(hostname, options, callback) {
  const done = typeof options === 'function' ? options : callback;
  const settings = typeof options === 'object' && options !== null ? options : {};
  const ours =
    typeof done === 'function' &&
    acceptsIPv4(options) &&
    (isLocalhost(hostname) || (inListen > 0 && hostname === LOOPBACK));
  if (!ours) return lookup.apply(this, arguments);
  const answer = () =>
    settings.all === true ? done(null, [{ address: LOOPBACK, family: 4 }]) : done(null, LOOPBACK, 4);
  if (inListen > 0) answer();
  else process.nextTick(answer);
  return {};
};

const lookupPromise = dns.promises.lookup;
dns.promises.lookup = function lookupLoopbackPromise(hostname, options) {
  if (!isLocalhost(hostname) || !acceptsIPv4(options)) return lookupPromise.apply(this, arguments);
  const all = typeof options === 'object' && options !== null && options.all === true;
  return Promise.resolve(all ? [{ address: LOOPBACK, family: 4 }] : { address: LOOPBACK, family: 4 });
};

/** `listen()`'s arguments with 127.0.0.1 as the host when they name none (or the unspecified address). */
function withLoopbackHost(args) {
  const [first, second] = args;
  if (first === undefined || first === null || typeof first === 'function') {
    // listen(), listen(callback), listen(undefined, host?, ...)
    if (typeof second === 'string' && !UNSPECIFIED.has(second)) return args;
    return [0, LOOPBACK, ...args.slice(typeof second === 'string' ? 2 : 1)];
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // listen(port, host?, backlog?, callback?)
    if (typeof second === 'string')
      return UNSPECIFIED.has(second) ? [first, LOOPBACK, ...args.slice(2)] : args;
    return [first, LOOPBACK, ...args.slice(1)];
  }
  const plain = typeof first === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(first));
  if (plain && first.fd === undefined && first.path === undefined && first.handle === undefined) {
    // listen({ port, host?, ... }) — not a handle, a file descriptor or a pipe
    const host = first.host;
    if (host === undefined || host === null || UNSPECIFIED.has(host))
      return [{ ...first, host: LOOPBACK }, ...args.slice(1)];
  }
  return args; // a pipe path, a handle, or a named host
}

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  inListen++;
  try {
    return listen.apply(this, withLoopbackHost(args));
  } finally {
    inListen--;
  }
};
