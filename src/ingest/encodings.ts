/**
 * @file The encodings a reader may choose for a re-read, kept apart from decode.ts so the page
 * can list them without bundling the detector.
 */

/**
 * Encodings a reader may choose for a re-read, by WHATWG name with a label; every one decodes in
 * browsers and in Node 20 (full ICU).
 */
export const READABLE_ENCODINGS: readonly { encoding: string; label: string }[] = [
  { encoding: 'utf-8', label: 'UTF-8' },
  { encoding: 'utf-16le', label: 'UTF-16 LE' },
  { encoding: 'utf-16be', label: 'UTF-16 BE' },
  { encoding: 'shift_jis', label: 'Japanese (Shift_JIS)' },
  { encoding: 'euc-jp', label: 'Japanese (EUC-JP)' },
  { encoding: 'iso-2022-jp', label: 'Japanese (ISO-2022-JP)' },
  { encoding: 'gb18030', label: 'Chinese simplified (GBK, GB18030)' },
  { encoding: 'big5', label: 'Chinese traditional (Big5)' },
  { encoding: 'euc-kr', label: 'Korean (EUC-KR)' },
  { encoding: 'koi8-r', label: 'Cyrillic (KOI8-R)' },
  { encoding: 'windows-1251', label: 'Cyrillic (Windows-1251)' },
  { encoding: 'windows-1250', label: 'Central European (Windows-1250)' },
  { encoding: 'windows-1252', label: 'Western (Windows-1252, Latin-1)' },
  { encoding: 'windows-1253', label: 'Greek (Windows-1253)' },
  { encoding: 'iso-8859-7', label: 'Greek (ISO-8859-7)' },
  { encoding: 'windows-1254', label: 'Turkish (Windows-1254)' },
  { encoding: 'windows-1255', label: 'Hebrew (Windows-1255)' },
  { encoding: 'windows-1256', label: 'Arabic (Windows-1256)' },
  { encoding: 'windows-1257', label: 'Baltic (Windows-1257)' },
  { encoding: 'windows-1258', label: 'Vietnamese (Windows-1258)' },
  { encoding: 'iso-8859-2', label: 'Central European (ISO-8859-2)' },
];

/** A readable label for a WHATWG encoding name. */
export function encodingLabel(encoding: string): string {
  return READABLE_ENCODINGS.find((e) => e.encoding === encoding)?.label ?? encoding;
}
