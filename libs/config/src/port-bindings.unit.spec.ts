import { loadConfig } from './load-config';
import { MODE_PRESETS, portBindingsFrom } from './port-bindings';

const hex = 'a1'.repeat(32);
const bindingsOf = (env: Record<string, string>) => portBindingsFrom(loadConfig({ LOG_LEVEL: 'silent', ...env }));
const problemsOf = (env: Record<string, string>): string => {
  try {
    loadConfig({ LOG_LEVEL: 'silent', ...env });
  } catch (error) {
    return (error as Error).message;
  }
  return '';
};
const servers = { KAFKA_BROKERS: '127.0.0.1:9092', MONGODB_URI: 'mongodb://127.0.0.1', ELASTICSEARCH_URL: 'http://127.0.0.1:9200' };

describe('port bindings: ENGRAM_MODE is a preset', () => {
  it('given only the mode, then every port binds what the mode always bound', () => {
    expect(bindingsOf({})).toEqual({ mode: 'embedded', eventLog: 'sqlite', factStore: 'sqlite', search: 'sqlite' });
    expect(bindingsOf({ ENGRAM_MODE: 'distributed', ENGRAM_MASTER_KEY: hex, ...servers })).toEqual({
      mode: 'distributed',
      eventLog: 'kafka',
      factStore: 'mongodb',
      search: 'elasticsearch',
    });
    expect(MODE_PRESETS.embedded).toEqual({ eventLog: 'sqlite', factStore: 'sqlite', search: 'sqlite' });
  });

  it('given a port variable, then it wins over the preset, each port on its own', () => {
    expect(bindingsOf({ ENGRAM_SEARCH: 'elasticsearch', ELASTICSEARCH_URL: servers.ELASTICSEARCH_URL })).toEqual({
      mode: 'embedded',
      eventLog: 'sqlite',
      factStore: 'sqlite',
      search: 'elasticsearch',
    });
    expect(
      bindingsOf({ ENGRAM_MODE: 'distributed', ENGRAM_EVENT_LOG: 'sqlite', ENGRAM_FACT_STORE: 'sqlite', ENGRAM_SEARCH: 'sqlite' }),
    ).toEqual({ mode: 'distributed', eventLog: 'sqlite', factStore: 'sqlite', search: 'sqlite' });
    expect(bindingsOf({ ENGRAM_EVENT_LOG: 'kafka', KAFKA_BROKERS: servers.KAFKA_BROKERS })).toMatchObject({
      eventLog: 'kafka',
      factStore: 'sqlite',
    });
  });

  it('given an unknown backend, then it stops naming the variable', () => {
    expect(problemsOf({ ENGRAM_EVENT_LOG: 'postgres' })).toMatch(/ENGRAM_EVENT_LOG="postgres"/);
    expect(problemsOf({ ENGRAM_FACT_STORE: 'kafka' })).toMatch(/ENGRAM_FACT_STORE="kafka"/);
    expect(problemsOf({ ENGRAM_SEARCH: 'mongodb' })).toMatch(/ENGRAM_SEARCH="mongodb"/);
  });

  it('given a backend without its address, then it stops naming the address and the variable that chose the backend', () => {
    expect(problemsOf({ ENGRAM_EVENT_LOG: 'kafka' })).toMatch(/KAFKA_BROKERS: required when ENGRAM_EVENT_LOG=kafka/);
    expect(problemsOf({ ENGRAM_SEARCH: 'elasticsearch' })).toMatch(/ELASTICSEARCH_URL: required when ENGRAM_SEARCH=elasticsearch/);
    expect(problemsOf({ ENGRAM_FACT_STORE: 'mongodb', ENGRAM_MASTER_KEY: hex })).toMatch(
      /MONGODB_URI: required when ENGRAM_FACT_STORE=mongodb/,
    );
    // Filled in by the preset: the preset is named, as before the per-port variables.
    const distributed = problemsOf({ ENGRAM_MODE: 'distributed', ENGRAM_MASTER_KEY: hex });
    for (const name of ['KAFKA_BROKERS', 'MONGODB_URI', 'ELASTICSEARCH_URL'])
      expect(distributed).toMatch(new RegExp(`${name}: required when ENGRAM_MODE=distributed`));
    // A port bound elsewhere needs no address.
    expect(
      problemsOf({
        ENGRAM_MODE: 'distributed',
        ENGRAM_EVENT_LOG: 'sqlite',
        ENGRAM_MASTER_KEY: hex,
        MONGODB_URI: servers.MONGODB_URI,
        ELASTICSEARCH_URL: servers.ELASTICSEARCH_URL,
      }),
    ).toBe('');
  });

  it('given the data keys in MongoDB, then ENGRAM_MASTER_KEY is required (one key for every process); in SQLite it is not', () => {
    expect(problemsOf({ ENGRAM_FACT_STORE: 'mongodb', MONGODB_URI: servers.MONGODB_URI })).toMatch(
      /ENGRAM_MASTER_KEY: required when ENGRAM_FACT_STORE=mongodb/,
    );
    expect(problemsOf({ ENGRAM_FACT_STORE: 'mongodb', MONGODB_URI: servers.MONGODB_URI, ENGRAM_MASTER_KEY: hex })).toBe('');
    expect(problemsOf({ ENGRAM_MODE: 'distributed', ...servers, ENGRAM_FACT_STORE: 'sqlite' })).toBe('');
  });
});
