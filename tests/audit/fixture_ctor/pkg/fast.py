from _fastbuf import Buffer  # a compiled module outside the repo: its own Buffer, not pkg.buffers.Buffer

__all__ = ["Buffer"]
