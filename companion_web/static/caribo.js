/* CARIBO page: board from the photo or typed, legal placements, puzzle checking. */
"use strict";

(() => {
  const { api, showMessage, el } = Boardcam;
  const boardInput = document.getElementById("board");
  const handInput = document.getElementById("hand");
  const boardView = document.getElementById("board-view");
  const movesResult = document.getElementById("moves-result");
  const placementList = document.getElementById("placements");
  let placements = [];
  let problems = [];
  let lastQuestion = null; // "moves" | "check": asked again after a correction
  let page;

  function grid() {
    return HexBoard.parse(boardInput.value);
  }

  function draw() {
    HexBoard.render(boardView, grid(), {
      placements,
      problems,
      onCell: correctCell,
      onPlacement: (list) => place(list[0]),
    });
    if (page) page.camera.redraw();
  }

  // Manual correction: tap a cell, type its tile code (0 removes it), rules re-answer.
  function correctCell(r, c, value) {
    const code = window.prompt(`Tile at row ${r}, column ${c} (code like 34WS or S; 0 = none):`, value);
    if (code === null) return;
    const g = grid();
    const clean = code.trim().toUpperCase();
    if (clean !== "0" && clean !== "1" && !HexBoard.isTile(clean)) {
      showMessage(`tile: ${code} is not a CARIBO tile code`);
      return;
    }
    g.cells.set(`${r},${c}`, clean);
    boardInput.value = HexBoard.format(g);
    reask();
  }

  function place(p) {
    const g = grid();
    g.cells.set(`${p.row},${p.col}`, p.tile);
    boardInput.value = HexBoard.format(g);
    const hand = handInput.value.split(",").map((s) => s.trim()).filter(Boolean);
    handInput.value = hand.filter((t, i) => i !== hand.findIndex((h) => sameTile(h, p.tile))).join(",");
    placements = [];
    problems = [];
    movesResult.textContent = `Placed ${p.tile} at row ${p.row}, column ${p.col}; confirm it as the move.`;
    placementList.replaceChildren();
    draw();
  }

  // Same physical tile: identity (minor, major) or single colour, any rotation.
  function identity(code) {
    code = code.toUpperCase();
    if (code.length === 1) return code;
    if (code.length === 2) return code;
    return code.slice(2);
  }
  function sameTile(a, b) {
    return identity(a) === identity(b);
  }

  // The placements as a list of buttons: the first ``limit``, then "show all".
  const SHORT_LIST = 12;
  function listPlacements(limit) {
    const items = placements.slice(0, limit).map((p) => el("li", {}, el("button", { type: "button", class: "link", text: `${p.tile} at row ${p.row}, column ${p.col}`, onclick: () => place(p) })));
    if (placements.length > limit) {
      items.push(el("li", { class: "more" }, el("button", { type: "button", class: "link", id: "placements-all", text: `Show all ${placements.length}`, onclick: () => listPlacements(placements.length) })));
    }
    placementList.replaceChildren(...items);
  }

  async function askMoves() {
    lastQuestion = "moves";
    problems = [];
    try {
      const data = await api("/api/caribo/moves", { method: "POST", json: { board: boardInput.value, hand: handInput.value } });
      placements = Array.isArray(data.answer) ? data.answer : [];
      movesResult.textContent = placements.length
        ? `${placements.length} legal placement${placements.length === 1 ? "" : "s"} (highlighted; tap one to place it)`
        : "No legal placement: the player must pass.";
      listPlacements(SHORT_LIST);
      showMessage("");
    } catch (e) {
      placements = [];
      movesResult.textContent = "";
      showMessage(e.message);
    }
    draw();
  }

  async function askCheck() {
    lastQuestion = "check";
    placements = [];
    placementList.replaceChildren();
    try {
      const data = await api("/api/caribo/check", { method: "POST", json: { solution: boardInput.value } });
      problems = data.answer.details || [];
      movesResult.textContent = data.answer.valid
        ? "The board follows the rules."
        : `Problems: ${(data.answer.problems || []).map(String).join("; ")}`;
      showMessage("");
    } catch (e) {
      problems = [];
      showMessage(e.message);
    }
    draw();
  }

  function reask() {
    if (lastQuestion === "moves") askMoves();
    else if (lastQuestion === "check") askCheck();
    else draw();
  }

  /* ---------- puzzle mode ---------- */

  const figureSelect = document.getElementById("figure-select");
  const solutionInput = document.getElementById("solution");
  let figures = [];
  let puzzleCheck = null; // {notation, details} of the last checked solution (for the overlay)

  async function loadFigures() {
    try {
      figures = (await api("/api/caribo/figures")).figures;
      figureSelect.replaceChildren(...figures.map((f) => el("option", { value: f.name, text: `${f.name} (${f.cells} tiles)` })));
      showFigure();
    } catch (e) {
      showMessage(e.message);
    }
  }

  function currentFigure() {
    return figures.find((f) => f.name === figureSelect.value);
  }

  function showFigure() {
    const f = currentFigure();
    if (!f) return;
    document.getElementById("figure-description").textContent = f.description || "";
    HexBoard.render(document.getElementById("figure-view"), HexBoard.parse(f.figure), { size: 28 });
  }

  async function checkSolution() {
    const f = currentFigure();
    const out = document.getElementById("puzzle-result");
    const list = document.getElementById("puzzle-problems");
    try {
      const data = await api("/api/caribo/check", { method: "POST", json: { solution: solutionInput.value, figure: f ? f.figure : undefined } });
      const details = data.answer.details || [];
      puzzleCheck = { notation: solutionInput.value.trim(), details };
      out.textContent = data.answer.valid ? "Solved! Every edge matches." : "Not solved yet.";
      out.dataset.valid = data.answer.valid ? "yes" : "no";
      list.replaceChildren(...(data.answer.problems || []).map((p) => el("li", { text: String(p) })));
      HexBoard.render(document.getElementById("solution-view"), HexBoard.parse(solutionInput.value), { problems: details });
      page.camera.redraw();
      showMessage("");
    } catch (e) {
      showMessage(e.message);
    }
  }

  async function solve() {
    const f = currentFigure();
    const out = document.getElementById("puzzle-result");
    out.textContent = "Solving…";
    try {
      const data = await api("/api/caribo/solve", { method: "POST", json: { figure: f.figure } });
      if (data.answer.solution) {
        out.textContent = "A solution:";
        HexBoard.render(document.getElementById("solution-view"), HexBoard.parse(data.answer.solution), {});
      } else {
        out.textContent = "This figure has no solution.";
      }
    } catch (e) {
      out.textContent = "";
      showMessage(e.message);
    }
  }

  function setMode(puzzle) {
    document.getElementById("game-mode").hidden = puzzle;
    document.getElementById("puzzle-mode").hidden = !puzzle;
    document.getElementById("tab-game").setAttribute("aria-selected", String(!puzzle));
    document.getElementById("tab-puzzle").setAttribute("aria-selected", String(puzzle));
    if (puzzle && !figures.length) loadFigures();
  }

  /* ---------- overlay on the camera picture ---------- */

  // Fit lattice -> pixels from the recognised tiles, then outline tiles and placements.
  function drawOverlay(ctx, answer) {
    const tiles = Array.isArray(answer.tiles) ? answer.tiles : [];
    const g = HexBoard.parse(answer.notation || "");
    const pairs = [];
    for (const t of tiles) {
      const p = Boardcam.pixelCentre(t);
      if (p && Number.isInteger(t.row) && Number.isInteger(t.col)) pairs.push([HexBoard.centre(t.row, t.col, g.firstShifted), p]);
    }
    const map = Boardcam.fitLatticeMap(pairs);
    if (!map) {
      Boardcam.drawItems(ctx, tiles, (t) => t.tile || t.code);
      return;
    }
    // Labels only where a tile is shown at least 34 CSS pixels wide (else the diagram
    // beside the picture carries them); lines a little thicker on a small screen.
    const k = Boardcam.overlayScale(ctx);
    const [u0, u1] = [map(0, 0), map(1, 0)];
    const tileOnScreen = Math.hypot(u1[0] - u0[0], u1[1] - u0[1]) / k;
    const font = Math.round(12 * k);
    const outline = (r, c, colour, width, label) => {
      const [x, y] = HexBoard.centre(r, c, g.firstShifted);
      const vs = HexBoard.vertices(x, y, 1).map(([vx, vy]) => map(vx, vy));
      ctx.beginPath();
      vs.forEach(([px, py], i) => (i ? ctx.lineTo(px, py) : ctx.moveTo(px, py)));
      ctx.closePath();
      ctx.strokeStyle = colour;
      ctx.lineWidth = width * Math.max(1, 0.6 * k);
      ctx.stroke();
      if (label && tileOnScreen >= 34) {
        const [cx, cy] = map(x, y);
        ctx.font = `bold ${font}px sans-serif`;
        ctx.textAlign = "center";
        ctx.textBaseline = "middle";
        ctx.fillStyle = "rgba(0,0,0,0.6)";
        const w = ctx.measureText(label).width + 0.4 * font;
        ctx.fillRect(cx - w / 2, cy - 0.65 * font, w, 1.3 * font);
        ctx.fillStyle = colour;
        ctx.fillText(label, cx, cy);
      }
    };
    ctx.save();
    for (const t of tiles) {
      if (Number.isInteger(t.row)) outline(t.row, t.col, Boardcam.confidenceColour(t.confidence), 3, t.tile || t.code);
    }
    const shown = (answer.notation || "").trim();
    const puzzle = !document.getElementById("puzzle-mode").hidden;
    if (!puzzle && boardInput.value.trim() === shown && answer !== handAnswer) {
      for (const p of placements) outline(p.row, p.col, "#ff2bd6", 4, null);
    }
    if (puzzle && puzzleCheck && puzzleCheck.notation === shown) {
      // the checked solution is this picture: each mismatched edge as a thick red line,
      // cells with other problems outlined in red
      for (const d of puzzleCheck.details) {
        if (!d || !Array.isArray(d.cells) || !d.cells.length) continue;
        if (d.kind !== "mismatch" || !d.edge) {
          for (const [r, c] of d.cells) outline(r, c, "#ff3030", 5, null);
          continue;
        }
        const [r, c] = d.cells[0];
        const [x, y] = HexBoard.centre(r, c, g.firstShifted);
        const vs = HexBoard.vertices(x, y, 1);
        const a = map(...vs[d.edge - 1]), b = map(...vs[d.edge % 6]);
        ctx.lineCap = "round";
        for (const [colour, width] of [["#ffffff", 15], ["#ff3030", 8]]) {
          ctx.beginPath();
          ctx.moveTo(a[0], a[1]);
          ctx.lineTo(b[0], b[1]);
          ctx.strokeStyle = colour;
          ctx.lineWidth = width;
          ctx.stroke();
        }
      }
    }
    ctx.restore();
  }

  // "Show the hand": the next recognised picture shows the player's tiles (held under
  // the camera or photographed); their identities become the hand, the board stays.
  const handButton = document.getElementById("hand-from-picture");
  const handStatus = document.getElementById("hand-status");
  let readingHand = false;
  let handAnswer = null; // the picture that was read as the hand (not a board)

  function setReadingHand(on) {
    readingHand = on;
    handButton.setAttribute("aria-pressed", String(on));
    handStatus.textContent = on ? "Show the hand's tiles to the camera, or take a photo of them." : handStatus.textContent;
  }

  function readHand(answer) {
    setReadingHand(false);
    handAnswer = answer;
    const tiles = (Array.isArray(answer.tiles) ? answer.tiles : []).map((t) => t.tile || t.code).filter(HexBoard.isTile);
    const seen = [...new Set(tiles.map(identity))];
    if (!seen.length) {
      handStatus.textContent = "No tiles recognised in that picture; try again.";
      return;
    }
    handInput.value = seen.join(",");
    handStatus.textContent = `Hand read from the picture: ${seen.length} tile${seen.length === 1 ? "" : "s"}.`;
    askMoves();
  }

  function onRecognized(answer) {
    if (typeof answer.notation !== "string") return;
    if (readingHand) {
      readHand(answer);
      return;
    }
    if (handAnswer && answer.notation.trim() === (handAnswer.notation || "").trim()) return; // the hand is still in view
    handAnswer = null;
    if (!document.getElementById("puzzle-mode").hidden) {
      if (solutionInput.value.trim() !== answer.notation.trim()) {
        solutionInput.value = answer.notation;
        checkSolution();
      }
      return;
    }
    if (boardInput.value.trim() !== answer.notation.trim()) {
      boardInput.value = answer.notation;
      placements = [];
      problems = [];
      if (handInput.value.trim()) askMoves();
      else askCheck(); // no hand given: the rules answer is the check of the laid board
    }
  }

  function onSession(session) {
    const s = session.summary;
    if (boardInput.value.trim() !== session.state.notation.trim()) {
      movesResult.textContent = ""; // the answer was for another board
      placementList.replaceChildren();
      placements = [];
      problems = [];
    } else if (movesResult.textContent.startsWith("Placed ")) {
      movesResult.textContent = "";
    }
    boardInput.value = session.state.notation;
    const box = document.getElementById("tiles-left");
    box.replaceChildren(
      el("table", { class: "scoreboard" },
        el("tr", {}, el("th", { text: "Player" }), el("th", { text: "Tiles left" })),
        ...session.players.map((name, i) => el("tr", { class: i === s.turn && !s.over ? "to-move" : (s.winner || []).includes(i) ? "winner" : "" }, el("td", { text: name }), el("td", { text: String(s.tiles_left[i]) })))),
    );
    draw();
  }

  page = Boardcam.initGamePage({
    currentState: () => ({ game: "caribo", notation: boardInput.value }),
    drawOverlay,
    onRecognized,
    onSession,
    previousState: () => null,
    newSession: () => ({}),
  });

  document.getElementById("moves-button").addEventListener("click", askMoves);
  handButton.addEventListener("click", () => setReadingHand(!readingHand));
  document.getElementById("check-button").addEventListener("click", askCheck);
  document.getElementById("confirm-move").addEventListener("click", () => page.sessions.confirm({ kind: "move", state: { game: "caribo", notation: boardInput.value } }));
  document.getElementById("pass-button").addEventListener("click", () => page.sessions.confirm({ kind: "pass" }));
  document.getElementById("tab-game").addEventListener("click", () => setMode(false));
  document.getElementById("tab-puzzle").addEventListener("click", () => setMode(true));
  figureSelect.addEventListener("change", showFigure);
  document.getElementById("check-solution").addEventListener("click", checkSolution);
  document.getElementById("solve-button").addEventListener("click", solve);
  boardInput.addEventListener("change", () => { placements = []; problems = []; draw(); });
  draw();
})();
