import { main } from '../../src/cli/main.js';

// The `fw` command straight from the TypeScript sources (run with `node --import tsx`), so tests
// need no build; cluster workers re-run this same file.
process.exitCode = await main(process.argv.slice(2));
