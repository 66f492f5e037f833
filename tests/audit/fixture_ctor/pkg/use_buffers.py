import pkg.fast
import pkg.lazy


def fast_value():
    b = pkg.fast.Buffer()
    return b.getvalue()  # _fastbuf.Buffer.getvalue: pkg.fast does not import pkg/buffers.py


def lazy_value():
    b = pkg.lazy.Buffer()
    return b.getvalue()  # may well be pkg.buffers.Buffer.getvalue: pkg.lazy imports it


def mixed_value():
    import pkg.mixed
    b = pkg.mixed.Buffer()
    return b.getvalue()  # _fastbuf.Buffer.getvalue: pkg.mixed binds Buffer only from outside the repo
