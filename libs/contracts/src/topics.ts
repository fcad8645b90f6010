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

/**
 * A topic's name in a deployment: `ENGRAM_TOPIC_PREFIX` before it (several deployments on one
 * cluster). The one place the prefix is applied; what reads or writes a deployment's topics
 * (the publisher, the stage transport, the replays, the CLI, `KafkaTurnProducer`) names them through it.
 */
export function deployedTopic(topicPrefix: string | undefined, topic: string): string {
  return `${topicPrefix ?? ''}${topic}`;
}

/**
 * A topic's name in a version of the log: version 1 is the name itself (every log from before
 * versions existed); `engram encrypt-log` writes version N as `<topic>.log<N>`.
 */
export function versionedTopic(topic: string, logVersion: number): string {
  if (!Number.isInteger(logVersion) || logVersion < 1) throw new Error(`invalid log version ${logVersion}`);
  return logVersion === 1 ? topic : `${topic}.log${logVersion}`;
}

/** The topic and log version a stored topic name stands for. */
export function topicVersionOf(name: string): { readonly topic: string; readonly logVersion: number } {
  const match = /^(.*)\.log([1-9]\d*)$/.exec(name);
  return match && Number(match[2]) > 1 ? { topic: match[1], logVersion: Number(match[2]) } : { topic: name, logVersion: 1 };
}
