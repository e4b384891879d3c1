"""`python -m validator` runs the lbnorm command line."""

from .cli import main

if __name__ == "__main__":
    main()
