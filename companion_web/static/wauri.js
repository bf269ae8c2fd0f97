/* Wauri page: pit counts, whose move, sowing, the suggested move, the history. */
"use strict";

(() => {
  const { api, showMessage, el } = Boardcam;
  const boardHost = document.getElementById("wauri-board");
  const result = document.getElementById("wauri-result");
  const toMove = document.getElementById("to-move");
  const editMode = document.getElementById("edit-mode");
  const variant = document.getElementById("variant");
  const history = document.getElementById("move-history");
  let position = initial();
  let suggested = null;
  let winner = null;
  let page;

  function initial() {
    return { game: "wauri", south: [4, 4, 4, 4, 4, 4], north: [4, 4, 4, 4, 4, 4], stores: { south: 0, north: 0 }, to_move: "south" };
  }

  function pitButton(side, index) {
    const count = position[side][index];
    const classes = ["pit", side];
    if (suggested && side === position.to_move && suggested === index + 1) classes.push("suggested");
    if (side === position.to_move) classes.push("mover");
    return el("button", {
      type: "button",
      class: classes.join(" "),
      "data-side": side,
      "data-pit": String(index + 1),
      title: `${side} pit ${index + 1}`,
      text: String(count),
      onclick: () => pitClicked(side, index),
    });
  }

  function draw() {
    toMove.value = position.to_move;
    const north = [5, 4, 3, 2, 1, 0].map((i) => pitButton("north", i));
    const south = [0, 1, 2, 3, 4, 5].map((i) => pitButton("south", i));
    const store = (side) => el("button", { type: "button", class: `store ${side}`, "data-side": side, "data-store": "1", title: `${side}'s store`, text: String(position.stores[side]), onclick: () => storeClicked(side) });
    boardHost.replaceChildren(
      el("div", { class: "wauri-grid" },
        store("north"),
        el("div", { class: "pits" }, el("div", { class: "pit-row" }, ...north), el("div", { class: "pit-row" }, ...south)),
        store("south")),
      el("p", { class: "small", id: "wauri-to-move", text: winner ? `Winner: ${winner}` : `${position.to_move} to move` }),
    );
    if (page) page.camera.redraw();
  }

  function askCount(label, current) {
    const text = window.prompt(`Seeds in ${label}:`, String(current));
    if (text === null) return null;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0 || n > 48) {
      showMessage(`${label}: ${text} is not a seed count 0-48`);
      return null;
    }
    return n;
  }

  function pitClicked(side, index) {
    if (editMode.checked) {
      const n = askCount(`${side} pit ${index + 1}`, position[side][index]);
      if (n === null) return;
      position[side][index] = n;
      corrected();
      return;
    }
    if (side !== position.to_move) {
      showMessage(`It is ${position.to_move}'s move.`);
      return;
    }
    play(index + 1);
  }

  function storeClicked(side) {
    if (!editMode.checked) return;
    const n = askCount(`${side}'s store`, position.stores[side]);
    if (n === null) return;
    position.stores[side] = n;
    corrected();
  }

  // A manual correction: the engine answers again for the corrected position.
  function corrected() {
    const again = suggested !== null;
    changed();
    if (again) best();
  }

  function changed() {
    suggested = null;
    winner = null;
    result.textContent = "";
    draw();
  }

  async function play(pit) {
    const mover = position.to_move;
    if (page.sessions.session) {
      await page.sessions.confirm({ kind: "move", moves: [pit] });  // onSession redraws
      return;
    }
    try {
      const data = await api("/api/wauri/play", { method: "POST", json: { position, moves: [pit], variant: variant.checked } });
      if (data.negative) {
        showMessage((data.answer.problems || [])[0] || data.answer.message || `pit ${pit} is not a legal move`);
        return;
      }
      winner = data.answer.winner;
      delete data.answer.winner;
      position = data.answer;
      suggested = null;
      history.append(el("li", { text: `${mover}: ${pit}` }));
      result.textContent = winner ? `Game over: ${winner} wins.` : `${mover} sowed pit ${pit}; ${position.to_move} to move.`;
      showMessage("");
      draw();
    } catch (e) {
      showMessage(e.message);
    }
  }

  // The engine's suggestion (``seconds``: the search budget, default the engine's own).
  async function best(seconds, prefix = "") {
    result.textContent = `${prefix}Thinking…`;
    const asked = JSON.stringify(position);
    try {
      const time = typeof seconds === "number" ? { time: seconds } : {};
      const data = await api("/api/wauri/best", { method: "POST", json: { position, variant: variant.checked, ...time } });
      if (JSON.stringify(position) !== asked) return; // the position changed meanwhile
      const a = data.answer;
      suggested = a.move ?? null;
      result.textContent = prefix + (suggested
        ? `Suggested move for ${position.to_move}: pit ${suggested} (evaluation ${a.evaluation}${a.proven ? ", proven" : ""}).`
        : `No move to suggest${a.winner ? `: ${a.winner} wins` : ""}.`);
      showMessage("");
      draw();
    } catch (e) {
      result.textContent = "";
      showMessage(e.message);
    }
  }

  // A picture with other counts than the shown position replaces it and the engine
  // suggests a move for it at once (a short search); the same counts again change nothing.
  function onRecognized(answer) {
    if (!Array.isArray(answer.south) || !Array.isArray(answer.north)) return;
    const seen = { game: "wauri", south: answer.south, north: answer.north, stores: answer.stores, to_move: answer.to_move || position.to_move };
    const key = (p) => JSON.stringify([p.south, p.north, p.stores, p.to_move]);
    if (key(seen) === key(position)) return;
    position = seen;
    changed();
    const moves = Array.isArray(answer.moves) ? `Moves since the last position: ${answer.moves.join(", ")}. ` : "";
    best(0.5, moves);
  }

  // Pit counts at the pits; the suggested pit (when the picture shows this position)
  // ringed in green with "play".
  function drawOverlay(ctx, answer) {
    const pits = answer.pits || [];
    Boardcam.drawItems(ctx, pits, (p) => p.count ?? p.seeds);
    const same = Array.isArray(answer.south) && answer.south.join() === position.south.join() && Array.isArray(answer.north) && answer.north.join() === position.north.join();
    if (!suggested || !same) return;
    const want = `${position.to_move}${suggested}`;
    const pit = pits.find((p) => (p.name || p.pit) === want);
    const at = Boardcam.pixelCentre(pit);
    if (!at) return;
    const k = Boardcam.overlayScale(ctx);
    ctx.save();
    ctx.strokeStyle = "#35e06b";
    ctx.lineWidth = 7 * Math.max(1, 0.7 * k);
    ctx.beginPath();
    ctx.arc(at[0], at[1], 34, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.font = "bold 20px sans-serif";
    ctx.textAlign = "center";
    ctx.fillStyle = "rgba(0,0,0,0.7)";
    ctx.fillRect(at[0] - 26, at[1] - 62, 52, 24);
    ctx.fillStyle = "#35e06b";
    ctx.fillText("play", at[0], at[1] - 44);
    ctx.restore();
  }

  function onSession(session) {
    const state = session.state;
    position = { game: "wauri", south: state.south, north: state.north, stores: state.stores, to_move: state.to_move };
    winner = session.summary.over ? session.players[session.summary.winner[0]] : null;
    suggested = null;
    // the session's own move history (undone moves left out)
    history.replaceChildren(...session.summary.history.map((h) =>
      el("li", { text: `${session.players[h.player] ?? "?"}: ${h.moves.join(" ")}` })));
    draw();
  }

  page = Boardcam.initGamePage({
    currentState: () => position,
    drawOverlay,
    onRecognized,
    onSession,
    previousState: () => (page && page.sessions.session ? JSON.stringify(position) : null),
    newSession: () => ({ state: position, settings: { variant: variant.checked } }),
  });
  toMove.addEventListener("change", () => { position.to_move = toMove.value; corrected(); });
  document.getElementById("best-button").addEventListener("click", () => best());
  document.getElementById("reset-button").addEventListener("click", () => { position = initial(); history.replaceChildren(); changed(); });
  draw();
})();
