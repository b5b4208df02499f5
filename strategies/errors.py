"""The plug-in API's one error type, apart so that light modules can name it."""


class StrategyError(ValueError):
    """A strategy named, parameterised or written wrongly. The message is one line that
    says what is wrong and what is valid, fit to show to the user as it is."""
