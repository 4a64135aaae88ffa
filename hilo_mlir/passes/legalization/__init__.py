"""Legalization passes: rewrites that bring the module to what the Penguin printer and the middle end accept."""
