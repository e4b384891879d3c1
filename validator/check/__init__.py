"""The submission check: files in, findings and scores out. May import audit, findings, io and core."""
