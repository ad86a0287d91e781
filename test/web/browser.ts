/**
 * Debian's real Chromium (`/usr/bin/chromium`), driven by playwright-core: one browser per test
 * file (`useBrowser`), a fresh context (cookies, storage) per page, and every request the page
 * makes recorded so a test can check that none leaves for another origin.
 */
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export interface OpenPage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Every URL the page requested, in order. */
  readonly requests: string[];
  /** What the page's scripts reported as errors (console errors and uncaught exceptions). */
  readonly errors: string[];
}

export async function openPage(browser: Browser, url: string): Promise<OpenPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  return { page, context, requests, errors };
}

/** A browser for the enclosing `describe`, closed after it; use inside tests only. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser starts in before()');
    return browser;
  };
}

/** The requests that went anywhere but `origin` (data: and about: URLs leave nothing). */
export function foreignRequests(requests: readonly string[], origin: string): string[] {
  return requests.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|about|blob):/.test(url));
}
