import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { now, secondText, wallClock } from './clock.js';

/** What Intl says of an epoch second, formatted without the cache. */
function fromIntl(second: number, timeZone: string): string {
  const w = wallClock(second * 1000, timeZone);
  const p = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${p(w.year, 4)}-${p(w.month)}-${p(w.day)} ${p(w.hour)}:${p(w.minute)}:${p(w.second)}`;
}

describe('clock', () => {
  test('the text of a second follows the zone across a daylight-saving change, second by second', () => {
    // America/New_York went from 01:59:59 EST to 03:00:00 EDT at 2026-03-08 07:00:00 UTC.
    const change = Date.UTC(2026, 2, 8, 7, 0, 0) / 1000;
    assert.equal(secondText(change - 1, 'America/New_York'), '2026-03-08 01:59:59');
    assert.equal(secondText(change, 'America/New_York'), '2026-03-08 03:00:00');
    for (const zone of ['UTC', 'Asia/Kolkata', 'America/New_York', 'Pacific/Chatham']) {
      for (let s = change - 3; s <= change + 3; s++) {
        assert.equal(secondText(s, zone), fromIntl(s, zone), `${zone} at ${s}`);
        assert.equal(secondText(s, zone), fromIntl(s, zone), `${zone} at ${s}, cached`);
      }
    }
  });

  test('now() is strictly increasing and in the zone asked for', () => {
    let previous = '';
    for (let i = 0; i < 2000; i++) {
      const stamp = now('Asia/Kolkata');
      assert.match(stamp, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/);
      assert.ok(stamp > previous, `${stamp} after ${previous}`);
      previous = stamp;
    }
    const second = Math.floor(Date.now() / 1000);
    const stamp = now('Asia/Kolkata').slice(0, 19);
    assert.ok(stamp === fromIntl(second, 'Asia/Kolkata') || stamp === fromIntl(second + 1, 'Asia/Kolkata'));
  });
});
