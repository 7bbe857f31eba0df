"""Benchmarks run as commands (`mnemotree bench ...`), never as tests."""
