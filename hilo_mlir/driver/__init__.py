"""The driver: configuration, the spine, the frontend stages before it, compiling and publishing a program."""
