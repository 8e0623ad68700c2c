import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeLabel, secondStepFromHash, secondStepOf, svgImageSource } from './two-factor.js';

test('secondStepOf reads the reference answer and ignores a session answer', () => {
  assert.equal(secondStepOf({ message: 'Logged In', home_page: '/app' }), null);
  const step = secondStepOf({ message: 'Verification code required', tmp_id: 'abc', verification: { method: 'OTP App', setup: true } });
  assert.deepEqual(step, { tmpId: 'abc', method: 'OTP App', prompt: '' });
  const mailed = secondStepOf({ tmp_id: 'x', verification: { method: 'Email', token_delivery: true, prompt: 'Sent.', setup: true } });
  assert.equal(mailed?.prompt, 'Sent.');
  assert.equal(codeLabel(mailed!), 'Verification code');
  const none = secondStepOf({ tmp_id: 'x', verification: { method: 'Email', token_delivery: false, prompt: false, setup: false } });
  assert.match(none!.prompt, /no email address/);
});

test('secondStepFromHash takes a well-formed tmp_id only', () => {
  assert.deepEqual(secondStepFromHash('#tmp_id=AbC_-1&method=Email'), { tmpId: 'AbC_-1', method: 'Email', prompt: '' });
  assert.equal(secondStepFromHash('#tmp_id=<script>'), null);
  assert.equal(secondStepFromHash(''), null);
});

test('svgImageSource encodes the SVG as a data URI image', () => {
  assert.match(svgImageSource('<svg xmlns="http://www.w3.org/2000/svg"/>'), /^data:image\/svg\+xml;base64,/);
});
