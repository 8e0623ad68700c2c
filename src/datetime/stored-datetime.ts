import { formatDate, wallClock } from './clock.js';

/** `YYYY-MM-DD HH:MM:SS.ffffff` of an instant (epoch ms) in `timeZone`: the stored Datetime form. */
export function storedDatetime(epochMs: number, timeZone: string): string {
  const w = wallClock(epochMs, timeZone);
  const pad = (n: number) => String(n).padStart(2, '0');
  const ms = ((epochMs % 1000) + 1000) % 1000;
  return `${formatDate(w)} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}.${String(ms * 1000).padStart(6, '0')}`;
}
