/* boardcam companion: shared page code (API calls, camera, uploads, sessions).
 *
 * No build step, no third-party code. Each game page loads this file and then its own
 * script, which calls Boardcam.initGamePage({...handlers}).
 */
"use strict";

const Boardcam = (() => {
  const body = document.body;
  const game = body.dataset.game || null;
  const captureInterval = Number(body.dataset.captureInterval || 400);

  /* ---------- messages and API ---------- */

  // The message line at the bottom of the page (tap it to close it).
  function showMessage(text, kind = "error") {
    const box = document.getElementById("messages");
    if (!box) return;
    box.textContent = text;
    box.className = kind;
    box.hidden = !text;
  }
  document.getElementById("messages")?.addEventListener("click", () => showMessage(""));

  async function api(path, { method = "GET", json, form } = {}) {
    const options = { method, headers: {}, credentials: "same-origin" };
    if (json !== undefined) {
      options.body = JSON.stringify(json);
      options.headers["Content-Type"] = "application/json";
    } else if (form) {
      options.body = form;
    }
    const response = await fetch(path, options);
    let data = null;
    try {
      data = await response.json();
    } catch (_e) {
      data = null;
    }
    if (!response.ok) {
      const error = new Error((data && data.error) || `HTTP ${response.status}`);
      error.status = response.status;
      error.data = data;
      throw error;
    }
    return data;
  }

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children) node.append(child);
    return node;
  }

  const SVG_NS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs = {}) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    return node;
  }

  /* ---------- overlay helpers ---------- */

  // A recogniser item's pixel centre: {"center": [x, y]}, {"centre": [x, y]},
  // {"pixel": [x, y]} or {"x": .., "y": ..}; null when it has none.
  function pixelCentre(item) {
    if (!item || typeof item !== "object") return null;
    for (const key of ["center_px", "centre_px", "center", "centre", "pixel"]) {
      const v = item[key];
      if (Array.isArray(v) && v.length >= 2) return [Number(v[0]), Number(v[1])];
      if (v && typeof v === "object" && "x" in v) return [Number(v.x), Number(v.y)];
    }
    if ("x" in item && "y" in item) return [Number(item.x), Number(item.y)];
    return null;
  }

  function confidenceColour(c) {
    if (c === undefined || c === null) return "#00d0ff";
    if (c >= 0.8) return "#35e06b";
    if (c >= 0.5) return "#ffd23f";
    return "#ff4d4d";
  }

  // Map from lattice points (a plane) to pixels: a homography (perspective of the flat
  // table) fitted by least squares from >= 5 pairs, else an affine map from >= 3 pairs.
  function fitLatticeMap(pairs) {
    if (pairs.length >= 5) {
      const h = fitHomography(pairs);
      if (h) return h;
    }
    return fitAffine(pairs);
  }

  function normaliser(points) {
    const n = points.length;
    const mx = points.reduce((a, p) => a + p[0], 0) / n;
    const my = points.reduce((a, p) => a + p[1], 0) / n;
    const d = points.reduce((a, p) => a + Math.hypot(p[0] - mx, p[1] - my), 0) / n || 1;
    return { mx, my, s: Math.SQRT2 / d };
  }

  function fitHomography(pairs) {
    const na = normaliser(pairs.map((p) => p[0]));
    const nb = normaliser(pairs.map((p) => p[1]));
    const rows = [];
    const rhs = [];
    for (const [[x0, y0], [u0, v0]] of pairs) {
      const x = (x0 - na.mx) * na.s, y = (y0 - na.my) * na.s;
      const u = (u0 - nb.mx) * nb.s, v = (v0 - nb.my) * nb.s;
      rows.push([x, y, 1, 0, 0, 0, -x * u, -y * u]); rhs.push(u);
      rows.push([0, 0, 0, x, y, 1, -x * v, -y * v]); rhs.push(v);
    }
    const m = Array.from({ length: 8 }, () => Array(8).fill(0));
    const r = Array(8).fill(0);
    rows.forEach((row, k) => {
      for (let i = 0; i < 8; i++) {
        for (let j = 0; j < 8; j++) m[i][j] += row[i] * row[j];
        r[i] += row[i] * rhs[k];
      }
    });
    const h = solveN(m, r);
    if (!h) return null;
    return (x0, y0) => {
      const x = (x0 - na.mx) * na.s, y = (y0 - na.my) * na.s;
      const w = h[6] * x + h[7] * y + 1;
      const u = (h[0] * x + h[1] * y + h[2]) / w, v = (h[3] * x + h[4] * y + h[5]) / w;
      return [u / nb.s + nb.mx, v / nb.s + nb.my];
    };
  }

  // Least-squares affine map (>= 3 non-collinear pairs).
  function fitAffine(pairs) {
    if (pairs.length < 3) return null;
    const m = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
    const ru = [0, 0, 0];
    const rv = [0, 0, 0];
    for (const [[x, y], [u, v]] of pairs) {
      const row = [x, y, 1];
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 3; j++) m[i][j] += row[i] * row[j];
        ru[i] += row[i] * u;
        rv[i] += row[i] * v;
      }
    }
    const su = solveN(m, ru);
    const sv = solveN(m, rv);
    if (!su || !sv) return null;
    return (x, y) => [su[0] * x + su[1] * y + su[2], sv[0] * x + sv[1] * y + sv[2]];
  }

  // Gaussian elimination with partial pivoting; null when singular.
  function solveN(m, r) {
    const n = r.length;
    const a = m.map((row, i) => [...row, r[i]]);
    for (let col = 0; col < n; col++) {
      let pivot = col;
      for (let i = col + 1; i < n; i++) if (Math.abs(a[i][col]) > Math.abs(a[pivot][col])) pivot = i;
      if (Math.abs(a[pivot][col]) < 1e-12) return null;
      [a[col], a[pivot]] = [a[pivot], a[col]];
      for (let i = 0; i < n; i++) {
        if (i === col) continue;
        const f = a[i][col] / a[col][col];
        for (let j = col; j <= n; j++) a[i][j] -= f * a[col][j];
      }
    }
    return a.map((row, i) => row[n] / row[i]);
  }

  // Picture pixels per CSS pixel of the view canvas (>= 1): overlay text and lines are
  // drawn this much larger so that they stay readable when a big frame is shown small
  // (a phone).
  function overlayScale(ctx) {
    const shown = ctx.canvas.getBoundingClientRect().width;
    return shown > 0 ? Math.max(1, ctx.canvas.width / shown) : 1;
  }

  // Median distance from each point to its nearest neighbour (Infinity for < 2 points).
  function typicalSpacing(points) {
    if (points.length < 2) return Infinity;
    const nearest = points.map((p, i) => {
      let best = Infinity;
      points.forEach((q, j) => { if (i !== j) best = Math.min(best, Math.hypot(p[0] - q[0], p[1] - q[1])); });
      return best;
    }).sort((a, b) => a - b);
    return nearest[Math.floor(nearest.length / 2)];
  }

  // Default overlay: a marker at every item that has a pixel centre, and its label where
  // the label fits between the neighbours (else the diagram beside the picture has it).
  function drawItems(ctx, items, labelOf) {
    const k = overlayScale(ctx);
    const font = Math.round(13 * k);
    const spacing = typicalSpacing((items || []).map(pixelCentre).filter(Boolean));
    const radius = Math.min(16 * k, 0.4 * spacing);
    ctx.save();
    ctx.lineWidth = Math.max(3, 2 * k);
    ctx.font = `bold ${font}px sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (const item of items || []) {
      const p = pixelCentre(item);
      if (!p) continue;
      const colour = confidenceColour(item.confidence);
      ctx.strokeStyle = colour;
      ctx.beginPath();
      ctx.arc(p[0], p[1], radius, 0, 2 * Math.PI);
      ctx.stroke();
      const label = String(labelOf(item) ?? "");
      const w = ctx.measureText(label).width + 0.5 * font;
      if (label && w <= 0.95 * spacing) {
        ctx.fillStyle = "rgba(0,0,0,0.65)";
        ctx.fillRect(p[0] - w / 2, p[1] + radius + 2, w, 1.3 * font);
        ctx.fillStyle = colour;
        ctx.fillText(label, p[0], p[1] + radius + 2 + 0.65 * font);
      }
    }
    ctx.restore();
  }

  /* ---------- camera view ---------- */

  class CameraView {
    constructor(handlers) {
      this.handlers = handlers;
      this.video = document.getElementById("video");
      this.canvas = document.getElementById("view");
      this.ctx = this.canvas.getContext("2d");
      this.status = document.getElementById("recognition-status");
      this.counter = document.getElementById("frames-sent");
      this.freezeButton = document.getElementById("camera-freeze");
      this.startButton = document.getElementById("camera-start");
      this.frame = null; // what is shown: the video or an uploaded image
      this.frameSize = [0, 0];
      this.answer = null;
      this.live = false;
      this.frozen = false;
      this.inFlight = false;
      this.sent = 0;
      this.grab = document.createElement("canvas");
    }

    setStatus(text, kind = "info") {
      this.status.textContent = text;
      this.status.dataset.kind = kind;
    }

    async start() {
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
        this.setStatus(
          "No camera access here (a phone needs the HTTPS address from `boardcam serve --lan`);" +
            " use a photo instead.",
          "error",
        );
        return;
      }
      try {
        const stream = await navigator.mediaDevices.getUserMedia({
          video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 }, height: { ideal: 1080 } },
          audio: false,
        });
        this.video.srcObject = stream;
        await this.video.play();
      } catch (e) {
        this.setStatus(`Camera not available (${e.name || e}); use a photo instead.`, "error");
        return;
      }
      this.live = true;
      this.frozen = false;
      this.frame = this.video;
      this.startButton.disabled = true;
      this.freezeButton.disabled = false;
      this.freezeButton.textContent = "Freeze";
      body.dataset.camera = "live";
      this.setStatus("Camera running; reading the table…");
      this.paint();
      this.sample();
    }

    // Freeze keeps the frame on screen as a still picture (the overlay can still be
    // redrawn over it); Resume goes back to the live video.
    toggleFreeze() {
      this.frozen = !this.frozen;
      this.freezeButton.textContent = this.frozen ? "Resume" : "Freeze";
      body.dataset.camera = this.frozen ? "frozen" : "live";
      if (this.frozen) {
        if (this.video.videoWidth) {
          const still = document.createElement("canvas");
          still.width = this.video.videoWidth;
          still.height = this.video.videoHeight;
          still.getContext("2d").drawImage(this.video, 0, 0);
          this.frame = still;
        }
        this.paint();
      } else {
        this.frame = this.video;
        this.paint();
        this.sample();
      }
    }

    // Draw the overlay again after the page's rules answer changed (a still picture is
    // not redrawn by itself; the live video is, on every animation frame).
    redraw() {
      if (this.frame && this.frame !== this.video) this.paint();
    }

    // Redraw the frame and the overlay (every animation frame while live).
    paint() {
      const source = this.frame;
      if (source) {
        const w = source.videoWidth || source.naturalWidth || source.width;
        const h = source.videoHeight || source.naturalHeight || source.height;
        if (w && h) {
          if (this.canvas.width !== w || this.canvas.height !== h) {
            this.canvas.width = w;
            this.canvas.height = h;
          }
          this.frameSize = [w, h];
          this.ctx.drawImage(source, 0, 0, w, h);
          if (this.answer && this.handlers.drawOverlay) this.handlers.drawOverlay(this.ctx, this.answer);
        }
      }
      if (this.live && !this.frozen && this.frame === this.video) {
        requestAnimationFrame(() => this.paint());
      }
    }

    // Send a frame every captureInterval ms (one request in flight at most).
    sample() {
      if (!this.live || this.frozen || this.frame !== this.video) return;
      setTimeout(() => this.sample(), captureInterval);
      if (this.inFlight || !this.video.videoWidth) return;
      this.grab.width = this.video.videoWidth;
      this.grab.height = this.video.videoHeight;
      this.grab.getContext("2d").drawImage(this.video, 0, 0);
      this.inFlight = true;
      this.grab.toBlob((blob) => this.send(blob, "frame.jpg").finally(() => (this.inFlight = false)), "image/jpeg", 0.85);
    }

    async send(blob, name) {
      const form = new FormData();
      form.append("image", blob, name);
      const previous = this.handlers.previousState ? this.handlers.previousState() : null;
      if (previous) form.append("previous", previous);
      this.sent += 1;
      this.counter.textContent = String(this.sent);
      try {
        const answer = await api(`/api/${game}/recognize`, { method: "POST", form });
        this.answer = answer;
        body.dataset.answer = "board";
        const warnings = (answer.warnings || []).join("; ");
        const confidence = answer.confidence !== undefined ? ` (confidence ${Number(answer.confidence).toFixed(2)})` : "";
        const sure = answer.confidence === undefined || Number(answer.confidence) >= 0.5;
        this.setStatus(`Recognised${confidence}${warnings ? ": " + warnings : ""}`, sure ? "ok" : "warn");
        if (this.handlers.onRecognized) this.handlers.onRecognized(answer);
      } catch (e) {
        this.answer = null;
        body.dataset.answer = "none";
        this.setStatus(e.message, e.status === 422 ? "warn" : "error");
      }
      if (this.frame !== this.video || this.frozen) this.paint();
    }

    // A still picture (upload or sample): show it and send it once.
    async still(blob, name) {
      this.frozen = true;
      this.live = false;
      if (this.video.srcObject) {
        for (const track of this.video.srcObject.getTracks()) track.stop();
        this.video.srcObject = null;
      }
      this.startButton.disabled = false;
      this.freezeButton.disabled = true;
      body.dataset.camera = "photo";
      const url = URL.createObjectURL(blob);
      const img = new Image();
      await new Promise((resolve, reject) => {
        img.onload = resolve;
        img.onerror = () => reject(new Error("the browser cannot show this picture"));
        img.src = url;
      }).catch((e) => this.setStatus(e.message, "error"));
      this.frame = img;
      this.answer = null;
      this.paint();
      this.setStatus("Reading the photo…");
      await this.send(blob, name);
    }
  }

  /* ---------- sessions ---------- */

  class SessionPanel {
    constructor(handlers) {
      this.handlers = handlers;
      this.session = null;
      this.info = document.getElementById("session-info");
      this.summary = document.getElementById("session-summary");
      this.history = document.getElementById("session-history");
      this.list = document.getElementById("session-list");
      document.getElementById("session-start").addEventListener("click", () => this.create());
      document.getElementById("session-undo").addEventListener("click", () => this.undo());
      document.getElementById("session-correct").addEventListener("click", () => this.correct());
      this.list.addEventListener("change", () => this.list.value && this.load(this.list.value));
      this.refreshList();
    }

    async refreshList() {
      try {
        const data = await api(`/api/sessions?game=${game}`);
        this.list.replaceChildren(el("option", { value: "", text: "Resume a session…" }));
        for (const s of data.sessions) {
          this.list.append(el("option", { value: s.id, text: `${s.created_at.replace("T", " ").slice(0, 16)} — ${s.players.join(", ")}` }));
        }
      } catch (e) {
        showMessage(e.message);
      }
    }

    async create() {
      const names = document.getElementById("session-players").value.split(",").map((s) => s.trim()).filter(Boolean);
      const request = { game, players: names.length ? names : undefined, ...(this.handlers.newSession ? this.handlers.newSession() : {}) };
      try {
        this.show(await api("/api/sessions", { method: "POST", json: request }));
        this.refreshList();
        showMessage("");
      } catch (e) {
        showMessage(e.message);
      }
    }

    async load(id) {
      try {
        this.show(await api(`/api/sessions/${encodeURIComponent(id)}`));
      } catch (e) {
        showMessage(e.message);
      }
    }

    async confirm(event) {
      if (!this.session) {
        showMessage("Start a session first.");
        return null;
      }
      try {
        const data = await api(`/api/sessions/${this.session.id}/events`, { method: "POST", json: event });
        this.show(data.session);
        showMessage("");
        return data;
      } catch (e) {
        const problems = ((e.data && e.data.problems) || []).map(String).filter((p) => p !== e.message);
        showMessage(problems.length ? `${e.message} (${problems.join("; ")})` : e.message);
        return null;
      }
    }

    // Manual correction of the session's position: the board as the page shows it now
    // replaces the stored one (checked for format by the engine; no turn is counted).
    async correct() {
      if (!this.handlers.currentState) return null;
      return this.confirm({ kind: "correction", state: this.handlers.currentState() });
    }

    async undo() {
      if (!this.session) return;
      try {
        const data = await api(`/api/sessions/${this.session.id}/undo`, { method: "POST" });
        this.show(data.session);
      } catch (e) {
        showMessage(e.message);
      }
    }

    show(session) {
      this.session = session;
      this.info.hidden = false;
      const id = encodeURIComponent(session.id);
      document.getElementById("export-json").href = `/api/sessions/${id}/export?format=json`;
      document.getElementById("export-notation").href = `/api/sessions/${id}/export?format=notation`;
      const s = session.summary;
      const names = session.players;
      let text = s.over
        ? `Game over — winner: ${(s.winner || []).map((i) => names[i]).join(" and ") || "nobody (a draw)"}`
        : `${names[s.turn] ?? "?"} to move`;
      this.summary.textContent = text;
      body.dataset.sessionOver = s.over ? "yes" : "no";
      this.history.replaceChildren();
      for (const e of session.events) {
        const who = e.player === null ? e.kind : names[e.player];
        const line = e.kind === "start" ? "start position"
          : e.kind === "correction" ? "correction: the board was replaced"
            : `${who}: ${e.notation || e.kind}`;
        this.history.append(el("li", { class: e.undone ? "undone" : "", text: `${e.seq}. ${line}${e.undone ? " (undone)" : ""}` }));
      }
      if (this.handlers.onSession) this.handlers.onSession(session);
    }
  }

  /* ---------- page setup ---------- */

  function initGamePage(handlers) {
    const camera = new CameraView(handlers);
    document.getElementById("camera-start").addEventListener("click", () => camera.start());
    document.getElementById("camera-freeze").addEventListener("click", () => camera.toggleFreeze());
    document.getElementById("photo-input").addEventListener("change", (ev) => {
      const file = ev.target.files && ev.target.files[0];
      if (file) camera.still(file, file.name);
    });
    const samples = document.getElementById("sample-select");
    if (samples) {
      samples.addEventListener("change", async () => {
        if (!samples.value) return;
        try {
          const response = await fetch(`/sample_images/${samples.value}`);
          if (!response.ok) throw new Error(`sample picture: HTTP ${response.status}`);
          await camera.still(await response.blob(), samples.value);
        } catch (e) {
          showMessage(e.message);
        }
      });
    }
    const sessions = new SessionPanel(handlers);
    return { camera, sessions };
  }

  return { api, el, svg, showMessage, pixelCentre, fitLatticeMap, fitAffine, drawItems, overlayScale, confidenceColour, initGamePage, game };
})();
