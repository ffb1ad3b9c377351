// Citations and bibliography entries from CSL-JSON items, as Zotero prints
// them: citeproc-js (Zotero's engine) from npm, run on Node.
//
// Reads one JSON object on standard input:
//   {"style": <CSL style XML>, "locales": {"en-US": <locale XML>}, "items": [...]}
// and writes one JSON object: {"citations": {id: text}, "bibliography": {id: text}},
// each entry as plain text.
"use strict";
const CSL = require("citeproc");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const { style, locales, items } = JSON.parse(input);
  const byId = Object.fromEntries(items.map((item) => [String(item.id), item]));
  const sys = {
    retrieveLocale: (lang) => locales[lang] || locales["en-US"],
    retrieveItem: (id) => byId[id],
  };
  const ids = Object.keys(byId);
  // Each citation alone, as a fresh engine would print it: one engine, its
  // registry reset to the one item (building an engine per item takes
  // minutes for a record).
  const citations = {};
  const citing = new CSL.Engine(sys, style, "en-US");
  citing.setOutputFormat("text");
  for (const id of ids) {
    citing.updateItems([id]);
    const cluster = { citationItems: [{ id }], properties: { noteIndex: 0 } };
    citations[id] = citing.previewCitationCluster(cluster, [], [], "text");
  }
  const engine = new CSL.Engine(sys, style, "en-US");
  engine.setOutputFormat("text");
  engine.updateItems(ids);
  const [params, entries] = engine.makeBibliography();
  const bibliography = {};
  params.entry_ids.forEach((entryIds, index) => {
    bibliography[entryIds[0]] = entries[index].trim();
  });
  process.stdout.write(JSON.stringify({ citations, bibliography }));
});
