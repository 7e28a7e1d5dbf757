"""Upstream's id4 test layout, shared by the conformance scripts: a test module under `testdata/`
links the kernel source at the same path without `testdata/` (upstream's id4 BUILD.bazel builds
loom_link_module(srcs = ["testdata/" + source], libraries = [source]) for each kernel source)."""
import os
import re


def library_of_test_module(path):
    """The kernel source path the `testdata/` test module `path` links (whether or not it exists),
    or None when `path` is not under a `testdata/` folder."""
    parts = os.path.normpath(path).split(os.sep)
    if "testdata" not in parts[:-1]:
        return None
    at = len(parts) - 1 - parts[::-1].index("testdata")
    return os.sep.join(parts[:at] + parts[at + 1:])


def template_providers(path, text):
    """Sibling .loom files of `path` holding a provider of a family `path` uses but does not
    provide: a `template.def<@T>` for a `template.decl @T` it declares, or a `func.template<F>` /
    `template.def<@F>` for a family it applies (`template.apply<@F>`, `func.apply<F>`) with no
    provider of its own. Upstream keeps a target's providers in files of their own (hrx-rs's
    completed_tick.loom beside the kernels that apply @completed_tick; the docs' motif.loom
    beside kernel.loom), and its build compiles the kernel with them."""
    def provided(source):
        return set(re.findall(r"^\s*(?:template\.def|func\.template)\s*<\s*@?([\w.$-]+)", source, re.M))

    wanted = set(re.findall(r"^\s*template\.decl\s+@([\w.$-]+)", text, re.M))
    wanted |= set(re.findall(r"\b(?:template|func)\.apply\s*<\s*@?([\w.$-]+)", text))
    wanted -= provided(text)
    if not wanted:
        return []
    folder = os.path.dirname(path) or "."
    providers = []
    for name in sorted(os.listdir(folder)):
        other = os.path.join(folder, name)
        if os.path.abspath(other) == os.path.abspath(path) or not name.endswith(".loom"):
            continue
        with open(other, encoding="utf-8", errors="replace") as handle:
            if wanted & provided(handle.read()):
                providers.append(other)
    return providers
