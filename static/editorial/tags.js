// Tag names offered while an editor types a comma-separated list: the
// datalist's options become "what is typed so far, <tag>" for the tag being
// typed, so the browser's own suggestions complete the last one. Without
// this script the datalist still completes the first tag.
(function () {
  "use strict";

  function enhance(input) {
    var list = document.getElementById(input.getAttribute("list"));
    if (!list) return;
    var names = Array.prototype.map.call(list.options, function (option) {
      return option.value;
    });
    input.addEventListener("input", function () {
      var value = input.value;
      var cut = value.lastIndexOf(",");
      var done = cut < 0 ? "" : value.slice(0, cut + 1) + " ";
      var typed = value.slice(cut + 1).trim().toLowerCase();
      var chosen = value.toLowerCase().split(",").map(function (name) {
        return name.trim();
      });
      list.textContent = "";
      names.forEach(function (name) {
        var lower = name.toLowerCase();
        if (lower.indexOf(typed) === 0 && chosen.indexOf(lower) < 0) {
          var option = document.createElement("option");
          option.value = done + name;
          list.appendChild(option);
        }
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("input[list=tag-names]").forEach(enhance);
  });
})();
