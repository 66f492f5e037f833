"""Overload choice by argument count and literal argument types, or the written types of
parameters / locals passed (primitives and String), for Java, Kotlin, C#, C++:
the exact edge sets of tests/fixtures/overloads, where each target is written with its
parameter list (``SymbolRecord.params``). Every overload is linked (``overload``, each
with confidence 1/n) only when the count is unknown: a spread, a C++ pack expansion,
arguments of unknown type where the count alone leaves several."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import _end, resolve_tree

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "overloads"

EXPECTED = {
    'java': {
        ('CALLS', 'app.Use.labelled', 'app.Calc.sum(String,int)', 'receiver_type'),
        ('CALLS', 'app.Use.many', 'app.Calc.sum(int...)', 'receiver_type'),
        ('CALLS', 'app.Use.reals', 'app.Calc.add(double,double)', 'receiver_type'),
        ('CALLS', 'app.Use.three', 'app.Calc.add(int,int,int)', 'receiver_type'),
        ('CALLS', 'app.Use.two', 'app.Calc.add(int,int)', 'receiver_type'),  # not add(int,int,int)
        ('CALLS', 'app.Use.typed', 'app.Calc.add(String,String)', 'receiver_type'),  # String a, b
        ('CALLS', 'app.Use.unknown', 'app.Calc.add(String,String)', 'overload'),
        ('CALLS', 'app.Use.unknown', 'app.Calc.add(double,double)', 'overload'),
        ('CALLS', 'app.Use.unknown', 'app.Calc.add(int,int)', 'overload'),
        ('CALLS', 'app.Use.words', 'app.Calc.add(String,String)', 'receiver_type'),
    },
    'kotlin': {
        ('CALLS', 'app.scaled', 'app.Calc.scale(Int,Int)', 'receiver_type'),
        ('CALLS', 'app.spread', 'app.Calc.add(Int,Int)', 'overload'),
        ('CALLS', 'app.spread', 'app.Calc.add(Int,Int,Int)', 'overload'),
        ('CALLS', 'app.spread', 'app.Calc.add(String,String)', 'overload'),
        ('CALLS', 'app.spread', 'stub:IntArray.toTypedArray', 'stub'),
        ('CALLS', 'app.three', 'app.Calc.add(Int,Int,Int)', 'receiver_type'),
        ('CALLS', 'app.two', 'app.Calc.add(Int,Int)', 'receiver_type'),
        ('CALLS', 'app.words', 'app.Calc.add(String,String)', 'receiver_type'),
    },
    'csharp': {
        ('CALLS', 'App.Use.Many', 'App.Calc.Sum(paramsint[])', 'receiver_type'),
        ('CALLS', 'App.Use.Three', 'App.Calc.Add(int,int,int)', 'receiver_type'),
        ('CALLS', 'App.Use.Two', 'App.Calc.Add(int,int)', 'receiver_type'),
        ('CALLS', 'App.Use.Words', 'App.Calc.Add(string,string)', 'receiver_type'),
    },
    'cpp': {
        ('CALLS', 'app::forward', 'app::Calc::add(const std::string&, const std::string&)', 'overload'),
        ('CALLS', 'app::forward', 'app::Calc::add(double, double)', 'overload'),
        ('CALLS', 'app::forward', 'app::Calc::add(int, int)', 'overload'),
        ('CALLS', 'app::forward', 'app::Calc::add(int, int, int)', 'overload'),
        ('CALLS', 'app::reals', 'app::Calc::add(double, double)', 'receiver_type'),
        ('CALLS', 'app::three', 'app::Calc::add(int, int, int)', 'receiver_type'),
        ('CALLS', 'app::two', 'app::Calc::add(int, int)', 'receiver_type'),
        ('CALLS', 'app::words', 'app::Calc::add(const std::string&, const std::string&)', 'receiver_type'),
        ('IMPORTS', 'calc.cpp', 'stub:<string>', 'stub'),
    },
}


def _edges(lang: str) -> tuple[set[tuple[str, str, str, str]], dict[tuple[str, str], float]]:
    fxs, res = resolve_tree(FIX / lang)
    params = {s.uid: s.params for fx in fxs for s in fx.symbols}
    got, conf = set(), {}
    for es in res.edges.values():
        for e in es:
            tgt = _end(e.target) + (f"({params[e.target]})" if params.get(e.target) is not None else "")
            got.add((e.type, _end(e.source), tgt, e.resolution))
            if "confidence" in e.extra:
                conf[(_end(e.source), tgt)] = e.extra["confidence"]
    return got, conf


@pytest.mark.parametrize("lang", sorted(EXPECTED))
def test_overload_edges_are_exact(lang: str) -> None:
    got, conf = _edges(lang)
    assert got == EXPECTED[lang]
    # Several overloads left: each edge is one of n; a chosen overload carries none.
    overloads = [(e[1], e[2]) for e in got if e[3] == "overload"]
    assert set(conf) == set(overloads)
    for src, tgt in overloads:
        assert conf[(src, tgt)] == round(1 / sum(1 for s, _ in overloads if s == src), 3)


def test_symbols_carry_arity_and_params() -> None:
    fxs, _ = resolve_tree(FIX / "java")
    got = {(s.qualified_name, s.params, s.arity, s.variadic) for fx in fxs for s in fx.symbols if s.kind == "method"}
    assert ("app.Calc.add", "int,int", 2, False) in got and ("app.Calc.sum", "int...", 1, True) in got
    fxs, _ = resolve_tree(FIX / "kotlin")
    got = {(s.qualified_name, s.params, s.arity) for fx in fxs for s in fx.symbols if s.name == "scale"}
    assert got == {("app.Calc.scale", "Int,Int", None), ("app.Calc.scale", "Double", 1)}  # a default: a range
