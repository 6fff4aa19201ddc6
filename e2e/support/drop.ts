import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Page } from '@playwright/test';

export interface DropFile {
  name: string;
  /** File contents; or give `path` to read them from disk. */
  bytes?: Uint8Array;
  path?: string;
  type?: string;
}

/**
 * Drop files on the page the way a person does: dragenter, dragover and drop events carrying a
 * DataTransfer with File objects, dispatched on the window (the whole window is the drop target).
 */
export async function dropFiles(page: Page, files: DropFile[]): Promise<void> {
  const payload = files.map((f) => ({
    name: f.name,
    type: f.type ?? '',
    base64: Buffer.from(f.bytes ?? readFileSync(f.path!)).toString('base64'),
  }));
  await page.evaluate((items) => {
    const dt = new DataTransfer();
    for (const item of items) {
      const bin = atob(item.base64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], item.name, { type: item.type }));
    }
    const target = document.body;
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(
        new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }),
      );
    }
  }, payload);
}

export function bookFile(path: string): DropFile {
  return { name: basename(path), path };
}
