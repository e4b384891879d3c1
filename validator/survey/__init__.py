"""The leaderboard survey: audit every run's sample logs, one log per unit of work, into one table. May import audit, findings, io and core."""
