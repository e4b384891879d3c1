"""Reporters: turn a check's, an audit's or normalize's result into text, JSON or GitHub output. May import check, audit, findings, io and core; never prints on its own."""
