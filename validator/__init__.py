"""lbnorm: recompute leaderboard normalized scores and check submitted numbers."""
