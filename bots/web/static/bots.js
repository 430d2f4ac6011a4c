// The bot page: drag and drop onto the upload form, and watching validations finish.
// Without this script the page still works: the file input uploads, a reload shows
// the outcome.
"use strict";

(function () {
  const POLL_MS = 2000;

  function dropZone(form) {
    const input = form.querySelector('input[type="file"]');
    if (!input) return;
    const hint = form.querySelector(".drop-hint");
    if (hint) hint.hidden = false;
    ["dragenter", "dragover"].forEach((name) =>
      form.addEventListener(name, (event) => {
        event.preventDefault();
        form.classList.add("dragging");
      })
    );
    ["dragleave", "drop"].forEach((name) =>
      form.addEventListener(name, () => form.classList.remove("dragging"))
    );
    form.addEventListener("drop", (event) => {
      event.preventDefault();
      const files = event.dataTransfer && event.dataTransfer.files;
      if (!files || !files.length) return;
      input.files = files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    });
  }

  function watch(article) {
    const url = article.dataset.statusUrl;
    const badge = article.querySelector(".version-status");
    const tick = () => {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
        .then((body) => {
          if (badge && body.status !== badge.dataset.status) {
            badge.textContent = body.words;
            badge.dataset.status = body.status;
            badge.className = "badge version-status " + body.status;
          }
          if (body.finished) {
            // The report and the stderr tail are drawn by the page itself.
            window.location.reload();
          } else {
            window.setTimeout(tick, POLL_MS);
          }
        })
        .catch(() => window.setTimeout(tick, POLL_MS * 3));
    };
    window.setTimeout(tick, POLL_MS);
  }

  document.querySelectorAll("form.drop-zone").forEach(dropZone);
  document.querySelectorAll("article.version[data-status-url]").forEach(watch);
})();
