// Cardroom dashboard: the replay viewer of one finished game (game_replay.html).
// The steps are rendered by the server into a JSON script element; this only draws them.
"use strict";

(function () {
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const child of children) node.append(child);
    return node;
  }

  // --- the replay viewer ---

  function cardBox(card) {
    const text = typeof card === "string" ? card : JSON.stringify(card);
    const red = typeof card === "string" && /[HD]$/.test(card);
    return el("span", { class: red ? "card red" : "card" }, text);
  }

  function viewValue(value) {
    if (Array.isArray(value) && value.length && value.every((v) => typeof v === "string" && v.length <= 3)) {
      return el("span", {}, ...value.map(cardBox));
    }
    return el("code", {}, JSON.stringify(value));
  }

  function replayViewer() {
    const steps = JSON.parse(document.getElementById("steps").textContent);
    let at = 0;
    function show() {
      const step = steps[at];
      document.getElementById("position").textContent =
        `step ${step.index} / ${steps.length - 1}` +
        (step.action == null ? "" : ` · seat ${step.actor} played ${step.action}`);
      const rows = Object.entries(step.view).map(([key, value]) =>
        el("tr", {}, el("th", {}, key), el("td", {}, viewValue(value))),
      );
      document.getElementById("step").replaceChildren(el("table", {}, ...rows));
    }
    const go = (i) => { at = Math.max(0, Math.min(steps.length - 1, i)); show(); };
    document.getElementById("first").onclick = () => go(0);
    document.getElementById("prev").onclick = () => go(at - 1);
    document.getElementById("next").onclick = () => go(at + 1);
    document.getElementById("last").onclick = () => go(steps.length - 1);
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowRight") go(at + 1);
      if (e.key === "ArrowLeft") go(at - 1);
    });
    show();
  }

  replayViewer();
})();
