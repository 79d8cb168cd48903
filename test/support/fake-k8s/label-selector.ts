/**
 * Label selectors as the API server parses them (`k8s.io/apimachinery/pkg/labels`): a comma list of
 * `key=value`, `key==value`, `key!=value`, `key`, `!key`, `key in (a,b)`, `key notin (a,b)`.
 */

type Requirement =
  | { op: 'eq' | 'ne'; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'exists' | 'absent'; key: string };

/** A parsed selector; `matches(labels)` tests one object's labels. */
export interface LabelSelector {
  matches(labels: Record<string, string> | undefined): boolean;
}

const KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`invalid label key "${key}"`);
  return key;
}

function checkValue(value: string): string {
  if (value.length > 63 || !VALUE.test(value)) throw new Error(`invalid label value: "${value}"`);
  return value;
}

function parseRequirement(part: string): Requirement {
  const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
  if (setMatch) {
    const values = (setMatch[3] ?? '').split(',').map((v) => checkValue(v.trim()));
    return { op: setMatch[2] as 'in' | 'notin', key: checkKey(setMatch[1] ?? ''), values };
  }
  const eqMatch = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(part);
  if (eqMatch) {
    const op = eqMatch[2] === '!=' ? 'ne' : 'eq';
    return { op, key: checkKey(eqMatch[1] ?? ''), value: checkValue(eqMatch[3] ?? '') };
  }
  if (part.startsWith('!')) return { op: 'absent', key: checkKey(part.slice(1).trim()) };
  return { op: 'exists', key: checkKey(part) };
}

/**
 * Parses `text` (empty = everything).
 * @throws Error naming the bad key or value, as the API server's 400 message does.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const requirements = splitTopLevel(text).map(parseRequirement);
  return {
    matches(labels) {
      const own = labels ?? {};
      return requirements.every((r) => {
        const has = Object.hasOwn(own, r.key);
        const value = own[r.key];
        switch (r.op) {
          case 'eq':
            return has && value === r.value;
          case 'ne':
            return !has || value !== r.value;
          case 'in':
            return has && r.values.includes(value as string);
          case 'notin':
            return !has || !r.values.includes(value as string);
          case 'exists':
            return has;
          case 'absent':
            return !has;
        }
      });
    },
  };
}
