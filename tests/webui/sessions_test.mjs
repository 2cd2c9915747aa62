// Drives the WebUI's sessions page and a temporary chat in headless
// Chromium (playwright-core + Debian's chromium) against a real gateway;
// run_sessions_test.sh sets the stage and checks the files afterwards.
// Usage: node sessions_test.mjs first|restarted <base URL> <secret words>
import { createRequire } from "module";

const require = createRequire((process.env.NB_NODE_MODULES || ".") + "/");
const { chromium } = require("playwright-core");

const [mode, base, secret] = process.argv.slice(2);
// Every WebSocket frame the page sent or received, printed on a failure
// (which chat each event and message named, in their order).
const frames = [];
const fail = (msg) => {
  console.error("FAIL: " + msg);
  console.error("WebSocket frames (ms since start, > sent, < received):\n" + frames.join("\n"));
  process.exit(1);
};
const check = (ok, msg) => { if (!ok) fail(msg); };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const page = await browser.newPage();
const t0 = Date.now();
page.on("websocket", (ws) => {
  const note = (dir) => (f) => frames.push(`${Date.now() - t0} ${dir} ${String(f.payload).slice(0, 160)}`);
  frames.push(`${Date.now() - t0} open ${ws.url()}`);
  ws.on("framesent", note(">"));
  ws.on("framereceived", note("<"));
  ws.on("close", () => frames.push(`${Date.now() - t0} closed`));
});
page.on("pageerror", (e) => fail("page error: " + e.message));
await page.goto(base + "/", { waitUntil: "load" });
await page.waitForSelector("body[data-ready]", { timeout: 15000 }); // handlers bound
await page.waitForSelector("#view-chat:not(.hidden)", { timeout: 15000 });

const api = (method, name, body) => page.evaluate(async ([m, n, b]) => {
  const init = { method: m, headers: {} };
  if (b !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(b); }
  const res = await fetch("/api/" + n, init);
  return { status: res.status, doc: await res.json().catch(() => ({})) };
}, [method, name, body]);

// Sends `text` in the chat view and waits for the turn's answer (the
// scripted LLM calls list_dir first, then answers "done: ...").
async function chatTurn(text) {
  await page.waitForSelector("#conn.on", { timeout: 15000 });
  const done = () => [...document.querySelectorAll("#messages .msg.assistant")]
    .filter((b) => !b.classList.contains("streaming") && b.textContent.startsWith("done: ")).length;
  const before = await page.evaluate(done);
  await page.fill("#input", text);
  await page.click("#send");
  await page.waitForFunction((n) => [...document.querySelectorAll("#messages .msg.assistant")]
    .filter((b) => !b.classList.contains("streaming") && b.textContent.startsWith("done: ")).length > n,
  before, { timeout: 30000 }).catch(async (e) => {
    const shown = await page.$$eval("#messages .msg", (m) => m.map((x) => x.className + ": " + x.textContent));
    fail(`no answer to "${text}" (${e.message}); the chat shows ${JSON.stringify(shown)}`);
  });
}

async function openSessions() {
  await page.click("#tab-sessions");
  await page.waitForSelector("#view-sessions:not(.hidden)");
}

const groupOrder = () => page.$$eval("#sess-groups .sess-group", (gs) => gs.map((g) => g.dataset.channel));
const listedKeys = () => page.$$eval("#sess-groups li", (li) => li.map((l) => l.dataset.key));

// Polls `probe` (run here, in node) every 200 ms until its answer's ok is
// true, for up to `ms`; its last answer either way. waitForFunction cannot
// do this: it takes the Promise an async predicate returns as truthy and
// resolves at once, whatever the fetch inside says.
async function until(probe, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got.ok || Date.now() > end) return got;
    await new Promise((r) => setTimeout(r, 200));
  }
}

if (mode === "first") {
  // The connection's ready names a chat before "New chat" is clicked, and
  // the click's reply (attached) names another: the case waits for the
  // ready (the socket is open then, so the click's frame is not dropped),
  // then for a chat id other than the ready's. Waiting for any id read the
  // ready's when the reply came a few ms late (a loaded box), while the
  // message went to the new chat.
  await page.waitForSelector("#conn.on", { timeout: 15000 });
  await page.waitForFunction(() => chat.current, null, { timeout: 15000 });
  const readyChat = await page.evaluate(() => chat.current);
  await page.click("#new-chat");
  await page.waitForFunction((r) => chat.current && chat.current !== r && !chat.current.startsWith("tmp-"),
                             readyChat, { timeout: 15000 })
    .catch((e) => fail(`"New chat" did not move off the ready's chat ${readyChat} (${e.message})`));
  const wsChat = await page.evaluate(() => chat.current);
  await chatTurn("alpha websocket note");
  const shown = await page.evaluate(() => chat.current);
  check(shown === wsChat, `the chat answered is ${shown}, not the new chat ${wsChat}`);
  const wsKey = "websocket:" + wsChat;
  // The answer streams out before the turn's save: wait for the file.
  const stored = await until(async () => {
    const r = await api("GET", "sessions");
    const keys = (r.doc.sessions || []).map((x) => x.key);
    return { ok: keys.includes(wsKey), keys };
  }, 10000);
  check(stored.ok, `${wsKey} never listed by /api/sessions (ready's chat ${readyChat}): ${JSON.stringify(stored.keys)}`);

  // Both channels listed, the newest (the WebUI's) first, grouped.
  await openSessions();
  await page.waitForSelector(`#sess-groups li[data-key="${wsKey}"]`, { timeout: 10000 }).catch(async (e) => {
    // Say what the page showed and what the API lists now.
    const status = await page.$eval("#sess-status", (s) => s.textContent).catch(() => "(no status)");
    const again = await api("GET", "sessions");
    fail(`${wsKey} not listed (${e.message}); the page lists ${JSON.stringify(await listedKeys())}, `
         + `says "${status}"; /api/sessions now: ${again.status} ${JSON.stringify((again.doc.sessions || []).map((r) => r.key))}`);
  });
  await page.waitForSelector('#sess-groups li[data-key="api:apichat1"]');
  const order = await groupOrder();
  check(order[0] === "websocket" && order.indexOf("api") > 0, "group order: " + JSON.stringify(order));
  const rows = (await api("GET", "sessions")).doc.sessions;
  check(rows.length >= 2 && rows[0].key === wsKey, "not newest first: " + JSON.stringify(rows.map((r) => r.key)));
  check(rows.every((r, i) => i === 0 || rows[i - 1].updated_ms >= r.updated_ms), "not sorted by time");
  const apiRow = rows.find((r) => r.key === "api:apichat1");
  check(apiRow.channel === "api" && apiRow.chat_id === "apichat1" && apiRow.agent === "main",
        "api row: " + JSON.stringify(apiRow));
  check(apiRow.preview === "beta api question", "preview: " + apiRow.preview);
  console.log("listed:", order.join(", "), "|", rows.map((r) => r.key).join(", "));

  // Searchable: by the first message's words.
  await page.fill("#sess-search", "BETA api");
  await page.waitForFunction(() => document.querySelectorAll("#sess-groups li").length === 1);
  check((await listedKeys())[0] === "api:apichat1", "search found: " + await listedKeys());
  await page.fill("#sess-search", "no such words here");
  await page.waitForFunction(() => document.querySelectorAll("#sess-groups li").length === 0);
  await page.fill("#sess-search", "");

  // The WebUI chat's transcript shows its tool call and the tool's result.
  await page.click(`#sess-groups li[data-key="${wsKey}"]`);
  await page.waitForSelector("#sess-transcript .tool-call");
  const call = await page.textContent("#sess-transcript .tool-call");
  check(/list_dir\(.*"path".*\)/.test(call), "tool call shown as: " + call);
  check(await page.$("#sess-transcript details.tool-result") !== null, "no tool result shown");
  const bubbles = await page.$$eval("#sess-transcript .msg", (b) => b.map((x) => x.textContent));
  check(bubbles[0] === "alpha websocket note" && bubbles.some((t) => t.startsWith("done: ")),
        "transcript: " + JSON.stringify(bubbles));
  console.log("transcript:", bubbles.length, "bubbles, tool call", call);

  // Rename the API chat (it has no live session right now, or has one: the
  // router picks the owner either way).
  await page.click('#sess-groups li[data-key="api:apichat1"]');
  await page.waitForSelector('#sess-head[data-key="api:apichat1"]:not(.hidden)');
  await page.fill("#sess-title", "Renamed API chat");
  await page.click("#sess-rename");
  await page.waitForFunction(() => [...document.querySelectorAll("#sess-groups li .name")]
    .some((n) => n.textContent === "Renamed API chat"), null, { timeout: 10000 });
  // Renaming the live WebUI chat: its own next write must keep the title.
  // Its transcript is held back 800 ms here (a long chat on a busy box): the
  // API chat's head must not stay up to be typed into meanwhile.
  const slowOpen = `**/api/sessions/${encodeURIComponent(wsKey)}`;
  await page.route(slowOpen, async (route) => {
    await new Promise((r) => setTimeout(r, 800));
    await route.continue();
  });
  await page.click(`#sess-groups li[data-key="${wsKey}"]`);
  check(await page.$("#sess-head:not(.hidden)") === null, "the last session's head stays up while another loads");
  await page.waitForSelector(`#sess-head[data-key="${wsKey}"]:not(.hidden)`);
  await page.unroute(slowOpen);
  await page.fill("#sess-title", "Live chat title");
  await page.click("#sess-rename");
  await page.waitForFunction(() => [...document.querySelectorAll("#sess-groups li .name")]
    .some((n) => n.textContent === "Live chat title"), null, { timeout: 10000 });
  await page.click("#tab-chat");
  await chatTurn("another turn after the rename");
  await openSessions();
  await page.waitForFunction(() => [...document.querySelectorAll("#sess-groups li .name")]
    .some((n) => n.textContent === "Live chat title"), null, { timeout: 10000 });
  // That turn's save, too, may come after its answer.
  const after = (await until(async () => {
    const doc = (await api("GET", "sessions/" + encodeURIComponent(wsKey))).doc;
    return { ok: doc.title === "Live chat title" && (doc.messages || []).length >= 8, doc };
  }, 10000)).doc;
  check(after.title === "Live chat title" && (after.messages || []).length >= 8,
        `the live session lost the title or messages: ${after.title}, ${(after.messages || []).length}`);
  console.log("renamed: api:apichat1 and the live", wsKey);

  // Delete asks first: cancelling keeps it; confirming removes it.
  await page.click(`#sess-groups li[data-key="${wsKey}"]`);
  await page.waitForSelector(`#sess-head[data-key="${wsKey}"]:not(.hidden)`);
  await page.click("#sess-delete");
  await page.waitForSelector("#sess-confirm:not(.hidden)");
  check((await api("GET", "sessions/" + encodeURIComponent(wsKey))).status === 200, "deleted before confirming");
  await page.click("#sess-confirm-no");
  await page.waitForSelector("#sess-confirm", { state: "hidden" });
  check((await api("GET", "sessions/" + encodeURIComponent(wsKey))).status === 200, "cancel deleted it");
  await page.click("#sess-delete");
  await page.click("#sess-confirm-yes");
  await page.waitForSelector(`#sess-groups li[data-key="${wsKey}"]`, { state: "detached", timeout: 10000 });
  check((await api("GET", "sessions/" + encodeURIComponent(wsKey))).status === 404, "still stored after delete");
  check(!(await api("GET", "sessions")).doc.sessions.some((r) => r.key === wsKey), "still listed after delete");
  console.log("deleted:", wsKey);

  // A temporary chat: answered like any chat, kept nowhere.
  await page.click("#tab-chat");
  await page.click("#temp-chat");
  await page.waitForFunction(() => chat.current && chat.current.startsWith("tmp-"));
  const tempId = await page.evaluate(() => chat.current);
  check(await page.isVisible("#temp-banner"), "no temporary-chat banner");
  await chatTurn("remember this: " + secret);
  await chatTurn("and once more " + secret);
  // /new would archive a stored chat into memory; this one has none to give.
  await page.fill("#input", "/new");
  await page.click("#send");
  await page.waitForFunction(() => [...document.querySelectorAll("#messages .msg")]
    .some((m) => /new session/i.test(m.textContent)), null, { timeout: 30000 });
  const listed = (await api("GET", "sessions")).doc.sessions.map((r) => r.key);
  check(!listed.some((k) => k.includes(tempId)), "the temporary chat is listed: " + listed);
  check((await api("GET", "sessions/" + encodeURIComponent("websocket:" + tempId))).status === 404,
        "the temporary chat is stored");
  const saved = await page.evaluate(() => localStorage.getItem("nb.sessions") || "");
  check(!saved.includes(tempId) && !saved.includes(secret), "the browser kept the temporary chat");
  console.log("TEMP_CHAT " + tempId);
} else {
  // After a restart: the rename is still there (it is in the file).
  await openSessions();
  await page.waitForSelector('#sess-groups li[data-key="api:apichat1"]', { timeout: 10000 });
  const name = await page.textContent('#sess-groups li[data-key="api:apichat1"] .name');
  check(name === "Renamed API chat", "after the restart the API chat is called: " + name);
  console.log("after the restart:", name);
}
await browser.close();
