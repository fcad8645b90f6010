import { recalledContents, saidAmong } from '../support/days-apart';
import { EngramHarness, startEngram } from '../support/engram-harness';

/**
 * Meaning across words within English in the default mode (issue 30, point 6): the hashing
 * embedder, no model server; WordNet, beside CC-CEDICT in the default ENGRAM_LEXICON=cedict+wordnet,
 * is what knows that a physician is a doctor and that a plane that lands arrives. Each memory is
 * said among other things the user said; the question shares no word with it. A Chinese question
 * meets an English memory through both: 沙发 is "sofa" (CC-CEDICT), which a couch is (WordNet).
 */
describe('meaning across English words (HTTP, default embedder)', () => {
  let engram: EngramHarness;

  beforeAll(async () => {
    engram = await startEngram();
  });
  afterAll(async () => engram.destroy());

  const SMALL_TALK = [
    'Our team meets every Wednesday afternoon',
    'I prefer VS Code for writing code',
    'Might go hiking this weekend if the weather holds',
  ];

  let user = 0;
  /** A fresh user who said `statement` among the small talk. */
  const userWhoSaid = (statement: string, on = engram) => saidAmong(on, `p${++user}`, statement, SMALL_TALK);
  const recall = (said: { userId: string; after: string }, query: string, on = engram) => recalledContents(on, said, query);

  it('a question finds what was said with a synonym', async () => {
    const doctor = await userWhoSaid('My physician told me to cut down on salt');
    expect((await recall(doctor, 'What did my doctor tell me?'))[0]).toContain('physician');
    const car = await userWhoSaid("I'm saving up for a new automobile");
    expect((await recall(car, 'What car do I want to buy?'))[0]).toContain('automobile');
  });

  it('a question finds what was said more specifically: a plane that lands arrives', async () => {
    const said = await userWhoSaid('Our plane lands in Lisbon at 9 pm on Friday');
    expect((await recall(said, 'When do we arrive?'))[0]).toContain('lands in Lisbon');
  });

  it('a Chinese question finds an English synonym of its English: 沙发 "sofa" and a couch', async () => {
    const said = await userWhoSaid('We finally bought a grey couch for the living room');
    expect((await recall(said, 'What colour is our sofa?'))[0]).toContain('grey couch');
    expect((await recall(said, '我们的沙发是什么颜色的？'))[0]).toContain('grey couch');
  });

  it('a question about something never said still finds nothing', async () => {
    const said = await userWhoSaid('My physician told me to cut down on salt');
    expect(await recall(said, 'Which bank do I use?')).toEqual([]);
  });

  describe('without WordNet (ENGRAM_LEXICON=cedict)', () => {
    let bilingualOnly: EngramHarness;

    beforeAll(async () => {
      bilingualOnly = await startEngram({ env: { ENGRAM_LEXICON: 'cedict' } });
    });
    afterAll(async () => bilingualOnly.destroy());

    it('the words share nothing, so the question finds nothing', async () => {
      const said = await userWhoSaid('My physician told me to cut down on salt', bilingualOnly);
      expect(await recall(said, 'What did my doctor tell me?', bilingualOnly)).toEqual([]);
    });
  });
});
