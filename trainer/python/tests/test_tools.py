"""Manifest tools as methods: transformers' `get_json_schema` (what TRL reads) gives back the schema."""

from __future__ import annotations

from typing import Any

import pytest
from transformers.utils import get_json_schema

from edgegym import UnsupportedToolError
from edgegym.trl import tool_method

SPEC: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "order",
        "description": "Place an order. Returns: the order id.",
        "parameters": {
            "type": "object",
            "properties": {
                "item": {"type": "string", "minLength": 1, "description": "what to buy"},
                "size": {"type": "string", "enum": ["s", "m", "l"]},
                "count": {"type": "integer", "minimum": 1, "maximum": 9},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
                "note": {"type": ["string", "null"]},
                "address": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
                    "required": ["city"],
                },
                "x": {"type": "integer", "minimum": -9007199254740991, "maximum": 9007199254740991},
            },
            "required": ["item", "count", "x"],
        },
    },
}


class Holder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        self.calls.append((name, arguments))
        return "ok"


def test_the_schema_survives_the_docstring_round_trip() -> None:
    Holder.order = tool_method(SPEC, Holder._call)  # type: ignore[attr-defined]
    h = Holder()
    got = get_json_schema(h.order)["function"]  # type: ignore[attr-defined]
    assert got["name"] == "order"
    # "Returns:" inside a description would end the summary early, so it is defused.
    assert got["description"] == "Place an order. Returns : the order id."
    p = got["parameters"]
    assert p["required"] == ["item", "count", "x"]
    props = p["properties"]
    assert props["item"] == {"type": "string", "description": "what to buy; at least 1 character"}
    assert props["size"]["enum"] == ["s", "m", "l"] and props["size"]["type"] == "string"
    assert props["count"] == {"type": "integer", "description": "at least 1; at most 9"}
    assert props["tags"]["type"] == "array" and props["tags"]["items"] == {"type": "string"}
    assert props["tags"]["description"] == "at most 3 items; optional"
    assert props["note"] == {"type": "string", "nullable": True, "description": "optional"}
    assert props["address"]["type"] == "object"
    assert props["address"]["description"] == "an object with keys city (string), zip (string, optional); optional"
    # zod's bounds of a plain integer say nothing: no words for them.
    assert props["x"] == {"type": "integer", "description": "the x argument"}


def test_the_method_passes_what_the_model_wrote_to_the_env() -> None:
    Holder.order = tool_method(SPEC, Holder._call)  # type: ignore[attr-defined]
    h = Holder()
    # Missing and unknown arguments are not Python's to refuse: the env judges them (a bad call is a step).
    assert h.order(item="tea", bogus=1) == "ok"  # type: ignore[attr-defined]
    assert h.calls == [("order", {"item": "tea", "bogus": 1})]


@pytest.mark.parametrize(
    ("name", "param"),
    [("web-search", "q"), ("reset", "q"), ("_hidden", "q"), ("ok", "not-ident"), ("ok", "class")],
)
def test_names_python_cannot_carry_are_refused(name: str, param: str) -> None:
    spec = {"type": "function", "function": {"name": name, "description": "d", "parameters": {
        "type": "object", "properties": {param: {"type": "string"}}}}}
    with pytest.raises(UnsupportedToolError):
        tool_method(spec, Holder._call)
