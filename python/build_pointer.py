"""A PEP 517 backend that only says where the real build is: `pip install
./python` used to build the package from here; the build now lives in the
repository root's pyproject.toml."""

MESSAGE = ("lrelu: the Python package builds from the repository root, not "
           "from python/: run `pip install .` there (or pip install the git "
           "URL, or the sdist from `python -m build`)")


def _refuse(*args, **kwargs):
    raise SystemExit(MESSAGE)


get_requires_for_build_wheel = _refuse
get_requires_for_build_sdist = _refuse
build_wheel = _refuse
build_sdist = _refuse
