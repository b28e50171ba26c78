#!/usr/bin/env node
import { run } from '../dist/main.js';

// A reader that stops early (`books … | head`) closes the pipe: what is left unwritten is not wanted,
// and the write's late EPIPE must not end the process with a stack trace.
process.stdout.on('error', (e) => {
  if (e.code !== 'EPIPE') throw e;
});
process.exitCode = await run(process.argv.slice(2));
