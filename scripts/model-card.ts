/**
 * Sections of a model card (`models/<name>/card.md`) that a script writes and rewrites:
 * each is a Markdown `## ` heading with its body, replaced in place on each run so that the
 * other scripts' sections stay.
 */

/**
 * `text` with the section under `heading` (from the heading up to the next `## ` line or
 * the end) replaced by `heading` and `body`, or, when the card has no such section, with
 * it added at the end.
 * @param text the card (Markdown)
 * @param heading the section's heading line, `## ...`
 * @param body the section's text without its heading
 */
export function replaceCardSection(text: string, heading: string, body: string): string {
  const at = text.indexOf(heading);
  const before = at >= 0 ? text.slice(0, at) : text;
  const after = at >= 0 ? text.slice(at + heading.length).replace(/^[\s\S]*?(?=\n## |$)/, '') : '';
  return `${before.trimEnd()}\n\n${heading}\n\n${body}\n${after}`;
}
