"""Process and user-facing support: diagnostics, isolation in forked children, signals, atomic file I/O."""
