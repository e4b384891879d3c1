"""The sample-log audit: re-derive a results file's numbers from its per-sample logs. May import findings, io, harness and core. Holds checks only: what the harness computes lives in harness/."""
