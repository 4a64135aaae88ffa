"""Rewriting: the recording rewriter (every IR mutation goes through it) and type rewriting."""
