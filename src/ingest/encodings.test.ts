/**
 * Legacy encodings and UTF-16 without a BOM: each file is produced in the test from
 * real text with iconv-lite (a devDependency, the encoder the detector's own tests use), then read
 * back through decodeText and the binary check exactly as a dropped .txt file is.
 */
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { JA_BOOK, TH_TEXT, ZH_TEXT } from '../../test/scripts/samples';
import {
  decodeText,
  detectUtf16WithoutBom,
  encodingLabel,
  looksBinary,
  READABLE_ENCODINGS,
} from './decode';

const RUSSIAN =
  'Война и мир. Князь Андрей Болконский вернулся домой после долгой войны, и все в доме были рады его видеть. Наташа Ростова танцевала на своём первом балу в Петербурге, а Пьер смотрел на неё издалека.';
const KOREAN =
  '김철수는 서울의 작은 회사에서 일한다. 그는 매일 아침 지하철을 타고 출근하고, 점심에는 동료들과 김치찌개를 먹는다. 주말에는 가족과 함께 한강 공원에 가서 자전거를 탄다.';
const TRADITIONAL =
  '李明每天早上六點起床，先去公園跑步，然後在小飯館吃一碗熱騰騰的牛肉麵。他在城東的一家工廠當工程師，負責修理機器。工人們都說，沒有李明修不好的機器。';
const POLISH =
  'Zażółć gęślą jaźń. Pan Tadeusz wrócił do Soplicowa, gdzie wszyscy cieszyli się z jego przyjazdu. Łąka była zielona, a źródło płynęło cicho przez las.';
const GREEK =
  'Ο Οδυσσέας ταξίδεψε για δέκα χρόνια πριν επιστρέψει στην Ιθάκη. Η Πηνελόπη τον περίμενε υφαίνοντας και ξηλώνοντας το ίδιο πανί κάθε νύχτα.';
const TURKISH =
  'İstanbul’da yaşayan Ayşe, her sabah çay içip Boğaz’a bakar. Öğleden sonra çocuklarıyla birlikte parkta yürüyüş yapar ve güzel şarkılar söyler.';
const FRENCH =
  "L'été dernier, Hélène est allée à la plage avec ses enfants. Ils ont mangé des crêpes et bu du café au lait. « C'est génial ! » a-t-elle dit à sa sœur.";

// [text, encoding the bytes are in, the WHATWG name decodeText must report]
const CASES: [string, string, string][] = [
  [JA_BOOK, 'Shift_JIS', 'shift_jis'],
  [JA_BOOK, 'EUC-JP', 'euc-jp'],
  [ZH_TEXT, 'GBK', 'gb18030'],
  [TRADITIONAL, 'Big5', 'big5'],
  [KOREAN, 'EUC-KR', 'euc-kr'],
  [RUSSIAN, 'KOI8-R', 'koi8-r'],
  [RUSSIAN, 'windows-1251', 'windows-1251'],
  [POLISH, 'windows-1250', 'windows-1250'],
  [FRENCH, 'windows-1252', 'windows-1252'],
  [TURKISH, 'windows-1254', 'windows-1254'],
];

describe('legacy encodings are detected and read back exactly', () => {
  for (const [text, from, expected] of CASES) {
    it(`${from}`, () => {
      const bytes = new Uint8Array(iconv.encode(text, from));
      expect(looksBinary(bytes)).toBe(false);
      const decoded = decodeText(bytes);
      expect(decoded.encoding).toBe(expected);
      expect(decoded.guessed).toBe(true);
      expect(decoded.text).toBe(text);
    });
  }

  it('reads Greek Windows-1253 as Greek (ISO-8859-7 by the detector, the same letters here)', () => {
    const decoded = decodeText(new Uint8Array(iconv.encode(GREEK, 'windows-1253')));
    expect(['windows-1253', 'iso-8859-7']).toContain(decoded.encoding);
    expect(decoded.text).toBe(GREEK);
  });
});

describe('UTF-16 without a byte-order mark', () => {
  const samples = [JA_BOOK, ZH_TEXT, TH_TEXT, RUSSIAN, FRENCH, 'Plain ASCII text.\nTwo lines.\n'];
  for (const order of ['utf-16le', 'utf-16be'] as const) {
    it(`is text, not binary data, in ${order}`, () => {
      for (const text of samples) {
        const bytes = new Uint8Array(iconv.encode(text, order, { addBOM: false }));
        expect(bytes[0] === 0xff || bytes[0] === 0xfe).toBe(false);
        expect(detectUtf16WithoutBom(bytes)).toBe(order);
        expect(looksBinary(bytes)).toBe(false);
        expect(decodeText(bytes)).toEqual({ text, encoding: order, guessed: true });
      }
    });
  }

  it('is not claimed for binary data, legacy text or odd lengths of noise', () => {
    const noise = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
    expect(detectUtf16WithoutBom(noise)).toBeNull();
    expect(looksBinary(noise)).toBe(true);
    for (const [text, from] of CASES) {
      expect(detectUtf16WithoutBom(new Uint8Array(iconv.encode(text, from)))).toBeNull();
    }
    // NULs at both parities, as in an executable: still binary.
    const mixed = new Uint8Array(512).map((_, i) => (i % 3 === 0 ? 0 : 65));
    expect(detectUtf16WithoutBom(mixed)).toBeNull();
    expect(looksBinary(mixed)).toBe(true);
  });
});

describe('an encoding the reader chooses', () => {
  it('wins over detection, so a wrong guess can be corrected by a re-read', () => {
    const bytes = new Uint8Array(iconv.encode(RUSSIAN, 'koi8-r'));
    const asLatin = decodeText(bytes, undefined, 'windows-1252');
    expect(asLatin.encoding).toBe('windows-1252');
    expect(asLatin.text).not.toBe(RUSSIAN);
    expect(asLatin.guessed).toBeUndefined();
    expect(decodeText(bytes, undefined, 'koi8-r')).toEqual({ text: RUSSIAN, encoding: 'koi8-r' });
    expect(() => decodeText(bytes, undefined, 'klingon-8')).toThrow(/not an encoding/);
  });

  it('is offered from a list every entry of which this platform decodes', () => {
    for (const { encoding, label } of READABLE_ENCODINGS) {
      expect(new TextDecoder(encoding).encoding).toBe(encoding);
      expect(encodingLabel(encoding)).toBe(label);
    }
  });
});
