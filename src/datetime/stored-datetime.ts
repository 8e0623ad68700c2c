import { secondText } from './clock.js';

/** `YYYY-MM-DD HH:MM:SS.ffffff` of an instant (epoch ms) in `timeZone`: the stored Datetime form. */
export function storedDatetime(epochMs: number, timeZone: string): string {
  const second = Math.floor(epochMs / 1000);
  return `${secondText(second, timeZone)}.${String((epochMs - second * 1000) * 1000).padStart(6, '0')}`;
}
