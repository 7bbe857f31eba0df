/**
 * A typed client for a running `mnemotree serve`, using only `fetch`.
 *
 * Verbs mirror the Python facade (remember, search, context, ask, add, get,
 * children, update, delete, fact, purge). Errors come back as the server's
 * classes: a refused key is an `Unauthorized`, a missing node a `NotFound`,
 * each a `MnemotreeError` with the server's message and offending value.
 * An unreachable server, or an address that is not a mnemotree server, is a
 * `ProviderError` naming the address.
 */

import type {
  AddNodeResponse,
  AskBody,
  AskResponse,
  AssembleBody,
  AssembleResponse,
  ChildrenResponse,
  ContextOut,
  DeleteNodeResponse,
  FactBody,
  FactResponse,
  GetNodeResponse,
  HealthOut,
  HealthResponse,
  HitOut,
  NodeBody,
  NodeOut,
  PurgeBody,
  PurgeResponse,
  RememberBody,
  RememberResponse,
  SearchBody,
  SearchResponse,
  UpdateBody,
  UpdateNodeResponse,
} from "./schema.js";

// Request bodies and answers, generated from the server's /openapi.json:
// each verb returns its route's generated answer type, so a field the server
// adds, drops or retypes changes these types at the next regeneration.
export type * from "./schema.js";

// The answers by the names the client has always exported.
export type Node = NodeOut;
export type Hit = HitOut;
export type Context = ContextOut;
export type Health = HealthOut;

// Each verb's options: its request body but for the arguments it takes.
export type RememberOptions = Omit<RememberBody, "text">;
export type SearchOptions = Omit<SearchBody, "query">;
export type ContextOptions = Omit<AssembleBody, "query">;
export type AskOptions = Omit<AskBody, "question">;
export type AddOptions = Omit<NodeBody, "text">;
export type FactOptions = Omit<FactBody, "key" | "value">;
export type PurgeOptions = Omit<PurgeBody, "ids">;

/** Every error the server answers with: its class name, message and value. */
export class MnemotreeError extends Error {
  readonly kind: string;
  readonly value: unknown;
  readonly status: number;
  constructor(kind: string, message: string, value: unknown, status: number) {
    super(message);
    this.name = kind;
    this.kind = kind;
    this.value = value;
    this.status = status;
  }
}
export class NotFound extends MnemotreeError {}
export class Unauthorized extends MnemotreeError {}
export class ScopeDenied extends MnemotreeError {}
export class InvalidInput extends MnemotreeError {}
export class ProviderError extends MnemotreeError {}

const KINDS: Record<string, typeof MnemotreeError> = {
  NotFound,
  Unauthorized,
  ScopeDenied,
  InvalidInput,
  ProviderError,
};

export interface ClientOptions {
  key?: string;
  /** Milliseconds before a request is given up. */
  timeout?: number;
}

type Method = "GET" | "POST" | "PATCH" | "DELETE";

export class Client {
  readonly baseUrl: string;
  private readonly key?: string;
  private readonly timeout: number;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.key = options.key;
    this.timeout = options.timeout ?? 30_000;
  }

  health(): Promise<HealthResponse> {
    return this.send("GET", "/health");
  }

  remember(text: string, options: RememberOptions = {}): Promise<RememberResponse> {
    const body: RememberBody = { text, ...options };
    return this.send("POST", "/remember", body);
  }

  search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const body: SearchBody = { query, ...options };
    return this.send("POST", "/search", body);
  }

  context(query = "", options: ContextOptions = {}): Promise<AssembleResponse> {
    const body: AssembleBody = { query, ...options };
    return this.send("POST", "/context/assemble", body);
  }

  ask(question: string, options: AskOptions = {}): Promise<AskResponse> {
    const body: AskBody = { question, ...options };
    return this.send("POST", "/ask", body);
  }

  add(text: string, options: AddOptions = {}): Promise<AddNodeResponse> {
    const body: NodeBody = { text, ...options };
    return this.send("POST", "/nodes", body);
  }

  /** The node with its ancestors (root first). */
  get(nodeId: string): Promise<GetNodeResponse> {
    return this.send("GET", `/nodes/${encodeURIComponent(nodeId)}`);
  }

  children(nodeId: string): Promise<ChildrenResponse> {
    return this.send("GET", `/nodes/${encodeURIComponent(nodeId)}/children`);
  }

  update(nodeId: string, text: string): Promise<UpdateNodeResponse> {
    const body: UpdateBody = { text };
    return this.send("PATCH", `/nodes/${encodeURIComponent(nodeId)}`, body);
  }

  async delete(nodeId: string): Promise<number> {
    const answer: DeleteNodeResponse = await this.send("DELETE", `/nodes/${encodeURIComponent(nodeId)}`);
    return answer.deleted;
  }

  fact(key: string, value: unknown, options: FactOptions = {}): Promise<FactResponse> {
    const body: FactBody = { key, value, ...options };
    return this.send("POST", "/facts", body);
  }

  purge(ids: string[], options: PurgeOptions = {}): Promise<PurgeResponse> {
    const body: PurgeBody = { ids, ...options };
    return this.send("POST", "/purge", body);
  }

  /** One request; its JSON answer, or the server's error as a MnemotreeError. */
  async send<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const url = this.baseUrl + path;
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.key) headers.authorization = `Bearer ${this.key}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeout),
      });
    } catch (error) {
      throw new ProviderError("ProviderError", `cannot reach ${url}: ${String(error)}`, this.baseUrl, 0);
    }
    const text = await response.text();
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      throw new ProviderError(
        "ProviderError",
        `${url} answered ${response.status} with something other than JSON: is it a mnemotree server?`,
        text.slice(0, 200),
        response.status,
      );
    }
    if (!response.ok) {
      const error = data as { error?: unknown; message?: unknown; value?: unknown } | null;
      if (error && typeof error.error === "string") {
        const Kind = KINDS[error.error] ?? MnemotreeError;
        throw new Kind(error.error, String(error.message ?? ""), error.value, response.status);
      }
      throw new ProviderError(
        "ProviderError",
        `${url} answered ${response.status} without a mnemotree error: is it a mnemotree server?`,
        text.slice(0, 200),
        response.status,
      );
    }
    return data as T;
  }
}
