/** Topic names (the Kafka topic, or the embedded log's stream), before any deployment prefix. */
export const Topics = {
  turns: 'memory.turns.v1',
  screened: 'memory.screened.v1',
  extracted: 'memory.extracted.v1',
  facts: 'memory.facts.v1',
  access: 'memory.access.v1',
} as const;

export type TopicName = (typeof Topics)[keyof typeof Topics];

export const ALL_TOPICS: readonly TopicName[] = Object.values(Topics);
