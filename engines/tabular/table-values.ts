// Turns a table's header into a plan of nested variable names (customer.name, items.0.qty) and one row's cells into
// that row's variables: empty cells are left out, JSON cells become their value, and no name can reach a prototype.
import { TableFileError } from './table-file-error.js';

/** Names that would reach Object.prototype (or a constructor) when used as a key by careless code downstream. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
/** Highest list index a column name may use (items.999.name). */
const MAX_INDEX = 999;

type PlanNode =
  | { kind: 'leaf'; column: number; name: string; path: string }
  | { kind: 'object'; column: number; name: string; path: string; children: Map<string, PlanNode> }
  | { kind: 'array'; column: number; name: string; path: string; children: Map<number, PlanNode> };
// `column` and `name` are those of the first column that passes through the node (for messages), `path` its own dotted path.

/** The header, checked and arranged as a tree; `build` makes one row's variables from it. */
export interface HeaderPlan {
  width: number;
  build(cells: readonly unknown[]): Record<string, unknown>;
}

function headerError(message: string): TableFileError {
  return new TableFileError('VALIDATION_FAILED', `the header ${message}`);
}

const describe = (column: number, name: string) => `column ${column + 1} (${name})`;

/** Checks the header row's names and plans the nesting; a name problem is an error of the whole file. */
export function planHeader(names: readonly string[]): HeaderPlan {
  const root: PlanNode = { kind: 'object' as const, column: -1, name: '', path: '', children: new Map() };
  const seen = new Map<string, number>();
  names.forEach((raw, column) => {
    const name = raw.trim();
    if (name === '') throw headerError(`has no name in column ${column + 1}; every column needs a variable name`);
    const earlier = seen.get(name);
    if (earlier !== undefined) throw headerError(`names two columns ${name}: column ${earlier + 1} and column ${column + 1}`);
    seen.set(name, column);
    const segments = name.split('.');
    let node: PlanNode = root;
    segments.forEach((segment, depth) => {
      if (segment === '') throw headerError(`${describe(column, name)} has an empty part between dots`);
      if (FORBIDDEN.has(segment)) throw headerError(`${describe(column, name)} uses the reserved name ${segment}`);
      // The first part is always a variable name; later all-digit parts are list positions.
      const isIndex = depth > 0 && /^\d+$/.test(segment);
      if (isIndex && !/^(0|[1-9]\d*)$/.test(segment)) throw headerError(`${describe(column, name)} has the list position ${segment}; write it without leading zeros`);
      if (isIndex && Number(segment) > MAX_INDEX) throw headerError(`${describe(column, name)} has the list position ${segment}; at most ${MAX_INDEX} is accepted`);
      const path = node.path;
      if (node.kind === 'leaf') throw headerError(`${describe(node.column, node.name)} and ${describe(column, name)} conflict: ${node.name} is a value and cannot also hold ${name}`);
      if (node.kind === 'object' && isIndex && node.children.size > 0) {
        const other = first(node);
        throw headerError(`${describe(other.column, other.name)} and ${describe(column, name)} conflict: ${path} cannot be both an object and a list`);
      }
      if (node.kind === 'array' && !isIndex) {
        const other = first(node);
        throw headerError(`${describe(other.column, other.name)} and ${describe(column, name)} conflict: ${path} cannot be both a list and an object`);
      }
      if (node.kind === 'object' && isIndex) Object.assign(node, { kind: 'array', children: new Map<number, PlanNode>() });
      const last = depth === segments.length - 1;
      const children = node.children as Map<string | number, PlanNode>;
      const key = isIndex ? Number(segment) : segment;
      let child = children.get(key);
      if (child && last) throw headerError(`${describe(child.column, child.name)} and ${describe(column, name)} conflict: ${name} is a value and cannot also hold ${child.name}`);
      if (!child) {
        const childPath = segments.slice(0, depth + 1).join('.');
        child = last ? { kind: 'leaf', column, name, path: childPath } : { kind: 'object', column, name, path: childPath, children: new Map() };
        children.set(key, child);
      }
      node = child;
    });
  });
  checkGaps(root);
  return { width: names.length, build: (cells) => (buildNode(root, cells) as Record<string, unknown> | undefined) ?? {} };
}

function first(node: PlanNode & { kind: 'object' | 'array' }): PlanNode {
  return (node.children as Map<unknown, PlanNode>).values().next().value as PlanNode;
}

/** List positions must run from 0 without gaps, so that a typo (items.2 for items.1) is noticed. */
function checkGaps(node: PlanNode): void {
  if (node.kind === 'leaf') return;
  if (node.kind === 'array') {
    const size = Math.max(...node.children.keys()) + 1;
    for (let i = 0; i < size; i++) {
      if (!node.children.has(i)) {
        const after = [...node.children.entries()].find(([k]) => k > i)![1];
        throw headerError(`${describe(after.column, after.name)} skips a list position: ${node.path} has no column for position ${i}; positions run from 0 without gaps`);
      }
    }
  }
  for (const child of node.children.values()) checkGaps(child);
}

/** One row's value for a plan node, or undefined when every cell below it is empty. */
function buildNode(node: PlanNode, cells: readonly unknown[]): unknown {
  if (node.kind === 'leaf') return cellValue(cells[node.column]);
  if (node.kind === 'array') {
    // Positions with no value are dropped: a row with two of five item lines filled has two items.
    const out: unknown[] = [];
    for (const key of [...node.children.keys()].sort((a, b) => a - b)) {
      const v = buildNode(node.children.get(key)!, cells);
      if (v !== undefined) out.push(v);
    }
    return out.length ? out : undefined;
  }
  const out: Record<string, unknown> = {};
  let any = false;
  for (const [key, child] of node.children) {
    const v = buildNode(child, cells);
    if (v === undefined) continue;
    // The key was checked against FORBIDDEN; defineProperty also never calls a setter on the way.
    Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    any = true;
  }
  return any ? out : undefined;
}

/** A cell's variable value: empty is absent; a string that parses as a JSON object or array is that value. */
function cellValue(cell: unknown): unknown {
  if (cell === undefined || cell === null || cell === '') return undefined;
  if (typeof cell !== 'string') return cell;
  const t = cell.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return cell;
    }
  }
  return cell;
}

/** The path of the first reserved key (__proto__, constructor, prototype) anywhere in a JSON value, or undefined. */
export function reservedKeyPath(value: unknown): string | undefined {
  // An explicit stack: a deeply nested value must not overflow the call stack.
  const stack: Array<{ v: unknown; path: string }> = [{ v: value, path: '' }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    for (const key of Object.keys(v)) {
      const p = path ? `${path}.${key}` : key;
      if (FORBIDDEN.has(key)) return p;
      stack.push({ v: (v as Record<string, unknown>)[key], path: p });
    }
  }
  return undefined;
}
