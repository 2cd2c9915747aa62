// Drives the WebUI's automations and skills-and-memory pages in headless
// Chromium (playwright-core + Debian's chromium) against a real gateway,
// and checks the workspace files behind them.
// Usage: node automations_test.mjs <base URL> <workspace dir>
//        <second agent's (research) workspace dir>
import { createRequire } from "module";
import fs from "fs";
import http from "http";

const require = createRequire((process.env.NB_NODE_MODULES || ".") + "/");
const { chromium } = require("playwright-core");

const [base, ws, researchWs] = process.argv.slice(2);
const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };
const check = (ok, msg) => { if (!ok) fail(msg); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const readJobs = () => JSON.parse(fs.readFileSync(ws + "/cron/jobs.json", "utf8")).jobs;
const jobNamed = (name) => readJobs().find((j) => j.name === name);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});

// The page's row of the job `name`, as text per column.
async function row(page, name) {
  return page.evaluate((n) => {
    for (const tr of document.querySelectorAll("#cron-jobs tbody tr")) {
      const cell = (c) => (tr.querySelector("." + c) || {}).textContent || "";
      if (cell("job-name").startsWith(n))
        return { id: tr.dataset.id, name: cell("job-name"), timing: cell("job-timing"), tz: cell("job-tz"),
                 next: cell("job-next"), last: cell("job-last"), outcome: cell("job-outcome"),
                 target: cell("job-target"), buttons: [...tr.querySelectorAll("button")].map((b) => b.textContent) };
    }
    return null;
  }, name);
}

async function clickOp(page, name, label) {
  const r = await row(page, name);
  check(r, `no row for ${name}`);
  await page.click(`#cron-jobs tr[data-id="${r.id}"] button:text-is("${label}")`);
}

// The number of finished assistant bubbles that answer a scheduled job.
const cronAnswers = (page) => page.evaluate(() => [...document.querySelectorAll(".msg.assistant")]
  .filter((b) => !b.classList.contains("streaming") && b.textContent.includes("Cron job: say tick")).length);

async function automationsFlow(page) {
  // A chat first: the job's answers come back into it.
  await page.waitForSelector("#conn.on", { timeout: 15000 });
  await page.fill("#input", "hello");
  await page.click("#send");
  await page.waitForFunction(() => [...document.querySelectorAll(".msg.assistant")]
    .some((b) => b.textContent.startsWith("echo: hello")), null, { timeout: 30000 });
  const chatId = await page.evaluate(() => chat.current);

  await page.click("#tab-automations");
  await page.waitForSelector("#view-automations:not(.hidden)");
  // The gateway's own jobs are listed and protected.
  await page.waitForFunction(() => document.querySelectorAll("#cron-jobs tbody tr[data-id]").length > 0,
                             null, { timeout: 15000 });
  const hbJob = await row(page, "heartbeat");
  check(hbJob && /every 2h/.test(hbJob.timing) && hbJob.buttons.join() === "Run now",
        "the heartbeat system job: " + JSON.stringify(hbJob));

  // Add a job that fires every 2 s into this chat (the form's default).
  check(await page.inputValue("#cron-chat") === chatId, "the form does not target the open chat");
  await page.fill("#cron-message", "say tick");
  await page.fill("#cron-name", "ticker");
  await page.selectOption("#cron-kind", "every");
  await page.fill("#cron-every", "2");
  await page.click("#cron-save");
  await page.waitForFunction(() => /Saved “ticker”/.test(document.getElementById("cron-result").textContent),
                             null, { timeout: 15000 });
  const stored = jobNamed("ticker");
  check(stored && stored.enabled && stored.schedule.everyMs === 2000, "jobs.json: " + JSON.stringify(stored));
  check(stored.payload.originChannel === "websocket" && stored.payload.originChatId === chatId,
        "the job's target: " + JSON.stringify(stored.payload));

  // It fires: the page shows its last run and outcome; its answer is in the chat.
  await page.waitForFunction(() => {
    const tr = [...document.querySelectorAll("#cron-jobs tbody tr")]
      .find((t) => t.querySelector(".job-name").textContent.startsWith("ticker"));
    return tr && tr.querySelector(".job-outcome").dataset.status === "ok"
      && !/never/.test(tr.querySelector(".job-last").textContent);
  }, null, { timeout: 30000 });
  let r = await row(page, "ticker");
  console.log("fired:", JSON.stringify(r));
  check(r.timing === "every 2s" && r.target === "websocket:" + chatId && r.tz.length > 0, "row: " + JSON.stringify(r));
  await page.click("#tab-chat");
  await page.waitForFunction(() => [...document.querySelectorAll(".msg.assistant")]
    .some((b) => !b.classList.contains("streaming") && b.textContent.includes("Cron job: say tick")),
    null, { timeout: 30000 });
  await page.click("#tab-automations");

  // Pause: the file says so, and no run follows (several periods pass).
  await clickOp(page, "ticker", "Pause");
  await page.waitForFunction(() => /Paused “ticker”/.test(document.getElementById("cron-result").textContent),
                             null, { timeout: 15000 });
  check(jobNamed("ticker").enabled === false, "jobs.json: not paused");
  await sleep(1500); // a turn already under way may still answer
  const runsAtPause = jobNamed("ticker").state.lastRunAtMs;
  const answersAtPause = await cronAnswers(page);
  await sleep(6000);
  check(jobNamed("ticker").state.lastRunAtMs === runsAtPause, "a paused job ran");
  check(await cronAnswers(page) === answersAtPause, "a paused job answered");
  r = await row(page, "ticker");
  check(r.next === "paused" && r.buttons.includes("Resume"), "paused row: " + JSON.stringify(r));

  // Run now: a run of its own, recorded, while it stays paused.
  await clickOp(page, "ticker", "Run now");
  await page.waitForFunction(() => /journaled|sent/.test(document.getElementById("cron-result").textContent),
                             null, { timeout: 30000 });
  await page.waitForFunction((n) => [...document.querySelectorAll(".msg.assistant")]
    .filter((b) => !b.classList.contains("streaming") && b.textContent.includes("Cron job: say tick")).length > n,
    answersAtPause, { timeout: 30000 });
  const afterRun = jobNamed("ticker");
  check(afterRun.state.lastRunAtMs > runsAtPause && afterRun.state.lastStatus === "ok" && !afterRun.enabled,
        "run now: " + JSON.stringify(afterRun.state));

  // Edit: a daily cron expression in a named zone.
  await clickOp(page, "ticker", "Edit");
  check(await page.inputValue("#cron-message") === "say tick", "the edit form is not filled in");
  await page.fill("#cron-message", "say good morning");
  await page.selectOption("#cron-kind", "cron");
  await page.fill("#cron-expr", "0 9 * * 1-5");
  await page.fill("#cron-tz", "Europe/Lisbon");
  await page.click("#cron-save");
  await page.waitForFunction(() => /Saved/.test(document.getElementById("cron-result").textContent),
                             null, { timeout: 15000 });
  const edited = jobNamed("ticker");
  check(edited.schedule.kind === "cron" && edited.schedule.expr === "0 9 * * 1-5"
        && edited.schedule.tz === "Europe/Lisbon" && edited.payload.message === "say good morning",
        "edited: " + JSON.stringify(edited));
  // A bad expression is refused, naming the field.
  await clickOp(page, "ticker", "Edit");
  await page.fill("#cron-expr", "0 25 * * *");
  await page.click("#cron-save");
  await page.waitForFunction(() => /hour/.test(document.getElementById("cron-result").textContent),
                             null, { timeout: 15000 });
  check(await page.$eval("#cron-result", (e) => e.classList.contains("error")), "the refusal is not an error");
  await page.click("#cron-cancel");
  // Resume shows its next run in the job's zone.
  await clickOp(page, "ticker", "Resume");
  await page.waitForFunction(() => {
    const tr = [...document.querySelectorAll("#cron-jobs tbody tr")]
      .find((t) => t.querySelector(".job-name").textContent.startsWith("ticker"));
    return tr && / 09:00:00 \(\+0[01]:00\)$/.test(tr.querySelector(".job-next").textContent);
  }, null, { timeout: 15000 });
  r = await row(page, "ticker");
  check(r.tz === "Europe/Lisbon", "zone: " + r.tz);

  // Delete asks first.
  let asked = "";
  page.once("dialog", (d) => { asked = d.message(); d.accept(); });
  await clickOp(page, "ticker", "Delete");
  await page.waitForFunction(() => /Deleted/.test(document.getElementById("cron-result").textContent),
                             null, { timeout: 15000 });
  check(/Delete the job “ticker”/.test(asked), "no confirmation asked: " + asked);
  check(!jobNamed("ticker"), "jobs.json still holds the job");
  console.log("cron: added, fired, paused, ran, edited, resumed, deleted");
}

async function heartbeatFlow(page) {
  await page.waitForFunction(() => document.getElementById("hb-text").value.includes("## Active Tasks"),
                             null, { timeout: 15000 });
  check(/every 2 h/.test(await page.textContent("#hb-state")), "interval: " + await page.textContent("#hb-state"));
  check(await page.$eval("#hb-state", (e) => e.dataset.active) === "no", "empty tasks shown as active");
  check(await page.textContent("#hb-evaluator-origin") === "built-in", "evaluator prompt origin");
  check((await page.textContent("#hb-evaluator")).length > 100, "no evaluator prompt shown");
  const text = "# Heartbeat\n\n## Active Tasks\n\n- Check the tomato plants every morning\n";
  await page.fill("#hb-text", text);
  await page.click("#hb-save");
  await page.waitForFunction(() => /Saved HEARTBEAT.md/.test(document.getElementById("hb-result").textContent),
                             null, { timeout: 15000 });
  check(fs.readFileSync(ws + "/HEARTBEAT.md", "utf8") === text, "HEARTBEAT.md not written");
  await page.waitForFunction(() => document.getElementById("hb-state").dataset.active === "yes", null, { timeout: 15000 });
  // The agent writes the file meanwhile: the page's older edit is refused.
  fs.writeFileSync(ws + "/HEARTBEAT.md", "## Active Tasks\n- written by the agent\n");
  await page.fill("#hb-text", "mine");
  await page.click("#hb-save");
  await page.waitForFunction(() => /changed since it was loaded/.test(document.getElementById("hb-result").textContent),
                             null, { timeout: 15000 });
  check(fs.readFileSync(ws + "/HEARTBEAT.md", "utf8") === "## Active Tasks\n- written by the agent\n",
        "a stale edit overwrote HEARTBEAT.md");
  await page.click("#hb-reload");
  await page.waitForFunction(() => /written by the agent/.test(document.getElementById("hb-text").value),
                             null, { timeout: 15000 });
  console.log("heartbeat: edited in place; a stale edit refused");
}

async function skillsAndMemoryFlow(page) {
  await page.click("#tab-skills");
  await page.waitForSelector("#skills-table tr[data-name='weather']", { timeout: 15000 });
  const weather = await page.$eval("#skills-table tr[data-name='weather']", (tr) => ({
    available: tr.querySelector(".skill-available").textContent,
    missing: tr.querySelector(".skill-missing").textContent,
    source: tr.querySelector(".skill-source").textContent }));
  check(weather.available === "no" && weather.missing === "programs: nb-no-such-forecast-tool"
        && weather.source === "workspace", "weather: " + JSON.stringify(weather));
  const builtins = await page.$$eval("#skills-table tr[data-name]", (rows) => rows.length);
  check(builtins > 1, "the built-in skills are not listed");
  await page.click("#skills-table tr[data-name='weather']");
  await page.waitForSelector("#skill-view:not(.hidden)");
  check((await page.textContent("#skill-text")).includes("requires"), "SKILL.md not shown whole");
  check(await page.textContent("#skill-file") === "skills/weather/SKILL.md", "SKILL.md path");

  // MEMORY.md: shown, edited, kept.
  await page.waitForFunction(() => document.getElementById("memory-text").value.includes("likes tea"),
                             null, { timeout: 15000 });
  const memory = "- The user likes tea.\n- The user works at night.\n";
  await page.fill("#memory-text", memory);
  await page.click("#memory-save");
  await page.waitForFunction(() => /Saved MEMORY.md/.test(document.getElementById("memory-result").textContent),
                             null, { timeout: 15000 });
  check(fs.readFileSync(ws + "/memory/MEMORY.md", "utf8") === memory, "MEMORY.md not written");
  await page.reload({ waitUntil: "load" });
  await page.waitForSelector("body[data-ready]", { timeout: 15000 }); // handlers bound
  await page.click("#tab-skills");
  await page.waitForFunction(() => document.getElementById("memory-text").value.includes("works at night"),
                             null, { timeout: 15000 });

  // history.jsonl, newest first, filtered.
  await page.waitForFunction(() => document.querySelectorAll("#history-list li").length >= 2, null, { timeout: 15000 });
  const entries = await page.$$eval("#history-list li .history-content", (els) => els.map((e) => e.textContent));
  check(entries[0] === "Planned a trip to Lisbon." && entries[1] === "Talked about green tea and oolong.",
        "history: " + JSON.stringify(entries));
  await page.fill("#history-search", "oolong");
  check(await page.$$eval("#history-list li", (l) => l.length) === 1, "the filter does not filter");
  console.log("skills and memory: missing program shown, SKILL.md, MEMORY.md saved, history listed");
}

// A second agent (agents.list "research", its own workspace): picked in the
// pages, its cron job and MEMORY.md land in its workspace and not in main's.
async function secondAgentFlow(page) {
  const mainJobs = JSON.stringify(readJobs());
  const mainMemory = fs.readFileSync(ws + "/memory/MEMORY.md", "utf8");
  await page.click("#tab-automations");
  await page.waitForSelector(".agent-bar:not(.hidden) #auto-agent", { timeout: 15000 });
  const options = await page.$$eval("#auto-agent option", (o) => o.map((x) => x.value));
  check(JSON.stringify(options) === '["main","research"]', "agents offered: " + JSON.stringify(options));
  await page.selectOption("#auto-agent", "research");
  await page.waitForSelector('#view-automations[data-agent="research"]', { timeout: 15000 });
  await page.fill("#cron-message", "Summarise the papers");
  await page.fill("#cron-name", "research digest");
  await page.selectOption("#cron-kind", "every");
  await page.fill("#cron-every", "3600");
  await page.click("#cron-save");
  await page.waitForFunction(() => /Saved “research digest”/.test(document.getElementById("cron-result").textContent),
                             null, { timeout: 15000 });
  const theirs = JSON.parse(fs.readFileSync(researchWs + "/cron/jobs.json", "utf8")).jobs;
  check(theirs.some((j) => j.name === "research digest"), "the job is not in research's jobs.json");
  check(JSON.stringify(readJobs()) === mainJobs, "main's jobs.json changed");
  check(!readJobs().some((j) => j.name === "research digest"), "the job landed in main's jobs.json");
  await page.waitForFunction(() => [...document.querySelectorAll("#cron-jobs .job-name")]
    .some((c) => c.textContent.startsWith("research digest")), null, { timeout: 15000 });
  // HEARTBEAT.md of research: its own file.
  await page.fill("#hb-text", "# Heartbeat\n\n## Active Tasks\n\n- check arXiv\n");
  await page.click("#hb-save");
  await page.waitForFunction(() => /Saved HEARTBEAT.md/.test(document.getElementById("hb-result").textContent),
                             null, { timeout: 15000 });
  check(fs.readFileSync(researchWs + "/HEARTBEAT.md", "utf8").includes("check arXiv"), "research's HEARTBEAT.md");
  check(!fs.readFileSync(ws + "/HEARTBEAT.md", "utf8").includes("check arXiv"), "main's HEARTBEAT.md changed");

  // The skills page keeps the choice: research's MEMORY.md, empty so far.
  await page.click("#tab-skills");
  check(await page.inputValue("#skills-agent") === "research", "the skills page shows another agent");
  await page.waitForSelector('#memory-text[data-agent="research"]', { timeout: 15000 });
  check(!(await page.inputValue("#memory-text")).includes("likes tea"), "research's MEMORY.md shows main's text");
  const notes = "- Tracks papers on retrieval.\n";
  await page.fill("#memory-text", notes);
  await page.click("#memory-save");
  await page.waitForFunction(() => /Saved MEMORY.md/.test(document.getElementById("memory-result").textContent),
                             null, { timeout: 15000 });
  check(fs.readFileSync(researchWs + "/memory/MEMORY.md", "utf8") === notes, "research's MEMORY.md not written");
  check(fs.readFileSync(ws + "/memory/MEMORY.md", "utf8") === mainMemory, "main's MEMORY.md changed");
  await page.waitForFunction(() => /^0 entries/.test(document.getElementById("history-count").textContent),
                             null, { timeout: 15000 });
  // Back to main: its own memory again.
  await page.selectOption("#skills-agent", "main");
  await page.waitForSelector('#memory-text[data-agent="main"]', { timeout: 15000 });
  check((await page.inputValue("#memory-text")).includes("works at night"), "main's MEMORY.md not shown again");
  // An agent the gateway does not have is named in the error.
  const nope = await page.evaluate(async () => {
    const r = await fetch("/api/memory?agent=nope");
    return { status: r.status, body: await r.json() };
  });
  check(nope.status === 404 && /no agent named "nope"/.test(nope.body.error) && /research/.test(nope.body.error),
        "unknown agent: " + JSON.stringify(nope));
  console.log("second agent: its cron job, HEARTBEAT.md and MEMORY.md in its own workspace; unknown agent named");
}

function rawRequest(method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(base + path, { method, headers }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode, body: data }));
    });
    req.on("error", reject);
    if (body) req.write(body);
    req.end();
  });
}

async function refusals() {
  // State changes need this origin and a changing method.
  const evil = await rawRequest("PUT", "/api/memory", { Origin: "http://evil.example",
    "Content-Type": "application/json" }, JSON.stringify({ text: "owned", version: "" }));
  check(evil.status === 403, "PUT /api/memory from a foreign Origin: " + evil.status);
  const noOrigin = await rawRequest("POST", "/api/cron/jobs", { "Content-Type": "application/json" }, "{}");
  check(noOrigin.status === 403, "POST /api/cron/jobs without Origin: " + noOrigin.status);
  const get = await rawRequest("GET", "/api/cron/jobs/x/run", {});
  check(get.status === 405, "GET on run: " + get.status);
  check(!fs.readFileSync(ws + "/memory/MEMORY.md", "utf8").includes("owned"), "MEMORY.md changed");
}

try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => fail("page error: " + e.message));
  await page.goto(base + "/", { waitUntil: "load" });
  await page.waitForSelector("body[data-ready]", { timeout: 15000 }); // handlers bound
  await automationsFlow(page);
  await heartbeatFlow(page);
  await skillsAndMemoryFlow(page);
  await secondAgentFlow(page);
  await refusals();
  console.log("PASS");
} catch (e) {
  fail(e.stack || e.message);
} finally {
  await browser.close();
}
