"""Verification passes: supported ops and the instruction histogram."""
