// bin/fw.js for the TypeScript sources: the harness runs fw through tsx when dist/ cannot be built.
// The heap settings come first, as in bin/fw.js: main's modules load only after them.
import '../bin/serve-heap.js';

const { main } = await import('../src/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
