"""The import step as a pass (hilo-import): the stages before the spine."""
