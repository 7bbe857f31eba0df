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
  DeleteNodeResponse,
  FactBody,
  FactResponse,
  GetNodeResponse,
  HealthResponse,
  NodeBody,
  PurgeBody,
  PurgeResponse,
  RememberBody,
  RememberResponse,
  SearchBody,
  SearchResponse,
  UpdateBody,
  UpdateNodeResponse,
} from "./schema.js";

// Request bodies and answers, generated from the server's /openapi.json.
export type * from "./schema.js";

// The server declares its answers as bare JSON objects, so the fields below
// are written here; extending the generated answers keeps each type checked
// against the document (vacuously until the server declares those fields).
type Listed = ChildrenResponse[number];
type Found = SearchResponse[number];

export interface Node
  extends RememberResponse,
    AddNodeResponse,
    GetNodeResponse,
    UpdateNodeResponse,
    FactResponse,
    Listed {
  id: string;
  root_id: string;
  parent_id: string | null;
  order_key: number;
  text: string;
  token_count: number;
  created_at: string;
  updated_at: string;
  context_type: string;
  context_name: string;
  context_value: string;
  scope: string;
  version: number;
  metadata: Record<string, unknown>;
}

export interface Hit extends Found {
  id: string;
  text: string;
  score: number;
  scope: string;
  context_type: string;
  context_name: string;
  version: number;
  valid_from: string | null;
  valid_to: string | null;
  ancestry: { id: string; text: string; context_type: string }[];
}

export interface Context extends AssembleResponse {
  budget: number;
  token_count: number;
  text: string;
  activity: string;
  refs: Record<string, string>;
  tiers: unknown[];
  warnings: string[];
}

export interface Health extends HealthResponse {
  status: string;
  version: string;
  schema: number;
  auth: boolean;
}

interface Deleted extends DeleteNodeResponse {
  deleted: number;
}

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

  health(): Promise<Health> {
    return this.send("GET", "/health");
  }

  remember(text: string, options: RememberOptions = {}): Promise<Node> {
    const body: RememberBody = { text, ...options };
    return this.send("POST", "/remember", body);
  }

  search(query: string, options: SearchOptions = {}): Promise<Hit[]> {
    const body: SearchBody = { query, ...options };
    return this.send("POST", "/search", body);
  }

  context(query = "", options: ContextOptions = {}): Promise<Context> {
    const body: AssembleBody = { query, ...options };
    return this.send("POST", "/context/assemble", body);
  }

  ask(question: string, options: AskOptions = {}): Promise<AskResponse> {
    const body: AskBody = { question, ...options };
    return this.send("POST", "/ask", body);
  }

  add(text: string, options: AddOptions = {}): Promise<Node> {
    const body: NodeBody = { text, ...options };
    return this.send("POST", "/nodes", body);
  }

  get(nodeId: string): Promise<Node> {
    return this.send("GET", `/nodes/${encodeURIComponent(nodeId)}`);
  }

  children(nodeId: string): Promise<Node[]> {
    return this.send("GET", `/nodes/${encodeURIComponent(nodeId)}/children`);
  }

  update(nodeId: string, text: string): Promise<Node> {
    const body: UpdateBody = { text };
    return this.send("PATCH", `/nodes/${encodeURIComponent(nodeId)}`, body);
  }

  async delete(nodeId: string): Promise<number> {
    const answer: Deleted = await this.send("DELETE", `/nodes/${encodeURIComponent(nodeId)}`);
    return answer.deleted;
  }

  fact(key: string, value: unknown, options: FactOptions = {}): Promise<Node> {
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
