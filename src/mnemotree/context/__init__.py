"""The context engine: working memory, tiered assembly, prediction and usage."""
