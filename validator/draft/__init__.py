"""Drafting files for people to finish: submissions from a run, profiles from a built-in or a run. May import audit, findings, io and core."""
