import { describe, expect, it } from 'vitest';
import { DISTILLED_EMBEDDER_ID, STATIC_EMBEDDER_ID } from '../../core/embed/static';
import { defaultIndexSettings } from '../library-service';
import { truncationNote } from './Controls';

describe('the transformer truncation note', () => {
  const at = (embedderId: string, wordsPerFragment: number) =>
    truncationNote({ ...defaultIndexSettings, embedderId, wordsPerFragment });

  it('warns when a transformer meets fragments longer than its 512 pieces', () => {
    expect(at('all-MiniLM-L6-v2', 500)).toMatch(/first 512 word pieces.*500 words/);
    expect(at('all-MiniLM-L6-v2', 800)).toMatch(/not embedded/);
  });

  it('says nothing for fragments it reads whole, or for static vectors', () => {
    expect(at('all-MiniLM-L6-v2', 200)).toBeNull();
    expect(at(STATIC_EMBEDDER_ID, 500)).toBeNull();
    expect(at(DISTILLED_EMBEDDER_ID, 800)).toBeNull();
  });
});
