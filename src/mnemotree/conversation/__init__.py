"""Chat sessions as subtrees: messages, rolling summaries and capture."""
