"""The replica of lm-evaluation-harness: what it computes, byte for byte, so the audit can compute it again.

Templates (doc_to_text, doc_to_target, doc_to_choice), the metrics and filters
(exact_match, GSM8K's regex filters, DROP's scorer, IFEval's checkers, MATH's
answers, multiple-choice scores), the fields and hashes of a logged sample, and
the numpy and scipy arithmetic they use. Each module names the harness file and
versions it mirrors. Pure: strings and parsed JSON in, values out; no I/O.
Imports nothing of lbnorm's outside harness.
"""
