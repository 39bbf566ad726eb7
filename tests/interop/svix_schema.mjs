// Validates a JSON value against a schema of Svix's OpenAPI document (the pieces committed in
// svix-openapi/schemas.json, with their source commit). Covers the keywords those schemas use:
// type (with OpenAPI's `nullable`), required, properties, additionalProperties, items, enum,
// $ref, anyOf/oneOf, minimum/maximum, minLength/maxLength, pattern, format date-time.
// Returns the list of problems ([] = valid), each naming the JSON path.
import { readFileSync } from 'node:fs';

const document = JSON.parse(readFileSync(new URL('./svix-openapi/schemas.json', import.meta.url)));
const REF = '#/components/schemas/';

function typeOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function resolve(schema) {
  if (!schema.$ref) return schema;
  const name = schema.$ref.slice(REF.length);
  const found = document.schemas[name];
  if (!found) throw new Error(`schema ${name} is not in svix-openapi/schemas.json`);
  return { ...found, ...(schema.nullable ? { nullable: true } : {}) };
}

function check(value, rawSchema, path, problems) {
  const schema = resolve(rawSchema);
  if (value === null && schema.nullable) return;
  for (const key of ['anyOf', 'oneOf']) {
    if (!schema[key]) continue;
    const passing = schema[key].filter((s) => check(value, s, path, []).length === 0);
    if (passing.length === 0) problems.push(`${path}: matches none of ${key}`);
    return problems;
  }
  const type = typeOf(value);
  if (schema.type) {
    const ok = schema.type === type || (schema.type === 'number' && type === 'integer');
    if (!ok) {
      problems.push(`${path}: is ${type}, the schema wants ${schema.type}`);
      return problems;
    }
  }
  if (schema.enum && !schema.enum.includes(value)) problems.push(`${path}: ${value} not in enum`);
  if (type === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) problems.push(`${path}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) problems.push(`${path}: longer than ${schema.maxLength}`);
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) problems.push(`${path}: does not match ${schema.pattern}`);
    if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) problems.push(`${path}: not a date-time`);
  }
  if (type === 'integer' || type === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${path}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${path}: above ${schema.maximum}`);
  }
  if (type === 'array' && schema.items) value.forEach((item, i) => check(item, schema.items, `${path}[${i}]`, problems));
  if (type === 'object') {
    for (const name of schema.required ?? []) {
      if (!(name in value)) problems.push(`${path}: misses required ${name}`);
    }
    for (const [name, item] of Object.entries(value)) {
      const property = schema.properties?.[name];
      if (property) check(item, property, `${path}.${name}`, problems);
      else if (typeof schema.additionalProperties === 'object') check(item, schema.additionalProperties, `${path}.${name}`, problems);
    }
  }
  return problems;
}

// Problems of `value` against the named schema (e.g. 'HTTPValidationError'); [] = valid.
export function svixSchemaProblems(name, value) {
  return check(value, { $ref: REF + name }, name, []);
}
