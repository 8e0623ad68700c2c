#!/usr/bin/env node
// First: serve's heap settings must be in place before the heap grows (see the file).
import './serve-heap.js';

const { main } = await import('../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
