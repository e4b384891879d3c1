"""Everything that touches files or untrusted text: paths, limits, parsers, readers of results and sample logs. May import core."""
