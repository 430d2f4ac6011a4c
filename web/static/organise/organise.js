// The new-competition form: only the chosen variant's options (and, for a partnership
// variant, the partnerships choice) are shown. Without this
// script every variant's options are listed, and only the chosen variant's are used.
"use strict";

(function () {
  const select = document.getElementById("id_variant");
  if (!select) return;
  const groups = document.querySelectorAll("fieldset.variant-options");
  const show = () => {
    groups.forEach((group) => {
      const mine = group.dataset.variant === select.value;
      group.hidden = !mine;
      group.querySelectorAll("input, select").forEach((field) => (field.disabled = !mine));
    });
  };
  // The partnerships choice belongs to the variants whose seats play in teams.
  const partnerships = document.querySelector("fieldset.partnerships");
  const showPartnerships = () => {
    if (!partnerships) return;
    const mine = partnerships.dataset.variants.split(" ").includes(select.value);
    partnerships.hidden = !mine;
    partnerships.querySelectorAll("select").forEach((field) => (field.disabled = !mine));
  };
  select.addEventListener("change", show);
  select.addEventListener("change", showPartnerships);
  show();
  showPartnerships();
})();
