"""Naming one overload (core.overloads) and the overload choice on hand-built symbols
(indexer.overloads.choose)."""

from __future__ import annotations

from codegraph.core.models import SymbolRecord
from codegraph.core.overloads import params_match, split_params, split_target
from codegraph.indexer.overloads import choose


def test_split_target_and_params() -> None:
    assert split_target("app.Calc.add(int, int)") == ("app.Calc.add", "int, int")
    assert split_target("app.Calc.add") == ("app.Calc.add", None)
    assert split_target("Calc::operator()") == ("Calc::operator()", None)
    assert split_params("Map<String,Integer>,int") == ["Map<String,Integer>", "int"]
    assert split_params("") == []


def test_params_match_tight_then_loose() -> None:
    assert params_match("int, int", "int,int") == 2
    assert params_match("List<String> xs", "java.util.List<String>") == 1
    assert params_match("a: Int", "Int") == 1
    assert params_match("string", "const std::string&") == 0  # a reference is another overload
    assert params_match("int", "int,int") == 0
    assert params_match("int", None) == 0


def _m(params: str, variadic: bool = False, arity: int | None = -1) -> SymbolRecord:
    n = len(split_params(params)) if arity == -1 else arity
    return SymbolRecord("r", "C.f", params, "f", "method", "java", "x", "C.java", 1, 2, params=params, arity=n,
                        variadic=variadic)


def test_choose_by_count_literals_variadic_and_exactness() -> None:
    two, three, reals, words = _m("int,int"), _m("int,int,int"), _m("double,double"), _m("String,String")
    every = [two, three, reals, words]
    assert choose(every, 3) == [three]
    assert choose(every, 2, ["int", "int"]) == [two]  # exact literal types first
    assert choose(every, 2, ["double", None]) == [reals]  # 1.5 cannot go to int
    assert choose(every, 2, ["string", "string"]) == [words]
    assert choose(every, 2) == [two, reals, words]  # count alone cannot tell
    assert choose(every, None) == every  # count unknown (spread): every overload
    assert choose(every, 5) == every  # nothing fits: keep them all, never drop the call
    var, fixed = _m("int...", variadic=True), _m("String,int")
    assert choose([var, fixed], 2, ["string", "int"]) == [fixed]
    assert choose([var, fixed], 4, ["int", "int", "int", "int"]) == [var]
    ranged = _m("Int,Int", arity=None)  # a default value: count is a range
    assert choose([ranged, _m("Double")], 1, ["int"]) == [ranged]
