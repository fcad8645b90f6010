"""The models are docs/openapi.json's schemas: each class against its schema, property by
property (name, type, required, nullable, enum values), and every schema the client's operations
send or receive has its class. A change to the API fails here until models.py follows."""

from __future__ import annotations

import inspect
import json
from datetime import datetime
from typing import Any, Dict, List, Literal, Set, Union, get_args, get_origin

import pytest
from pydantic import BaseModel

from engram_client import models
from engram_client._operations import Operations, RecallOptions

from .support.engram_server import REPO_ROOT

OPENAPI = json.loads((REPO_ROOT / "docs/openapi.json").read_text("utf-8"))
SCHEMAS: Dict[str, Any] = OPENAPI["components"]["schemas"]

# What each of the client's operations calls, and the query parameters it sends.
OPERATIONS = {
    "health": ("get", "/health", []),
    "remember": ("post", "/v1/turns", []),
    "recall": ("post", "/v1/recall", []),
    "memories": ("get", "/v1/users/{userId}/memories", ["status"]),
    "turns": ("get", "/v1/users/{userId}/turns", ["ids"]),
    "users": ("get", "/v1/users", ["limit", "after"]),
    "forget": ("delete", "/v1/users/{userId}", []),
    "retract": ("delete", "/v1/users/{userId}/memories/{memoryId}", []),
    "revert": ("post", "/v1/users/{userId}/memories/{memoryId}/revert", []),
    "profile": ("put", "/v1/users/{userId}/profile", []),
    "export": ("get", "/v1/users/{userId}/export", []),
    "import_": ("post", "/v1/users/{userId}/import", []),
    "pipeline_status": ("get", "/v1/pipeline/status", []),
}

MODELS = {
    name: cls
    for name, cls in vars(models).items()
    if inspect.isclass(cls) and issubclass(cls, models.ApiModel) and cls.__module__ == models.__name__ and cls.__name__ == name
}
CLIENT_SIDE = {"ApiModel", "_BundleModel", "TurnInput"}  # no schema of their own: checked below


def ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def schema_type(schema: Dict[str, Any]) -> str:
    if "$ref" in schema:
        return ref_name(schema["$ref"])
    if len(schema.get("allOf", [])) == 1:
        return schema_type(schema["allOf"][0])
    if "enum" in schema:
        return f"Literal{sorted(repr(v) for v in schema['enum'])}"
    kind = schema.get("type")
    if kind == "array":
        return f"List[{schema_type(schema['items'])}]"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"Dict[str, {schema_type(schema['additionalProperties'])}]"
    if kind == "string" and schema.get("format") == "date-time":
        return "datetime"
    return {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}[kind]


def python_type(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Union:
        present = [a for a in args if a is not type(None)]
        # models.Instant: what the caller sends as an instant, a datetime or a string.
        inner = "datetime" if set(present) == {datetime, str} else python_type(present[0]) if len(present) == 1 else None
        assert inner is not None, f"unexpected union {annotation}"
        return f"Optional[{inner}]" if type(None) in args else inner
    if origin is Literal:
        return f"Literal{sorted(repr(v) for v in args)}"
    if origin in (list, List):
        return f"List[{python_type(args[0])}]"
    if origin in (dict, Dict):
        return f"Dict[str, {python_type(args[1])}]"
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return annotation.__name__
    return {str: "str", int: "int", float: "float", bool: "bool", datetime: "datetime"}[annotation]


def expected_fields(schema: Dict[str, Any]) -> Dict[str, str]:
    """Wire name → the Python type the model must give it: absent when not required is None."""
    required = set(schema.get("required", []))
    expected = {}
    for name, prop in schema.get("properties", {}).items():
        base = schema_type(prop)
        expected[name] = base if name in required and not prop.get("nullable") else f"Optional[{base}]"
    return expected


def actual_fields(cls: type) -> Dict[str, str]:
    return {(f.alias or name): python_type(f.annotation) for name, f in cls.model_fields.items()}


def required_fields(cls: type) -> Set[str]:
    return {(f.alias or name) for name, f in cls.model_fields.items() if f.is_required()}


def schemas_reachable(names: Set[str]) -> Set[str]:
    seen: Set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(ref_name(ref) for ref in _refs(SCHEMAS[name]))
    return seen


def _refs(node: Any) -> List[str]:
    if isinstance(node, dict):
        return ([node["$ref"]] if "$ref" in node else []) + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_every_operation_of_the_client_is_listed_here():
    public = {name for name, _ in inspect.getmembers(Operations, inspect.isfunction) if not name.startswith("_")}
    assert public - {"pending"} == set(OPERATIONS)


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_every_schema_an_operation_sends_or_receives_has_its_model(operation):
    method, path, params = OPERATIONS[operation]
    described = OPENAPI["paths"][path][method]
    declared_params = {p["name"] for p in described.get("parameters", []) if p["in"] == "query"}
    assert set(params) <= declared_params
    used = set(_refs(described.get("requestBody", {}))) | {r for answer in described["responses"].values() for r in _refs(answer)}
    missing = schemas_reachable({ref_name(r) for r in used}) - set(MODELS)
    assert not missing, f"{operation}: no model for {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(set(MODELS) - CLIENT_SIDE))
def test_each_model_matches_its_schema(name):
    assert name in SCHEMAS, f"{name} is no schema of docs/openapi.json"
    schema = SCHEMAS[name]
    cls = MODELS[name]
    assert actual_fields(cls) == expected_fields(schema)
    # Required and nullable (validTo) must be sent, as null; required and not nullable too.
    assert required_fields(cls) == set(schema.get("required", []))
    for field in cls.model_fields.values():
        if not field.is_required():
            assert field.default is None


def test_a_turn_input_is_a_turn_whose_id_and_instant_may_be_left_out():
    turn = SCHEMAS["TurnDto"]
    assert set(actual_fields(models.TurnInput)) == set(turn["properties"])
    assert required_fields(models.TurnInput) == set(turn["required"]) - {"turnId", "occurredAt"}


def test_recall_takes_every_option_of_the_recall_request():
    recall_fields = {name for name in models.RecallDto.model_fields} - {"user_id", "query"}
    assert set(RecallOptions.__annotations__) == recall_fields


def test_the_check_itself_sees_a_drift():
    """A schema that gained a property, lost a required one or changed a type no longer matches."""
    schema = json.loads(json.dumps(SCHEMAS["PostTurnsResponse"]))
    assert actual_fields(models.PostTurnsResponse) == expected_fields(schema)
    schema["properties"]["duplicates"] = {"type": "integer"}
    assert actual_fields(models.PostTurnsResponse) != expected_fields(schema)
    schema = json.loads(json.dumps(SCHEMAS["PostTurnsResponse"]))
    schema["properties"]["accepted"] = {"type": "string"}
    assert actual_fields(models.PostTurnsResponse) != expected_fields(schema)
    schema = json.loads(json.dumps(SCHEMAS["UserListResponse"]))
    del schema["properties"]["next"]["nullable"]
    assert actual_fields(models.UserListResponse) != expected_fields(schema)
