import assert from 'node:assert/strict';
import { test } from 'node:test';
import { choicesFor, languageChoices, timeZoneChoices } from './user-choices';

test('time zones are the IANA list with a blank first and UTC offered', () => {
  const zones = timeZoneChoices('');
  assert.equal(zones[0]!.value, '');
  assert.ok(zones.some((z) => z.value === 'Europe/Berlin'));
  assert.ok(zones.some((z) => z.value === 'UTC'));
});

test('a stored value outside the list stays offered', () => {
  assert.ok(timeZoneChoices('Mars/Olympus').some((z) => z.value === 'Mars/Olympus'));
  assert.ok(languageChoices('tlh').some((l) => l.value === 'tlh'));
});

test('languages are named, with their code', () => {
  assert.ok(languageChoices('', 'en').some((l) => l.value === 'de' && l.label === 'German (de)'));
});

test('only User.language and time_zone fields get choices', () => {
  assert.ok(choicesFor('User', 'language', ''));
  assert.ok(choicesFor('System Settings', 'time_zone', ''));
  assert.equal(choicesFor('ToDo', 'language', ''), undefined);
});
