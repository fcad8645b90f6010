import type { EngramEventType } from './events';
import { MEMORY_DECISION_TYPES } from './events';
import { TopicName, Topics } from './topics';
import { stagesReading } from './topology';

/**
 * Which events travel on which topic, who writes them and who reads them: the data the AsyncAPI
 * document (docs/asyncapi.json) is made of. Kept honest by tests, not by hand: an e2e spec runs
 * every kind of write through embedded engram and fails on any event found on a topic that does
 * not list it, and a unit spec compares the receivers with the stages' `@EventPattern`s. The
 * receivers are the stages the topology declares (`topology.ts`).
 */

/** A deployable that writes or reads the log (`apps/*`), or an application producing turns itself. */
export type LogService = 'gateway' | 'recall' | 'filter' | 'extractor' | 'resolver' | 'indexer' | 'producer';

export interface TopicSender {
  readonly service: LogService;
  readonly events: readonly EngramEventType[];
  readonly summary: string;
}

export interface TopicReceiver {
  readonly service: LogService;
  /** The consumer group (before the deployment's topic prefix). */
  readonly group: string;
  readonly summary: string;
}

export interface TopicContract {
  readonly topic: TopicName;
  readonly summary: string;
  readonly senders: readonly TopicSender[];
  readonly receivers: readonly TopicReceiver[];
}

export const SERVICE_DESCRIPTIONS: Readonly<Record<LogService, string>> = {
  gateway: 'HTTP ingest (apps/gateway; part of the all-in-one server)',
  recall: 'the HTTP read side and memory control (apps/recall; part of the all-in-one server)',
  filter: 'the screening worker (apps/filter)',
  extractor: 'the extraction worker (apps/extractor)',
  resolver: "the resolver, the facts store's single writer, and the scheduled forgetting sweep (apps/resolver)",
  indexer: 'the search, sessions and access projections (apps/indexer)',
  producer: "an application writing turns straight to the log (the SDK's KafkaTurnProducer)",
};

/** A topic's receivers: the stages reading it (`STAGES`). */
function receiversOf(topic: TopicName): TopicReceiver[] {
  return stagesReading(topic).map(({ service, group, summary }) => ({ service, group, summary }));
}

export const TOPIC_CATALOGUE: readonly TopicContract[] = [
  {
    topic: Topics.turns,
    summary: 'Conversation turns as they were said (PII masked), and requests to forget a user. The only topic applications may write.',
    senders: [
      { service: 'gateway', events: ['TurnRecorded'], summary: 'POST /v1/turns' },
      { service: 'producer', events: ['TurnRecorded'], summary: 'KafkaTurnProducer.send (@engram/client/kafka)' },
      { service: 'recall', events: ['UserForgotten'], summary: 'DELETE /v1/users/{userId}' },
    ],
    receivers: receiversOf(Topics.turns),
  },
  {
    topic: Topics.screened,
    summary: "Each turn with the filter's verdict, signals and masked types; forget requests forwarded.",
    senders: [{ service: 'filter', events: ['TurnScreened', 'UserForgotten'], summary: 'one TurnScreened per TurnRecorded' }],
    receivers: receiversOf(Topics.screened),
  },
  {
    topic: Topics.extracted,
    summary: "Extracted memories and the commands to the resolver, keyed by user so they apply in order with the user's extractions.",
    senders: [
      { service: 'extractor', events: ['MemoriesExtracted', 'UserForgotten'], summary: 'one MemoriesExtracted per screened turn' },
      {
        service: 'recall',
        events: [
          'MemoryRetractionRequested',
          'MemoryRevertRequested',
          'MemoryConfirmRequested',
          'ProfileUpdateRequested',
          'MemoriesImportRequested',
          'ForgettingRequested',
        ],
        summary: 'memory control, profile, import and on-demand forgetting (HTTP)',
      },
      { service: 'resolver', events: ['ForgettingRequested'], summary: 'the scheduled forgetting sweep' },
    ],
    receivers: receiversOf(Topics.extracted),
  },
  {
    topic: Topics.facts,
    summary: "The resolver's decisions, each carrying the memory's full state after it; forget requests forwarded.",
    senders: [{ service: 'resolver', events: [...MEMORY_DECISION_TYPES, 'UserForgotten'], summary: 'decisions, in order per user' }],
    receivers: receiversOf(Topics.facts),
  },
  {
    topic: Topics.access,
    summary:
      "Which memories a recall returned, for use statistics; a user's forgetting, so a rebuild does not bring their statistics back.",
    senders: [{ service: 'recall', events: ['MemoriesAccessed', 'UserForgotten'], summary: 'POST /v1/recall; DELETE /v1/users/{userId}' }],
    receivers: receiversOf(Topics.access),
  },
];

/** Every event type a topic carries, in catalogue order. */
export function topicEvents(contract: TopicContract): EngramEventType[] {
  return [...new Set(contract.senders.flatMap((s) => s.events))];
}
