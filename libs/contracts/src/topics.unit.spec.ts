import { ALL_TOPICS, deployedTopic, Topics, topicVersionOf, versionedTopic } from './topics';

describe('topics by log version', () => {
  it('names version 1 as the topic itself and version N as <topic>.log<N>, and reads either back', () => {
    for (const topic of [...ALL_TOPICS, 'memory.turns.v1.dlq', 'engram-it.memory.reprocess.v2-20261130t090000000z']) {
      expect(versionedTopic(topic, 1)).toBe(topic);
      expect(topicVersionOf(topic)).toEqual({ topic, logVersion: 1 });
      expect(versionedTopic(topic, 2)).toBe(`${topic}.log2`);
      expect(topicVersionOf(versionedTopic(topic, 12))).toEqual({ topic, logVersion: 12 });
    }
    // `.log1` is no version suffix (version 1 has none): the name stands for itself.
    expect(topicVersionOf('memory.turns.v1.log1')).toEqual({ topic: 'memory.turns.v1.log1', logVersion: 1 });
    expect(() => versionedTopic('memory.turns.v1', 0)).toThrow(/invalid log version/);
  });
});

describe('topics in a deployment', () => {
  it('puts ENGRAM_TOPIC_PREFIX before the name, and nothing when there is none', () => {
    expect(deployedTopic('acme.', Topics.turns)).toBe('acme.memory.turns.v1');
    expect(deployedTopic('', Topics.facts)).toBe('memory.facts.v1');
    expect(deployedTopic(undefined, Topics.facts)).toBe('memory.facts.v1');
    // A version of the log is a suffix of the deployed name, so producers and engram agree on both.
    expect(versionedTopic(deployedTopic('acme.', Topics.turns), 2)).toBe('acme.memory.turns.v1.log2');
  });
});
