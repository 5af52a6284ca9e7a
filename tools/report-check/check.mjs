// Opens REPORT_DIR/index.html from file:// in headless Chromium and writes what a person would
// notice to OUT.json: console errors and page errors, requests that left file:// (refused),
// every <img> and whether it loaded (naturalWidth > 0), the number of cards, what the kind
// filters and the search box leave shown; with SHOT.png, a screenshot of the page's top.
//
//   node check.mjs REPORT_DIR OUT.json [SHOT.png]
//
// Chromium is the system's (/usr/bin/chromium, or $CHROMIUM); playwright-core brings no browser.
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, out, shot] = process.argv.slice(2);
if (!dir || !out) {
  console.error("usage: node check.mjs REPORT_DIR OUT.json [SHOT.png]");
  process.exit(2);
}
const profile = mkdtempSync(join(tmpdir(), "report-check-"));
const result = { console_errors: [], page_errors: [], network: [], failed_requests: [] };
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 800 },
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
});
try {
  // Nothing may leave file://: such requests are refused and listed.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:")) return route.continue();
    result.network.push(url);
    return route.abort();
  });
  const page = context.pages()[0] || (await context.newPage());
  page.on("console", (m) => { if (m.type() === "error") result.console_errors.push(m.text()); });
  page.on("pageerror", (e) => result.page_errors.push(String(e)));
  page.on("requestfailed", (r) => result.failed_requests.push(r.url()));
  await page.goto(pathToFileURL(resolve(dir, "index.html")).href, { waitUntil: "load" });
  // Cards load their pictures lazily: ask for all of them, and wait for each to settle.
  result.images = await page.evaluate(async () => {
    const imgs = [...document.images];
    for (const i of imgs) i.loading = "eager";
    await Promise.all(imgs.map((i) => i.decode().catch(() => null)));
    return imgs.map((i) => ({ src: i.getAttribute("src"), width: i.naturalWidth, height: i.naturalHeight }));
  });
  result.cards = await page.locator("article.card").count();
  result.data_assets = await page.evaluate(() => JSON.parse(document.getElementById("data").textContent).assets.length);
  // Each kind filter off in turn: the cards left shown.
  result.without_kind = {};
  const boxes = page.locator("#kinds input[type=checkbox]");
  for (let k = 0; k < (await boxes.count()); k++) {
    const label = (await page.locator("#kinds label").nth(k).textContent()).trim().split(" ")[0].toLowerCase();
    await boxes.nth(k).uncheck();
    result.without_kind[label] = await page.locator("article.card:not([hidden])").count();
    await boxes.nth(k).check();
  }
  // The search box: the first card's id, then something no card holds.
  const first = await page.evaluate(() => JSON.parse(document.getElementById("data").textContent).assets[0]?.id ?? "");
  await page.fill("#search", first);
  result.search = { query: first, shown: await page.locator("article.card:not([hidden])").count() };
  await page.fill("#search", "no card holds this \u2603");
  result.search.shown_for_nothing = await page.locator("article.card:not([hidden])").count();
  await page.fill("#search", "");
  if (shot) {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: shot });
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
writeFileSync(out, JSON.stringify(result, null, 2));
