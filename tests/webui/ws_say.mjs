// Says one line to a WebSocket channel of a running gateway as a client
// would (no browser: a raw RFC 6455 client over node's net) and prints the
// answer's text once its turn ends.
// Usage: node ws_say.mjs <port> <client id> <text>. Exit 1 on no answer.
import net from "net";
import crypto from "crypto";

const [port, client, text] = process.argv.slice(2);
const sock = net.connect(Number(port), "127.0.0.1");
const fail = (msg) => { console.error("ws_say: " + msg); process.exit(1); };
setTimeout(() => fail("no answer within 60 s"), 60000);

// A client frame: FIN + text, masked as RFC 6455 requires of clients.
function frame(payload) {
  const body = Buffer.from(payload, "utf8");
  const mask = crypto.randomBytes(4);
  const len = body.length;
  const head = len < 126 ? Buffer.from([0x81, 0x80 | len])
                         : Buffer.from([0x81, 0x80 | 126, len >> 8, len & 0xff]);
  const masked = Buffer.alloc(len);
  for (let i = 0; i < len; i++) masked[i] = body[i] ^ mask[i % 4];
  return Buffer.concat([head, mask, masked]);
}

let buf = Buffer.alloc(0);
let upgraded = false;
let answer = "";
sock.on("error", (e) => fail(e.message));
sock.on("connect", () => sock.write(
  `GET /?client_id=${client} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
  "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n" +
  `Sec-WebSocket-Key: ${crypto.randomBytes(16).toString("base64")}\r\n\r\n`));
sock.on("data", (d) => {
  buf = Buffer.concat([buf, d]);
  if (!upgraded) {
    const end = buf.indexOf("\r\n\r\n");
    if (end < 0) return;
    const status = /^HTTP\/1\.1 (\d+)/.exec(buf.slice(0, end).toString("latin1"));
    if (!status || status[1] !== "101") fail("handshake: " + buf.slice(0, end).toString("latin1"));
    upgraded = true;
    buf = buf.slice(end + 4);
  }
  // Server frames are not masked; text frames only here.
  for (;;) {
    if (buf.length < 2) return;
    let len = buf[1] & 0x7f;
    let off = 2;
    if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); off = 4; }
    else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); off = 10; }
    if (buf.length < off + len) return;
    const payload = buf.slice(off, off + len).toString("utf8");
    buf = buf.slice(off + len);
    let ev = {};
    try { ev = JSON.parse(payload); } catch (e) { continue; }
    if (ev.event === "ready") sock.write(frame(text));
    else if (ev.event === "delta") answer += ev.text || "";
    else if (ev.event === "message" && ev.text && !ev.kind) answer = ev.text;
    else if (ev.event === "turn_end") { console.log(answer); process.exit(answer ? 0 : 1); }
    else if (ev.event === "error") fail("error event: " + payload);
  }
});
