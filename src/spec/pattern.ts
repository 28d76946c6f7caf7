/**
 * Field patterns are ECMA-262 regular expressions compiled with the `u` flag, as JSON
 * Schema validators compile them. One reading of that rule for check, serve and export.
 */

/** Why a pattern does not compile, or undefined when it does. */
export function patternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (error) {
    // "Invalid regular expression: /(/u: Unterminated group" -> "unterminated group"
    const text = String((error as Error).message);
    const reason = text.slice(text.lastIndexOf(': ') + 2);
    return reason.charAt(0).toLowerCase() + reason.slice(1);
  }
}

/** Whether a pattern compiles; one that does not is reported by check (field-pattern-invalid) and left out elsewhere. */
export function validPattern(pattern: string): boolean {
  return patternProblem(pattern) === undefined;
}
