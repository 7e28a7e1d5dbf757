# Runs the GoogleTest unit binaries (test/unit) through lit so one run counts everything.
import os
import lit.formats

config.name = "hrx-unit"
config.test_format = lit.formats.GoogleTest(".", "Tests")
config.test_source_root = os.path.join(config.hrx_binary_root, "test", "unit")
config.test_exec_root = config.test_source_root
config.environment["HRX_SYSFS_ROOT"] = "/nonexistent-sysfs"
# hrxcc's precompiled HIP device headers (docs/cxx.md) are cached in the build tree, not the user's home.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.hrx_binary_root, "test", "xdg-cache")
config.environment.pop("HRX_CXX_PCH", None)
