"""NotLinear: a pattern, or a pattern on this text, that the replay cannot run in linear time as `re` does. Pure.

Its own module, without the Unicode tables of regex_classes.py, so that an
audit that only catches it (a filter's replay) does not load them.
"""


class NotLinear(ValueError):
    """A pattern, or a pattern on this text, that RE2 cannot run as `re` does; `feature` names what."""

    def __init__(self, feature: str):
        super().__init__(feature)
        self.feature = feature
