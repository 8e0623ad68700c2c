// bin/fw.js for the TypeScript sources: the harness runs fw through tsx when dist/ cannot be built.
import { main } from '../src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
