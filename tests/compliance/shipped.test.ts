import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_DATA_DIR, GDPR_SOURCE, NIST_SOURCE, buildAll, formexText, gdprArticleKind, nistCode, parseXml,
} from '../../scripts/build-packages';
import { validatePackage } from '../../src/modules/compliance/packages-service';
import { SHIPPED_PACKAGES, findShippedPackage, loadShippedPackage, shippedPackageFile } from '../../src/modules/compliance/shipped';

const countKinds = (key: string) => {
  const counts = { heading: 0, requirement: 0, additional: 0 };
  for (const item of loadShippedPackage(findShippedPackage(key)).items) counts[item.kind as keyof typeof counts] += 1;
  return counts;
};

describe('shipped packages', () => {
  test('NIST SP 800-53 rev5 moderate: 18 family headings and 287 controls and enhancements', () => {
    expect(countKinds('nist-800-53-rev5-moderate')).toEqual({ heading: 18, requirement: 287, additional: 0 });
    const pkg = loadShippedPackage(findShippedPackage('nist-800-53-rev5-moderate'));
    const byCode = new Map(pkg.items.map((item) => [item.code, item]));
    expect(byCode.get('AC')).toMatchObject({ name: 'Access Control', kind: 'heading', parentCode: null });
    expect(byCode.get('AC-2')).toMatchObject({ name: 'Account Management', parentCode: 'AC', kind: 'requirement' });
    expect(byCode.get('AC-2(1)')).toMatchObject({ parentCode: 'AC-2', kind: 'requirement' });
    // Parameters are resolved: no OSCAL insert markup is left, assignments read as the publication prints them.
    expect(byCode.get('AC-2(1)')!.description).toBe('Support the management of system accounts using [Assignment: organization-defined automated mechanisms].');
    expect(pkg.items.some((item) => item.description?.includes('{{'))).toBe(false);
    // 177 controls sit under a family heading, 110 enhancements under a control.
    const parentKinds = pkg.items.filter((item) => item.kind === 'requirement').map((item) => byCode.get(item.parentCode!)!.kind);
    expect(parentKinds.filter((kind) => kind === 'heading')).toHaveLength(177);
    expect(parentKinds.filter((kind) => kind === 'requirement')).toHaveLength(110);
  });

  test('GDPR: 11 chapter headings and 99 articles, 40 requirements and 59 additional', () => {
    expect(countKinds('gdpr')).toEqual({ heading: 11, requirement: 40, additional: 59 });
    const pkg = loadShippedPackage(findShippedPackage('gdpr'));
    const requirements = pkg.items.filter((item) => item.kind === 'requirement').map((item) => Number(item.code.replace('Art. ', '')));
    const expected = [...range(5, 11), ...range(12, 22), ...range(24, 39), ...range(44, 49)];
    expect(requirements).toEqual(expected);
    const art5 = pkg.items.find((item) => item.code === 'Art. 5')!;
    expect(art5).toMatchObject({ name: 'Principles relating to processing of personal data', parentCode: 'Chapter II' });
    expect(art5.description).toStartWith('1. Personal data shall be:\n(a) processed lawfully, fairly and in a transparent manner');
    expect(pkg.items.find((item) => item.code === 'Chapter XI')).toMatchObject({ name: 'Final provisions', kind: 'heading' });
  });

  test('every item has a description or is a heading, and every parentCode resolves to an earlier item', () => {
    for (const shipped of SHIPPED_PACKAGES) {
      const pkg = loadShippedPackage(shipped);
      expect(validatePackage(pkg), shipped.key).toEqual([]);
      const seen = new Set<string>();
      for (const item of pkg.items) {
        if (item.parentCode !== null) expect(seen.has(item.parentCode!), `${shipped.key} ${item.code} → ${item.parentCode}`).toBe(true);
        if (item.kind !== 'heading') expect(item.description?.length ?? 0, `${shipped.key} ${item.code}`).toBeGreaterThan(0);
        seen.add(item.code);
      }
    }
  });

  test.skipIf(!existsSync(join(DEFAULT_DATA_DIR, NIST_SOURCE)) || !existsSync(join(DEFAULT_DATA_DIR, GDPR_SOURCE)))(
    'the committed files are exactly what scripts/build-packages.ts generates (deterministic, not hand-edited)', () => {
      const first = buildAll(DEFAULT_DATA_DIR);
      expect(buildAll(DEFAULT_DATA_DIR)).toEqual(first);
      for (const shipped of SHIPPED_PACKAGES) expect(first[shipped.file], shipped.file).toBe(readFileSync(shippedPackageFile(shipped), 'utf8'));
    });
});

describe('build-packages helpers', () => {
  test('NIST identifiers are written as the publication writes them', () => {
    expect(nistCode('ac-2')).toBe('AC-2');
    expect(nistCode('sc-7.21')).toBe('SC-7(21)');
    expect(() => nistCode('ac-2_smt')).toThrow('Unexpected OSCAL control id');
  });

  test('the XML reader keeps numbers with their text, restores quotes, decodes entities and leaves footnotes out', () => {
    const root = parseXml(`<?xml version="1.0"?><A><!-- c --><PARAG><NO.PARAG>1.</NO.PARAG><ALINEA>Fish &amp; <QUOT.START/>chips<QUOT.END/>&#x2019;s<NOTE><P>OJ L 1</P></NOTE>;</ALINEA></PARAG><?PAGE NO='3'?><PARAG><NO.PARAG>2.</NO.PARAG><ALINEA><P>List:</P><LIST><ITEM><NP><NO.P>(a)</NO.P><TXT>one</TXT></NP></ITEM></LIST></ALINEA></PARAG></A>`);
    expect(formexText(root)).toBe('1. Fish & ‘chips’’s;\n2. List:\n(a) one');
    expect(() => parseXml('<A><B></A></B>')).toThrow('does not close');
    expect(() => parseXml('<A>&nbsp;</A>')).toThrow('Unknown XML entity');
  });

  test('GDPR article kinds follow the issue ranges', () => {
    expect([4, 5, 11, 12, 22, 23, 24, 39, 40, 43, 44, 49, 50].map(gdprArticleKind)).toEqual([
      'additional', 'requirement', 'requirement', 'requirement', 'requirement', 'additional', 'requirement', 'requirement',
      'additional', 'additional', 'requirement', 'requirement', 'additional',
    ]);
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
