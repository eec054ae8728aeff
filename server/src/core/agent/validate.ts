// Arguments of agent tools checked against their JSON schema (the subset the tools use: an object
// of string / integer / number / boolean properties with required, minimum, maximum, minLength,
// maxLength and no other properties). A model sends whatever it likes: every rule gives one clear
// sentence naming the argument, so the agent can correct its call.

export interface PropertySchema {
  type: 'string' | 'integer' | 'number' | 'boolean';
  description: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
}

export interface ObjectSchema {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required?: string[];
  additionalProperties: false;
}

/** Why `args` does not fit `schema` (one sentence), or undefined. */
export function argumentProblem(schema: ObjectSchema, args: unknown): string | undefined {
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) return 'the arguments must be a JSON object';
  const a = args as Record<string, unknown>;
  const known = Object.keys(schema.properties);
  for (const k of Object.keys(a)) {
    if (!(k in schema.properties)) return `unknown argument '${k}' (expected ${known.length ? known.map((x) => `'${x}'`).join(', ') : 'none'})`;
  }
  for (const r of schema.required ?? []) if (a[r] === undefined || a[r] === null) return `missing required argument '${r}'`;
  for (const [k, p] of Object.entries(schema.properties)) {
    const v = a[k];
    if (v === undefined || v === null) continue;
    switch (p.type) {
      case 'string':
        if (typeof v !== 'string') return `'${k}' must be a string, not ${describe(v)}`;
        if (p.minLength !== undefined && v.length < p.minLength) return p.minLength === 1 ? `'${k}' must not be empty` : `'${k}' must have at least ${p.minLength} characters`;
        if (p.maxLength !== undefined && v.length > p.maxLength) return `'${k}' is too long (${v.length} characters, at most ${p.maxLength})`;
        break;
      case 'boolean':
        if (typeof v !== 'boolean') return `'${k}' must be true or false, not ${describe(v)}`;
        break;
      case 'integer':
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v)) return `'${k}' must be a number, not ${describe(v)}`;
        if (p.type === 'integer' && !Number.isInteger(v)) return `'${k}' must be a whole number, not ${v}`;
        if (p.minimum !== undefined && v < p.minimum) return `'${k}' must be at least ${p.minimum}, not ${v}`;
        if (p.maximum !== undefined && v > p.maximum) return `'${k}' must be at most ${p.maximum}, not ${v}`;
        break;
    }
  }
  return undefined;
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}
