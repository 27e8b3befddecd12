"""The exceptions of sklda: one per status of sk_lda.h's sklda_status that is a failure."""

__all__ = ["SkldaError", "SkldaInputError", "NotFittedError"]


class SkldaError(RuntimeError):
    """A call into libsk_lda failed; the message is the library's (the same line `sk-lda` prints).

    `status` holds the sklda_status: 1 (SKLDA_ERROR_RUNTIME: memory, a device, a file that could not be
    written) or 2 (SKLDA_ERROR_INPUT, raised as SkldaInputError).
    """

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


class SkldaInputError(SkldaError, ValueError):
    """The caller's input was refused (SKLDA_ERROR_INPUT): a bad argument, option, matrix or file.

    Also a ValueError, so code that catches ValueError for bad parameters catches it too.
    """

    def __init__(self, message, status=2):
        super().__init__(message, status)


class NotFittedError(ValueError, AttributeError):
    """The estimator has no model yet (call fit() or load() first), as scikit-learn's NotFittedError."""
