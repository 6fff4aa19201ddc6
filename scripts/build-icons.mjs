/**
 * @file Build step (part of `npm run assets`): draw the app's icons into public/icons/ (generated,
 * gitignored): icon-192.png, icon-512.png, icon-maskable-512.png and icon.svg. The web app
 * manifest (vite.config.ts) lists the PNGs, which is what makes the page installable; the SVG is
 * the tab's icon.
 *
 * The mark: a lens over three bars of a score strip, white and orange on the app's blue. The
 * PNGs are rasterised here from the same shapes as the SVG (4 x 4 samples a pixel) and written
 * with Node's zlib, so no image tool is needed. The "maskable" icon fills the whole square and
 * keeps the mark inside the central 80 % circle that launchers may crop to.
 *
 * Deterministic (same script, same bytes); does nothing when the icons are newer than this script.
 * `--force` redraws anyway.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'public', 'icons');

const BLUE = [31, 78, 140];
const WHITE = [255, 255, 255];
const ORANGE = [245, 158, 11];

/** The mark in the unit square, painted in order; `scale` shrinks it about the centre. */
function shapes(scale) {
  const s = (v) => 0.5 + (v - 0.5) * scale;
  const len = (v) => v * scale;
  return {
    lens: { cx: s(0.44), cy: s(0.44), outer: len(0.24), inner: len(0.17) },
    handle: { x1: s(0.62), y1: s(0.62), x2: s(0.78), y2: s(0.78), width: len(0.09) },
    bars: [
      { x: s(0.335), y: s(0.47), w: len(0.05), h: len(0.08) },
      { x: s(0.415), y: s(0.37), w: len(0.05), h: len(0.18) },
      { x: s(0.495), y: s(0.42), w: len(0.05), h: len(0.13) },
    ],
  };
}

/** Distance from (px, py) to the segment (x1, y1)-(x2, y2). */
function segmentDistance(px, py, { x1, y1, x2, y2 }) {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const t = Math.max(0, Math.min(1, ((px - x1) * dx + (py - y1) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (x1 + t * dx), py - (y1 + t * dy));
}

/** The colour at a point of the unit square, or null where the icon is transparent. */
function colourAt(x, y, { maskable, mark }) {
  const corner = 0.18;
  if (!maskable) {
    // A rounded square: outside a corner's quarter circle is transparent.
    const cx = Math.min(Math.max(x, corner), 1 - corner);
    const cy = Math.min(Math.max(y, corner), 1 - corner);
    if (Math.hypot(x - cx, y - cy) > corner) return null;
  }
  const { lens, handle, bars } = mark;
  const r = Math.hypot(x - lens.cx, y - lens.cy);
  if (r <= lens.outer && r >= lens.inner) return WHITE;
  if (segmentDistance(x, y, handle) <= handle.width / 2 && r > lens.inner) return WHITE;
  if (bars.some((b) => x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h)) return ORANGE;
  return BLUE;
}

/** RGBA pixels of a size x size icon, 4 x 4 samples a pixel. */
function rasterise(size, options) {
  const pixels = Buffer.alloc(size * size * 4);
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0, g = 0, b = 0, a = 0; // prettier-ignore
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const c = colourAt((px + (sx + 0.5) / n) / size, (py + (sy + 0.5) / n) / size, options);
          if (!c) continue;
          r += c[0];
          g += c[1];
          b += c[2];
          a += 1;
        }
      }
      const at = (py * size + px) * 4;
      if (a > 0) {
        pixels[at] = Math.round(r / a);
        pixels[at + 1] = Math.round(g / a);
        pixels[at + 2] = Math.round(b / a);
      }
      pixels[at + 3] = Math.round((a / (n * n)) * 255);
    }
  }
  return pixels;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG (8-bit RGBA, no interlace) of size x size pixels. */
export function encodePng(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    rows[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function svg() {
  const { lens, handle, bars } = shapes(1);
  const f = (v) => +(v * 512).toFixed(2);
  const hex = (c) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">',
    `<rect width="512" height="512" rx="${f(0.18)}" fill="${hex(BLUE)}"/>`,
    ...bars.map(
      (b) =>
        `<rect x="${f(b.x)}" y="${f(b.y)}" width="${f(b.w)}" height="${f(b.h)}" fill="${hex(ORANGE)}"/>`,
    ),
    `<line x1="${f(handle.x1)}" y1="${f(handle.y1)}" x2="${f(handle.x2)}" y2="${f(handle.y2)}" stroke="${hex(WHITE)}" stroke-width="${f(handle.width)}" stroke-linecap="round"/>`,
    `<circle cx="${f(lens.cx)}" cy="${f(lens.cy)}" r="${f((lens.outer + lens.inner) / 2)}" fill="none" stroke="${hex(WHITE)}" stroke-width="${f(lens.outer - lens.inner)}"/>`,
    '</svg>',
    '',
  ].join('\n');
}

const outputs = {
  'icon-192.png': () => encodePng(192, rasterise(192, { maskable: false, mark: shapes(1) })),
  'icon-512.png': () => encodePng(512, rasterise(512, { maskable: false, mark: shapes(1) })),
  'icon-maskable-512.png': () =>
    encodePng(512, rasterise(512, { maskable: true, mark: shapes(0.8) })),
  'icon.svg': () => Buffer.from(svg()),
};

const scriptTime = statSync(fileURLToPath(import.meta.url)).mtimeMs;
const fresh = Object.keys(outputs).every((name) => {
  const file = join(outDir, name);
  return existsSync(file) && statSync(file).mtimeMs >= scriptTime;
});
if (fresh && !process.argv.includes('--force')) {
  console.log('icons: up to date in public/icons/');
} else {
  mkdirSync(outDir, { recursive: true });
  for (const [name, draw] of Object.entries(outputs)) {
    const bytes = draw();
    writeFileSync(join(outDir, name), bytes);
    console.log(`icons: wrote public/icons/${name} (${bytes.length.toLocaleString('en')} bytes)`);
  }
}
