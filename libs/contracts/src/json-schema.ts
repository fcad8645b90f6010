import 'reflect-metadata';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { nestedTypeOf } from './compiled-validation';

/**
 * JSON Schema (draft-07, which AsyncAPI 3's default schema format extends) derived from the
 * class-validator decorators of the event schemas, so the published contract is the check the
 * stages run and cannot drift from it. Like the compiled check, it reads the decorators from
 * class-validator's metadata storage and models only the constraints it knows; anything else
 * (a new decorator, `ValidateIf`, groups, a nested object that is not also `@IsObject()`) throws,
 * so a schema change the generator cannot express fails its unit spec instead of publishing a
 * looser contract.
 *
 * Where they differ the schema is the narrower (never accepting what a stage would dead-letter;
 * the unit spec checks both ways): an `@IsISO8601()` instant is published as `format: date-time`
 * (RFC 3339, what engram writes), an element of a nested array must be an object (class-validator
 * would read an array there as a list of them), and `maxLength` counts code points where
 * class-validator counts UTF-16 units (so a text with emoji could pass the schema's bound and not
 * engram's: the SDK checks engram's).
 */

export type JsonSchema = { readonly [keyword: string]: unknown };

export type SchemaClass = new () => object;

/** How a schema class is named in the document, and how a reference to one is written. */
export interface SchemaNaming {
  name(schema: SchemaClass): string;
  ref(name: string): string;
}

export const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** `EnvelopeSchema` → `Envelope`, `MemoryRecordSchema` → `MemoryRecord`. */
export function schemaName(schema: SchemaClass): string {
  return schema.name.replace(/Schema$/, '');
}

interface PropertySchema {
  readonly schema: Record<string, unknown>;
  readonly required: boolean;
}

/**
 * The JSON Schema of one class-validator schema class. Classes nested in it (`@NestedType`) become
 * references named by `naming`; `nested` collects them so the caller can define each once.
 */
export function classJsonSchema(schema: SchemaClass, naming: SchemaNaming, nested: Set<SchemaClass> = new Set()): JsonSchema {
  const storage = getMetadataStorage();
  const metadatas = storage.getTargetValidationMetadatas(schema, '', false, false, undefined);
  if (metadatas.length === 0) throw new Error(`${schema.name} has no class-validator decorators`);
  const byProperty = new Map<string, typeof metadatas>();
  for (const m of metadatas) {
    if (!byProperty.has(m.propertyName)) byProperty.set(m.propertyName, []);
    byProperty.get(m.propertyName)!.push(m);
  }
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [property, metas] of byProperty) {
    const where = `${schema.name}.${property}`;
    const built = propertySchema(
      where,
      metas,
      (type) => {
        nested.add(type);
        return naming.ref(naming.name(type));
      },
      schema,
      property,
    );
    properties[property] = ordered(built.schema);
    if (built.required) required.push(property);
  }
  return { type: 'object', properties, required };
}

type Metadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

function propertySchema(
  where: string,
  metas: readonly Metadata[],
  refTo: (type: SchemaClass) => string,
  owner: SchemaClass,
  property: string,
): PropertySchema {
  const storage = getMetadataStorage();
  const own: Record<string, unknown> = {};
  const items: Record<string, unknown> = {};
  let optional = false;
  let nested: SchemaClass | undefined;
  const setType = (target: Record<string, unknown>, type: string) => {
    // integer is a number: @IsInt() with @Min() stays an integer.
    if (target.type !== undefined && target.type !== type && !(target.type === 'integer' && type === 'number')) {
      throw new Error(`${where}: conflicting types ${String(target.type)} and ${type}`);
    }
    if (target.type === undefined || type === 'integer') target.type = type;
  };
  for (const m of metas) {
    if (m.groups?.length || m.always !== undefined) throw new Error(`${where}: validation groups and 'always' are not modelled`);
    if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      if (m.name !== 'isOptional') throw new Error(`${where}: a conditional validation other than @IsOptional() is not modelled`);
      optional = true;
    } else if (m.type === ValidationTypes.NESTED_VALIDATION) {
      const type = nestedTypeOf(owner, property);
      if (!type) throw new Error(`${where}: @ValidateNested() without @NestedType()`);
      nested = type();
    } else if (m.type === ValidationTypes.CUSTOM_VALIDATION) {
      const constraints = storage.getTargetValidatorConstraints(m.constraintCls);
      if (constraints.length !== 1) throw new Error(`${where}: a custom validator is not modelled`);
      const target = m.each ? items : own;
      const args = m.constraints ?? [];
      switch (constraints[0].name) {
        case 'isString':
          setType(target, 'string');
          break;
        case 'isNotEmpty':
          target.minLength = 1;
          break;
        case 'maxLength':
          target.maxLength = args[0];
          break;
        case 'isInt':
          setType(target, 'integer');
          break;
        case 'isNumber':
          setType(target, 'number');
          break;
        case 'min':
          target.minimum = args[0];
          break;
        case 'max':
          target.maximum = args[0];
          break;
        case 'isIso8601':
          setType(target, 'string');
          target.format = 'date-time';
          break;
        case 'isObject':
          setType(target, 'object');
          break;
        case 'isBoolean':
          setType(target, 'boolean');
          break;
        case 'isIn':
          target.enum = [...(args[0] as readonly unknown[])];
          break;
        case 'isArray':
          setType(target, 'array');
          break;
        case 'arrayMaxSize':
          target.maxItems = args[0];
          break;
        default:
          throw new Error(`${where}: @${constraints[0].name} is not modelled by the JSON Schema generator`);
      }
    } else {
      throw new Error(`${where}: validation type ${m.type} is not modelled`);
    }
  }
  const isArray = own.type === 'array';
  if (Object.keys(items).length > 0 && !isArray) throw new Error(`${where}: { each: true } needs @IsArray()`);
  if (nested) {
    // class-validator validates an array's elements or an object as itself: the property's own
    // type (@IsArray or @IsObject) says which, so the schema can say exactly one.
    if (isArray) Object.assign(items, { $ref: refTo(nested) });
    else if (own.type === 'object') {
      delete own.type;
      own.$ref = refTo(nested);
    } else throw new Error(`${where}: @ValidateNested() needs @IsArray() or @IsObject() to say what it holds`);
  }
  if (isArray && Object.keys(items).length > 0) own.items = items;
  // @IsOptional() skips null as well as undefined: an optional field may be absent or null.
  return { schema: optional ? nullable(own) : own, required: !optional };
}

/** Keywords in reading order (class-validator hands the decorators over last first). */
const KEYWORD_ORDER = [
  '$ref',
  'anyOf',
  'type',
  'format',
  'const',
  'enum',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'items',
  'maxItems',
];

function ordered(schema: Record<string, unknown>): Record<string, unknown> {
  const rank = (key: string) => (KEYWORD_ORDER.includes(key) ? KEYWORD_ORDER.indexOf(key) : KEYWORD_ORDER.length);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema).sort((a, b) => rank(a) - rank(b))) {
    const value = schema[key];
    out[key] = key === 'items' && typeof value === 'object' && value !== null ? ordered(value as Record<string, unknown>) : value;
  }
  return out;
}

function nullable(schema: Record<string, unknown>): Record<string, unknown> {
  if (schema.$ref !== undefined) return { anyOf: [{ $ref: schema.$ref }, { type: 'null' }] };
  const out: Record<string, unknown> = { ...schema };
  if (out.type !== undefined) out.type = [out.type, 'null'];
  if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  return out;
}
