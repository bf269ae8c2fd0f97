/* Calibration wizard: upload the photo of the whole set, show the stored calibration. */
"use strict";

(() => {
  const { api, showMessage } = Boardcam;
  const status = document.getElementById("calibrate-status");
  const current = document.getElementById("calibration-current");
  const forget = document.getElementById("calibration-forget");

  async function refresh() {
    try {
      const data = await api("/api/calibration");
      const cal = data.caribo;
      current.textContent = cal
        ? `Calibrated (${Object.values(cal.samples || {}).reduce((a, b) => a + b, 0)} segments measured).`
        : "Not calibrated: nominal colours are used.";
      current.dataset.calibrated = cal ? "yes" : "no";
      forget.hidden = !cal;
    } catch (e) {
      showMessage(e.message);
    }
  }

  document.getElementById("calibrate-photo").addEventListener("change", async (ev) => {
    const file = ev.target.files && ev.target.files[0];
    if (!file) return;
    status.textContent = "Reading the 36 tiles… (this can take a while)";
    status.dataset.kind = "info";
    const form = new FormData();
    form.append("image", file, file.name);
    try {
      await api("/api/calibrate/caribo", { method: "POST", form });
      status.textContent = "Calibrated: the six paints were measured.";
      status.dataset.kind = "ok";
    } catch (e) {
      status.textContent = e.message;
      status.dataset.kind = "error";
    }
    refresh();
  });

  forget.addEventListener("click", async () => {
    try {
      await api("/api/calibration/caribo", { method: "DELETE" });
      showMessage("");
    } catch (e) {
      showMessage(e.message);
    }
    refresh();
  });

  refresh();
})();
