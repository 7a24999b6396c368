// A process and its descendants, read from /proc (Linux): the fields of /proc/<pid>/stat, and the tree by parent pid.
import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is the state (field 3). */
export function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone (or no /proc)
  }
}

/** The process and all its descendants, parents first (a detached child leads its own group but is still a child). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  let names: string[] = [];
  try {
    names = readdirSync('/proc');
  } catch {
    /* no /proc: the process alone */
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = Number(statFields(name)?.[1]);
    if (ppid) children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}
