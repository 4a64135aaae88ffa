"""Penguin I/O passes: the entry function's interface, aliasing, tensorizer legalization, the printer passes."""
