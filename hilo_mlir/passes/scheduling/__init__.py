"""Scheduling passes: op order, live ranges, cross-pass tensors, rematerialization, hoisting, motion."""
