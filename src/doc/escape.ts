/** HTML escaping: every piece of spec text goes through here before it reaches the page. */

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text content and attribute values alike (attributes are always double-quoted). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** A fragment identifier made of safe characters only. */
export function anchor(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-');
}
