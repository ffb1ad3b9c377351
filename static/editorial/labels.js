// Django's autocomplete (select2) shows a field's choice in elements with
// ARIA roles but no accessible name. Name them after the field's own label,
// whenever select2 draws or redraws them.
(function () {
  "use strict";

  function name(select) {
    var label = document.querySelector('label[for="' + select.id + '"]');
    var container = select.nextElementSibling;
    if (!label || !container) return;
    var text = label.textContent.replace(/:\s*$/, "").trim();
    container
      .querySelectorAll(".select2-selection, .select2-selection__rendered")
      .forEach(function (element) {
        if (element.getAttribute("aria-label") !== text) {
          element.setAttribute("aria-label", text);
        }
      });
  }

  function nameAll() {
    document.querySelectorAll("select.admin-autocomplete").forEach(name);
  }

  document.addEventListener("DOMContentLoaded", function () {
    nameAll();
    new MutationObserver(nameAll).observe(document.body, {
      childList: true,
      subtree: true,
    });
  });
})();
