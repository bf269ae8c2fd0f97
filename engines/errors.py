"""Exception hierarchy shared by all engines.

Everything a user can cause with bad input is a ``ValueError`` subclass carrying a
one-line message that names the offending field; the command line maps
:class:`FormatError` to exit code 2 and :class:`IllegalMoveError` to exit code 1.
"""


class BoardcamError(ValueError):
    """Base class of every error raised for user input."""


class FormatError(BoardcamError):
    """Input that is not in the SPEC format (malformed notation or JSON)."""


class IllegalMoveError(BoardcamError):
    """A well-formed move that the rules do not allow in the given position."""
