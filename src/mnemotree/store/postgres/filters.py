"""A `NodeFilter` as Postgres conditions: scopes first, as the hard boundary."""

from __future__ import annotations

from typing import Any

from ...model import NodeFilter


def valid_sql(alias: str) -> str:
    """True when node `alias` is valid at the time bound `VALID_PARAMS` times
    after it: valid from when it was written unless its metadata says
    otherwise. Metadata whose text holds no `"valid_` (most rows) names no
    validity (the store writes it with `json.dumps`, which spells keys as
    they are), so it is not parsed: casting each matching row's metadata to
    jsonb, three times, was ~1 us a row (8.5 of the 38 ms a BM25 over the
    8,500 rows of one word took at 1M nodes)."""
    meta = f"{alias}.metadata"
    end = f"({meta}::jsonb ->> 'valid_to')"
    # Written after its own end ("true until March"): it held since always.
    written = f"CASE WHEN {end} < {alias}.created_at THEN '' ELSE {alias}.created_at END"
    start = f"COALESCE({meta}::jsonb ->> 'valid_from', {written})"
    stated = f"{start} <= %s AND ({end} IS NULL OR {end} > %s)"
    return (
        f"CASE WHEN strpos({meta}, '\"valid_') = 0 THEN {alias}.created_at <= %s ELSE {stated} END"
    )


VALID_PARAMS = 3  # the times `valid_sql` binds


def filter_sql(where: NodeFilter, alias: str) -> tuple[str, list[Any]]:
    """` AND ...` conditions and their values."""
    parts: list[str] = [] if where.include_archived else [f"{alias}.archived_at IS NULL"]
    args: list[Any] = []
    if where.scopes is not None:
        parts.append(f"{alias}.scope = ANY(%s)")  # an empty list: nothing is visible
        args.append(list(where.scopes))
    for column, values in (("root_id", where.roots), ("context_type", where.context_types)):
        if values:
            parts.append(f"{alias}.{column} = ANY(%s)")
            args.append(list(values))
    if where.tags:
        parts.append(
            f"EXISTS (SELECT 1 FROM node_tags t WHERE t.node_id = {alias}.id AND t.tag = ANY(%s))"
        )
        args.append(list(where.tags))
    for condition, value in (
        (f"{alias}.created_at >= %s", where.created_after),
        (f"{alias}.created_at < %s", where.created_before),
        (f"{alias}.importance >= %s", where.min_importance),
    ):
        if value is not None:
            parts.append(condition)
            args.append(value)
    if where.valid_at is not None:
        # A level of a multi-level memory (an episode's summary) is valid when
        # its memory is.
        parts.append(valid_sql(alias))
        parts.append(
            f"({alias}.context_type != 'level' OR EXISTS (SELECT 1 FROM nodes p "
            f"WHERE p.id = {alias}.parent_id AND {valid_sql('p')}))"
        )
        args.extend([where.valid_at] * (2 * VALID_PARAMS))
    return "".join(f" AND {p}" for p in parts), args
