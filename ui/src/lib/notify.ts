import { reactive } from 'vue';

/** Toasts and the one confirmation dialog the shell draws. */
export const ui = reactive({
  toasts: [] as { id: number; text: string; kind: 'info' | 'error' | 'success' }[],
  confirm: null as null | { title: string; text: string; action: string; danger: boolean; resolve: (ok: boolean) => void },
});

let nextId = 1;

export function toast(text: string, kind: 'info' | 'error' | 'success' = 'info'): void {
  const id = nextId++;
  ui.toasts.push({ id, text, kind });
  setTimeout(
    () => {
      const i = ui.toasts.findIndex((t) => t.id === id);
      if (i >= 0) ui.toasts.splice(i, 1);
    },
    kind === 'error' ? 8000 : 4000,
  );
}

/** Asks the user to confirm; resolves false on Cancel or Esc. */
export function confirmAction(text: string, options: { title?: string; action?: string; danger?: boolean } = {}): Promise<boolean> {
  ui.confirm?.resolve(false);
  return new Promise((resolve) => {
    ui.confirm = { title: options.title ?? 'Are you sure?', text, action: options.action ?? 'Yes', danger: options.danger ?? false, resolve };
  });
}

export function answerConfirm(ok: boolean): void {
  const pending = ui.confirm;
  ui.confirm = null;
  pending?.resolve(ok);
}
