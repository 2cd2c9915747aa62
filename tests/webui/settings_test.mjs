// Drives the WebUI's settings pages, the chat's context use and the
// dashboard's charts in headless Chromium (playwright-core + Debian's
// chromium), against a real gateway (run_settings_test.sh starts it).
// Usage: node settings_test.mjs <base URL> <side channel port> <config.json>
//        <server-everything index.js> <LLM key> <Telegram token>
//        <fake_telegram_server binary> <a new agent's workspace>
import { createRequire } from "module";
import { spawn } from "child_process";
import fs from "fs";
import net from "net";
import readline from "readline";

const require = createRequire((process.env.NB_NODE_MODULES || ".") + "/");
const { chromium } = require("playwright-core");

const [base, sidePort, configPath, everything, apiKey, tgToken, fakeTelegram, helperWs] = process.argv.slice(2);
const tg2Token = "777:tg2-" + Math.random().toString(36).slice(2);
const searchKey = "search-key-" + Math.random().toString(36).slice(2);
const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };
const check = (ok, msg) => { if (!ok) fail(msg); };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});

// A WebSocket handshake to the side channel from Node: resolves with the
// HTTP status and, for a 101, a promise that settles when the server
// closes the connection.
function sideSocket(client) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(sidePort), "127.0.0.1");
    let head = "";
    const closed = new Promise((done) => sock.on("close", done));
    sock.on("error", () => {});
    sock.on("connect", () => sock.write(
      `GET /?client_id=${client} HTTP/1.1\r\nHost: 127.0.0.1:${sidePort}\r\n` +
      "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n" +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"));
    sock.on("data", (d) => {
      if (head.includes("\r\n")) return;
      head += d.toString("latin1");
      const m = /^HTTP\/1\.1 (\d+)/.exec(head);
      if (m) resolve({ status: Number(m[1]), closed, sock });
    });
    setTimeout(() => reject(new Error("no handshake answer from the side channel")), 10000);
  });
}

async function waitFor(what, fn, ms = 20000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  fail("timed out waiting for " + what);
}

const page = await browser.newPage();
page.on("pageerror", (e) => fail("page error: " + e.message));
page.on("dialog", (d) => d.accept());
const bodies = [];
page.on("response", async (res) => {
  try { bodies.push({ url: res.url(), body: await res.text() }); } catch (e) { /* redirects */ }
});

async function chatOnce(text) {
  await page.click("#tab-chat");
  await page.waitForSelector("#conn.on", { timeout: 15000 });
  await page.fill("#input", text);
  await page.click("#send");
  await page.waitForFunction((t) => [...document.querySelectorAll(".msg.assistant")]
    .some((b) => !b.classList.contains("streaming") && b.textContent.startsWith("echo: " + t)),
    text, { timeout: 30000 });
}

// A turn whose scripted model calls a tool (fake_llm_server's call-tool:);
// its answer holds the tool's result.
async function chatTool(text, expect) {
  await page.click("#tab-chat");
  await page.waitForSelector("#conn.on", { timeout: 15000 });
  await page.fill("#input", text);
  await page.click("#send");
  const got = await page.waitForFunction(() => {
    const done = [...document.querySelectorAll(".msg.assistant")]
      .filter((b) => !b.classList.contains("streaming") && b.textContent.startsWith("done: "));
    return done.length ? done[done.length - 1].textContent : null;
  }, null, { timeout: 60000 });
  const answer = await got.jsonValue();
  check(answer.includes(expect), `the tool's result is not in the answer: ${answer}`);
  await page.click("#tab-settings");
}

// The scripted Telegram Bot API as a child process (fake_telegram_server).
function startFakeTelegram() {
  const child = spawn(fakeTelegram, ["--token", tg2Token], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = readline.createInterface({ input: child.stdout });
  const waiting = [];
  lines.on("line", (l) => { const w = waiting.shift(); if (w) w(l); });
  const next = () => new Promise((r) => waiting.push(r));
  const ask = (cmd) => { const p = next(); child.stdin.write(cmd + "\n"); return p; };
  return { child, first: next(), ask };
}

// A Telegram channel added in the page: a missing token is named, then it
// starts and answers while the other channels keep their connections.
async function addChannelFlow(watcher) {
  const tg = startFakeTelegram();
  try {
    const url = (await tg.first).replace(/^URL /, "");
    let stillOpen = true;
    watcher.closed.then(() => { stillOpen = false; });
    const before = fs.readFileSync(configPath, "utf8");
    const kinds = await page.$$eval("#ch-add-type option", (o) => o.map((x) => x.value));
    check(kinds.includes("telegram") && kinds.includes("slack"), "channel types: " + kinds);
    await page.selectOption("#ch-add-type", "telegram");
    await page.waitForSelector('#ch-add-keys input[data-key="token"][type="password"]');
    await page.fill("#ch-add-name", "tg2");
    // One sendMessage per answer (no streamed edits), polls that end soon.
    await page.fill("#ch-add-more", JSON.stringify({ apiBase: url, pollTimeout: 1, streaming: false }));
    await page.fill("#ch-add-allow", "4242");
    await page.click("#ch-add-save");
    let said = await settingsResult("ch-add-result", "error|Saved");
    check(/channels\.tg2\.token/.test(said) && /missing/.test(said), "no token: " + said);
    check(fs.readFileSync(configPath, "utf8") === before, "a refused channel changed config.json");
    await page.fill('#ch-add-keys input[data-key="token"]', tg2Token);
    await page.click("#ch-add-save");
    said = await settingsResult("ch-add-result", "Saved|error");
    check(/channel started/.test(said), "add channel: " + said);
    await page.waitForSelector('.channel-row[data-channel="tg2"] .ch-state.state-connected', { timeout: 30000 });
    const cfg = JSON.parse(fs.readFileSync(configPath, "utf8"));
    const tg2 = cfg.channels.tg2 || {};
    check(tg2.type === "telegram" && tg2.enabled === true && tg2.token === tg2Token && tg2.apiBase === url
          && tg2.streaming === false && JSON.stringify(tg2.allowFrom) === '["4242"]',
          "channels.tg2 in the file: " + JSON.stringify({ ...tg2, token: "(hidden)" }));
    // The new channel carries a conversation.
    await tg.ask("push 4242 4242 hello from telegram");
    const sent = await tg.ask("wait_sent 1 60");
    check(/^SENT 1 .*hello from telegram/.test(sent), "the new channel's answer: " + sent);
    check(stillOpen, "the side channel's connection was closed by adding a channel");
    check(await page.evaluate(() => window.__wsClosed) === 0, "the WebUI's own channel was restarted");
    console.log("channel tg2 added in the page: started, answered on Telegram; the others untouched");
  } finally {
    tg.child.stdin.end();
    watcher.sock.destroy(); // else node waits for the server to close it
  }
}

// Agents through the form: an error names the key; a new agent with a
// binding lands in config.json in the loader's shape and the answer says
// it waits for a restart (run_settings_test.sh restarts and talks to it).
async function agentFormFlow() {
  const before = fs.readFileSync(configPath, "utf8");
  const mainWs = JSON.parse(before).agents.defaults.workspace;
  await page.fill("#agent-new-id", "helper");
  await page.fill("#agent-new-name", "Helper");
  await page.fill("#agent-new-workspace", mainWs); // main's: refused
  await page.click("#agent-add-binding");
  await page.selectOption("#agent-new-bindings .binding-row .bind-channel", "side");
  await page.click("#set-agents-save");
  let said = await settingsResult("set-agents-result", "error|Saved");
  check(/agents\.list\[0\]\.workspace/.test(said), "shared workspace: " + said);
  check(fs.readFileSync(configPath, "utf8") === before, "a refused agent changed config.json");
  await page.fill("#agent-new-workspace", helperWs);
  await page.click("#set-agents-save");
  said = await settingsResult("set-agents-result", "Saved|error");
  check(/takes effect after a restart: agents\.list, agents\.bindings/.test(said), "agents save: " + said);
  const agents = JSON.parse(fs.readFileSync(configPath, "utf8")).agents;
  check(JSON.stringify(agents.list) === JSON.stringify([{ id: "helper", name: "Helper", workspace: helperWs }]),
        "agents.list: " + JSON.stringify(agents.list));
  check(JSON.stringify(agents.bindings) === '[{"agent":"helper","channel":"websocket","instance":"side"}]',
        "agents.bindings: " + JSON.stringify(agents.bindings));
  // The form shows it back; a bad chat id type is not possible, but a
  // binding to an unknown agent is still named by the loader.
  await page.waitForSelector('#agents-list .agent-row[data-agent="helper"] .binding-row');
  const bad = await page.evaluate(async () => {
    const r = await fetch("/api/settings/agents", { method: "PUT", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ bindings: [{ agent: 5, channel: "side" }] }) });
    return (await r.json()).error || "";
  });
  check(/agents\.bindings\[0\]\.agent/.test(bad), "bindings error: " + bad);
  console.log("agent helper created in the form: " + said);
}

async function settingsResult(id, pattern) {
  await page.waitForFunction(([i, p]) => new RegExp(p).test(document.getElementById(i).textContent),
    [id, pattern], { timeout: 60000 });
  return page.textContent("#" + id);
}

try {
  await page.goto(base + "/", { waitUntil: "load" });
  await page.waitForSelector("body[data-ready]", { timeout: 15000 }); // handlers bound

  // -- part 6: context use after a turn ---------------------------------------
  await chatOnce("hello context");
  await page.waitForSelector("#context-use:not(.hidden)", { timeout: 15000 });
  const ctx = await page.$eval("#context-use", (e) => ({ text: e.textContent, ...e.dataset }));
  check(ctx.window === "32000", "context window: " + JSON.stringify(ctx));
  check(Number(ctx.context) > 0, "no tokens for the last request: " + JSON.stringify(ctx));
  check(/context .* \/ 32\.0k|context .* \/ 32k/.test(ctx.text) && /cached/.test(ctx.text), "shown: " + ctx.text);
  console.log("context use:", ctx.text);
  // Watch the page's own WebSocket: restarting another channel must not touch it.
  await page.evaluate(() => {
    window.__wsClosed = 0;
    chat.ws.addEventListener("close", () => window.__wsClosed++);
  });

  // -- part 2: settings -------------------------------------------------------
  await page.click("#tab-settings");
  await page.waitForSelector('.channel-row[data-channel="side"] .ch-state.state-connected', { timeout: 15000 });
  const tgRow = '.channel-row[data-channel="telegram"]';
  check(await page.getAttribute(`${tgRow} .ch-secret[data-key="token"]`, "placeholder") !== "not set",
        "the Telegram token is not shown as saved");
  check(await page.inputValue(`${tgRow} .ch-secret[data-key="token"]`) === "", "the token is filled in");

  // A bad value is refused with its key path, and the file stays as it was.
  const before = fs.readFileSync(configPath, "utf8");
  await page.fill("#set-fallbacks", "preset:nosuchpreset");
  await page.click("#set-model-save");
  let said = await settingsResult("set-model-result", "config error");
  check(said.includes("agents.defaults.fallbackModels[0]") && said.includes("nosuchpreset"), "model error: " + said);
  check(await page.$eval("#set-model-result", (e) => e.classList.contains("error")), "not shown as an error");
  await page.fill("#set-exec-timeout", "soon");
  await page.click("#set-tools-save");
  said = await settingsResult("set-tools-result", "config error");
  check(said.includes("tools.exec.timeout"), "tools error: " + said);
  check(fs.readFileSync(configPath, "utf8") === before, "a refused form changed config.json");
  console.log("refused:", said);

  // The model, live: a fallback and the model saved, the chat still answers.
  await page.fill("#set-fallbacks", "fake-model-b @ custom");
  await page.click("#set-model-save");
  said = await settingsResult("set-model-result", "Saved|error");
  check(/in effect now/.test(said), "model save: " + said);
  const cfg1 = JSON.parse(fs.readFileSync(configPath, "utf8"));
  check(JSON.stringify(cfg1.agents.defaults.fallbackModels) === '[{"model":"fake-model-b","provider":"custom"}]',
        "fallbacks in the file: " + JSON.stringify(cfg1.agents.defaults));
  check(cfg1.myNotes && cfg1.myNotes.owner === "me", "the user's own key is gone");

  // Tools: saved (they apply at the next start), the search key kept secret.
  await page.fill("#set-exec-timeout", "90");
  await page.uncheck("#set-restrict");
  await page.fill("#set-search-provider", "brave");
  await page.fill("#set-search-key", searchKey);
  await page.click("#set-tools-save");
  said = await settingsResult("set-tools-result", "Saved|error");
  check(/in effect now/.test(said) && !/restart/.test(said), "tools save: " + said);
  const cfg2 = JSON.parse(fs.readFileSync(configPath, "utf8"));
  check(cfg2.tools.exec.timeout === 90 && cfg2.tools.restrictToWorkspace === false
        && cfg2.tools.web.search.apiKey === searchKey, "tools in the file: " + JSON.stringify(cfg2.tools));
  check(await page.inputValue("#set-search-key") === "", "the search key is filled in again");

  // A channel change restarts that channel only.
  let watcher = await sideSocket("watcher");
  check(watcher.status === 101, "side channel handshake: " + watcher.status);
  const sideRow = '.channel-row[data-channel="side"]';
  await page.fill(`${sideRow} .ch-allow`, "alice");
  await page.click(`${sideRow} .ch-save`);
  said = await settingsResult("ch-result-side", "Saved|error");
  check(/channel restarted/.test(said), "channel save: " + said);
  await Promise.race([watcher.closed, new Promise((_, no) => setTimeout(
    () => no(new Error("the side channel's connection survived its restart")), 15000))]);
  await page.waitForSelector(`${sideRow} .ch-state.state-connected`, { timeout: 15000 });
  const bob = await waitFor("the restarted side channel", async () => {
    try { return await sideSocket("bob"); } catch (e) { return null; }
  });
  check(bob.status === 403, "a client not in the new allowFrom got " + bob.status);
  const alice = await sideSocket("alice");
  check(alice.status === 101, "alice, now allowed, got " + alice.status);
  alice.sock.destroy();
  watcher = await sideSocket("alice"); // open across the channel added below
  check(await page.evaluate(() => window.__wsClosed) === 0, "the WebUI's own channel was restarted too");
  const cfg3 = JSON.parse(fs.readFileSync(configPath, "utf8"));
  check(JSON.stringify(cfg3.channels.side.allowFrom) === '["alice"]', "side in the file: " + JSON.stringify(cfg3.channels.side));
  check(cfg3.channels.telegram.token === tgToken, "the Telegram token changed");
  console.log("channel side restarted alone; allowFrom now alice");

  // MCP: test lists the real server's tools, then it is saved.
  await page.fill("#mcp-name", "everything");
  await page.selectOption("#mcp-type", "stdio");
  await page.fill("#mcp-command", "node");
  await page.fill("#mcp-args", everything + "\nstdio");
  await page.fill("#mcp-env", "DEMO_TOKEN=" + searchKey);
  await page.click("#mcp-test");
  said = await settingsResult("mcp-result", "tools:|error|Error");
  const tools = await page.$$eval("#mcp-tools code", (c) => c.map((x) => x.textContent));
  check(tools.includes("echo"), "MCP test: " + said + " " + JSON.stringify(tools));
  console.log(`MCP test: ${tools.length} tools (${tools.slice(0, 4).join(", ")}, ...)`);
  await page.click("#mcp-save");
  said = await settingsResult("mcp-result", "Saved|error");
  check(/Saved/.test(said), "MCP save: " + said);
  await page.waitForSelector('#mcp-list li[data-mcp="everything"]');
  check(JSON.parse(fs.readFileSync(configPath, "utf8")).tools.mcpServers.everything.command === "node",
        "the MCP server is not in the file");

  // The saved MCP server is there on the next turn, without a restart.
  await chatTool('call-tool:mcp_everything_echo {"message": "live-mcp"}', "live-mcp");
  console.log("MCP server added in settings: its tool answered the next turn");

  await addChannelFlow(watcher);
  await agentFormFlow();

  // The chat still answers with the same WebSocket, through the saved model.
  await chatOnce("after settings");
  check(await page.evaluate(() => window.__wsClosed) === 0, "the page's WebSocket closed");

  // -- part 6: dashboard labels do not overlap --------------------------------
  await page.click("#tab-dashboard");
  await page.waitForFunction(() => {
    const c = document.getElementById("chart-mailbox");
    return c.dataset.labels && JSON.parse(c.dataset.labels).length > 3;
  }, null, { timeout: 15000 });
  const chart = await page.$eval("#chart-mailbox", (c) => ({
    boxes: JSON.parse(c.dataset.labels), w: c.clientWidth, h: c.clientHeight,
    kinds: document.querySelectorAll("#dash-actors tbody tr").length }));
  check(chart.boxes.length === chart.kinds, `${chart.boxes.length} labels for ${chart.kinds} actor kinds`);
  for (let i = 0; i < chart.boxes.length; i++) {
    const a = chart.boxes[i];
    check(a.x >= 0 && a.x + a.w <= chart.w + 0.5 && a.y >= 0 && a.y + a.h <= chart.h + 0.5,
          "label outside the chart: " + JSON.stringify(a));
    for (let j = i + 1; j < chart.boxes.length; j++) {
      const b = chart.boxes[j];
      const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
      check(!overlap, `labels overlap: ${a.text} and ${b.text}`);
    }
  }
  console.log(`dashboard: ${chart.boxes.length} bar labels, none overlapping`);

  // -- secrets never reach the browser ----------------------------------------
  for (const name of ["settings", "setup", "stats", "channels"]) {
    const r = await page.evaluate(async (n) => (await fetch("/api/" + n)).text(), name);
    bodies.push({ url: "/api/" + name, body: r });
  }
  bodies.push({ url: "page source", body: await page.content() });
  for (const { url, body } of bodies)
    for (const s of [apiKey, tgToken, searchKey, tg2Token])
      check(!body.includes(s), `a secret is in the answer of ${url}`);
  const view = JSON.parse(bodies.find((b) => b.url === "/api/settings").body);
  check(view.tools.web_search_key_set === true, "the search key is not shown as set");
  console.log(`checked ${bodies.length} answers for 3 secrets`);
  console.log("PASS");
} catch (e) {
  fail(e.stack || e.message);
} finally {
  await browser.close();
}
