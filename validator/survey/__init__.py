"""The leaderboard survey: audit every run's sample logs, one log per unit of work, into one table. May import check (the rules its rows name), audit, findings, io and core."""
