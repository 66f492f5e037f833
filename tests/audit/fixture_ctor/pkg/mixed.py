from _fastbuf import Buffer  # Buffer here is the compiled module's

import pkg.lazy  # though this reaches pkg/buffers.py through pkg.lazy

__all__ = ["Buffer", "pkg"]
