// lsp_check.js NODE_MODULES SCHEMA SPEC: drives yaml-language-server over
// stdio with LSP JSON-RPC as an editor would, on SPEC's text with a
// `# yaml-language-server: $schema=SCHEMA` first line (SCHEMA from
// `bench schema SPEC`), and prints what an editor would show, one line each:
//   verbs: V1 V2 ...        the completion offered at a new step of the cycle
//   labels: L1 L2 ...       every completion label there (to find [object Object])
//   args: A1 A2 ...         the completion inside the first step's arguments
//   unknown: LINE:COL MSG   the diagnostics of the spec with a step's verb misspelt
//   clean: N                the number of diagnostics of SPEC as it is
//   object-labels: N        completion items labelled "[object Object]" at the
//                           value of every key of SPEC and at a new key beside
//                           each (each one also as "object-label: LINE KEY")
// Exits 1 when the server does not answer in time.
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");
const { pathToFileURL } = require("url");

const [modules, schemaPath, specPath] = process.argv.slice(2);
const server = spawn(
  process.execPath,
  [path.join(modules, "yaml-language-server", "bin", "yaml-language-server"), "--stdio"],
  { stdio: ["pipe", "pipe", "inherit"] },
);

let buffer = Buffer.alloc(0);
let nextId = 1;
const pending = new Map();
const diagnostics = new Map(); // uri -> [resolve]
const published = new Map(); // uri -> diagnostics

function send(msg) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...msg }), "utf8");
  server.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
  server.stdin.write(body);
}

function request(method, params) {
  const id = nextId++;
  send({ id, method, params });
  return new Promise((resolve) => pending.set(id, resolve));
}

function notify(method, params) {
  send({ method, params });
}

function onMessage(msg) {
  if (msg.id !== undefined && msg.method) {
    // a request from the server: configuration, registrations
    const result = msg.method === "workspace/configuration"
      ? msg.params.items.map(() => ({ validate: true, completion: true, hover: true }))
      : null;
    send({ id: msg.id, result });
    return;
  }
  if (msg.id !== undefined && pending.has(msg.id)) {
    pending.get(msg.id)(msg.result);
    pending.delete(msg.id);
    return;
  }
  if (msg.method === "textDocument/publishDiagnostics") {
    const { uri, diagnostics: list } = msg.params;
    published.set(uri, list);
    const waiters = diagnostics.get(uri) || [];
    diagnostics.delete(uri);
    waiters.forEach((w) => w(list));
  }
}

server.stdout.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const head = buffer.indexOf("\r\n\r\n");
    if (head < 0) return;
    const m = /Content-Length: (\d+)/i.exec(buffer.slice(0, head).toString());
    const len = Number(m[1]);
    if (buffer.length < head + 4 + len) return;
    const body = buffer.slice(head + 4, head + 4 + len).toString("utf8");
    buffer = buffer.slice(head + 4 + len);
    onMessage(JSON.parse(body));
  }
});

// The diagnostics published for uri after the document's version; the server
// publishes once per change, so the first after opening is the answer.
function diagnosticsOf(uri) {
  return new Promise((resolve) => {
    const list = diagnostics.get(uri) || [];
    list.push(resolve);
    diagnostics.set(uri, list);
  });
}

const timer = setTimeout(() => {
  console.error("lsp_check: yaml-language-server did not answer within 60 s");
  process.exit(1);
}, 60000);

// Opens lines as the document NAME (beside SPEC) and waits for its first
// diagnostics: then the server has parsed it. Returns [uri, diagnostics].
async function open(name, docLines) {
  const uri = pathToFileURL(path.join(path.dirname(path.resolve(specPath)), name)).href;
  const published = diagnosticsOf(uri);
  notify("textDocument/didOpen", {
    textDocument: { uri, languageId: "yaml", version: 1, text: docLines.join("\n") },
  });
  return [uri, await published];
}

function labels(result) {
  const items = Array.isArray(result) ? result : (result && result.items) || [];
  return items.map((i) => (typeof i.label === "string" ? i.label : JSON.stringify(i.label)));
}

async function main() {
  const dir = path.dirname(path.resolve(specPath));
  await request("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(dir).href,
    capabilities: {
      textDocument: {
        completion: { completionItem: { snippetSupport: true } },
        publishDiagnostics: {},
      },
      workspace: { configuration: true },
    },
    initializationOptions: {},
  });
  notify("initialized", {});
  notify("workspace/didChangeConfiguration", {
    settings: { yaml: { validate: true, completion: true, hover: true, schemaStore: { enable: false } } },
  });

  const spec = fs.readFileSync(specPath, "utf8");
  const modeline = `# yaml-language-server: $schema=${pathToFileURL(path.resolve(schemaPath)).href}\n`;
  const lines = (modeline + spec).split("\n");
  const cycle = lines.findIndex((l) => /^  cycle:\s*$/.test(l));
  if (cycle < 0) throw new Error("SPEC has no `  cycle:` line");
  const stepLine = cycle + 1; // "    - Verb: {...}"
  const indent = /^(\s*)- /.exec(lines[stepLine])[1];

  // 1. the spec as it is: no diagnostics
  const [, clean] = await open("lsp-clean.yaml", lines);
  console.log(`clean: ${clean.length}`);
  clean.forEach((d) => console.log(`clean-diag: ${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`));

  // 2. a new step, "    - ", after the cycle's first: completion there
  const added = lines.slice();
  added.splice(stepLine + 1, 0, `${indent}- `);
  const [newUri] = await open("lsp-new-step.yaml", added);
  const atStep = await request("textDocument/completion", {
    textDocument: { uri: newUri },
    position: { line: stepLine + 1, character: indent.length + 2 },
  });
  const stepLabels = labels(atStep);
  console.log(`verbs: ${stepLabels.filter((l) => /^[A-Za-z_]\w*\.[A-Za-z_]\w*$/.test(l)).join(" ")}`);
  console.log(`labels: ${stepLabels.join(" | ")}`);

  // 3. inside the first step's arguments: "    - Verb:" and a new line below
  const verb = /^\s*- ([A-Za-z_]\w*\.[A-Za-z_]\w*):/.exec(lines[stepLine])[1];
  const args = lines.slice();
  args.splice(stepLine + 1, 0, `${indent}- ${verb}:`, `${indent}    `);
  const [argsUri] = await open("lsp-args.yaml", args);
  const inArgs = await request("textDocument/completion", {
    textDocument: { uri: argsUri },
    position: { line: stepLine + 2, character: indent.length + 4 },
  });
  console.log(`args: ${labels(inArgs).join(" ")}`);

  // 4. the first step's verb misspelt: a diagnostic at it
  const wrong = lines.slice();
  wrong[stepLine] = wrong[stepLine].replace(verb, `${verb}x`);
  const [, unknown] = await open("lsp-unknown-verb.yaml", wrong);
  unknown.forEach((d) => console.log(`unknown: ${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message.replace(/\n/g, " ")}`));

  // 5. every key's value, and a new key beside it: no "[object Object]"
  let bad = 0;
  for (let i = 1; i < lines.length; i++) {
    const m = /^(\s*)(- )?([A-Za-z_][\w.]*):(\s.*)?$/.exec(lines[i]);
    if (!m) continue;
    const value = lines.slice();
    const pre = `${m[1]}${m[2] || ""}${m[3]}: `;
    value[i] = pre;
    const sibling = lines.slice();
    const indent2 = m[1] + (m[2] ? "  " : "");
    sibling.splice(i + 1, 0, indent2);
    const probes = [
      [value, { line: i, character: pre.length }],
      [sibling, { line: i + 1, character: indent2.length }],
    ];
    for (const [doc, position] of probes) {
      const uri = pathToFileURL(path.join(dir, `lsp-probe-${i}-${position.line}.yaml`)).href;
      notify("textDocument/didOpen", {
        textDocument: { uri, languageId: "yaml", version: 1, text: doc.join("\n") },
      });
      const got = labels(await request("textDocument/completion", { textDocument: { uri }, position }));
      notify("textDocument/didClose", { textDocument: { uri } });
      for (const l of got.filter((x) => x.includes("[object Object]"))) {
        console.log(`object-label: ${i + 1} ${m[3]} ${l}`);
        bad++;
      }
    }
  }
  console.log(`object-labels: ${bad}`);

  await request("shutdown", null);
  notify("exit", null);
  clearTimeout(timer);
}

main().catch((e) => {
  console.error(`lsp_check: ${e.stack || e}`);
  process.exit(1);
});
