# A user's suite in Loom's own conventions (docs/testing.md), run by check/lit-suite.test with
# the build tree's hrx_lit.py (HRX_LIT_DIR) and tools (HRX_PREFIX).
import os
import sys
import lit.formats
config.name = "loom-conventions"
config.suffixes = [".loom"]
config.test_format = lit.formats.ShTest(execute_external=False)
sys.path.insert(0, os.environ["HRX_LIT_DIR"])
import hrx_lit; hrx_lit.configure(config, prefix=os.environ["HRX_PREFIX"])
