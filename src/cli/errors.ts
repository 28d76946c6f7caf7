/** The one CLI error type: a message for the user and the exit code. Only main exits. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** Exit codes: 0 all good; 1 findings (errors, gaps, failed checks); 2 usage or unreadable input; 70 a bug in svcspec. */
export const EXIT = { ok: 0, findings: 1, usage: 2, internal: 70 } as const;
