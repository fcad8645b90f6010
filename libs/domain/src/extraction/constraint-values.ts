/**
 * The values a standing constraint's item may carry besides its thing (docs/memory-model.md §2, §3).
 * Both strategies write them, the resolver reads them: they are part of what an item means.
 */

/** A food or drink a person does not take ("我不吃香菜", "I don't drink"): a preference that constrains every meal. */
export const AVOIDED = 'avoid';

/**
 * The constraint does not hold (any more): "我可以用青霉素" after "我对青霉素过敏", "I can eat peanuts
 * now", "我不吃素了". An item of a constraint's key (`allergy:青霉素`, `preference:香菜`) with this
 * value denies the constraint on that thing; the resolver lands it on the constraint it denies.
 */
export const NOT_HELD = 'none';
