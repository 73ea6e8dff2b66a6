"""The threads= argument: how many tasks lrelu may split one call into.

The ufunc's inner loops run in C without the GIL, so a per-call setting
reaches them as a per-thread override held in the extension for the duration
of the call; calls without threads= use the process-wide default
(set_threads). 0 means all hardware threads; small calls stay on the calling
thread whatever the setting.
"""
import operator

from . import _lrelu


# The extension holds a per-thread override as an int64.
MAX_THREADS = (1 << 63) - 1


def check(threads):
    """threads as an int in [0, MAX_THREADS], or None; errors name threads=."""
    if threads is None:
        return None
    if isinstance(threads, bool):
        raise TypeError("lrelu: threads= must be an int >= 0 or None, not "
                        "bool")
    try:
        value = operator.index(threads)
    except TypeError:
        raise TypeError(
            f"lrelu: threads= must be an int >= 0 or None, not "
            f"{type(threads).__name__}") from None
    if value < 0:
        raise ValueError(f"lrelu: threads= must be >= 0, not {value}")
    if value > MAX_THREADS:
        raise ValueError(
            f"lrelu: threads={value} is too large (at most 2**63 - 1; 0 "
            f"means all hardware threads)")
    return value


def call_with(threads, function, *args, **kwargs):
    """function(*args, **kwargs) with this thread's override set to threads."""
    if threads is None:
        return function(*args, **kwargs)
    previous = _lrelu.swap_thread_override(threads)
    try:
        return function(*args, **kwargs)
    finally:
        _lrelu.swap_thread_override(previous)


def set_threads(threads):
    """Sets the process-wide default for calls without threads= (0 = all
    hardware threads). Lazy arrays (dask) compute with this default."""
    value = check(threads)
    if value is None:
        raise TypeError("lrelu.set_threads: threads= must be an int >= 0")
    _lrelu.set_default_threads(value)


def get_threads():
    """The process-wide default set by set_threads (0 = all hardware
    threads)."""
    return _lrelu.default_threads()
