import { createHmac } from 'node:crypto';
import type { MemoryAdded, UserForgotten } from '@engram/contracts';
import { memory as aMemoryRecord } from '../testing/fixtures';
import { redactedWebhookPayload, webhookPayload } from './webhook-payload';
import { webhookGivesUp, webhookRetryDelayMs } from './webhook-retry';
import { signWebhook, verifyWebhookSignature } from './webhook-signature';
import { checkWebhookUrl, isLocalHost, WebhookUrlRules } from './webhook-url';

describe('webhook signatures (Stripe scheme)', () => {
  const secret = 'whsec_test_0123456789abcdef';
  const body = '{"id":"e1","type":"memory.added"}';

  it('signs t + "." + body with HMAC-SHA256 of the secret, in hex', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signWebhook(secret, body, 1_700_000_000)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('verifies its own signature within the tolerance, and nothing else', () => {
    const header = signWebhook(secret, body, 1_700_000_000);
    expect(verifyWebhookSignature(header, secret, body, { nowSeconds: 1_700_000_100 })).toBe(true);
    expect(verifyWebhookSignature(header, 'another-secret-of-some-length', body, { nowSeconds: 1_700_000_100 })).toBe(false);
    expect(verifyWebhookSignature(header, secret, body.replace('added', 'retracted'), { nowSeconds: 1_700_000_100 })).toBe(false);
    // A replay: the same delivery, too late.
    expect(verifyWebhookSignature(header, secret, body, { nowSeconds: 1_700_000_301 })).toBe(false);
    expect(verifyWebhookSignature(header, secret, body, { nowSeconds: 1_700_000_301, toleranceSeconds: 600 })).toBe(true);
    // The timestamp is signed: moving it breaks the signature.
    expect(verifyWebhookSignature(header.replace('t=1700000000', 't=1700000050'), secret, body, { nowSeconds: 1_700_000_100 })).toBe(false);
  });

  it('accepts any one matching v1 (a receiver rotating secrets), and refuses malformed headers', () => {
    const good = signWebhook(secret, body, 1_700_000_000).split(',')[1];
    const now = { nowSeconds: 1_700_000_000 };
    expect(verifyWebhookSignature(`t=1700000000,v1=${'0'.repeat(64)},${good}`, secret, body, now)).toBe(true);
    expect(verifyWebhookSignature(good, secret, body, now)).toBe(false);
    expect(verifyWebhookSignature(`t=1700000000,t=1700000000,${good}`, secret, body, now)).toBe(false);
    expect(verifyWebhookSignature('t=soon,v1=abc', secret, body, now)).toBe(false);
    expect(verifyWebhookSignature('', secret, body, now)).toBe(false);
  });
});

describe('webhook URLs', () => {
  const rules: WebhookUrlRules = { allowedHosts: [], self: { ports: [3000, 41234], hosts: ['engram.internal', '10.0.0.5'] } };
  const check = (url: string, overrides: Partial<WebhookUrlRules> = {}) => checkWebhookUrl(url, { ...rules, ...overrides });

  it.each([
    ['https://hooks.example.com/engram', 'https://hooks.example.com/engram'],
    ['http://hooks.example.com:8080/a?b=c', 'http://hooks.example.com:8080/a?b=c'],
    // A receiver beside engram, on loopback at another port (the tests' receivers).
    ['http://127.0.0.1:45678/hook', 'http://127.0.0.1:45678/hook'],
    ['http://localhost:9000/', 'http://localhost:9000/'],
    ['HTTPS://Hooks.Example.COM', 'https://hooks.example.com/'],
  ])('accepts %s', (url, normalised) => {
    expect(check(url)).toEqual({ ok: true, url: normalised });
  });

  it.each([
    ['not a url', 'must be an absolute http or https URL'],
    ['/relative/path', 'must be an absolute http or https URL'],
    ['ftp://files.example.com/', 'must use http or https, not ftp'],
    ['file:///etc/passwd', 'must use http or https, not file'],
    ['javascript:alert(1)', 'must use http or https, not javascript'],
    ['https://user:pass@hooks.example.com/', 'must not carry credentials: deliveries are signed instead'],
  ])('refuses %s', (url, problem) => {
    expect(check(url)).toEqual({ ok: false, problem });
  });

  it('refuses a URL over 2048 characters', () => {
    expect(check(`https://hooks.example.com/${'a'.repeat(2048)}`)).toEqual({ ok: false, problem: 'must be at most 2048 characters' });
  });

  it.each([
    'http://127.0.0.1:3000/v1/turns',
    'http://localhost:3000/',
    'http://LOCALHOST.:3000/',
    'http://[::1]:3000/',
    'http://0.0.0.0:3000/',
    'http://[::ffff:127.0.0.1]:3000/',
    'http://2130706433:3000/', // 127.0.0.1 written as one number: URL reads it as the address
    'http://0x7f.1:41234/',
    'http://engram.internal:3000/',
    'http://10.0.0.5:41234/',
    'http://127.0.0.1:41234/',
  ])('refuses %s: this engram server itself', (url) => {
    expect(check(url)).toEqual({ ok: false, problem: 'must not point at this engram server itself' });
  });

  it("counts a scheme's default port as that port", () => {
    expect(check('http://engram.internal/', { self: { ports: [80], hosts: ['engram.internal'] } })).toMatchObject({ ok: false });
    expect(check('https://engram.internal/', { self: { ports: [80], hosts: ['engram.internal'] } })).toMatchObject({ ok: true });
  });

  it('keeps to the allowed hosts when a deployment lists them', () => {
    const allowedHosts = ['127.0.0.1', 'hooks.example.com'];
    expect(check('http://127.0.0.1:45678/x', { allowedHosts })).toMatchObject({ ok: true });
    expect(check('https://Hooks.Example.com./x', { allowedHosts })).toMatchObject({ ok: true });
    expect(check('https://evil.example.com/', { allowedHosts })).toEqual({
      ok: false,
      problem: 'host evil.example.com is not one this server sends webhooks to',
    });
    expect(check('http://localhost:45678/', { allowedHosts })).toMatchObject({ ok: false });
  });

  it('tells loopback and unspecified addresses from others', () => {
    for (const host of [
      '127.0.0.1',
      '127.8.9.10',
      'localhost',
      'api.localhost',
      '[::1]',
      '[::]',
      '0.0.0.0',
      '[::ffff:7f00:1]',
      '[::ffff:0:0]',
    ])
      expect(isLocalHost(host)).toBe(true);
    for (const host of ['128.0.0.1', 'example.com', '[::2]', '[::ffff:a00:5]', 'localhost.example.com', '10.0.0.1'])
      expect(isLocalHost(host)).toBe(false);
  });
});

describe('webhook retries', () => {
  const policy = { baseMs: 1000, maxMs: 60_000, maxFailures: 5 };

  it('doubles the wait after each failure, up to the maximum', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 60].map((n) => webhookRetryDelayMs(n, policy))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('gives up on the subscription after maxFailures failures in a row', () => {
    expect(webhookGivesUp(4, policy)).toBe(false);
    expect(webhookGivesUp(5, policy)).toBe(true);
  });
});

describe('webhook payloads', () => {
  const memory = aMemoryRecord({ memoryId: 'm1', userId: 'u1', value: 'Berlin', content: 'I live in Berlin', appliedItemIds: ['item-1'] });
  const envelope = {
    eventId: 'e1',
    schemaVersion: 1,
    tenantId: 't1',
    userId: 'u1',
    occurredAt: '2026-11-30T08:00:00.000Z',
    recordedAt: '2026-11-30T09:00:00.000Z',
    causationId: null,
    correlationId: 'c1',
  };

  it("carries the memory's state after the change, without the resolver's bookkeeping", () => {
    const added: MemoryAdded = { ...envelope, type: 'MemoryAdded', payload: { memory, itemId: 'item-1' } };
    const { appliedItemIds: _bookkeeping, ...shown } = memory;
    expect(webhookPayload(added)).toEqual({
      id: 'e1',
      type: 'memory.added',
      userId: 'u1',
      recordedAt: '2026-11-30T09:00:00.000Z',
      data: { memoryId: 'm1', memory: shown },
    });
    expect(JSON.stringify(webhookPayload(added))).not.toContain('item-1');
  });

  it('says a user was forgotten with ids only', () => {
    const forgotten: UserForgotten = { ...envelope, type: 'UserForgotten', payload: { requestedAt: '2026-11-30T09:00:00.000Z' } };
    expect(webhookPayload(forgotten)).toEqual({
      id: 'e1',
      type: 'user.forgotten',
      userId: 'u1',
      recordedAt: envelope.recordedAt,
      data: {},
    });
  });

  it('redacts a forgotten user’s change to its ids and type', () => {
    const redacted = redactedWebhookPayload({
      eventId: 'e1',
      type: 'memory.superseded',
      userId: 'u1',
      recordedAt: envelope.recordedAt,
      memoryId: 'm1',
    });
    expect(redacted).toEqual({
      id: 'e1',
      type: 'memory.superseded',
      userId: 'u1',
      recordedAt: envelope.recordedAt,
      data: { memoryId: 'm1' },
      redacted: true,
    });
    expect(JSON.stringify(redacted)).not.toContain('Berlin');
  });

  it('refuses an event no webhook carries', () => {
    const reinforced = { ...envelope, type: 'MemoryReinforced' as const, payload: { memory, itemId: null } };
    expect(() => webhookPayload(reinforced)).toThrow('MemoryReinforced is not delivered by webhooks');
  });
});
