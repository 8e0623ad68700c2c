import { onBeforeUnmount, onMounted } from 'vue';

/**
 * Closes a component's menu or popover on Esc wherever the focus is (docs/admin-ui.md "Keyboard"):
 * `close` runs on every Escape the document sees while the component is mounted.
 */
export function useEscape(close: () => void): void {
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') close();
  };
  onMounted(() => document.addEventListener('keydown', onKey));
  onBeforeUnmount(() => document.removeEventListener('keydown', onKey));
}
