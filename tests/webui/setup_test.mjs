// Drives the WebUI's setup page and its auth in headless Chromium
// (playwright-core + Debian's chromium), against a real gateway.
// Usage: node setup_test.mjs setup|auth <base URL> <LLM apiBase> <API key> <channel token>
import { createRequire } from "module";
import http from "http";

const require = createRequire((process.env.NB_NODE_MODULES || ".") + "/");
const { chromium } = require("playwright-core");

const [mode, base, llmUrl, apiKey, token] = process.argv.slice(2);
const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };
const check = (ok, msg) => { if (!ok) fail(msg); };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});

// Every body the browser received, to look for secrets in.
function recordBodies(page, into) {
  page.on("response", async (res) => {
    try { into.push({ url: res.url(), body: await res.text() }); } catch (e) { /* redirects */ }
  });
}

function noSecretIn(bodies, secrets) {
  for (const { url, body } of bodies)
    for (const s of secrets)
      if (s && body.includes(s)) fail(`a secret is in the answer of ${url}`);
}

async function chatWorks(page, text) {
  await page.click("#tab-chat");
  await page.waitForSelector("#conn.on", { timeout: 15000 });
  await page.fill("#input", text);
  await page.click("#send");
  const answer = await page.waitForFunction((t) => {
    const done = [...document.querySelectorAll(".msg.assistant")]
      .find((b) => !b.classList.contains("streaming") && b.textContent.startsWith("echo: " + t));
    return done ? done.textContent : null;
  }, text, { timeout: 30000 });
  return answer.jsonValue();
}

async function setupFlow() {
  const page = await browser.newPage();
  page.on("pageerror", (e) => fail("page error: " + e.message));
  const bodies = [];
  recordBodies(page, bodies);
  await page.goto(base + "/", { waitUntil: "load" });
  await page.waitForSelector("body[data-ready]", { timeout: 15000 }); // handlers bound

  // No usable provider: the setup page opens, not the chat.
  await page.waitForSelector("#view-setup:not(.hidden)", { timeout: 15000 });
  check(await page.$eval("#view-chat", (e) => e.classList.contains("hidden")), "the chat is shown");
  const note = await page.textContent("#setup-problem");
  check(/No model provider is usable/.test(note), "no problem shown: " + note);
  const options = await page.$$eval("#setup-provider option", (o) => o.map((x) => x.textContent));
  check(options.includes("OpenAI-compatible server") && options.includes("OpenRouter"),
        "provider list: " + JSON.stringify(options));

  await page.selectOption("#setup-provider", "custom");
  await page.fill("#setup-base", llmUrl);

  // A wrong key: the provider's own words come back.
  await page.fill("#setup-key", "sk-wrong-0000000000");
  await page.fill("#setup-model", "fake-model");
  await page.click("#setup-test");
  await page.waitForFunction(() => /Incorrect API key provided/.test(
    document.getElementById("setup-result").textContent), null, { timeout: 30000 });
  const wrong = await page.textContent("#setup-result");
  check(await page.$eval("#setup-result", (e) => e.classList.contains("error")), "error not marked");
  check(/HTTP 401/.test(wrong), "no status in: " + wrong);
  console.log("wrong key:", wrong);
  await page.click("#setup-list");
  await page.waitForFunction(() => /Incorrect API key/.test(
    document.getElementById("setup-result").textContent), null, { timeout: 30000 });

  // The right key: the model list, a test, save.
  await page.fill("#setup-key", apiKey);
  await page.fill("#setup-model", "");
  await page.click("#setup-list");
  await page.waitForSelector("#setup-models:not(.hidden) option[value='fake-model']", { timeout: 30000 });
  await page.selectOption("#setup-models", "fake-model");
  check(await page.inputValue("#setup-model") === "fake-model", "picking a model does not fill it in");
  await page.click("#setup-test");
  await page.waitForFunction(() => /^OK: /.test(document.getElementById("setup-result").textContent),
                             null, { timeout: 30000 });
  console.log("test:", await page.textContent("#setup-result"));
  await page.click("#setup-save");
  await page.waitForSelector("#view-chat:not(.hidden)", { timeout: 30000 });

  // The same gateway answers now.
  console.log("answer:", (await chatWorks(page, "hello after setup")).slice(0, 60));

  // Back on the setup page: the key is shown as saved, never filled in.
  await page.click("#tab-setup");
  check(await page.inputValue("#setup-key") === "", "the key field is filled in");
  const placeholder = await page.getAttribute("#setup-key", "placeholder");
  check(/saved/.test(placeholder), "the saved key is not shown as saved: " + placeholder);
  check(await page.inputValue("#setup-base") === llmUrl, "the saved base is not shown");

  // A reload finds a usable provider and opens the chat.
  await page.reload({ waitUntil: "load" });
  await page.waitForSelector("body[data-ready]", { timeout: 15000 }); // handlers bound
  await page.waitForSelector("#view-chat:not(.hidden)", { timeout: 15000 });

  // No answer the browser got carries the key: every page, script and
  // /api/* JSON, plus each API read once more here.
  for (const name of ["setup", "stats", "channels"]) {
    const r = await page.evaluate(async (n) => (await fetch("/api/" + n)).text(), name);
    bodies.push({ url: "/api/" + name, body: r });
  }
  bodies.push({ url: "page source", body: await page.content() });
  noSecretIn(bodies, [apiKey]);
  check(bodies.some((b) => b.url.endsWith("/api/setup") && b.body.includes('"key_set":true')),
        "/api/setup does not say the key is saved");
  console.log(`checked ${bodies.length} answers for the key`);

  // A state-changing call from another origin is refused.
  const evil = await rawRequest("PUT", "/api/setup", { Origin: "http://evil.example",
    "Content-Type": "application/json" }, JSON.stringify({ provider: "custom", model: "x" }));
  check(evil.status === 403, "a foreign Origin got " + evil.status);
  const get = await rawRequest("GET", "/api/setup/test", {});
  check(get.status === 405, "GET on a state-changing route got " + get.status);
}

// One HTTP request from Node (no cookies, no browser rules).
function rawRequest(method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(base + path, { method, headers }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
    });
    req.on("upgrade", (res, socket) => { socket.destroy(); resolve({ status: res.statusCode }); });
    req.on("error", reject);
    if (body) req.write(body);
    req.end();
  });
}

const handshake = (query, headers = {}) => rawRequest("GET", "/" + query, {
  Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13",
  "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", ...headers });

async function authFlow() {
  // Without the token everything is refused.
  for (const path of ["/", "/index.html"]) {
    const r = await rawRequest("GET", path, {});
    check(r.status === 303 && r.headers.location === "/login.html", `${path}: ${r.status}`);
  }
  for (const path of ["/app.js", "/setup.js", "/chat.js", "/webui/bootstrap", "/api/setup",
                      "/api/stats", "/api/channels", "/api/nosuch"]) {
    const r = await rawRequest("GET", path, {});
    check(r.status === 401, `${path} without a token: ${r.status}`);
    check(!r.body.includes(token) && !r.body.includes(apiKey), `${path} leaks a secret`);
  }
  const put = await rawRequest("PUT", "/api/setup", { "Content-Type": "application/json",
    Origin: base }, "{}");
  check(put.status === 401, "PUT /api/setup without a token: " + put.status);
  check((await handshake("?client_id=a")).status === 401, "handshake without a token");
  check((await handshake("?client_id=a&token=wrong")).status === 401, "handshake with a wrong token");
  check((await rawRequest("GET", "/login.html", {})).status === 200, "the login page is refused");

  // With the token as bearer: reads work; Origin mismatches are refused.
  const bearer = { Authorization: "Bearer " + token };
  const setup = await rawRequest("GET", "/api/setup", bearer);
  check(setup.status === 200 && JSON.parse(setup.body).ready === true, "bearer GET /api/setup: " + setup.status);
  check(!setup.body.includes(apiKey), "/api/setup leaks the API key");
  const foreign = await rawRequest("POST", "/api/setup/test", { ...bearer, Origin: "http://evil.example",
    "Content-Type": "application/json" }, "{}");
  check(foreign.status === 403, "a foreign Origin with the bearer got " + foreign.status);
  check((await rawRequest("POST", "/api/setup", bearer, "{}")).status === 405, "POST /api/setup is not refused");
  check((await rawRequest("PATCH", "/api/setup", bearer, "{}")).status === 405, "PATCH is not refused");
  check((await handshake(`?client_id=a&token=${token}`)).status === 101, "handshake with the token");
  check((await handshake(`?client_id=a&token=${token}`, { Origin: "http://evil.example" })).status === 403,
        "a handshake from a foreign Origin");

  // The browser: the login form, a wrong token, the right one, a chat.
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on("pageerror", (e) => fail("page error: " + e.message));
  const bodies = [];
  recordBodies(page, bodies);
  await page.goto(base + "/", { waitUntil: "load" });
  check(new URL(page.url()).pathname === "/login.html", "not sent to the login page: " + page.url());
  await page.fill("#login-token", "not-the-token");
  await Promise.all([page.waitForNavigation(), page.click("#login-submit")]);
  check(await page.isVisible("#login-failed"), "a wrong token is not told");
  await page.fill("#login-token", token);
  await Promise.all([page.waitForNavigation(), page.click("#login-submit")]);
  check(new URL(page.url()).pathname === "/", "not let in: " + page.url());
  console.log("answer:", (await chatWorks(page, "hello from afar")).slice(0, 60));
  check(await page.evaluate(() => document.cookie) === "", "the login cookie is readable by the page");
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === "nb_session");
  check(session && session.httpOnly && session.sameSite === "Strict", "cookie: " + JSON.stringify(cookies));
  check(session.value !== token, "the cookie is the token itself");
  // The cookie from another origin does not change anything.
  const cross = await rawRequest("PUT", "/api/setup", { Cookie: "nb_session=" + session.value,
    Origin: "http://evil.example", "Content-Type": "application/json" }, "{}");
  check(cross.status === 403, "a foreign Origin with the cookie got " + cross.status);
  bodies.push({ url: "page source", body: await page.content() });
  for (const name of ["setup", "stats", "channels"]) {
    const r = await page.evaluate(async (n) => (await fetch("/api/" + n)).text(), name);
    check(!r.startsWith('{"detail"'), `/api/${name} refused after login: ${r.slice(0, 80)}`);
    bodies.push({ url: "/api/" + name, body: r });
  }
  noSecretIn(bodies, [token, apiKey]);
  console.log(`checked ${bodies.length} answers for the token and the key`);
  await context.close();
}

try {
  if (mode === "setup") await setupFlow();
  else await authFlow();
  console.log("PASS");
} catch (e) {
  fail(e.stack || e.message);
} finally {
  await browser.close();
}
