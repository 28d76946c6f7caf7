/**
 * One spelling of each option across commands (`-o/--output` for where a report or a document
 * goes, `--format` for its format). Earlier spellings still work and are not shown in --help:
 * scripts written against them keep running.
 */
export const RENAMED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  test: { out: 'output', report: 'format' },
};

/** The arguments with old option names written as the current ones (`--out=x` too). */
export function renameOptions(command: string, args: readonly string[]): string[] {
  const renames = RENAMED[command];
  if (!renames) return [...args];
  const out: string[] = [];
  let rest = false;
  for (const arg of args) {
    rest ||= arg === '--';
    const m = rest ? null : /^--([^=]+)(=.*)?$/.exec(arg);
    const to = m ? renames[m[1]] : undefined;
    out.push(to ? `--${to}${m![2] ?? ''}` : arg);
  }
  return out;
}
