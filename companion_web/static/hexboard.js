/* CARIBO figure notation and hex drawing (pointy-top hexes, segments 1..6 clockwise
 * from the upper-right edge), mirroring engines/caribo/notation.py and geometry.py. */
"use strict";

const HexBoard = (() => {
  const COLOURS = { W: "#f4f1e8", S: "#1d1d1d", B: "#1f5fd6", R: "#d62828", G: "#2a9d3a", Y: "#f2c500" };
  const SQRT3_2 = Math.sqrt(3) / 2;
  const TILE = /^(?:[WSBRGY]|(?:12|23|34|45|56|61)[WSBRGY]{2})$/;

  function isIndented(row, firstShifted) {
    return (((row % 2) + 2) % 2 === 1) !== firstShifted;
  }

  // Parse notation into {firstShifted, height, width, cells: Map("r,c" -> "0"|"1"|code)}.
  function parse(text) {
    const out = { firstShifted: false, height: 0, width: 0, cells: new Map() };
    text = (text || "").trim();
    if (!text) return out;
    const rows = text.split(/\s*(?:-|\r?\n)\s*/);
    rows.forEach((raw, r) => {
      let row = raw.trim();
      const shifted = row.startsWith("e");
      if (shifted) row = row.slice(1);
      if (r === 0) out.firstShifted = shifted;
      const cells = row.split(",").map((c) => c.trim());
      out.width = Math.max(out.width, cells.length);
      cells.forEach((value, c) => out.cells.set(`${r},${c}`, value || "0"));
    });
    out.height = rows.length;
    return out;
  }

  // Canonical notation of a grid (cells may lie outside 0..height-1 / 0..width-1).
  function format(grid) {
    const keys = [...grid.cells.entries()].filter(([, v]) => v !== "0").map(([k]) => k.split(",").map(Number));
    if (!keys.length && (grid.height === 0 || grid.width === 0)) return "";
    let minR = 0, maxR = grid.height - 1, minC = 0, maxC = grid.width - 1;
    for (const [r, c] of keys) {
      minR = Math.min(minR, r); maxR = Math.max(maxR, r);
      minC = Math.min(minC, c); maxC = Math.max(maxC, c);
    }
    const rows = [];
    for (let r = minR; r <= maxR; r++) {
      const cells = [];
      for (let c = minC; c <= maxC; c++) cells.push(grid.cells.get(`${r},${c}`) || "0");
      rows.push((isIndented(r, grid.firstShifted) ? "e" : "") + cells.join(","));
    }
    return rows.join(" - ");
  }

  function isTile(code) {
    return TILE.test(code || "");
  }

  // The six segment colours (segments 1..6) of a tile code.
  function segments(code) {
    if (code.length === 1) return Array(6).fill(code);
    const i = Number(code[0]), j = Number(code[1]);
    return [1, 2, 3, 4, 5, 6].map((k) => (k === i || k === j ? code[2] : code[3]));
  }

  // Centre of a cell in tile widths.
  function centre(r, c, firstShifted) {
    return [c + (isIndented(r, firstShifted) ? 0.5 : 0), r * SQRT3_2];
  }

  // Vertices of a pointy-top hex (top first, clockwise) of width w around (x, y).
  function vertices(x, y, w) {
    const R = w / Math.sqrt(3);
    return [-90, -30, 30, 90, 150, 210].map((a) => [x + R * Math.cos((a * Math.PI) / 180), y + R * Math.sin((a * Math.PI) / 180)]);
  }

  /* Draw a board as SVG into `host`. options: {placements, problems(details), onCell} */
  function render(host, grid, options = {}) {
    const W = options.size || 48;
    const cells = [...grid.cells.entries()].filter(([, v]) => v !== "0").map(([k, v]) => {
      const [r, c] = k.split(",").map(Number);
      return { r, c, v };
    });
    const ghosts = new Map();
    for (const p of options.placements || []) {
      const key = `${p.row},${p.col}`;
      if (!ghosts.has(key)) ghosts.set(key, []);
      ghosts.get(key).push(p);
    }
    const all = [...cells, ...[...ghosts.keys()].map((k) => { const [r, c] = k.split(",").map(Number); return { r, c }; })];
    const svgEl = Boardcam.svg("svg", { class: "hexboard", role: "img" });
    if (!all.length) {
      svgEl.setAttribute("viewBox", "0 0 200 60");
      const t = Boardcam.svg("text", { x: 10, y: 35, class: "empty-note" });
      t.textContent = "empty table";
      svgEl.append(t);
      host.replaceChildren(svgEl);
      return svgEl;
    }
    const points = all.map(({ r, c }) => centre(r, c, grid.firstShifted).map((v) => v * W));
    const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
    const pad = W;
    const minX = Math.min(...xs) - pad, minY = Math.min(...ys) - pad;
    const width = Math.max(...xs) - minX + pad, height = Math.max(...ys) - minY + pad;
    svgEl.setAttribute("viewBox", `${minX} ${minY} ${width} ${height}`);
    // natural size about 1.2 CSS px per unit: a small board is not blown up to the full
    // width (CSS scales a large one down to fit)
    svgEl.setAttribute("width", String(Math.round(width * 1.2)));
    svgEl.setAttribute("height", String(Math.round(height * 1.2)));
    const badCells = new Set();
    for (const d of options.problems || []) {
      if (d && Array.isArray(d.cells) && d.kind !== "mismatch") for (const cell of d.cells) badCells.add(`${cell[0]},${cell[1]}`);
    }
    for (const { r, c, v } of cells) {
      const [x, y] = centre(r, c, grid.firstShifted).map((n) => n * W);
      const vs = vertices(x, y, W * 0.98);
      const g = Boardcam.svg("g", { class: "cell", "data-row": r, "data-col": c, "data-value": v });
      if (isTile(v)) {
        segments(v).forEach((colour, k) => {
          const a = vs[k], b = vs[(k + 1) % 6];
          g.append(Boardcam.svg("polygon", { points: `${x},${y} ${a} ${b}`, fill: COLOURS[colour], stroke: COLOURS[colour], "stroke-width": 0.5 }));
        });
        g.classList.add("tile");
      } else {
        g.classList.add(v === "1" ? "open" : "unknown");
      }
      g.append(Boardcam.svg("polygon", { points: vs.join(" "), class: badCells.has(`${r},${c}`) ? "outline bad" : "outline" }));
      const label = Boardcam.svg("text", { x, y: y + 4, class: "code" });
      label.textContent = isTile(v) ? v : v === "1" ? "" : v;
      g.append(label);
      if (options.onCell) g.addEventListener("click", () => options.onCell(r, c, v));
      svgEl.append(g);
    }
    for (const [key, list] of ghosts) {
      const [r, c] = key.split(",").map(Number);
      const [x, y] = centre(r, c, grid.firstShifted).map((n) => n * W);
      const vs = vertices(x, y, W * 0.98);
      const g = Boardcam.svg("g", { class: "placement", "data-row": r, "data-col": c, "data-count": list.length });
      const shown = list[0].tile;
      if (isTile(shown)) {
        segments(shown).forEach((colour, k) => {
          g.append(Boardcam.svg("polygon", { points: `${x},${y} ${vs[k]} ${vs[(k + 1) % 6]}`, fill: COLOURS[colour], opacity: 0.45 }));
        });
      }
      g.append(Boardcam.svg("polygon", { points: vs.join(" "), class: "outline highlight" }));
      const label = Boardcam.svg("text", { x, y: y + 4, class: "code" });
      label.textContent = list.length > 1 ? `${list.length}×` : shown;
      g.append(label);
      if (options.onPlacement) g.addEventListener("click", () => options.onPlacement(list));
      svgEl.append(g);
    }
    // Mismatched edges: a thick red line on the shared edge.
    for (const d of options.problems || []) {
      if (!d || d.kind !== "mismatch" || !Array.isArray(d.cells) || !d.edge) continue;
      const [r, c] = d.cells[0];
      const [x, y] = centre(r, c, grid.firstShifted).map((n) => n * W);
      const vs = vertices(x, y, W * 0.98);
      const a = vs[d.edge - 1], b = vs[d.edge % 6];
      svgEl.append(Boardcam.svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: "mismatch-halo" }));
      svgEl.append(Boardcam.svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: "mismatch", "data-row": r, "data-col": c, "data-edge": d.edge }));
    }
    host.replaceChildren(svgEl);
    return svgEl;
  }

  return { parse, format, isTile, segments, centre, vertices, render, isIndented, COLOURS };
})();
