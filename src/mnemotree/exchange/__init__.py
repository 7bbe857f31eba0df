"""Export and import: Markdown documents and JSONL backups."""
