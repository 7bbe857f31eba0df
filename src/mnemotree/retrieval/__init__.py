"""Retrieval: lexical and vector evidence, fused and traced up the tree."""
