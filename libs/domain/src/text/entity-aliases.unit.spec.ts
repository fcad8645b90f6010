import {
  buildAliasTable,
  DEFAULT_ENTITY_ALIASES,
  defaultAliasTable,
  expandQuery,
  findEntities,
  glossedPairs,
  learnAliases,
  parseAliasEntries,
} from './entity-aliases';

describe('entity aliases', () => {
  it('finds canonical entities in Chinese and English, longest name first, Latin on word boundaries', () => {
    expect(findEntities('我们用的是甲骨文数据库', defaultAliasTable)).toEqual(['Oracle']);
    expect(findEntities('We moved from Oracle to Postgres', defaultAliasTable)).toEqual(['Oracle', 'PostgreSQL']);
    expect(findEntities('部署在亚马逊云上，买书在亚马逊', defaultAliasTable)).toEqual(['AWS', 'Amazon']);
    expect(findEntities('the laws of physics', defaultAliasTable)).toEqual([]);
    expect(findEntities('微软和谷歌', defaultAliasTable)).toEqual(['Microsoft', 'Google']);
  });

  it('expands a query with the canonical names it mentions, once', () => {
    expect(expandQuery('甲骨文数据库的版本', defaultAliasTable)).toBe('甲骨文数据库的版本 Oracle');
    expect(expandQuery('which Oracle version', defaultAliasTable)).toBe('which Oracle version');
    expect(expandQuery('nothing known here', defaultAliasTable)).toBe('nothing known here');
  });

  it('takes configured aliases after the defaults without overriding them', () => {
    const table = buildAliasTable(DEFAULT_ENTITY_ALIASES, { Kubernetes: ['k8s'], Oracle: ['橡树'], Other: ['甲骨文'] });
    expect(findEntities('k8s 和 橡树 和 甲骨文', table)).toEqual(['Kubernetes', 'Oracle']);
    expect(findEntities('the other one', table)).toEqual(['Other']);
  });

  it('reads glosses: X（Y）, X (Y), X (aka Y)', () => {
    expect(glossedPairs('我们用的是大象库（PostgreSQL）做主库')).toEqual([['大象库', 'PostgreSQL']]);
    expect(glossedPairs('We run on Amazon Web Services (AWS) today')).toEqual([['Amazon Web Services', 'AWS']]);
    expect(glossedPairs('we use pg (aka PostgreSQL) for billing')).toEqual([['pg', 'PostgreSQL']]);
    // A one-off gloss is not a name (hence two sightings before it counts); numbers never are.
    expect(glossedPairs('他们（运维组）说了，[PHONE]（12）')).toEqual([['他们', '运维组']]);
  });

  it('learns an alias only once the same gloss was seen in two memories', () => {
    const once = learnAliases(['主库是白鲸（Blackwhale）'], defaultAliasTable, 2);
    expect(findEntities('白鲸', once)).toEqual([]);
    const twice = learnAliases(['主库是白鲸（Blackwhale）', '白鲸（Blackwhale）要升级'], defaultAliasTable, 2);
    expect(findEntities('白鲸挂了', twice)).toEqual(['Blackwhale']);
    expect(expandQuery('Blackwhale upgrade', twice)).toBe('Blackwhale upgrade 白鲸');
    expect(expandQuery('白鲸', twice)).toBe('白鲸 Blackwhale');
  });

  it('attaches a learned alias to the configured canonical name', () => {
    const table = learnAliases(['老甲（Oracle）', '老甲（Oracle）太贵'], defaultAliasTable, 2);
    expect(findEntities('老甲', table)).toEqual(['Oracle']);
    expect(expandQuery('甲骨文', table)).toBe('甲骨文 Oracle 老甲');
  });

  it('validates configured entries, naming the bad key', () => {
    expect(parseAliasEntries('{"Oracle": ["甲骨文"]}')).toEqual({ entries: { Oracle: ['甲骨文'] } });
    expect(parseAliasEntries('{"Oracle": "甲骨文"}')).toEqual({ problems: ['"Oracle" must map to a list of non-empty strings'] });
    expect('problems' in parseAliasEntries('not json')).toBe(true);
  });
});
