/**
 * Which backend each port is bound to. Three choices, one per kind of storage:
 *
 * - the event log (`ENGRAM_EVENT_LOG`): SQLite or Kafka;
 * - the fact store (`ENGRAM_FACT_STORE`): the database of everything the projections and the
 *   service keep besides search — facts, sessions, access statistics, the data keys, projection
 *   versions, the rebuild ledger and the log's version. They are one choice because they are one
 *   database: versions and the ledger point at fact and session collections, a rebuild writes both,
 *   and `engram rotate-master-key` rewraps the data keys where they are stored;
 * - the search index (`ENGRAM_SEARCH`): SQLite (FTS5) or Elasticsearch.
 *
 * `ENGRAM_MODE` is a preset: it fills each choice that is not set, so a configuration that names
 * only the mode binds exactly what it always did.
 */
import type { EngramConfig } from './engram-config';

export type EventLogBackend = NonNullable<EngramConfig['ENGRAM_EVENT_LOG']>;
export type FactStoreBackend = NonNullable<EngramConfig['ENGRAM_FACT_STORE']>;
export type SearchBackend = NonNullable<EngramConfig['ENGRAM_SEARCH']>;

export const PortBindings = Symbol('PortBindings');
export interface PortBindings {
  /** The preset the process started with (reported by /health). */
  readonly mode: 'embedded' | 'distributed';
  readonly eventLog: EventLogBackend;
  readonly factStore: FactStoreBackend;
  readonly search: SearchBackend;
}

type Choices = Omit<PortBindings, 'mode'>;

export const MODE_PRESETS: Readonly<Record<PortBindings['mode'], Choices>> = {
  embedded: { eventLog: 'sqlite', factStore: 'sqlite', search: 'sqlite' },
  distributed: { eventLog: 'kafka', factStore: 'mongodb', search: 'elasticsearch' },
};

type BindingVariables = Pick<EngramConfig, 'ENGRAM_MODE'> &
  Partial<Pick<EngramConfig, 'ENGRAM_EVENT_LOG' | 'ENGRAM_FACT_STORE' | 'ENGRAM_SEARCH'>>;

/** The variable each port's choice is read from. */
const VARIABLES: Readonly<Record<keyof Choices, 'ENGRAM_EVENT_LOG' | 'ENGRAM_FACT_STORE' | 'ENGRAM_SEARCH'>> = {
  eventLog: 'ENGRAM_EVENT_LOG',
  factStore: 'ENGRAM_FACT_STORE',
  search: 'ENGRAM_SEARCH',
};

/** Each port's backend: the variable when set, else the mode's preset. */
export function portBindingsFrom(config: BindingVariables): PortBindings {
  const preset = MODE_PRESETS[config.ENGRAM_MODE];
  return {
    mode: config.ENGRAM_MODE,
    eventLog: config.ENGRAM_EVENT_LOG ?? preset.eventLog,
    factStore: config.ENGRAM_FACT_STORE ?? preset.factStore,
    search: config.ENGRAM_SEARCH ?? preset.search,
  };
}

/**
 * What chose a port's backend, as a start-up error names it: `ENGRAM_FACT_STORE=mongodb` when the
 * variable is set, `ENGRAM_MODE=distributed` when the preset filled it in.
 */
export function bindingReason(config: BindingVariables, port: keyof Choices): string {
  const variable = VARIABLES[port];
  const set = config[variable];
  return set !== undefined ? `${variable}=${set}` : `ENGRAM_MODE=${config.ENGRAM_MODE}`;
}

/**
 * Combinations that cannot work, each naming the variable that chose it: a backend needs its
 * address, and data keys kept in a shared database need one master key for every process (a key
 * generated into one process's data directory would leave the others unable to read them).
 */
export function bindingProblems(config: EngramConfig): string[] {
  const bindings = portBindingsFrom(config);
  const problems: string[] = [];
  const require = (port: keyof Choices, name: 'KAFKA_BROKERS' | 'MONGODB_URI' | 'ELASTICSEARCH_URL') => {
    if (!config[name]?.trim()) problems.push(`${name}: required when ${bindingReason(config, port)}`);
  };
  if (bindings.eventLog === 'kafka') require('eventLog', 'KAFKA_BROKERS');
  if (bindings.factStore === 'mongodb') require('factStore', 'MONGODB_URI');
  if (bindings.search === 'elasticsearch') require('search', 'ELASTICSEARCH_URL');
  if (bindings.factStore === 'mongodb' && config.ENGRAM_MASTER_KEY === undefined)
    problems.push(`ENGRAM_MASTER_KEY: required when ${bindingReason(config, 'factStore')} (32 bytes, as 64 hex digits or base64)`);
  return problems;
}
