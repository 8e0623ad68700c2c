import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { listen } from '../helpers/browser.js';
import { testDialects } from '../helpers/dialects.js';
import { fetchDescription } from '../helpers/openapi-check.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { typeErrors } from '../helpers/typecheck.js';

/** What the example exports, as this test uses it. */
interface ExampleClient {
  addToDo(todo: { description: string; priority?: string }): Promise<{ priority?: string }>;
  openToDos(): Promise<string[]>;
}

for (const dialect of testDialects()) {
  describe(`the description compiles to TypeScript with openapi-typescript (${dialect.name})`, () => {
    let t: TestSite;
    let dir: string;
    before(async () => {
      t = await startTestSite(dialect);
      dir = await mkdtemp(join(tmpdir(), 'fw-oa-ts-'));
    });
    after(async () => {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    });

    test('the generated types typecheck, and so does the client example of docs/openapi.md, which then runs', async () => {
      const spec = await fetchDescription(t);
      await writeFile(join(dir, 'fw-api.ts'), astToString(await openapiTS(spec as never)));
      await writeFile(join(dir, 'package.json'), '{"type": "module"}');
      await copyFile(new URL('../../examples/openapi-client/client.ts', import.meta.url), join(dir, 'client.ts'));
      // A misuse the types must catch: a ToDo's priority is one of its Select options.
      await writeFile(
        join(dir, 'misuse.ts'),
        "import type { components } from './fw-api.js';\nexport const bad: components['schemas']['ToDoCreate'] = { description: 'x', priority: 'Urgent' };\n",
      );
      assert.deepEqual(typeErrors([join(dir, 'client.ts')]), []);
      const misuse = typeErrors([join(dir, 'misuse.ts')]);
      assert.equal(misuse.length, 1, misuse.join('\n'));
      assert.match(misuse[0], /Urgent/);

      const base = await listen(t);
      const [key, secret] = t.adminAuth.slice('token '.length).split(':');
      // Imported by URL: the example's own imports are the generated types, which only exist here.
      const example = new URL('../../examples/openapi-client/client.ts', import.meta.url).href;
      const { fwClient } = (await import(example)) as { fwClient: (b: string, k: string, s: string) => ExampleClient };
      const client = fwClient(base, key, secret);
      const todo = await client.addToDo({ description: 'Write the docs', priority: 'High' });
      assert.equal(todo.priority, 'High');
      assert.ok((await client.openToDos()).includes('Write the docs'));
    });
  });
}
