// The Tags field as a combobox (WAI-ARIA 1.2, list autocomplete): the tag
// being typed (the comma-separated entry at the caret) is looked up at the
// field's data-offers address, and the record's tags that match are offered
// in its listbox. Down and Up move through them, Enter takes the one marked,
// Escape closes the list; a click takes one too. The live region says how
// many are offered. A name holding a comma, or opening with a quote, is
// written in double quotes, as catalogue/tags.py reads it.
(function () {
  "use strict";

  var QUOTE = '"';

  function rendered(name) {
    if (name.indexOf(",") >= 0 || name.charAt(0) === QUOTE) {
      return QUOTE + name.split(QUOTE).join(QUOTE + QUOTE) + QUOTE;
    }
    return name;
  }

  function unquoted(entry) {
    var text = entry.trim();
    if (text.length > 1 && text.charAt(0) === QUOTE && text.slice(-1) === QUOTE) {
      return text.slice(1, -1).split(QUOTE + QUOTE).join(QUOTE);
    }
    return text;
  }

  function Combobox(input) {
    this.input = input;
    this.list = document.getElementById(input.getAttribute("aria-controls"));
    this.status = document.getElementById(input.id + "_offered");
    this.address = input.getAttribute("data-offers");
    this.options = [];
    this.active = -1;
    this.asked = 0;
    input.addEventListener("input", this.lookUp.bind(this));
    input.addEventListener("keydown", this.key.bind(this));
    input.addEventListener("blur", this.close.bind(this));
    // A press on an option keeps the focus in the field.
    this.list.addEventListener("mousedown", function (event) {
      event.preventDefault();
    });
    this.list.addEventListener("click", this.clicked.bind(this));
  }

  // The entry at the caret: where it starts and ends in the field's value.
  Combobox.prototype.entry = function () {
    var value = this.input.value;
    var caret = this.input.selectionStart;
    if (caret === null) caret = value.length;
    var start = value.lastIndexOf(",", caret - 1) + 1;
    var end = value.indexOf(",", caret);
    if (end < 0) end = value.length;
    return { start: start, end: end, text: value.slice(start, end) };
  };

  // The names the other entries already hold, lower-cased.
  Combobox.prototype.chosen = function (entry) {
    var value = this.input.value;
    var others = value.slice(0, entry.start) + value.slice(entry.end);
    return others.split(",").map(function (name) {
      return unquoted(name).toLowerCase();
    });
  };

  Combobox.prototype.lookUp = function () {
    var entry = this.entry();
    var typed = unquoted(entry.text.replace(/^\s*"/, ""));
    var asked = ++this.asked;
    if (!typed) {
      this.show([]);
      return;
    }
    var self = this;
    var address = this.address + "?q=" + encodeURIComponent(typed);
    fetch(address, { headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.ok ? response.json() : { tags: [] };
      })
      .then(function (answer) {
        if (asked !== self.asked) return;
        var taken = self.chosen(entry);
        self.show(
          answer.tags.filter(function (name) {
            return taken.indexOf(name.toLowerCase()) < 0;
          })
        );
      })
      .catch(function () {
        if (asked === self.asked) self.show([]);
      });
  };

  Combobox.prototype.show = function (names) {
    var list = this.list;
    list.textContent = "";
    this.options = names.map(function (name, n) {
      var option = document.createElement("li");
      option.id = list.id + "_" + n;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");
      option.textContent = name;
      list.appendChild(option);
      return option;
    });
    this.mark(-1);
    var open = names.length > 0;
    list.hidden = !open;
    this.input.setAttribute("aria-expanded", open ? "true" : "false");
    this.status.textContent = open
      ? names.length + (names.length === 1 ? " tag offered." : " tags offered.")
      : "";
  };

  Combobox.prototype.close = function () {
    this.asked++;
    this.show([]);
  };

  Combobox.prototype.isOpen = function () {
    return !this.list.hidden;
  };

  Combobox.prototype.mark = function (n) {
    if (this.active >= 0 && this.options[this.active]) {
      this.options[this.active].setAttribute("aria-selected", "false");
    }
    this.active = n;
    if (n < 0) {
      this.input.removeAttribute("aria-activedescendant");
      return;
    }
    var option = this.options[n];
    option.setAttribute("aria-selected", "true");
    this.input.setAttribute("aria-activedescendant", option.id);
    option.scrollIntoView({ block: "nearest" });
  };

  Combobox.prototype.key = function (event) {
    var count = this.options.length;
    if (event.key === "ArrowDown" || event.key === "Down") {
      event.preventDefault();
      if (!this.isOpen()) {
        this.lookUp();
      } else {
        this.mark((this.active + 1) % count);
      }
    } else if (event.key === "ArrowUp" || event.key === "Up") {
      if (this.isOpen()) {
        event.preventDefault();
        this.mark(this.active <= 0 ? count - 1 : this.active - 1);
      }
    } else if (event.key === "Enter") {
      if (this.isOpen() && this.active >= 0) {
        event.preventDefault();
        this.take(this.options[this.active].textContent);
      }
    } else if (event.key === "Escape" || event.key === "Esc") {
      if (this.isOpen()) {
        event.preventDefault();
        this.close();
      }
    }
  };

  Combobox.prototype.clicked = function (event) {
    var option = event.target.closest("[role=option]");
    if (option) this.take(option.textContent);
  };

  // Put ``name`` in place of the entry at the caret; after the last entry,
  // a comma and a space are ready for the next.
  Combobox.prototype.take = function (name) {
    var entry = this.entry();
    var value = this.input.value;
    var before = value.slice(0, entry.start);
    var after = value.slice(entry.end);
    var text = (entry.start > 0 ? " " : "") + rendered(name);
    if (!after) text += ", ";
    this.input.value = before + text + after;
    var caret = before.length + text.length;
    this.input.setSelectionRange(caret, caret);
    this.close();
    this.status.textContent = name + " chosen.";
  };

  document.addEventListener("DOMContentLoaded", function () {
    document
      .querySelectorAll("input[role=combobox][data-offers]")
      .forEach(function (input) {
        new Combobox(input);
      });
  });
})();
