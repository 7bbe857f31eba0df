// The TypeScript client against a real `mnemotree serve` this test starts
// (MNEMOTREE_BIN, default: the repository's .venv/bin/mnemotree), with a
// real key limited to one scope.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, InvalidInput, NotFound, ProviderError, Unauthorized } from "../src/index.js";
import type { Context, Health, Hit, Node } from "../src/index.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const bin = process.env.MNEMOTREE_BIN ?? resolve(here, "../../../../.venv/bin/mnemotree");
const folder = mkdtempSync(join(tmpdir(), "mnemotree-ts-"));
const db = join(folder, "m.db");
const base = ["--db", db, "--embedder", "hashing"];
let server: ChildProcess | undefined;
let url = "";
let key = "";

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

async function waitForHealth(address: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${address}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`mnemotree serve did not start at ${address}`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

before(async () => {
  const made = execFileSync(bin, [...base, "--json", "keys", "create", "--scopes", "team"], {
    encoding: "utf8",
  });
  key = JSON.parse(made).key;
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  server = spawn(bin, [...base, "serve", "--port", String(port), "--no-access-log"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitForHealth(url);
});

after(async () => {
  if (server && server.exitCode === null) {
    const stopped = new Promise((done) => server?.once("exit", done));
    server.kill();
    await stopped; // its files go only once it has let go of them
  }
  rmSync(folder, { recursive: true, force: true });
});

test("the client speaks the facade's verbs", async () => {
  const memory = new Client(url, { key });
  // The exported names still type every answer (tsc checks the annotations).
  const health: Health = await memory.health();
  assert.equal(health.status, "ok");
  const first: Node = await memory.remember("Alice lives in Berlin");
  assert.equal(first.scope, "team");
  await memory.remember("Alice moved to Munich");
  const hits: Hit[] = await memory.search("where does Alice live", { limit: 3 });
  assert.equal(hits[0].text, "Alice moved to Munich");
  const context: Context = await memory.context("Alice", { budget: 200 });
  assert.ok(context.text.includes("Munich") && context.token_count <= 200);
  const project = await memory.add("Project log");
  const child = await memory.add("Kick-off held", { parent: project.id });
  const children: Node[] = await memory.children(project.id);
  assert.deepEqual(children.map((n) => n.id), [child.id]);
  const fixed = await memory.update(child.id, "Kick-off held on Monday");
  assert.equal(fixed.version, 2);
  const read = await memory.get(child.id);
  assert.equal(read.text, "Kick-off held on Monday");
  assert.equal(read.version, fixed.version);
  assert.deepEqual(read.ancestors.map((n) => n.id), [project.id]);
  const fact = await memory.fact("alice.city", "Munich");
  assert.equal(fact.context_type, "fact");
  const plan = await memory.purge([first.id]);
  assert.deepEqual([plan.selector, plan.dry_run, plan.node_ids], ["ids", true, [first.id]]);
  const asked = await memory.ask("Where does Alice live?", { generate: false });
  assert.equal(asked.answer, null);
  assert.equal(await memory.delete(project.id), 2);
});

test("errors are the server's classes", async () => {
  const memory = new Client(url, { key });
  await assert.rejects(memory.get("01NOSUCHNODE0000000000000"), NotFound);
  await assert.rejects(memory.search("x", { limit: 0 }), (error: unknown) => {
    assert.ok(error instanceof Error && error.name === "InvalidInput");
    return true;
  });
  await assert.rejects(new Client(url, { key: "mt_not_a_key" }).search("x"), Unauthorized);
  const closed = await freePort();
  await assert.rejects(new Client(`http://127.0.0.1:${closed}`).health(), ProviderError);
  await assert.rejects(new Client(`${url}/ui/index.html#`).send("GET", ""), ProviderError);
  assert.ok(new InvalidInput("InvalidInput", "m", null, 400) instanceof Error);
});

test("every route the client calls is in the server's OpenAPI document", async () => {
  const spec = (await (await fetch(`${url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const used: [string, string][] = [
    ["/health", "get"],
    ["/remember", "post"],
    ["/search", "post"],
    ["/context/assemble", "post"],
    ["/ask", "post"],
    ["/nodes", "post"],
    ["/nodes/{node_id}", "get"],
    ["/nodes/{node_id}", "patch"],
    ["/nodes/{node_id}", "delete"],
    ["/nodes/{node_id}/children", "get"],
    ["/facts", "post"],
    ["/purge", "post"],
  ];
  const missing = used.filter(([path, method]) => !spec.paths[path]?.[method]);
  assert.deepEqual(missing, []);
  const source = (await import("node:fs")).readFileSync(resolve(here, "../../src/index.ts"), "utf8");
  const called = [...source.matchAll(/this\.send(?:<[^>]*>)?\("(\w+)", [`"]([^`"$]+)/g)].map(
    (m) => m[2],
  );
  assert.ok(called.length >= 8, "the client's routes were read from its source");
  for (const path of called) {
    assert.ok(used.some(([p]) => p === path || p.startsWith(path)), `${path} is checked above`);
  }
});
