# A user's test suite (docs/testing.md), run by install.test against the installed prefix
# named by HRX_PREFIX.
import os
import sys
config.name = "user-suite"
config.suffixes = [".loom"]
sys.path.insert(0, os.path.join(os.environ["HRX_PREFIX"], "share", "hrx", "lit"))
import hrx_lit; hrx_lit.configure(config)
