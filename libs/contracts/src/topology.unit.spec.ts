import { TOPIC_CATALOGUE, topicEvents } from './topic-catalogue';
import { PROJECTIONS, readPath, STAGES, StageDeclaration } from './topology';
import { Topics } from './topics';

const stages = Object.values(STAGES) as readonly StageDeclaration[];
const contractOf = (topic: string) => TOPIC_CATALOGUE.find((c) => c.topic === topic)!;

describe('the topology', () => {
  it('has each stage act only on events its input topic carries, and write a topic its service sends', () => {
    for (const stage of stages) {
      expect(topicEvents(contractOf(stage.input))).toEqual(expect.arrayContaining([...stage.handles]));
      if ('output' in stage && stage.output) {
        expect(contractOf(stage.output).senders.map((s) => s.service)).toContain(stage.service);
      }
    }
  });

  it('names every group once', () => {
    const groups = [...stages.map((s) => s.group), PROJECTIONS.facts.group];
    expect(new Set(groups).size).toBe(groups.length);
  });

  it('feeds each projection but facts from a stage reading its input', () => {
    for (const projection of Object.values(PROJECTIONS)) {
      if (projection.name === 'facts') continue;
      expect(stages.find((s) => s.group === projection.group)?.input).toBe(projection.input);
    }
  });

  it('waits, on the read path, for every stage but access, topic by topic in pipeline order', () => {
    expect(readPath()).toEqual([
      { topic: Topics.turns, groups: ['filter'] },
      { topic: Topics.screened, groups: ['extractor', 'sessions'] },
      { topic: Topics.extracted, groups: ['resolver'] },
      { topic: Topics.facts, groups: ['indexer'] },
    ]);
  });
});
