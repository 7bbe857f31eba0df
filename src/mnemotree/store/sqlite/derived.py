"""How the derived text columns are computed: each node's neighbours' text
and its breadcrumb, shared by the migrations that build them and the store
that keeps them current."""

NEIGHBOUR_CHARS = 300
PATH_CHARS = 100  # of each ancestor's text in a node's breadcrumb


def _piece(direction: str, scoped: bool) -> str:
    """SQL for one adjacent sibling's "name: text" (empty when there is none, or,
    when `scoped`, when it is in another scope, since scopes are a hard boundary,
    or of another kind: a heading beside a chunk is not its context)."""
    compare, order = ("<", "DESC") if direction == "previous" else (">", "ASC")
    text = (
        "substr(CASE WHEN s.context_name != '' THEN s.context_name || ': ' "
        f"ELSE '' END || s.text, 1, {NEIGHBOUR_CHARS})"
    )
    if scoped:
        same = "s.scope = nodes.scope AND s.context_type = nodes.context_type"
        text = f"CASE WHEN {same} THEN {text} ELSE '' END"
    return (
        f"coalesce((SELECT {text} FROM nodes s "
        f"WHERE s.parent_id = nodes.parent_id AND s.order_key {compare} nodes.order_key "
        f"ORDER BY s.order_key {order} LIMIT 1), '')"
    )


# As shipped in 0003 (which took text across scopes and kinds; 0005 and 0006
# recompute it).
NEIGHBOURS_UNSCOPED_SQL = f"{_piece('previous', False)} || char(10) || {_piece('next', False)}"
# The `neighbours` value of a node, computed from its current siblings.
NEIGHBOURS_SQL = f"{_piece('previous', True)} || char(10) || {_piece('next', True)}"
