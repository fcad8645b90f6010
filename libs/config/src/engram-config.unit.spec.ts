import { relevanceFor } from './embedder-relevance';
import { loadConfig } from './load-config';

describe('relevanceFor', () => {
  const thresholds = (env: Record<string, string>) => relevanceFor(loadConfig({ LOG_LEVEL: 'silent', ...env }));

  it("follows the embedder when unset: the hashing embedder's, or multilingual-e5-small's with an endpoint", () => {
    expect(thresholds({})).toEqual({ floor: 0.1, gate: 0.35, admit: 0.35, cosineWeight: 0.1, coverageWeight: 0.2 });
    expect(thresholds({ ENGRAM_EMBEDDINGS_URL: 'http://127.0.0.1:8089' })).toEqual({
      floor: 0.78,
      gate: 0.88,
      admit: 0.78,
      cosineWeight: 0.35,
      coverageWeight: 0,
    });
  });

  it('takes set values as they are, each on its own', () => {
    expect(thresholds({ ENGRAM_EMBEDDINGS_URL: 'http://127.0.0.1:8089', ENGRAM_COSINE_FLOOR: '0.7' })).toMatchObject({
      floor: 0.7,
      gate: 0.88,
    });
    expect(thresholds({ ENGRAM_COSINE_GATE: '0' })).toMatchObject({ floor: 0.1, gate: 0, admit: 0.35 });
    expect(thresholds({ ENGRAM_EMBEDDINGS_URL: 'http://127.0.0.1:8089', ENGRAM_COSINE_ADMIT: '0.8' })).toMatchObject({
      gate: 0.88,
      admit: 0.8,
    });
    expect(thresholds({ ENGRAM_COSINE_WEIGHT: '2', ENGRAM_COVERAGE_WEIGHT: '0' })).toMatchObject({ cosineWeight: 2, coverageWeight: 0 });
    expect(() => thresholds({ ENGRAM_COSINE_FLOOR: '2' })).toThrow(/ENGRAM_COSINE_FLOOR="2"/);
  });
});

describe('loadConfig: API keys that cannot lie', () => {
  const load = (env: Record<string, string>) => loadConfig({ LOG_LEVEL: 'silent', ...env });
  const problemsOf = (env: Record<string, string>): string => {
    try {
      load(env);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected loadConfig to refuse the configuration');
  };

  it('given well-formed keys, with space around entries, then each key names its tenant', () => {
    expect([...load({ ENGRAM_API_KEYS: 'key-a=acme, key-b=globex' }).apiKeys()]).toEqual([
      ['key-a', 'acme'],
      ['key-b', 'globex'],
    ]);
  });

  it('given a key listed twice, then it stops naming the variable and both entries, without echoing the key', () => {
    const message = problemsOf({ ENGRAM_API_KEYS: 'k1=acme,k2=globex,k1=initech' });
    expect(message).toMatch(/ENGRAM_API_KEYS: entry 3 repeats the key of entry 1/);
    expect(message).not.toContain('k1');
  });

  it('given a key or a tenant with spaces, then it stops naming the variable', () => {
    expect(problemsOf({ ENGRAM_API_KEYS: 'my key=acme' })).toMatch(/ENGRAM_API_KEYS: entry 1: the key must not contain spaces/);
    expect(problemsOf({ ENGRAM_API_KEYS: 'k1=acme corp' })).toMatch(/ENGRAM_API_KEYS: entry 1: tenant "acme corp" must be/);
    expect(problemsOf({ ENGRAM_API_KEYS: 'k1 = acme' })).toMatch(/ENGRAM_API_KEYS: entry 1/);
    expect(problemsOf({ ENGRAM_ADMIN_KEY: 'admin key' })).toMatch(/ENGRAM_ADMIN_KEY: must not contain spaces/);
  });

  it('given a tenant key equal to the admin or metrics key, then it stops naming both variables', () => {
    expect(problemsOf({ ENGRAM_API_KEYS: 'k1=acme,root=globex', ENGRAM_ADMIN_KEY: 'root' })).toMatch(
      /ENGRAM_API_KEYS: entry 2 uses ENGRAM_ADMIN_KEY/,
    );
    expect(problemsOf({ ENGRAM_API_KEYS: 'scrape=acme', ENGRAM_METRICS_KEY: 'scrape' })).toMatch(
      /ENGRAM_API_KEYS: entry 1 uses ENGRAM_METRICS_KEY/,
    );
  });

  it('given an empty entry between commas or a malformed one, then it stops', () => {
    expect(problemsOf({ ENGRAM_API_KEYS: 'k1=acme,,k2=globex' })).toMatch(/ENGRAM_API_KEYS: entry 2 is empty/);
    expect(problemsOf({ ENGRAM_API_KEYS: 'k1=acme=x' })).toMatch(/ENGRAM_API_KEYS: entry 1 must look like key=tenant/);
  });
});

describe('loadConfig: ENGRAM_MASTER_KEY', () => {
  const hex = 'a1'.repeat(32);
  const distributed = {
    ENGRAM_MODE: 'distributed',
    KAFKA_BROKERS: '127.0.0.1:9092',
    MONGODB_URI: 'mongodb://127.0.0.1',
    ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
  };
  const problemsOf = (env: Record<string, string>): string => {
    try {
      loadConfig({ LOG_LEVEL: 'silent', ...env });
    } catch (error) {
      return (error as Error).message;
    }
    return '';
  };

  it('takes 32 bytes as hex or base64, and is optional when embedded', () => {
    expect(problemsOf({ ENGRAM_MASTER_KEY: hex })).toBe('');
    expect(problemsOf({ ENGRAM_MASTER_KEY: Buffer.from(hex, 'hex').toString('base64') })).toBe('');
    expect(problemsOf({})).toBe('');
  });

  it('refuses a key of another size or encoding, naming the variable and never echoing the value', () => {
    for (const bad of ['secret-passphrase', 'a1'.repeat(16), Buffer.alloc(24).toString('base64')]) {
      const message = problemsOf({ ENGRAM_MASTER_KEY: bad });
      expect(message).toMatch(/ENGRAM_MASTER_KEY: must be 32 bytes/);
      expect(message).not.toContain(bad);
    }
  });

  it('is required when distributed', () => {
    expect(problemsOf(distributed)).toMatch(/ENGRAM_MASTER_KEY: required when ENGRAM_MODE=distributed/);
    expect(problemsOf({ ...distributed, ENGRAM_MASTER_KEY: hex })).toBe('');
  });

  it('takes ENGRAM_PREVIOUS_MASTER_KEY in the same format, never echoed, and never the same key', () => {
    const old = 'b2'.repeat(32);
    expect(problemsOf({ ENGRAM_MASTER_KEY: hex, ENGRAM_PREVIOUS_MASTER_KEY: Buffer.from(old, 'hex').toString('base64') })).toBe('');
    expect(problemsOf({ ENGRAM_PREVIOUS_MASTER_KEY: old })).toBe('');
    const bad = problemsOf({ ENGRAM_MASTER_KEY: hex, ENGRAM_PREVIOUS_MASTER_KEY: 'old-passphrase' });
    expect(bad).toMatch(/ENGRAM_PREVIOUS_MASTER_KEY: must be 32 bytes/);
    expect(bad).not.toContain('old-passphrase');
    expect(problemsOf({ ENGRAM_MASTER_KEY: hex, ENGRAM_PREVIOUS_MASTER_KEY: Buffer.from(hex, 'hex').toString('base64url') })).toMatch(
      /ENGRAM_PREVIOUS_MASTER_KEY: is the same key as ENGRAM_MASTER_KEY/,
    );
  });
});
