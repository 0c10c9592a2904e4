/**
 * A small JSON Schema check for arguments a person edits before approving a tool call, so the
 * app can say what is wrong before anything is sent. It knows `type`, `required`, `properties`,
 * `additionalProperties: false`, `enum`, `const`, `items`, `minimum`/`maximum` and
 * `minLength`/`maxLength`; keywords it does not know pass (the run checks every call again with a
 * full validator before it runs).
 */
export function schemaProblems(value: unknown, schema: unknown, path = '(arguments)'): string[] {
  if (!isObject(schema)) return [];
  const problems: string[] = [];
  const types =
    typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  if (types.length > 0 && !types.some((type) => hasType(value, type))) {
    return [`${path} must be ${types.map((type) => article(String(type))).join(' or ')}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => sameJson(option, value)))
    problems.push(`${path} must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}`);
  if ('const' in schema && !sameJson(schema.const, value))
    problems.push(`${path} must be ${JSON.stringify(schema.const)}`);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      problems.push(`${path} must be at least ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      problems.push(`${path} must be at most ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength)
      problems.push(`${path} must have at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
      problems.push(`${path} must have at most ${schema.maxLength} characters`);
  }
  if (Array.isArray(value) && isObject(schema.items))
    value.forEach((item, index) => problems.push(...schemaProblems(item, schema.items, `${path}[${index}]`)));
  if (isObject(value)) problems.push(...objectProblems(value, schema, path));
  return problems;
}

function objectProblems(
  value: Record<string, unknown>,
  schema: Record<string, unknown>,
  path: string,
): string[] {
  const problems: string[] = [];
  const properties = isObject(schema.properties) ? schema.properties : {};
  const at = (key: string) => (path === '(arguments)' ? key : `${path}.${key}`);
  if (Array.isArray(schema.required))
    for (const key of schema.required)
      if (typeof key === 'string' && !(key in value)) problems.push(`${at(key)} is required`);
  for (const [key, item] of Object.entries(value)) {
    if (key in properties) problems.push(...schemaProblems(item, properties[key], at(key)));
    else if (schema.additionalProperties === false) problems.push(`${at(key)} is not a known argument`);
  }
  return problems;
}

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return true;
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
