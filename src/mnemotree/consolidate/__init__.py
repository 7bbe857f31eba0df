"""Consolidation: contradictions now; decay, dedupe, compression and forgetting next."""
