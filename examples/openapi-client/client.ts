/*
 * A typed client of fw in a few lines (docs/openapi.md "A typed client"): types generated from the
 * site's description with openapi-typescript, calls made with fetch.
 *
 *   curl -s -H "Authorization: token <key>:<secret>" http://127.0.0.1:8000/api/openapi.json > fw-api.json
 *   npx openapi-typescript fw-api.json -o fw-api.ts
 */
import type { components, paths } from './fw-api.js';

type ToDo = components['schemas']['ToDo'];
type ToDoCreate = components['schemas']['ToDoCreate'];
type ToDoList = paths['/api/resource/ToDo']['get']['responses']['200']['content']['application/json'];

/** A client of one site, acting with an API key. */
export function fwClient(base: string, apiKey: string, apiSecret: string) {
  const headers = { Authorization: `token ${apiKey}:${apiSecret}`, 'Content-Type': 'application/json' };
  const call = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const res = await fetch(base + path, { ...init, headers });
    const body = await res.json();
    if (!res.ok) throw new Error(`${res.status} ${body.exc_type}: ${body.exception}`);
    return body as T;
  };
  return {
    /** Inserts a ToDo; the compiler checks the fields and their types. */
    async addToDo(todo: ToDoCreate): Promise<ToDo> {
      return (await call<{ data: ToDo }>('/api/resource/ToDo', { method: 'POST', body: JSON.stringify(todo) })).data;
    },
    /** The descriptions of the open ToDos. */
    async openToDos(): Promise<string[]> {
      const query = new URLSearchParams({ fields: '["description"]', filters: '{"status": "Open"}' });
      const body = await call<ToDoList>(`/api/resource/ToDo?${query}`);
      return body.data.flatMap((row) => (Array.isArray(row) ? [] : [String(row.description)]));
    },
  };
}
