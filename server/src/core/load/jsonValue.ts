// Plain questions about parsed JSON values, shared by the record loader (envelopes, arrays) and
// the field rules (validate.ts), so that both word a wrong value the same way.

/** A JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `k` is an own property of `o` (a JSON key, even one whose value is null). */
export const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** What kind of value `v` is, for a message: "null", "an array", "an object", "a string", "a number", … */
export function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

/** `v` for a message: its kind for null, arrays and objects; a string quoted (its first 40
 * characters); another scalar with its type (`number 42`, `boolean true`). */
export function describe(v: unknown): string {
  if (v === null || typeof v === 'object') return kindOf(v);
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  return `${typeof v} ${String(v)}`;
}
