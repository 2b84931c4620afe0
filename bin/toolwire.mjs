#!/usr/bin/env node
// The `toolwire` command. See `toolwire --help`; the code lives in src/cli (built to dist/cli.js).
import { main } from '../dist/cli.js';

process.exit(await main(process.argv.slice(2)));
