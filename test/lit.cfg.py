# lit configuration for the hrx command-line test suite (test/lit).
import os
import lit.formats

config.name = "hrx"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".loom", ".c", ".cpp"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.join(config.hrx_source_root, "test", "lit")
config.test_exec_root = os.path.join(config.hrx_binary_root, "test", "lit")

bin_dir = config.hrx_tools_dir
tool = lambda name: os.path.join(bin_dir, name)
# LLVM 22's FileCheck, not, split-file and count come first on PATH (the machine also has llvm-14).
config.environment["PATH"] = os.pathsep.join([config.llvm_tools_dir, bin_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["HRX_SYSFS_ROOT"] = "/nonexistent-sysfs"  # tests never see the real machine's devices
# hrxcc's precompiled HIP device headers (docs/cxx.md) are cached in the build tree, not the user's home.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.hrx_binary_root, "test", "xdg-cache")
config.environment.pop("HRX_CXX_PCH", None)
# HRX_ARRAY_MODEL=transaction runs every NPU entry on the transaction array model (docs/runtime.md).
if os.environ.get("HRX_ARRAY_MODEL"):
    config.environment["HRX_ARRAY_MODEL"] = os.environ["HRX_ARRAY_MODEL"]
for var in ["HRX_DEVICE", "HRX_RUNTIME_DIR", "HRX_AMDF_LIBRARY", "HRX_FABRIC_LIBRARY", "HRX_LOOM_LIBRARY"]:
    config.environment.pop(var, None)

config.substitutions.append(("%hrxcc", tool("hrxcc")))
config.substitutions.append(("%hrx-run", tool("hrx-run")))
config.substitutions.append(("%hrx-mc", tool("hrx-mc")))
config.substitutions.append(("%hrx", tool("hrx")))
config.substitutions.append(("%src_root", config.hrx_source_root))
config.substitutions.append(("%bin_root", config.hrx_binary_root))
config.substitutions.append(("%llvm_bin", config.llvm_tools_dir))
config.substitutions.append(("%python", "/usr/bin/python3"))

if config.hrx_sanitize:
    config.available_features.add("sanitizer")
if os.path.isdir(config.hrx_shared_dir):
    config.available_features.add("shared-reference")
# Headless Chromium renders the array-plan SVG (test/lit/xdna/plan-svg-chromium.test).
import shutil
if shutil.which("chromium"):
    config.available_features.add("chromium")
# driver/ccache.test runs hrxcc under Debian's ccache in depend mode.
if shutil.which("ccache"):
    config.available_features.add("ccache")
