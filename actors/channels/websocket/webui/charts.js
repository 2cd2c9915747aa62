// Tiny canvas charts for the dashboard: a line of recent values and bars.
"use strict";

const charts = {
  /** Draws `values` (numbers) as a line scaled to the canvas. */
  line(canvas, values, color) {
    const ctx = canvas.getContext("2d");
    const w = canvas.width, h = canvas.height;
    ctx.clearRect(0, 0, w, h);
    if (values.length < 2) return;
    const max = Math.max(...values), min = Math.min(...values);
    const span = max - min || 1;
    ctx.strokeStyle = color || "#2563eb";
    ctx.lineWidth = 2;
    ctx.beginPath();
    values.forEach((v, i) => {
      const x = (i / (values.length - 1)) * (w - 4) + 2;
      const y = h - 4 - ((v - min) / span) * (h - 8);
      if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
    });
    ctx.stroke();
  },

  /**
   * Draws labelled bars, one row each: `items` is [[label, value], ...].
   * Rows instead of columns so that every label has a line of its own
   * (side by side they overlapped once there were more than a few); the
   * canvas grows with the rows and is drawn at the screen's pixel ratio so
   * the text is sharp. The label boxes are left in canvas.dataset.labels.
   */
  bars(canvas, items, color) {
    const rowH = 18, pad = 4, gap = 6;
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth || canvas.width;
    const h = Math.max(1, items.length) * rowH + 2 * pad;
    canvas.style.height = h + "px";
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    const max = Math.max(1, ...items.map((x) => x[1]));
    const widest = Math.max(0, ...items.map(([l]) => ctx.measureText(String(l)).width));
    const labelW = Math.min(Math.ceil(widest), Math.floor(w * 0.45));
    const valueW = Math.ceil(ctx.measureText(String(max)).width) + gap;
    const barSpace = Math.max(10, w - labelW - 2 * gap - valueW);
    const boxes = [];
    items.forEach(([label, v], i) => {
      const mid = pad + i * rowH + rowH / 2;
      const text = fitText(ctx, String(label), labelW);
      ctx.fillStyle = "#374151";
      ctx.textAlign = "right";
      ctx.fillText(text, labelW, mid);
      const tw = ctx.measureText(text).width;
      boxes.push({ text, x: labelW - tw, y: mid - rowH / 2 + 2, w: tw, h: rowH - 4 });
      const bw = (v / max) * barSpace;
      ctx.fillStyle = color || "#93b4f5";
      ctx.fillRect(labelW + gap, mid - rowH / 2 + 3, bw, rowH - 6);
      ctx.fillStyle = "#6b7280";
      ctx.textAlign = "left";
      ctx.fillText(String(v), labelW + gap + bw + 4, mid);
    });
    canvas.dataset.labels = JSON.stringify(boxes);
  },
};

/** `text`, cut with an ellipsis to fit `width` pixels. */
function fitText(ctx, text, width) {
  if (ctx.measureText(text).width <= width) return text;
  let cut = text;
  while (cut.length > 1 && ctx.measureText(cut + "…").width > width) cut = cut.slice(0, -1);
  return cut + "…";
}
