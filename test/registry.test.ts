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

describe('one registry for render and parse', () => {
  it('gives every family a bundled template and a parser that knows its stop strings', async () => {
    const { existsSync } = await import('node:fs');
    const { families, getFamily } = await import('../src/index.js');
    for (const id of familyIds) {
      const family = families[id];
      expect(existsSync(family.templatePath), family.templatePath).toBe(true);
      expect(family.parser.id).toBe(id);
      expect(family.parser.stopStrings).toEqual(family.stopStrings);
    }
    expect(getFamily('harmony').id).toBe('gpt-oss');
    expect(() => getFamily('llama')).toThrow(/unknown family/);
  });
});
