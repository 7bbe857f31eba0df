"""The Postgres backend: PostgreSQL 16 with pgvector (extra `postgres`)."""

from .store import PostgresStore

__all__ = ["PostgresStore"]
