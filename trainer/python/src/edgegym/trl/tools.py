"""Manifest tools as Python methods that TRL turns back into tool schemas.

TRL reads a tool from its method: the name, the signature's annotations and a Google-style docstring
("Args:"), through transformers' `get_json_schema`. That reader knows types (str, int, float, bool,
list[...], dict[str, ...], unions, Literal for enums) and one description per argument; it has no
place for `minLength`, `pattern`, bounds or a nested object's keys, so those go into the argument's
description in words. The method passes whatever the model wrote to the env, which validates it
against the full schema: a bad call is a step the env answers with `Error: ...`, as on `/v1/step`.
"""

from __future__ import annotations

import inspect
import keyword
import re
from typing import Any, Callable, Literal, Union

from ..errors import UnsupportedToolError

#: Method names TRL or the environment class reserve.
RESERVED = {"reset", "get_reward"}
# zod writes the bounds of a plain integer as JavaScript's safe-integer range: no constraint in words.
_SAFE_INT = 9007199254740991
_SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}


def annotation(schema: Any) -> Any:
    """The Python type hint that `get_json_schema` maps back to `schema` (as closely as it can)."""
    if not isinstance(schema, dict):
        return Any
    if "enum" in schema and schema["enum"] and all(isinstance(v, (str, int, float, bool)) or v is None for v in schema["enum"]):
        return Literal[tuple(schema["enum"])]  # type: ignore[misc]
    if "const" in schema and isinstance(schema["const"], (str, int, float, bool)):
        return Literal[schema["const"]]  # type: ignore[misc]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return _union([annotation(s) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([annotation({**schema, "type": k}) for k in kind])
    if kind == "array":
        items = schema.get("items")
        return list[annotation(items)] if isinstance(items, dict) else list
    if kind == "object":
        extra = schema.get("additionalProperties")
        return dict[str, annotation(extra)] if isinstance(extra, dict) and not schema.get("properties") else dict
    return _SCALARS.get(kind, Any) if isinstance(kind, str) else Any


def _union(types: list[Any]) -> Any:
    unique = list(dict.fromkeys(types))
    return unique[0] if len(unique) == 1 else Union[tuple(unique)]  # type: ignore[return-value]


def constraints(schema: Any) -> list[str]:
    """What of `schema` a type hint cannot say, in words."""
    if not isinstance(schema, dict):
        return []
    words: list[str] = []
    bound = {
        "minLength": "at least {} characters",
        "maxLength": "at most {} characters",
        "pattern": "matching the regular expression {}",
        "format": "in {} format",
        "minimum": "at least {}",
        "maximum": "at most {}",
        "exclusiveMinimum": "more than {}",
        "exclusiveMaximum": "less than {}",
        "multipleOf": "a multiple of {}",
        "minItems": "at least {} items",
        "maxItems": "at most {} items",
        "minProperties": "at least {} keys",
        "maxProperties": "at most {} keys",
    }
    for key, text in bound.items():
        value = schema.get(key)
        if value is None or (key in ("minimum", "maximum") and abs(value) == _SAFE_INT):
            continue
        words.append(re.sub(r"\b1 (character|item|key)s\b", r"1 \1", text.format(value)))
    if schema.get("uniqueItems"):
        words.append("no repeated items")
    if "default" in schema:
        words.append(f"default {_json(schema['default'])}")
    props = schema.get("properties")
    if isinstance(props, dict) and props:
        required = set(schema.get("required") or [])
        keys = ", ".join(
            f"{k} ({_kind(v)}{'' if k in required else ', optional'}{_described(v)})" for k, v in props.items()
        )
        words.append(f"an object with keys {keys}")
    items = schema.get("items")
    if isinstance(items, dict):
        inner = constraints(items)
        if inner:
            words.append("each item " + "; ".join(inner))
    return words


def _kind(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(map(str, kind))
    return str(kind) if kind else ("one of " + _json(schema["enum"]) if "enum" in schema else "any")


def _described(schema: Any) -> str:
    return f": {schema['description']}" if isinstance(schema, dict) and isinstance(schema.get("description"), str) else ""


def _json(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"))


def _one_line(text: str) -> str:
    # The docstring reader splits arguments at "\n<word>:" and the summary at "Args:"/"Returns:"/"Raises:".
    flat = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"\b(Args|Returns|Raises):", r"\1 :", flat)


def docstring(description: str, params: dict[str, Any], required: set[str]) -> str:
    """The Google-style docstring of one tool: its description, then one line per argument."""
    lines = [_one_line(description) or "A tool of this environment."]
    if params:
        lines += ["", "Args:"]
        for name, schema in params.items():
            parts = [_one_line(schema["description"])] if isinstance(schema, dict) and schema.get("description") else []
            parts += constraints(schema)
            if name not in required:
                parts.append("optional")
            text = "; ".join(p for p in parts if p) or f"the {name} argument"
            lines.append(f"    {name}: {_one_line(text)}")
    return "\n".join(lines)


def check_name(name: str, what: str) -> None:
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        raise UnsupportedToolError(f"{what} {name!r} is not a Python identifier, so TRL cannot offer it as a tool")


def tool_method(spec: dict[str, Any], call: Callable[[Any, str, dict[str, Any]], str]) -> Callable[..., str]:
    """A method for one manifest tool: `call(self, name, arguments)` steps the env with what the model wrote.

    Raises:
        UnsupportedToolError: the tool's name or a parameter's is no Python identifier, or is reserved.
    """
    function = spec.get("function") or {}
    name = str(function.get("name", ""))
    check_name(name, "tool name")
    if name in RESERVED:
        raise UnsupportedToolError(f"tool name {name!r} is reserved by TRL's environment class")
    schema = function.get("parameters") or {}
    params = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for pname, pschema in params.items():
        check_name(pname, f"parameter of {name}:")
        if pname == "self":
            raise UnsupportedToolError(f"tool {name!r} has a parameter named 'self'")
        hint = annotation(pschema)
        # Keyword-only, so that a required argument may follow an optional one in the schema's order.
        default = inspect.Parameter.empty if pname in required else None
        parameters.append(inspect.Parameter(pname, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint))
        annotations[pname] = hint
    annotations["return"] = str

    # **arguments, not the signature: whatever the model wrote reaches the env, which judges it.
    def method(self: Any, **arguments: Any) -> str:
        return call(self, name, arguments)

    method.__name__ = name
    method.__qualname__ = name
    method.__doc__ = docstring(str(function.get("description", "")), params, required)
    method.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    return method

