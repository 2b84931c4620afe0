#!/usr/bin/env node
// The `toolwire` command. See `toolwire --help`; the code lives in src/cli (built to dist/cli.js).
let cli;
try {
  cli = await import('../dist/cli.js');
} catch (error) {
  // A clone whose dist/ was never built (or was removed): one clear line, not a module-resolution trace.
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('cli.js')) throw error;
  process.stderr.write(
    'toolwire: dist/ is not built here: run `npm run build` (npm install builds it too)\n',
  );
  process.exit(4);
}
process.exit(await cli.main(process.argv.slice(2)));
