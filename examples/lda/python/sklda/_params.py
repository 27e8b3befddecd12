"""get_params / set_params in scikit-learn's BaseEstimator shape, without depending on scikit-learn.

The parameters are the keyword arguments of the class's __init__, each stored under its own name, so
sklearn.base.clone(), GridSearchCV and Pipeline work with the estimator when scikit-learn is installed.
"""

import inspect

__all__ = ["ParamsMixin"]


class ParamsMixin:
    """Adds get_params(), set_params() and a repr listing the parameters that differ from the defaults."""

    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return sorted(p.name for p in sig.parameters.values()
                      if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))

    def get_params(self, deep=True):
        """The estimator's parameters as {name: value} (deep is accepted for scikit-learn; nothing nests)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Sets parameters by name and returns the estimator.

        Raises:
            ValueError: a name that is not a parameter of __init__.
        """
        valid = set(self._param_names())
        for name, value in params.items():
            if name not in valid:
                raise ValueError("sklda: %s has no parameter %r (it has %s)"
                                 % (type(self).__name__, name, ", ".join(sorted(valid))))
            setattr(self, name, value)
        return self

    def __sklearn_tags__(self):
        """scikit-learn's tags (asked by its utilities since 1.6, when scikit-learn is installed): a
        transformer with no target, taking sparse, non-negative input, fitted before use."""
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags
        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    transformer_tags=TransformerTags(preserves_dtype=[]),
                    input_tags=InputTags(sparse=True, positive_only=True))

    def __repr__(self):
        sig = inspect.signature(type(self).__init__)
        shown = []
        for name in self._param_names():
            default = sig.parameters[name].default
            value = getattr(self, name)
            try:
                same = value is default or bool(value == default)
            except (TypeError, ValueError):  # e.g. an array, whose == is not one truth value
                same = False
            if not same:
                shown.append("%s=%r" % (name, value))
        return "%s(%s)" % (type(self).__name__, ", ".join(shown))
