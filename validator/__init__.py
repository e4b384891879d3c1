"""lbnorm: recompute leaderboard normalized scores and check submitted numbers."""

__version__ = "0.1.0"
