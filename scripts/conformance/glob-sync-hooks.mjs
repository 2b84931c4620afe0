// Module resolve hook (registered by node20.mjs, in the conformance suite's process only): an import of
// `fs` or `node:fs` resolves to fs-with-glob-sync.mjs, which is node:fs plus `globSync`. On Node 20 the
// suite's bundle dies at link time without it (`The requested module 'fs' does not provide an export
// named 'globSync'`). The shim's own import of node:fs is left alone.
const SHIM = new URL('./fs-with-glob-sync.mjs', import.meta.url).href;

/** @type {import('node:module').ResolveHook} */
export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL !== SHIM)
    return { url: SHIM, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}
