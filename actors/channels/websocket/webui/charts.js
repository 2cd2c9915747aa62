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

  /** Draws labelled bars: `items` is [[label, value], ...]. */
  bars(canvas, items, color) {
    const ctx = canvas.getContext("2d");
    const w = canvas.width, h = canvas.height;
    ctx.clearRect(0, 0, w, h);
    if (!items.length) return;
    const max = Math.max(1, ...items.map((x) => x[1]));
    const slot = w / items.length;
    ctx.font = "10px system-ui";
    items.forEach(([label, v], i) => {
      const bh = (v / max) * (h - 16);
      ctx.fillStyle = color || "#93b4f5";
      ctx.fillRect(i * slot + 4, h - 14 - bh, slot - 8, bh);
      ctx.fillStyle = "#6b7280";
      ctx.fillText(String(label).slice(0, 10), i * slot + 4, h - 2);
    });
  },
};
