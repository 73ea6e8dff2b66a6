// The seed tutorial's picture: LeakyReLU computed by the WebGPU kernel,
// plotted against ReLU. ?alpha=0.2 picks alpha (default 0.2, so that the
// negative side is visible). window.demo reports what was drawn where, for
// the screenshot test (tests/js/test_browser.py).
import { getKernel } from "../src/index.js";

const COLORS = { relu: "#1f77b4", lrelu: "#d62728", axis: "#444", grid: "#e4e4e4" };
const X_RANGE = [-4, 4];
const Y_RANGE = [-1.5, 4.5];
const MARGIN = { left: 50, right: 20, top: 20, bottom: 40 };

function linspace(lo, hi, n) {
  return Float32Array.from({ length: n }, (_, i) => lo + (hi - lo) * i / (n - 1));
}

function draw(canvas, x, relu, lrelu, alpha) {
  const ctx = canvas.getContext("2d");
  const box = { left: MARGIN.left, top: MARGIN.top,
                width: canvas.width - MARGIN.left - MARGIN.right,
                height: canvas.height - MARGIN.top - MARGIN.bottom };
  const px = (v) => box.left + (v - X_RANGE[0]) / (X_RANGE[1] - X_RANGE[0]) * box.width;
  const py = (v) => box.top + (Y_RANGE[1] - v) / (Y_RANGE[1] - Y_RANGE[0]) * box.height;
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.lineWidth = 1;
  ctx.strokeStyle = COLORS.grid;
  ctx.fillStyle = COLORS.axis;
  ctx.font = "12px sans-serif";
  for (let v = Math.ceil(X_RANGE[0]); v <= X_RANGE[1]; v++) {
    ctx.beginPath(); ctx.moveTo(px(v), box.top); ctx.lineTo(px(v), box.top + box.height); ctx.stroke();
    ctx.fillText(String(v), px(v) - 4, box.top + box.height + 16);
  }
  for (let v = Math.ceil(Y_RANGE[0]); v <= Y_RANGE[1]; v++) {
    ctx.beginPath(); ctx.moveTo(box.left, py(v)); ctx.lineTo(box.left + box.width, py(v)); ctx.stroke();
    ctx.fillText(String(v), box.left - 22, py(v) + 4);
  }
  ctx.strokeStyle = COLORS.axis;
  ctx.beginPath(); ctx.moveTo(px(0), box.top); ctx.lineTo(px(0), box.top + box.height); ctx.stroke();
  ctx.beginPath(); ctx.moveTo(box.left, py(0)); ctx.lineTo(box.left + box.width, py(0)); ctx.stroke();
  const curve = (ys, color) => {
    ctx.strokeStyle = color;
    ctx.lineWidth = 3;
    ctx.beginPath();
    ys.forEach((v, i) => (i === 0 ? ctx.moveTo(px(x[i]), py(v)) : ctx.lineTo(px(x[i]), py(v))));
    ctx.stroke();
  };
  curve(relu, COLORS.relu);
  curve(lrelu, COLORS.lrelu);
  ctx.font = "14px sans-serif";
  ctx.fillStyle = COLORS.relu;
  ctx.fillText("ReLU", box.left + 16, box.top + 20);
  ctx.fillStyle = COLORS.lrelu;
  ctx.fillText(`LeakyReLU, alpha = ${alpha}`, box.left + 16, box.top + 40);
  return box;
}

async function main() {
  const status = document.getElementById("status");
  const canvas = document.getElementById("plot");
  try {
    const alpha = Number(new URLSearchParams(location.search).get("alpha") ?? "0.2");
    const kernel = await getKernel("webgpu-kernels/ai.onnx.LeakyRelu", { version: 1 });
    const x = linspace(X_RANGE[0], X_RANGE[1], 801);
    const { y, variant } = await kernel({ x: { data: x, shape: [x.length] } }, { alpha });
    const relu = x.map((v) => Math.max(v, 0));
    const box = draw(canvas, x, relu, y.data, alpha);
    const adapter = kernel.info.adapter;
    status.textContent = `${x.length} points, variant ${variant}, adapter ` +
        (adapter ? `${adapter.vendor} ${adapter.architecture}` : "unknown");
    const rect = canvas.getBoundingClientRect();
    window.demo = { done: true, alpha, xRange: X_RANGE, yRange: Y_RANGE, box, colors: COLORS,
                    canvas: { left: rect.left, top: rect.top, width: canvas.width, height: canvas.height,
                              cssWidth: rect.width, cssHeight: rect.height } };
  } catch (e) {
    status.textContent = `error: ${e.message}`;
    window.demo = { done: true, error: `${e.code || e.name}: ${e.message}` };
  }
}

main();
