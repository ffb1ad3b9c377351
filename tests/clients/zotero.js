// Zotero's web translators (Embedded Metadata, COinS) run unmodified on a
// page's HTML, on Node with jsdom, as Zotero's connector runs them in a page.
//
// The translators come from a checkout of zotero/translators, their helpers
// (Zotero.Utilities, the item types of Zotero's schema, OpenURL's
// parseContextObject) from a checkout of zotero/utilities: the folders the
// request names. Each translator file is loaded as Zotero's translation
// framework loads it (its JSON header, then its code in a sandbox of its own,
// a child translator found by its translatorID); what the framework itself
// provides is the small shim below: Zotero.Item (completed items captured),
// Zotero.loadTranslator, Zotero.RDF (a triple store) and the page helpers.
//
// Reads one JSON object on standard input:
//   {"translators": dir, "utilities": dir, "translator": "Embedded Metadata",
//    "url": address, "html": page}
// and writes the items the translator saved, as JSON: itemType, creators,
// and every field, with the base fields a type maps (publisher, number) also
// under their names for the type (repository, archiveID, institution).
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const { JSDOM } = require("jsdom");

function readInput() {
  return JSON.parse(fs.readFileSync(0, "utf8"));
}

function loadUtilities(dir) {
  // No wrapped DOM nodes here: the page is jsdom's own.
  globalThis.Zotero = { locale: "en-US", debug() {}, isNode: true, Translate: {} };
  const Utilities = require(path.join(dir, "utilities.js"));
  Utilities.Item = require(path.join(dir, "utilities_item.js"));
  globalThis.Zotero.Utilities = Utilities;
  const CachedTypes = require(path.join(dir, "cachedTypes.js"));
  CachedTypes.setTypeSchema(require(path.join(dir, "resource", "zoteroTypeSchemaData.js")));
  Object.assign(globalThis.Zotero, CachedTypes);
  globalThis.Zotero.Utilities = Utilities;
  const OpenURL = require(path.join(dir, "openurl.js"));
  return { Utilities, OpenURL, Types: CachedTypes };
}

// A translator file: its JSON header, then its code.
function readTranslator(file) {
  const source = fs.readFileSync(file, "utf8");
  const end = source.indexOf("\n}\n") + 2;
  return { header: JSON.parse(source.slice(0, end)), code: source.slice(end) };
}

function findTranslator(dir, test) {
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith(".js")) continue;
    const file = path.join(dir, name);
    const head = fs.readFileSync(file, "utf8").slice(0, 600);
    if (test(name, head)) return readTranslator(file);
  }
  throw new Error("translator not found");
}

// Zotero.RDF: the calls RDF.js makes, over a list of triples.
function rdfStore() {
  const triples = [];
  const resources = new Map();
  const resource = (uri) => {
    if (!resources.has(uri)) resources.set(uri, { uri });
    return resources.get(uri);
  };
  const some = (list) => (list.length ? list : false);
  return {
    addStatement(subject, predicate, object, literal) {
      triples.push([resource(subject), predicate, literal ? object : resource(object)]);
    },
    getAllResources: () => some([...new Set(triples.map((t) => t[0]))]),
    getTargets: (node, predicate) =>
      some(triples.filter((t) => t[0] === node && t[1] === predicate).map((t) => t[2])),
    getSources: (node, predicate) =>
      some(triples.filter((t) => t[2] === node && t[1] === predicate).map((t) => t[0])),
    getArcsIn: (node) => triples.filter((t) => t[2] === node).map((t) => resource(t[1])),
    getArcsOut: (node) => triples.filter((t) => t[0] === node).map((t) => resource(t[1])),
    getResourceURI: (node) => (typeof node === "string" ? node : node.uri),
    getContainerElements: () => [],
  };
}

function translatorUtilities(base, Types, OpenURL, doc) {
  const ZU = Object.create(base);
  ZU.itemTypeExists = (type) => !!Types.ItemTypes.getID(type);
  ZU.fieldIsValidForType = (field, type) =>
    !!Types.ItemFields.isValidForType(field, type) ||
    !!Types.ItemFields.getFieldIDFromTypeAndBase(type, field);
  ZU.getCreatorsForType = (type) =>
    Types.CreatorTypes.getTypesForItemType(Types.ItemTypes.getID(type)).map((c) => c.name);
  ZU.parseContextObject = OpenURL.parseContextObject;
  ZU.resolveURL = (url) => new URL(url, doc.location.href).href;
  return ZU;
}

function run(request) {
  const { Utilities, OpenURL, Types } = loadUtilities(request.utilities);
  const dom = new JSDOM(request.html, { url: request.url });
  const doc = dom.window.document;
  // jsdom's XPath finds no HTML element by a name in the XHTML namespace
  // ("/x:html/x:head/x:meta", as Embedded Metadata asks for them), where a
  // browser finds them all: such names are asked for without their prefix,
  // which jsdom matches against HTML elements as a browser does; and jsdom
  // fails on local-name() without its argument, the context node.
  const evaluate = doc.evaluate.bind(doc);
  const XHTML = "http://www.w3.org/1999/xhtml";
  doc.evaluate = (expression, node, resolver, type, result) => {
    const prefix = resolver && ["x", "xhtml", "html"].find((p) => resolver(p) === XHTML);
    if (prefix) expression = expression.replace(new RegExp(`\\b${prefix}:(?=[A-Za-z*])`, "g"), "");
    expression = expression.replace(/local-name\(\)/g, "local-name(.)");
    return evaluate(expression, node, resolver, type, result);
  };
  const saved = [];

  function sandbox(translator, onItem) {
    const ZU = translatorUtilities(Utilities, Types, OpenURL, doc);
    const handlers = {};
    const Zotero = {
      Utilities: ZU,
      debug() {},
      done() {},
      wait() {},
      setProgress() {},
      selectItems(items, callback) {
        callback(items);
      },
      loadTranslator() {
        const child = {
          setTranslator(id) {
            child.id = id;
          },
          setHandler(name, fn) {
            child.handlers[name] = fn;
          },
          handlers: {},
          getTranslatorObject(callback) {
            const found = findTranslator(request.translators, (_, head) =>
              head.includes(`"translatorID": "${child.id}"`),
            );
            const context = sandbox(found, (item) => {
              if (child.handlers.itemDone) child.handlers.itemDone(null, item);
              else saved.push(item);
            });
            context.exports.Zotero = context.Zotero;
            callback(context.exports);
          },
        };
        return child;
      },
    };
    Zotero.RDF = rdfStore();
    Zotero.Item = function (itemType) {
      Object.assign(this, {
        itemType,
        creators: [],
        tags: [],
        notes: [],
        attachments: [],
        seeAlso: [],
      });
    };
    Zotero.Item.prototype.complete = function () {
      // An item a child translator completes goes to its parent's handler,
      // which completes it again: then it is saved.
      if (this._handed || !onItem) {
        saved.push(this);
      } else {
        this._handed = true;
        onItem(this);
      }
    };
    const context = vm.createContext({
      Zotero,
      Z: Zotero,
      ZU,
      console,
      URL,
      Promise,
      attr: (node, selector, name) => node.querySelector(selector)?.getAttribute(name) ?? "",
      text: (node, selector) => node.querySelector(selector)?.textContent ?? "",
      handlers,
    });
    vm.runInContext(translator.code, context, { filename: translator.header.label });
    return context;
  }

  const translator = findTranslator(request.translators, (name) => name === `${request.translator}.js`);
  const context = sandbox(translator, null);
  context.doWeb(doc, request.url);
  return saved.map((item) => {
    const plain = {};
    for (const [key, value] of Object.entries(item)) {
      if (key.startsWith("_") || value === undefined || value === "" || value === null) continue;
      if (key === "attachments") {
        plain.attachments = value.map((a) => ({ title: a.title, url: a.url }));
        continue;
      }
      plain[key] = value;
    }
    // A field by its name for the item's type: a preprint's publisher is its
    // repository, its number its archive ID.
    for (const base of ["publisher", "number"]) {
      const id = Types.ItemFields.getFieldIDFromTypeAndBase(item.itemType, base);
      if (item[base] && id) plain[Types.ItemFields.getName(id)] = item[base];
    }
    return plain;
  });
}

process.stdout.write(JSON.stringify(run(readInput())));
