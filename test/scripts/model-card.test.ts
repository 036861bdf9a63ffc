/**
 * Model-card sections written by the training and report scripts (scripts/model-card.ts).
 */
import { describe, expect, it } from 'vitest';
import { replaceCardSection } from '../../scripts/model-card.ts';

const CARD = '# m\n\nintro\n\n## Second stage\n\nold stage\n\n## Held-out score per label\n\nold scores\n';

describe('replaceCardSection', () => {
  it('replaces a section in place and keeps the sections after it (regression: rerunning the second stage alone dropped the held-out scores)', () => {
    expect(replaceCardSection(CARD, '## Second stage', 'new stage'))
      .toBe('# m\n\nintro\n\n## Second stage\n\nnew stage\n\n## Held-out score per label\n\nold scores\n');
  });
  it('replaces the last section up to the end', () => {
    expect(replaceCardSection(CARD, '## Held-out score per label', 'new scores'))
      .toBe('# m\n\nintro\n\n## Second stage\n\nold stage\n\n## Held-out score per label\n\nnew scores\n');
  });
  it('adds a section the card does not have at the end', () => {
    expect(replaceCardSection('# m\n\nintro\n', '## News', 'rows')).toBe('# m\n\nintro\n\n## News\n\nrows\n');
  });
});
