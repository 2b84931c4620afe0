// Preloaded into a stdio server (`node --import ./bench/protocol-fd3-preload.mjs …`): its protocol output
// goes to fd 3 instead of stdout, which V8's tracing flags (`--trace-gc-nvp`) write to. Used by
// bench/gc-survivors.mjs.
import net from 'node:net';

const out = new net.Socket({ fd: 3, readable: false, writable: true });
Object.defineProperty(process, 'stdout', { configurable: true, get: () => out });
