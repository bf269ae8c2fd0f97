/* Colomino page: before/after boards, turn scoring with courts, running scoreboard. */
"use strict";

(() => {
  const { api, showMessage, el, svg } = Boardcam;
  const COLOURS = { R: "#d62828", Y: "#f2c500", G: "#2a9d3a", B: "#1f5fd6" };
  const sizeSelect = document.getElementById("board-size");
  const sideWalls = document.getElementById("side-walls");
  const finalRound = document.getElementById("final-round");
  const result = document.getElementById("score-result");
  const courtList = document.getElementById("court-list");
  let layout = null;
  let before = empty(9);
  let board = empty(9);
  let lastScore = null;
  let beforeSet = false; // "before" was set by the player or a session (else the empty board)
  let page;

  function empty(size) {
    return { game: "colomino", size, rows: Array.from({ length: size }, () => Array(size).fill(".")) };
  }

  async function loadLayout(size) {
    try {
      layout = (await api(`/api/colomino/layout/${size}`)).layout;
    } catch (e) {
      layout = null;
      showMessage(e.message);
    }
  }

  function printedAt(state, r, c) {
    const lay = state.layout || layout;
    if (!lay) return null;
    const hit = (lay.printed || []).find((p) => p[0] === r && p[1] === c);
    return hit ? hit[2] : null;
  }

  function render(host, state, options = {}) {
    const n = state.size || state.rows.length;
    const S = 30;
    const pad = 10;
    const root = svg("svg", { viewBox: `0 0 ${n * S + 2 * pad} ${n * S + 2 * pad}`, class: "colomino", role: "img" });
    const lay = state.layout || layout;
    if (lay && lay.rim) {
      const rim = lay.rim;
      for (let i = 0; i < n; i++) {
        root.append(svg("rect", { x: pad + i * S + 4, y: 2, width: S - 8, height: 6, fill: COLOURS[rim.north[i]], class: "rim" }));
        root.append(svg("rect", { x: pad + i * S + 4, y: pad + n * S + 2, width: S - 8, height: 6, fill: COLOURS[rim.south[i]], class: "rim" }));
        root.append(svg("rect", { x: 2, y: pad + i * S + 4, width: 6, height: S - 8, fill: COLOURS[rim.west[i]], class: "rim" }));
        root.append(svg("rect", { x: pad + n * S + 2, y: pad + i * S + 4, width: 6, height: S - 8, fill: COLOURS[rim.east[i]], class: "rim" }));
      }
    }
    const placed = new Set((options.placements || []).map((p) => `${p.row},${p.col}`));
    state.rows.forEach((row, r) => row.forEach((cell, c) => {
      const x = pad + c * S, y = pad + r * S;
      const g = svg("g", { class: "cell", "data-row": r, "data-col": c, "data-value": cell });
      if (cell === "*") {
        g.append(svg("rect", { x, y, width: S, height: S, fill: "#fff" }));
      } else if (/^[RYGB]{4}$/.test(cell)) {
        const cx = x + S / 2, cy = y + S / 2;
        const corners = [[x, y], [x + S, y], [x + S, y + S], [x, y + S]];
        for (let k = 0; k < 4; k++) {
          const a = corners[k], b = corners[(k + 1) % 4];
          g.append(svg("polygon", { points: `${cx},${cy} ${a} ${b}`, fill: COLOURS[cell[k]] }));
        }
      } else {
        const printed = printedAt(state, r, c);
        g.append(svg("rect", { x, y, width: S, height: S, fill: printed ? COLOURS[printed] : "#e9e4d8", opacity: printed ? 0.35 : 1 }));
      }
      g.append(svg("rect", { x, y, width: S, height: S, class: placed.has(`${r},${c}`) ? "outline highlight" : "outline" }));
      if (options.onCell) g.addEventListener("click", () => options.onCell(r, c, cell));
      root.append(g);
    }));
    for (const court of options.courts || []) {
      const x = pad + court.col * S + S / 2, y = pad + court.row * S + S / 2;
      root.append(svg("circle", { cx: x, cy: y, r: 9, class: `chip ${court.kind}`, "data-row": court.row, "data-col": court.col }));
      const t = svg("text", { x, y: y + 4, class: "chip-label" });
      t.textContent = `×${court.multiplier}`;
      root.append(t);
    }
    host.replaceChildren(root);
  }

  function draw() {
    render(document.getElementById("before-view"), before, {});
    render(document.getElementById("board-view"), board, {
      placements: lastScore ? lastScore.placements : [],
      courts: lastScore ? lastScore.courts : [],
      onCell: correctCell,
    });
    if (page) page.camera.redraw();
  }

  function correctCell(r, c, value) {
    const text = window.prompt(`Cell row ${r}, column ${c} (edge colours N,E,S,W like RRGB; * joker; . empty):`, value);
    if (text === null) return;
    const code = text.trim().toUpperCase();
    if (!(code === "." || code === "*" || /^[RYGB]{4}$/.test(code))) {
      showMessage(`cell: ${text} is not a Colomino cell (RRGB, * or .)`);
      return;
    }
    board.rows[r][c] = code;
    lastScore = null;
    draw();
    if (result.dataset.asked) score();
  }

  async function score() {
    result.dataset.asked = "1";
    try {
      const data = await api("/api/colomino/score", { method: "POST", json: { before, after: board, side_walls: sideWalls.checked } });
      if (data.negative) {
        lastScore = null;
        result.textContent = beforeSet
          ? "Not a legal turn."
          : "Not a legal turn from an empty board: press “Use as before” to take the board shown as the position before the turn.";
        courtList.replaceChildren(...(data.answer.problems || []).map((p) => el("li", { text: String(p) })));
      } else {
        lastScore = data.answer;
        const a = data.answer;
        result.textContent = `${a.placements.length} tile${a.placements.length === 1 ? "" : "s"} placed: ${a.yellow} yellow, ${a.blue} blue chip${a.blue === 1 ? "" : "s"} = ${a.points} point${a.points === 1 ? "" : "s"}.`;
        courtList.replaceChildren(...a.courts.map((c) => el("li", { text: `${c.kind} court at row ${c.row}, column ${c.col} ×${c.multiplier}` })));
      }
      showMessage("");
    } catch (e) {
      lastScore = null;
      showMessage(e.message);
    }
    draw();
  }

  function clone(state) {
    return JSON.parse(JSON.stringify(state));
  }

  // A picture whose board differs from the one shown replaces it and is scored against
  // "before" at once (the rules answer); the same board again changes nothing.
  function onRecognized(answer) {
    if (!Array.isArray(answer.rows)) return;
    if (JSON.stringify(answer.rows) === JSON.stringify(board.rows)) return;
    board = { game: "colomino", size: answer.size || answer.rows.length, rows: answer.rows, ...(answer.layout ? { layout: answer.layout } : {}) };
    lastScore = Array.isArray(answer.placed) ? { placements: answer.placed, courts: [] } : null;
    if (JSON.stringify(board.rows) !== JSON.stringify(before.rows)) score();
    else draw();
  }

  // Label every recognised tile at its cell centre; outline this turn's placements and
  // mark the courts (yellow: open, blue: closed) when the last score is for this board.
  function drawOverlay(ctx, answer) {
    const rows = Array.isArray(answer.rows) ? answer.rows : [];
    const cells = (answer.cells || []).filter((c) => rows[c.row] && !["." , undefined].includes(rows[c.row][c.col]));
    Boardcam.drawItems(ctx, cells, (c) => c.tile || rows[c.row][c.col]);
    const corners = answer.field_corners_px;
    if (Array.isArray(corners) && corners.length === 4) {
      ctx.save();
      ctx.strokeStyle = "#00d0ff";
      ctx.lineWidth = 3;
      ctx.beginPath();
      corners.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
      ctx.closePath();
      ctx.stroke();
      ctx.restore();
    }
    if (!lastScore || JSON.stringify(board.rows) !== JSON.stringify(rows)) return;
    const centreOf = new Map((answer.cells || []).map((c) => [`${c.row},${c.col}`, Boardcam.pixelCentre(c)]));
    ctx.save();
    for (const p of lastScore.placements || []) {
      const q = centreOf.get(`${p.row},${p.col}`);
      if (!q) continue;
      ctx.strokeStyle = "#ff2bd6";
      ctx.lineWidth = 4;
      ctx.strokeRect(q[0] - 22, q[1] - 22, 44, 44);
    }
    for (const c of lastScore.courts || []) {
      const q = centreOf.get(`${c.row},${c.col}`);
      if (!q) continue;
      ctx.fillStyle = c.kind === "closed" ? "#1f5fd6" : "#f2c500";
      ctx.beginPath();
      ctx.arc(q[0], q[1], 12, 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.restore();
  }

  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const listNames = (names) => names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0];

  // The end-of-game announcement: winner(s), points, and the blue chips when they decide.
  function announcement(session) {
    const s = session.summary;
    const names = session.players;
    const score = (i) => s.scores[i];
    const why = { "final round played": "the final round is played", "a full round without a tile placed": "a full round passed without a tile placed", "every tile is on the board": "every tile is on the board" }[s.end_reason] || "the game is over";
    if (s.decided_by === "draw") {
      const a = score(0);
      return `Game over (${why}): a draw — everybody has ${plural(a.points, "point")} and ${plural(a.blue, "blue chip")}.`;
    }
    const w = s.winner.map((i) => names[i]);
    const top = score(s.winner[0]);
    if (s.decided_by === "shared") {
      return `Game over (${why}): ${listNames(w)} share the win with ${plural(top.points, "point")} and ${plural(top.blue, "blue chip")} each.`;
    }
    if (s.decided_by === "blue chips") {
      const tied = s.scores.map((x, i) => i).filter((i) => score(i).points === top.points && i !== s.winner[0]);
      const next = Math.max(...tied.map((i) => score(i).blue));
      return `Game over (${why}): ${w[0]} wins — ${plural(top.points, "point")} like ${listNames(tied.map((i) => names[i]))}, but more blue chips (${top.blue} to ${next}).`;
    }
    return `Game over (${why}): ${w[0]} wins with ${plural(top.points, "point")}.`;
  }

  function onSession(session) {
    beforeSet = true;
    before = clone(session.state);
    board = clone(session.state);
    lastScore = null; // the stored position is the new "before": nothing is scored on it yet
    courtList.replaceChildren();
    const s = session.summary;
    const settings = session.settings || {};
    if (settings.size && String(settings.size) !== sizeSelect.value) {
      sizeSelect.value = String(settings.size);
      loadLayout(settings.size).then(draw);
    }
    sideWalls.checked = Boolean(settings.side_walls);
    finalRound.value = settings.final_round || "all";
    const rows = session.players.map((name, i) => el("tr", { class: [i === s.turn && !s.over ? "to-move" : "", (s.winner || []).includes(i) ? "winner" : ""].join(" ").trim() },
      el("td", { text: name }), el("td", { text: String(s.scores[i].yellow) }), el("td", { text: String(s.scores[i].blue) }), el("td", { text: String(s.scores[i].points) })));
    const box = document.getElementById("scoreboard");
    box.replaceChildren(el("table", { class: "scoreboard" }, el("tr", {}, el("th", { text: "Player" }), el("th", { text: "Yellow" }), el("th", { text: "Blue" }), el("th", { text: "Points" })), ...rows));
    const rulesLine = `${settings.side_walls ? "Side edges close courts" : "Side edges are open"}; final round: ${settings.final_round === "others" ? "the others play once more" : "everybody plays once more"}.`;
    box.append(el("p", { class: "small", id: "session-rules", text: rulesLine }));
    if (s.over) box.append(el("p", { class: "announce", id: "announcement", "data-over": "yes", text: announcement(session) }));
    else if (s.turns_left !== undefined) box.append(el("p", { class: "announce", id: "announcement", "data-over": "no", text: `A tile reached the goal row: final round, ${plural(s.turns_left, "turn")} left (${session.players[s.turn]} next).` }));
    draw();
  }

  page = Boardcam.initGamePage({
    currentState: () => board,
    drawOverlay,
    onRecognized,
    onSession,
    previousState: () => (beforeSet ? JSON.stringify(before) : null),
    newSession: () => ({ settings: { size: Number(sizeSelect.value), side_walls: sideWalls.checked, final_round: finalRound.value } }),
  });

  sizeSelect.addEventListener("change", async () => {
    const size = Number(sizeSelect.value);
    await loadLayout(size);
    before = empty(size);
    board = empty(size);
    beforeSet = false;
    lastScore = null;
    draw();
  });
  document.getElementById("set-before").addEventListener("click", () => { before = clone(board); beforeSet = true; lastScore = null; result.textContent = ""; courtList.replaceChildren(); draw(); });
  document.getElementById("score-button").addEventListener("click", score);
  document.getElementById("confirm-turn").addEventListener("click", async () => {
    const data = await page.sessions.confirm({ kind: "move", state: board });
    if (data) result.textContent = `Turn confirmed: +${plural(data.event.answer.points, "point")}.`;
  });
  document.getElementById("pass-turn").addEventListener("click", async () => {
    const data = await page.sessions.confirm({ kind: "pass" });
    if (data) result.textContent = "Turn passed: no tile placed.";
  });
  sideWalls.addEventListener("change", () => { lastScore = null; if (result.dataset.asked) score(); else draw(); });
  loadLayout(9).then(draw);
})();
