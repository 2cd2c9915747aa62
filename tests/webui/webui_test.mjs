// Drives the WebUI in headless Chromium (playwright-core + Debian's
// chromium): chat with a streamed answer, then the dashboard's figures move.
// Usage: node webui_test.mjs http://127.0.0.1:<websocket port> [cluster]
// "cluster": the gateway is a cluster gateway node with one agent node; the
// turns run on the agent, and the dashboard lists both nodes.
import { createRequire } from "module";

// playwright-core lives in the build tree (NB_NODE_MODULES), not here.
const require = createRequire((process.env.NB_NODE_MODULES || ".") + "/");
const { chromium } = require("playwright-core");

const base = process.argv[2];
const cluster = process.argv[3] === "cluster";
const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => fail("page error: " + e.message));
  await page.goto(base + "/", { waitUntil: "load" });
  await page.waitForSelector("body[data-ready]", { timeout: 15000 }); // handlers bound
  await page.waitForSelector("#conn.on", { timeout: 15000 });

  // A message and its streamed answer.
  await page.fill("#input", "hello from the browser");
  await page.click("#send");
  await page.waitForSelector(".msg.user", { timeout: 5000 });
  const answer = await page.waitForFunction(() => {
    const bubbles = [...document.querySelectorAll(".msg.assistant")];
    const done = bubbles.find((b) => !b.classList.contains("streaming")
                                     && b.textContent.startsWith("echo: hello from the browser"));
    return done ? done.textContent : null;
  }, null, { timeout: 30000 });
  console.log("answer:", (await answer.jsonValue()).slice(0, 60));
  const sessions = await page.$$eval("#session-list li", (l) => l.map((x) => x.textContent));
  if (!sessions.some((t) => t.startsWith("hello from the browser")))
    fail("the session list does not show the chat: " + JSON.stringify(sessions));

  if (cluster) {
    await page.click("#tab-dashboard");
    const nodes = await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll("#dash-nodes tbody tr")]
        .map((r) => [...r.children].map((c) => c.textContent));
      const visible = !document.getElementById("dash-cluster").classList.contains("hidden");
      return visible && rows.some((r) => r[1] === "agent" && r[3] === "up")
        && rows.some((r) => r[1] === "gateway" && r[3] === "up") ? rows : null;
    }, null, { timeout: 15000 });
    const rows = await nodes.jsonValue();
    for (const r of rows)
      if (!/MB$/.test(r[7])) fail("node RSS not shown: " + JSON.stringify(r));
    const agent = rows.find((r) => r[1] === "agent");
    if (Number(agent[5]) < 1) fail("the agent node holds no session: " + JSON.stringify(agent));
    if (/:0$/.test(agent[2])) fail("the agent shows no port: " + JSON.stringify(agent));
    const channels = await page.$$eval("#dash-channels tbody tr", (r) =>
      r.map((x) => [...x.children].slice(0, 2).map((c) => c.textContent).join(" ")));
    if (!channels.includes("websocket connected")) fail("channels: " + JSON.stringify(channels));
    const sched = await page.textContent("#dash-schedules");
    if (!sched.includes("run by this gateway")) fail("schedules line: " + sched);
    console.log("nodes:", rows.map((r) => r.slice(0, 4).join(" ")).join("; "));
  } else {
    // The dashboard shows the turn, then the count moves with another one.
    await page.click("#tab-dashboard");
    await page.waitForFunction(() => Number(document.getElementById("dash-turns").textContent) >= 1,
                               null, { timeout: 15000 });
    const before = Number(await page.textContent("#dash-turns"));
    const rss = await page.textContent("#dash-rss");
    if (!/MB$/.test(rss)) fail("RSS not shown: " + rss);
    const kinds = await page.$$eval("#dash-actors tbody tr td:first-child", (t) => t.map((x) => x.textContent));
    if (!kinds.includes("session") || !kinds.includes("channel_manager"))
      fail("actor kinds missing: " + JSON.stringify(kinds));
    const channels = await page.$$eval("#dash-channels tbody tr", (rows) =>
      rows.map((r) => [...r.children].slice(0, 2).map((c) => c.textContent).join(" ")));
    if (!channels.includes("websocket connected")) fail("channels: " + JSON.stringify(channels));
    if (!(await page.$eval("#dash-cluster", (e) => e.classList.contains("hidden"))))
      fail("a single gateway shows a cluster panel");

    await page.click("#tab-chat");
    await page.fill("#input", "second message");
    await page.click("#send");
    await page.waitForFunction(() => [...document.querySelectorAll(".msg.assistant")]
      .some((b) => b.textContent.startsWith("echo: second message")), null, { timeout: 30000 });
    await page.click("#tab-dashboard");
    await page.waitForFunction((n) => Number(document.getElementById("dash-turns").textContent) > n,
                               before, { timeout: 15000 });
    const after = Number(await page.textContent("#dash-turns"));
    console.log(`dashboard turns: ${before} -> ${after}; channels: ${channels.join(", ")}`);
  }
  // A tab clicked while the page is still starting (its bootstrap held back
  // 1.5 s here; a loaded box can take that long) is shown once it has
  // started, not lost.
  const slow = await browser.newPage();
  slow.on("pageerror", (e) => fail("page error: " + e.message));
  await slow.route("**/webui/bootstrap", async (route) => {
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  await slow.goto(base + "/", { waitUntil: "load" });
  if (await slow.$("body[data-ready]")) fail("the page started before its bootstrap answered");
  await slow.click("#tab-dashboard");
  await slow.waitForSelector("body[data-ready]", { timeout: 15000 });
  if (!(await slow.$eval("#view-dashboard", (e) => !e.classList.contains("hidden"))))
    fail("a tab clicked while the page started was lost");
  console.log("a tab clicked during start-up is shown once the page has started");
  await slow.close();
  // "online" means a message can be sent: on a first visit the gateway's
  // ready names the chat, some time after the socket opened on a busy box
  // (held back 1 s here; the gateway behind is the real one). Shown at the
  // open, a message sent in between went nowhere (Send did nothing).
  const late = await browser.newPage();
  late.on("pageerror", (e) => fail("page error: " + e.message));
  let held = 0;
  await late.routeWebSocket((u) => new URL(u).searchParams.has("client_id"), (ws) => {
    const server = ws.connectToServer();
    server.onMessage((m) => {
      let ev = {};
      try { ev = JSON.parse(String(m)); } catch (e) { /* not JSON */ }
      if (ev.event !== "ready") return ws.send(m);
      ++held;
      setTimeout(() => ws.send(m), 1000);
    });
  });
  await late.goto(base + "/", { waitUntil: "load" });
  await late.waitForSelector("#conn.on", { timeout: 15000 });
  const named = await late.evaluate(() => chat.current);
  if (!held || !named) fail(`shown online before the ready named a chat (readies held: ${held}, chat: ${named})`);
  await late.fill("#input", "sent once online");
  await late.click("#send");
  await late.waitForFunction(() => [...document.querySelectorAll(".msg.assistant")]
    .some((b) => b.textContent.startsWith("echo: sent once online")), null, { timeout: 30000 });
  console.log("online only once the ready named the chat (" + named + "); its first message answered");
  await late.close();
  console.log("PASS");
} catch (e) {
  fail(e.message);
} finally {
  await browser.close();
}
