"""The Python extractor gives the same records whatever the hash seed and id() values.

Value flow memoises its answers; an answer cut short by a cycle guard (or a depth / step
cut-off) depends on which query came first, and the order of queries changes with set
iteration (PYTHONHASHSEED) and id() values. Each large stdlib module is extracted in
subprocesses with different seeds; the records must be identical, in the same order.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

_SCRIPT = r"""
import dataclasses, hashlib, importlib, sys
from codegraph.indexer.languages.python import extract
mod = importlib.import_module(sys.argv[1])
src = open(mod.__file__, "rb").read()
fe = extract("det", sys.argv[1].replace(".", "/") + ".py", src)
rows = [repr(dataclasses.asdict(x)) for x in [*fe.symbols, *fe.references]]
rows.append(repr(fe.exports))
sys.stdout.write(str(len(fe.references)) + " " + hashlib.sha256("\n".join(rows).encode()).hexdigest())
"""

_SEEDS = ("0", "1", "2", "5", "random")


def _digest(module: str, seed: str) -> str:
    out = subprocess.run([sys.executable, "-c", _SCRIPT, module], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"})
    return out.stdout


@pytest.mark.parametrize("module", ["typing", "argparse", "inspect"])
def test_python_extraction_is_deterministic_across_hash_seeds(module: str) -> None:
    digests = {seed: _digest(module, seed) for seed in _SEEDS}
    assert len(set(digests.values())) == 1, digests


def test_decorator_factory_hands_the_definition_to_every_returned_function() -> None:
    """``@_tp_cache(typed=True)``: the factory returns ``decorator(func)`` (-> ``inner``)
    or ``decorator``; both get the pass hint, one record each."""
    import typing
    from pathlib import Path

    from codegraph.indexer.languages.python import extract

    src = Path(typing.__file__).read_bytes()
    fe = extract("det", "typing.py", src)
    callees = {c["qn"] for r in fe.references
               if r.target_identifier == "typing.Annotated._class_getitem_inner" and "pass" in (r.extra or {})
               for c in r.extra["pass"]["callee"]}
    assert {"typing._tp_cache.decorator", "typing._tp_cache.decorator.inner"} <= callees

