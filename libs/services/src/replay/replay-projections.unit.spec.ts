import 'reflect-metadata';
import { EngramConfig, engramOptions } from '@engram/config';
import { PROJECTION_NAMES, PROJECTIONS } from '@engram/contracts';
import { HashingEmbedder } from '@engram/embedding';
import { EventLog, FactStore, ProjectionVersions, SearchIndex, SessionStore, VERSIONED_PROJECTIONS } from '@engram/ports';
import { EngramMetrics } from '../observability/metrics';
import { EntityAliases } from '../pipeline/entity-aliases.provider';
import { EventPublisher } from '../pipeline/event-publisher';
import { ReplayProjections } from './replay-projections';

const versions = <T>(projection: string) => ({ projection }) as unknown as ProjectionVersions<T>;

describe('the projections replays build', () => {
  const options = engramOptions(Object.assign(new EngramConfig(), { ENGRAM_TOPIC_PREFIX: 'acme.' }));
  const projections = new ReplayProjections(
    versions<FactStore>('facts'),
    versions<SessionStore>('sessions'),
    versions<SearchIndex>('search'),
    new HashingEmbedder(8),
    new EventPublisher({} as EventLog, options.pipeline, new EngramMetrics()),
    new EntityAliases(options.entityAliases),
  );

  it('are the versioned projections of the topology, in the ports’ order', () => {
    expect(PROJECTION_NAMES.filter((name) => PROJECTIONS[name].versioned)).toEqual([...VERSIONED_PROJECTIONS]);
  });

  it('read their declared input topic under the deployment prefix, and write the store of the version they are given', () => {
    for (const name of VERSIONED_PROJECTIONS) {
      expect(projections.topic(name)).toBe(`acme.${PROJECTIONS[name].input}`);
      expect(projections.versions(name)).toMatchObject({ projection: name });
      expect(projections.over(name, {}).name).toBe(name);
    }
  });
});
