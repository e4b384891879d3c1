"""Code the tests share: paths, generators of harness-shaped runs, servers on loopback, mimics of the runner."""
