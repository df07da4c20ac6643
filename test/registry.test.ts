import { describe, expect, it } from 'vitest';
import { familyIds, familyInfo, resolveFamilyId } from '../src/index.js';

describe('family registry', () => {
  it('resolves every id and alias to its family', () => {
    for (const id of familyIds) {
      expect(resolveFamilyId(id)).toBe(id);
      for (const alias of familyInfo[id].aliases) expect(resolveFamilyId(alias)).toBe(id);
    }
    expect(resolveFamilyId('not-a-family')).toBeUndefined();
  });

  it('has no alias shared by two families', () => {
    const names = familyIds.flatMap((id) => [id, ...familyInfo[id].aliases]);
    expect(new Set(names).size).toBe(names.length);
  });
});
