/**
 * Headless Chromium for the viewer's browser test and the docs screenshot: Debian's chromium package
 * driven by playwright-core (which downloads no browser of its own).
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** The browser binary: `AGENT_R1_CHROMIUM`, else Debian's. */
export const CHROMIUM = process.env.AGENT_R1_CHROMIUM ?? "/usr/bin/chromium";

export const hasChromium = (): boolean => existsSync(CHROMIUM);

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--headless"] });
