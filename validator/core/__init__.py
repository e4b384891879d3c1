"""The pure core: profiles as data, results as data, the normalization arithmetic. No I/O; imports nothing of lbnorm's outside core."""
