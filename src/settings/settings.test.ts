import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_CONFIG } from '../site/site-config.js';
import { effectiveSettings, parseAllowCors, parseSessionExpiry, type Settings } from './settings.js';

const CONFIG: Settings = {
  time_zone: 'Europe/Berlin',
  session_expiry: 3600,
  max_file_size: 1000,
  allow_consecutive_login_attempts: 4,
  allow_login_after_fail: 30,
  deny_multiple_sessions: true,
  allow_cors: ['https://config.example.com'],
  enable_password_policy: false,
  minimum_password_score: 3,
};

describe('effectiveSettings', () => {
  test('without stored values the site config applies unchanged', () => {
    assert.deepEqual(effectiveSettings(CONFIG, {}), CONFIG);
  });

  test('stored values win, converted to seconds and bytes', () => {
    const settings = effectiveSettings(CONFIG, {
      time_zone: 'Asia/Kolkata',
      session_expiry: '24:30',
      max_file_size: 3,
      allow_consecutive_login_attempts: 0,
      allow_login_after_fail: 90,
      deny_multiple_sessions: 0,
      allow_cors: 'https://a.example.com\n\nhttps://b.example.com ',
      enable_password_policy: 1,
      minimum_password_score: '4',
    });
    assert.deepEqual(settings, {
      time_zone: 'Asia/Kolkata',
      session_expiry: 24 * 3600 + 30 * 60,
      max_file_size: 3 * 1024 * 1024,
      allow_consecutive_login_attempts: 0,
      allow_login_after_fail: 90,
      deny_multiple_sessions: false,
      allow_cors: ['https://a.example.com', 'https://b.example.com'],
      enable_password_policy: true,
      minimum_password_score: 4,
    });
  });

  test('empty, zero and unusable stored values fall back to the site config', () => {
    const settings = effectiveSettings(CONFIG, {
      time_zone: 'Not/AZone',
      session_expiry: '',
      max_file_size: 0,
      allow_consecutive_login_attempts: null,
      allow_login_after_fail: 0,
      deny_multiple_sessions: null,
      allow_cors: '  ',
    });
    assert.deepEqual(settings, CONFIG);
  });

  test('the built-in defaults are what docs/api.md pins', () => {
    const settings = effectiveSettings(DEFAULT_CONFIG, {});
    assert.equal(settings.session_expiry, 7 * 24 * 3600);
    assert.equal(settings.max_file_size, 25 * 1024 * 1024);
    assert.equal(settings.allow_consecutive_login_attempts, 10);
    assert.equal(settings.allow_login_after_fail, 60);
    assert.equal(settings.time_zone, 'UTC');
  });
});

describe('parseSessionExpiry', () => {
  test('reads hh:mm with any number of hours', () => {
    assert.equal(parseSessionExpiry('170:00'), 170 * 3600);
    assert.equal(parseSessionExpiry(' 0:05 '), 300);
  });

  test('refuses other shapes and a zero duration', () => {
    for (const text of ['', '7 days', '10', '1:60', '1:5', '00:00', '-1:00']) assert.equal(parseSessionExpiry(text), undefined, text);
  });
});

describe('parseAllowCors', () => {
  test('a star anywhere allows every origin', () => {
    assert.equal(parseAllowCors('https://a.example.com\n*'), '*');
  });

  test('origins may be separated by lines, commas or spaces; other entries are ignored', () => {
    assert.deepEqual(parseAllowCors('https://a.example.com, http://localhost:8080/\nftp://x'), ['https://a.example.com', 'http://localhost:8080/']);
    assert.equal(parseAllowCors(''), undefined);
  });
});
