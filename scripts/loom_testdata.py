"""Upstream's id4 test layout, shared by the conformance scripts: a test module under `testdata/`
links the kernel source at the same path without `testdata/` (upstream's id4 BUILD.bazel builds
loom_link_module(srcs = ["testdata/" + source], libraries = [source]) for each kernel source)."""
import os


def library_of_test_module(path):
    """The kernel source path the `testdata/` test module `path` links (whether or not it exists),
    or None when `path` is not under a `testdata/` folder."""
    parts = os.path.normpath(path).split(os.sep)
    if "testdata" not in parts[:-1]:
        return None
    at = len(parts) - 1 - parts[::-1].index("testdata")
    return os.sep.join(parts[:at] + parts[at + 1:])
