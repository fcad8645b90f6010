import 'reflect-metadata';
import { Type } from 'class-transformer';
import { getMetadataStorage, ValidationTypes } from 'class-validator';

/**
 * A fast yes/no check compiled once per class-validator schema from the schema's own decorators.
 *
 * Why: `plainToInstance` + `validateSync` cost 25–90 µs per event (a deep copy, a metadata lookup
 * per object, a ValidationError tree even when nothing is wrong), and every event is validated again
 * by each consumer group and by every replay — 25 % of ingest CPU and 63 % of rebuild CPU. The compiled
 * check walks the plain object with the very constraint functions class-validator itself runs
 * (`getTargetValidatorConstraints(...).instance.validate`), so it agrees with class-validator on
 * every value those decorators see. It only answers "valid": when it says no, the caller runs
 * class-validator to word the error, so an invalid event is rejected with exactly the same
 * field-naming message as before. Anything the compiler does not know (a decorator outside
 * `KNOWN_CONSTRAINTS`, a nested type it was not told about, a Set or Map) makes it answer "no",
 * which falls back to class-validator: never a wrong acceptance, at worst the old speed.
 */

type FastCheck = (value: unknown) => boolean;

/** Built-in constraints whose validate() reads only the value and `args.constraints`. */
const KNOWN_CONSTRAINTS = new Set([
  'isString',
  'isNotEmpty',
  'maxLength',
  'isInt',
  'min',
  'max',
  'isIso8601',
  'isObject',
  'isIn',
  'isArray',
  'isBoolean',
  'isNumber',
  'arrayMaxSize',
]);

/** A schema class, or any class up its prototype chain (keys by identity). */
type SchemaClass = object;

const nestedTypes = new Map<SchemaClass, Map<string, () => new () => object>>();

/**
 * `@Type(() => X)` for class-transformer (what class-validator's nested validation sees after
 * plainToInstance), recorded so the compiled check knows which schema to validate the value with.
 */
export function NestedType(type: () => new () => object): PropertyDecorator {
  const transformer = Type(type);
  return (target, property) => {
    transformer(target, property);
    const owner = target.constructor;
    if (!nestedTypes.has(owner)) nestedTypes.set(owner, new Map());
    nestedTypes.get(owner)!.set(String(property), type);
  };
}

export function nestedTypeOf(schema: SchemaClass, property: string): (() => new () => object) | undefined {
  // Walk the prototype chain: a subclass schema inherits its parent's decorated properties.
  for (let owner: SchemaClass | null = schema; owner && owner !== Function.prototype; owner = Object.getPrototypeOf(owner)) {
    const type = nestedTypes.get(owner)?.get(property);
    if (type) return type;
  }
  return undefined;
}

const compiled = new Map<SchemaClass, FastCheck>();
const never: FastCheck = () => false;

const isCollection = (value: unknown): boolean => value instanceof Set || value instanceof Map;

/** The compiled check of one schema class (cached). Returns `never` for what it cannot compile. */
export function compiledCheck(schema: new () => object): FastCheck {
  let check = compiled.get(schema);
  if (!check) {
    // Placeholder first, so a self-referencing schema terminates (and falls back).
    compiled.set(schema, never);
    check = compile(schema) ?? never;
    compiled.set(schema, check);
  }
  return check;
}

/** Whether every event schema compiled (a unit spec holds this, so a new decorator cannot silently fall back). */
export function isCompiled(schema: new () => object): boolean {
  return compiledCheck(schema) !== never;
}

function compile(schema: new () => object): FastCheck | undefined {
  const storage = getMetadataStorage();
  // The same selection ValidationExecutor makes with default options (no groups, always: false).
  const metadatas = storage.getTargetValidationMetadatas(schema, '', false, false, undefined);
  if (metadatas.length === 0) return undefined; // forbidUnknownValues rejects a class without metadata
  const byProperty = new Map<string, typeof metadatas>();
  for (const m of metadatas) {
    if (!byProperty.has(m.propertyName)) byProperty.set(m.propertyName, []);
    byProperty.get(m.propertyName)!.push(m);
  }
  const properties: FastCheck[] = [];
  for (const [property, metas] of byProperty) {
    const conditions: ((object: object, value: unknown) => boolean)[] = [];
    const checks: FastCheck[] = [];
    for (const m of metas) {
      if (m.groups?.length || m.always !== undefined || m.validateIf) return undefined;
      if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) {
        conditions.push(m.constraints[0] as (object: object, value: unknown) => boolean);
      } else if (m.type === ValidationTypes.CUSTOM_VALIDATION) {
        const constraints = storage.getTargetValidatorConstraints(m.constraintCls);
        if (constraints.length !== 1 || constraints[0].async || !KNOWN_CONSTRAINTS.has(constraints[0].name)) return undefined;
        const instance = constraints[0].instance as { validate(value: unknown, args: object): boolean };
        const args = { constraints: m.constraints, property, targetName: schema.name };
        const validate: FastCheck = (value) => instance.validate(value, args) === true;
        // An instant as engram writes it (toISOString) is valid however the decorator is set: checked by
        // arithmetic, not validator's regex and Date round trip (~8x the time, on every date of every event).
        const one: FastCheck =
          constraints[0].name === 'isIso8601'
            ? (value) => (typeof value === 'string' && isPlainInstant(value)) || validate(value)
            : validate;
        checks.push(m.each ? (value) => (Array.isArray(value) ? value.every(one) : !isCollection(value) && one(value)) : one);
      } else if (m.type === ValidationTypes.NESTED_VALIDATION) {
        const type = nestedTypeOf(schema, property);
        if (!type) return undefined;
        const nested = type();
        const element: FastCheck = (value) =>
          typeof value === 'object' && value !== null && !Array.isArray(value) && !isCollection(value) && compiledCheck(nested)(value);
        // class-validator validates an array's elements, an object as itself, and rejects anything else.
        checks.push((value) => value === undefined || (Array.isArray(value) ? value.every(element) : element(value)));
      } else {
        return undefined;
      }
    }
    properties.push((object) => {
      const value = (object as Record<string, unknown>)[property];
      for (const condition of conditions) if (!condition(object as object, value)) return true;
      for (const check of checks) if (!check(value)) return false;
      return true;
    });
  }
  return (value) => {
    if (typeof value !== 'object' || value === null) return false;
    for (const property of properties) if (!property(value)) return false;
    return true;
  };
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digitsAt(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/**
 * `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.sssZ` naming a real instant, years 1000–9999 (what
 * `Date.prototype.toISOString` writes): validator's `isISO8601` accepts every such string, strict or
 * not (the unit spec holds this over every month, day and edge time). False says nothing: the caller
 * asks the validator.
 */
export function isPlainInstant(text: string): boolean {
  if (text.length !== 20 && text.length !== 24) return false;
  if (text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':' || text[16] !== ':' || text[text.length - 1] !== 'Z')
    return false;
  if (text.length === 24 && (text[19] !== '.' || digitsAt(text, 20, 23) < 0)) return false;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 7);
  const day = digitsAt(text, 8, 10);
  const hour = digitsAt(text, 11, 13);
  const minute = digitsAt(text, 14, 16);
  const second = digitsAt(text, 17, 19);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59)
    return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]);
}
