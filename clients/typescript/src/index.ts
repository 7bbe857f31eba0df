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

export interface Node {
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
  [more: string]: unknown;
}

export interface Hit {
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
  [more: string]: unknown;
}

export interface Context {
  budget: number;
  token_count: number;
  text: string;
  activity: string;
  refs: Record<string, string>;
  tiers: unknown[];
  warnings: string[];
}

export interface Health {
  status: string;
  version: string;
  schema: number;
  auth: boolean;
}

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

  remember(
    text: string,
    options: { type?: string; scope?: string; importance?: number; metadata?: Record<string, unknown> } = {},
  ): Promise<Node> {
    return this.send("POST", "/remember", { text, ...options });
  }

  search(
    query: string,
    options: { scopes?: string[]; limit?: number; min_relevance?: number } = {},
  ): Promise<Hit[]> {
    return this.send("POST", "/search", { query, ...options });
  }

  context(
    query = "",
    options: { budget?: number; activity?: string; scopes?: string[] } = {},
  ): Promise<Context> {
    return this.send("POST", "/context/assemble", { query, ...options });
  }

  ask(question: string, options: { scopes?: string[]; limit?: number } = {}): Promise<Record<string, unknown>> {
    return this.send("POST", "/ask", { question, ...options });
  }

  add(
    text: string,
    options: { parent?: string; scope?: string; context_type?: string; metadata?: Record<string, unknown> } = {},
  ): Promise<Node> {
    return this.send("POST", "/nodes", { text, ...options });
  }

  get(nodeId: string): Promise<Node> {
    return this.send("GET", `/nodes/${encodeURIComponent(nodeId)}`);
  }

  children(nodeId: string): Promise<Node[]> {
    return this.send("GET", `/nodes/${encodeURIComponent(nodeId)}/children`);
  }

  update(nodeId: string, text: string): Promise<Node> {
    return this.send("PATCH", `/nodes/${encodeURIComponent(nodeId)}`, { text });
  }

  async delete(nodeId: string): Promise<number> {
    const answer: { deleted: number } = await this.send("DELETE", `/nodes/${encodeURIComponent(nodeId)}`);
    return answer.deleted;
  }

  fact(key: string, value: unknown, options: { scope?: string; confidence?: number } = {}): Promise<Node> {
    return this.send("POST", "/facts", { key, value, ...options });
  }

  purge(ids: string[], options: { subject?: string; dry_run?: boolean } = {}): Promise<Record<string, unknown>> {
    return this.send("POST", "/purge", { ids, ...options });
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
