"""Authoring: the files a person writes, started or checked for them.

A submission drafted from a run (`submission init`), a profile started from a
built-in or derived from a run (`profile init`, `profile derive`), and a
profile checked before use (`profile check`). May import check, audit,
findings, io, harness and core.
"""
