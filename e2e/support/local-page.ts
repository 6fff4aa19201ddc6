import type { Browser, Page } from '@playwright/test';

/**
 * Whether a URL stays on this machine: 127.0.0.1, data: URLs, and blob: URLs of a 127.0.0.1
 * origin (blob:http://127.0.0.1:4173/uuid belongs to the page's origin).
 */
export function isLocal(href: string): boolean {
  const url = new URL(href);
  if (url.protocol === 'data:') return true;
  const target = url.protocol === 'blob:' ? new URL(url.pathname) : url;
  return target.hostname === '127.0.0.1';
}

/**
 * A page in a context of its own (IndexedDB lives as long as the context) that records every URL
 * the page and its workers request into `urls`, refuses any request that would leave
 * 127.0.0.1, and records page errors into `problems`.
 */
export async function openLocalPage(
  browser: Browser,
  urls: string[],
  problems: string[],
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  context.on('request', (r) => urls.push(r.url()));
  await context.route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return page;
}
