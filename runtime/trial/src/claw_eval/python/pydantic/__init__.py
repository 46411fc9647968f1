"""clawrun's pure-Python subset of pydantic 2 for running Claw-Eval's graders in the WASI sandbox.

Claw-Eval's ``claw_eval`` package (task definitions, trace models, graders) is written against
pydantic 2, whose core is a native Rust extension that the sandbox's WASI CPython cannot load.
clawrun puts this module first on ``sys.path`` instead.  It implements, with pydantic 2.12
semantics, exactly the part of pydantic that ``claw_eval`` and its task graders use, and fails
loudly (``PydanticUserError`` at class creation) on anything else, so that a model this module
would get wrong cannot silently load.

Supported
  * ``BaseModel`` subclasses: fields from class annotations (string annotations from
    ``from __future__ import annotations`` included, resolved like ``typing.get_type_hints``;
    forward references to models defined later in the module resolve on first use), parent
    fields first, defaults (unhashable defaults deep-copied per instance, never validated),
    ``Field(default=, default_factory=, discriminator=, exclude=, description=, title=)``,
    ``model_config = ConfigDict(extra="ignore" | "forbid" | "allow")`` (default ``"ignore"``).
  * Lax-mode validation as pydantic does it for: ``Any``, ``str``, ``int``, ``float``, ``bool``,
    ``None``, ``Literal[...]``, ``list``/``list[T]``, ``tuple``/``tuple[T, ...]``/``tuple[A, B]``,
    ``dict``/``dict[K, V]``, ``X | None``/``Optional[X]``, ``Union[...]`` (smart mode: a strict
    match in member order first, then the first lax match), nested models (a dict is validated,
    an instance is kept as it is), and ``Annotated[Union[...], Field(discriminator="type")]``.
  * ``field_validator(*fields, mode="before" | "after")`` and
    ``model_validator(mode="before" | "after")``, with or without the ``info`` argument.
  * ``Model(**data)``, ``model_validate``, ``model_dump(mode="python" | "json", exclude=,
    exclude_none=)``, ``model_dump_json(indent=, exclude=, exclude_none=)`` (byte-for-byte
    pydantic's JSON: compact separators, UTF-8 text, floats formatted like Rust's ``ryu``,
    ``inf``/``nan`` as ``null``), ``model_fields``, ``model_fields_set``, ``model_extra``,
    ``==``, ``repr``/``str``, iteration, ``copy``/``deepcopy``, unvalidated attribute
    assignment (unknown names raise ``ValueError`` as in pydantic).
  * ``ValidationError`` (a ``ValueError``) with pydantic's error types, locations, ``errors()``
    and message text, raised where pydantic raises; ``PydanticUserError`` (a ``TypeError``) for
    model definitions, ``PydanticSerializationError`` for values JSON cannot hold; a model whose
    annotations name something undefined fails on first use, as in pydantic (``model_rebuild``).

Not implemented (a model using them fails at class creation or the call raises ``TypeError``)
  aliases, strict mode, ``frozen``/``validate_assignment`` and other ``ConfigDict`` options,
  private attributes, ``wrap``/``plain`` validators, ``computed_field``, ``RootModel``,
  ``TypeAdapter``, generics, enums, sets, dates and other types not listed above, ``Literal``
  of non-strings, ``model_validate_json``, ``model_copy``, ``model_construct``, JSON schema,
  nested ``exclude`` for non-model fields.  Differences kept on purpose: no serializer warnings
  for values whose type does not match the field (pydantic only warns; both write the value as
  it is), and ``model_dump()`` in Python mode returns an ``Any`` field's generator as it is.

Version: pydantic 2.12's behaviour.  pydantic 2.13 differs visibly: it writes float exponents as
``1e+16`` (2.12: ``1e16``), counts extra attributes assigned later in ``model_fields_set`` and
links its error messages to ``errors.pydantic.dev/2.13``.

``tests/claw_eval_py/check_pydantic_shim.py`` runs Claw-Eval's code with this module and with
real pydantic 2.12.5 and compares everything it produces.
"""

from __future__ import annotations

import collections.abc
import copy
import datetime
import inspect
import math
import sys
import types
import typing
from typing import Annotated, Any, ClassVar, Literal, Union

__all__ = [
    "BaseModel",
    "ConfigDict",
    "Field",
    "FieldInfo",
    "PydanticUndefined",
    "PydanticUserError",
    "ValidationError",
    "ValidationInfo",
    "field_validator",
    "model_validator",
]


# ---------------------------------------------------------------------------------------------
# Public helpers: sentinel, errors, Field, ConfigDict, validator decorators
# ---------------------------------------------------------------------------------------------


class _Undefined:
    """Marker for "no default given" (pydantic's ``PydanticUndefined``)."""

    def __repr__(self) -> str:
        return "PydanticUndefined"

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


PydanticUndefined = _Undefined()


_ERRORS_URL = "https://errors.pydantic.dev/2.12"  # pydantic's messages point at its error docs


class PydanticUserError(TypeError):
    """A model definition this module cannot (or pydantic would not) accept."""

    def __init__(self, message: str, *, code: str | None = None):
        self.message, self.code = message, code
        more = "" if code is None else f"\n\nFor further information visit {_ERRORS_URL}/u/{code}"
        super().__init__(message + more)


def _truncate(text: str) -> str:
    """pydantic-core shortens long ``input_value`` reprs to their first 25 and last 24 chars."""
    return text if len(text) <= 50 else text[:25] + "..." + text[-24:]


class ValidationError(ValueError):
    """Validation failed; ``errors()`` lists each failure with its location, like pydantic's."""

    def __init__(self, title: str, line_errors: list[dict]):
        self.title = title
        self._errors = line_errors
        super().__init__(self._render())

    def errors(self, *, include_url: bool = True, include_context: bool = True,
               include_input: bool = True) -> list[dict]:
        """The failures as dicts with ``type``, ``loc``, ``msg``, ``input``, ``ctx`` and ``url``."""
        out = []
        for e in self._errors:
            d = {"type": e["type"], "loc": e["loc"], "msg": e["msg"]}
            if include_input:
                d["input"] = e["input"]
            if include_context and e.get("ctx") is not None:
                d["ctx"] = e["ctx"]
            if include_url:
                d["url"] = f"{_ERRORS_URL}/v/{e['type']}"
            out.append(d)
        return out

    def error_count(self) -> int:
        """How many failures there are."""
        return len(self._errors)

    def _render(self) -> str:
        n = len(self._errors)
        lines = [f"{n} validation error{'' if n == 1 else 's'} for {self.title}"]
        for e in self._errors:
            if e["loc"]:
                lines.append(".".join(str(part) for part in e["loc"]))
            lines.append(
                f"  {e['msg']} [type={e['type']}, input_value={_truncate(repr(e['input']))}, "
                f"input_type={type(e['input']).__name__}]"
            )
            lines.append(f"    For further information visit {_ERRORS_URL}/v/{e['type']}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self._render()


def _not_fully_defined(cls_name: str, exc: NameError) -> PydanticUserError:
    """A model's annotations name something not defined (yet); retried on the model's next use."""
    missing = getattr(exc, "name", None) or str(exc)
    return PydanticUserError(f"`{cls_name}` is not fully defined; you should define `{missing}`, then call "
                             f"`{cls_name}.model_rebuild()`.", code=_NOT_FULLY_DEFINED)


_NOT_FULLY_DEFINED = "class-not-fully-defined"


class PydanticSerializationError(ValueError):
    """A value of a type pydantic cannot write as JSON."""


class FieldInfo:
    """One model field: its annotation, default and the ``Field()`` options it was given."""

    __slots__ = ("annotation", "default", "default_factory", "discriminator", "exclude",
                 "description", "title")

    def __init__(self, default: Any = PydanticUndefined, *, default_factory=None,
                 discriminator: str | None = None, exclude: bool | None = None,
                 description: str | None = None, title: str | None = None):
        if default is not PydanticUndefined and default_factory is not None:
            raise TypeError("cannot specify both default and default_factory")
        if default is Ellipsis:
            default = PydanticUndefined
        self.annotation: Any = None
        self.default = default
        self.default_factory = default_factory
        self.discriminator = discriminator
        self.exclude = exclude
        self.description = description
        self.title = title

    def is_required(self) -> bool:
        """True when the field has neither a default nor a default factory."""
        return self.default is PydanticUndefined and self.default_factory is None

    def _copy(self) -> FieldInfo:
        other = FieldInfo.__new__(FieldInfo)
        for name in FieldInfo.__slots__:
            setattr(other, name, getattr(self, name))
        return other

    def _repr_parts(self) -> list[str]:
        parts = [f"annotation={_display_type(self.annotation)}", f"required={self.is_required()}"]
        if self.default is not PydanticUndefined:
            parts.append(f"default={self.default!r}")
        if self.default_factory is not None:
            parts.append(f"default_factory={getattr(self.default_factory, '__name__', self.default_factory)}")
        for name in ("title", "description", "exclude", "discriminator"):
            if getattr(self, name) is not None:
                parts.append(f"{name}={getattr(self, name)!r}")
        return parts

    def __repr__(self) -> str:
        return f"FieldInfo({', '.join(self._repr_parts())})"

    def __str__(self) -> str:
        return " ".join(self._repr_parts())


def Field(default: Any = PydanticUndefined, *, default_factory=None, discriminator: str | None = None,
          exclude: bool | None = None, description: str | None = None,
          title: str | None = None) -> Any:
    """Declare a field's default and options (the subset of pydantic's ``Field`` listed above)."""
    return FieldInfo(default, default_factory=default_factory, discriminator=discriminator,
                     exclude=exclude, description=description, title=title)


_SUPPORTED_CONFIG = {"extra": ("ignore", "forbid", "allow")}


def ConfigDict(**options: Any) -> dict:
    """A model's ``model_config``; only ``extra`` is supported (checked at class creation)."""
    return dict(options)


class ValidationInfo:
    """The ``info`` argument validators may take (``data``, ``field_name``, ``mode``, ...)."""

    def __init__(self, data: dict | None, field_name: str | None, config: dict):
        self.data = data
        self.field_name = field_name
        self.config = config
        self.mode = "python"
        self.context = None

    def __repr__(self) -> str:
        return (f"ValidationInfo(config={self.config!r}, context=None, data={self.data!r}, "
                f"field_name={self.field_name!r})")


class _Decorator:
    """What ``field_validator``/``model_validator`` leave in a class body until class creation."""

    def __init__(self, kind: str, func: Any, mode: str, fields: tuple[str, ...] = (), check_fields: bool = True):
        self.kind, self.func, self.mode, self.fields = kind, func, mode, fields
        self.check_fields = check_fields


def _validator_function(func: Any) -> tuple[Any, bool]:
    """(plain function, takes_info) for a validator given as a function or classmethod."""
    if isinstance(func, (classmethod, staticmethod)):
        inner = func.__func__
    else:
        inner = func
    params = [p for p in inspect.signature(inner).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    # The first parameter is ``cls``/``self`` except for staticmethods.
    own = len(params) - (0 if isinstance(func, staticmethod) else 1)
    return inner, own >= 2


def field_validator(field: str, /, *fields: str, mode: str = "after", check_fields: bool | None = None):
    """Run a classmethod on the named fields' values before or after their type validation."""
    if mode not in ("before", "after"):
        raise PydanticUserError(f"field_validator mode={mode!r} is not supported by clawrun's pydantic")
    if callable(field) and not isinstance(field, str):
        raise PydanticUserError("field_validator must be called with field names: @field_validator('x')")
    names = (field, *fields)

    def decorate(func: Any) -> _Decorator:
        if not isinstance(func, (classmethod, staticmethod)):
            func = classmethod(func)
        return _Decorator("field", func, mode, names, check_fields is not False)

    return decorate


def model_validator(*, mode: str):
    """Run a classmethod on the raw input (``before``) or a method on the new model (``after``)."""
    if mode not in ("before", "after"):
        raise PydanticUserError(f"model_validator mode={mode!r} is not supported by clawrun's pydantic")

    def decorate(func: Any) -> _Decorator:
        if mode == "before" and not isinstance(func, (classmethod, staticmethod)):
            func = classmethod(func)
        return _Decorator("model", func, mode)

    return decorate


# ---------------------------------------------------------------------------------------------
# Validation of single values (pydantic-core's lax mode; ``strict`` for union smart mode)
# ---------------------------------------------------------------------------------------------


class _Fail(Exception):
    """Internal: validation failures, each a dict whose ``loc`` is relative to the failing value."""

    def __init__(self, errors: list[dict]):
        self.errors = errors


def _error(type_: str, msg: str, value: Any, ctx: dict | None = None) -> _Fail:
    return _Fail([{"type": type_, "loc": (), "msg": msg, "input": value, "ctx": ctx}])


def _under(loc: tuple, errors: list[dict]) -> list[dict]:
    """The errors moved under location prefix ``loc``."""
    return [{**e, "loc": loc + e["loc"]} for e in errors]


def _validator_errors(exc: Exception, value: Any) -> list[dict]:
    """ValueError/AssertionError raised by a user validator, as pydantic reports them."""
    if isinstance(exc, AssertionError):
        return [{"type": "assertion_error", "loc": (), "msg": f"Assertion failed, {exc}",
                 "input": value, "ctx": {"error": exc}}]
    return [{"type": "value_error", "loc": (), "msg": f"Value error, {exc}", "input": value,
             "ctx": {"error": exc}}]


_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1
_TRUE_STRINGS = {"1", "on", "t", "true", "y", "yes"}
_FALSE_STRINGS = {"0", "off", "f", "false", "n", "no"}


def _as_text(value: Any) -> str | None:
    """str, or bytes decoded as UTF-8 (what pydantic parses numbers and booleans from)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        try:
            return value.decode()
        except UnicodeDecodeError:
            return None
    return None


def _v_str(value: Any, strict: bool) -> str:
    if isinstance(value, str):
        return value if type(value) is str else str.__str__(value)
    if not strict and isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode()
        except UnicodeDecodeError:
            raise _error("string_unicode",
                         "Input should be a valid string, unable to parse raw data as a unicode string", value)
    raise _error("string_type", "Input should be a valid string", value)


def _float_to_int(value: Any, f: float) -> int:
    if math.isinf(f) or math.isnan(f):
        raise _error("finite_number", "Input should be a finite number", value)
    if f % 1 != 0:
        raise _error("int_from_float", "Input should be a valid integer, got a number with a fractional part", value)
    if not (_I64_MIN < f < _I64_MAX):
        raise _error("int_parsing_size", "Unable to parse input string as an integer, exceeded maximum size", value)
    return int(f)


def _v_int(value: Any, strict: bool) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    if strict:
        raise _error("int_type", "Input should be a valid integer", value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return _float_to_int(value, value)
    text = _as_text(value)
    if text is None:
        raise _error("int_type", "Input should be a valid integer", value)
    text = text.strip()
    if len(text) > 4300:
        raise _error("int_parsing_size", "Unable to parse input string as an integer, exceeded maximum size", value)
    # ASCII digits with Python's sign and underscore rules; "1.0" and "1.00" are integers too
    # (a decimal point followed by zeros only), "1." is not.
    head, dot, tail = text.partition(".")
    if text.isascii() and head == head.strip() and (not dot or (tail and tail.strip("0") == "")):
        try:
            return int(head)
        except ValueError:
            pass
    raise _error("int_parsing", "Input should be a valid integer, unable to parse string as an integer", value)


def _v_float(value: Any, strict: bool) -> float:
    if isinstance(value, float):
        return float(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if strict:
        raise _error("float_type", "Input should be a valid number", value)
    if isinstance(value, bool):
        return float(value)
    text = _as_text(value)
    if text is None:
        raise _error("float_type", "Input should be a valid number", value)
    # ASCII only; underscores anywhere but first, last or doubled ("1_e5" is 1e5), as Rust parses.
    text = text.strip()
    if text.isascii() and not text.startswith("_") and not text.endswith("_") and "__" not in text:
        try:
            return float(text.replace("_", ""))
        except ValueError:
            pass
    raise _error("float_parsing", "Input should be a valid number, unable to parse string as a number", value)


def _v_bool(value: Any, strict: bool) -> bool:
    if isinstance(value, bool):
        return value
    if strict:
        raise _error("bool_type", "Input should be a valid boolean", value)
    if isinstance(value, int):
        if value in (0, 1):
            return bool(value)
        if _I64_MIN <= value <= _I64_MAX:
            raise _error("bool_parsing", "Input should be a valid boolean, unable to interpret input", value)
        raise _error("bool_type", "Input should be a valid boolean", value)
    if isinstance(value, float):
        if value in (0.0, 1.0):
            return bool(value)
        if math.isfinite(value) and value % 1 == 0 and _I64_MIN < value < _I64_MAX:
            raise _error("bool_parsing", "Input should be a valid boolean, unable to interpret input", value)
        raise _error("bool_type", "Input should be a valid boolean", value)
    if isinstance(value, (str, bytes)):
        text = _as_text(value)
        lowered = text.lower() if text is not None else None
        if lowered in _TRUE_STRINGS:
            return True
        if lowered in _FALSE_STRINGS:
            return False
        raise _error("bool_parsing", "Input should be a valid boolean, unable to interpret input", value)
    raise _error("bool_type", "Input should be a valid boolean", value)


def _v_none(value: Any, strict: bool) -> None:
    if value is None:
        return None
    raise _error("none_required", "Input should be None", value)


def _v_any(value: Any, strict: bool) -> Any:
    return value


_SCALARS = {str: _v_str, int: _v_int, float: _v_float, bool: _v_bool, type(None): _v_none}


def _lax_items(value: Any, strict_type: type, strict: bool) -> list | None:
    """The items of a list/tuple input: in lax mode any iterable but str, bytes and mappings."""
    if strict:
        return list(value) if isinstance(value, strict_type) else None
    if isinstance(value, (str, bytes, bytearray, collections.abc.Mapping)):
        return None
    try:
        return list(value)
    except TypeError:
        return None


def _join_expected(items: list[str]) -> str:
    """pydantic's "'a', 'b' or 'c'" list of expected values."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _display_type(tp: Any) -> str:
    """A short type name like pydantic's (union member tags, FieldInfo repr)."""
    if tp is None or tp is type(None):
        return "NoneType"
    if tp is Any:
        return "Any"
    origin = typing.get_origin(tp)
    if origin is None:
        return getattr(tp, "__name__", repr(tp))
    if origin is Annotated:
        inner, *meta = typing.get_args(tp)
        return f"Annotated[{', '.join([_display_type(inner)] + [repr(m) for m in meta])}]"
    if origin is Literal:
        return f"Literal[{', '.join(repr(a) for a in typing.get_args(tp))}]"
    if origin in (Union, types.UnionType):
        return f"Union[{', '.join(_display_type(a) for a in typing.get_args(tp))}]"
    return f"{origin.__name__}[{', '.join(_display_type(a) for a in typing.get_args(tp))}]"


class _Node:
    """A compiled annotation: validates values (``check``) and writes them back out (``dump``)."""

    tag = "any"  # its name in the location of a union member's errors

    def check(self, value: Any, strict: bool) -> Any:
        raise NotImplementedError

    def dump(self, value: Any, json_mode: bool, exclude_none: bool) -> Any:
        return _dump_inferred(value, json_mode, exclude_none)


class _Scalar(_Node):
    def __init__(self, tp: Any):
        self.tp = tp
        self.fn = _SCALARS[tp] if tp is not Any else _v_any
        self.tag = "any" if tp is Any else ("none" if tp is type(None) else tp.__name__)

    def check(self, value, strict):
        return self.fn(value, strict)

    def dump(self, value, json_mode, exclude_none):
        # pydantic writes float fields holding ints (or bools) as floats and int fields
        # holding bools as ints in JSON; other mismatches are written as they are.
        if json_mode and self.tp is float and isinstance(value, int):
            return float(value)
        if json_mode and self.tp is int and isinstance(value, bool):
            return int(value)
        return _dump_inferred(value, json_mode, exclude_none)


class _Literal(_Node):
    def __init__(self, values: tuple):
        self.values = values
        self.tag = f"literal[{','.join(repr(v) for v in values)}]"
        self.expected = _join_expected([repr(v) for v in values])

    def check(self, value, strict):
        for v in self.values:
            if type(v) is type(value) and v == value:
                return v
        raise _error("literal_error", f"Input should be {self.expected}", value, {"expected": self.expected})


class _List(_Node):
    def __init__(self, item: _Node | None):
        self.item = item
        self.tag = f"list[{item.tag}]" if item else "list[any]"

    def check(self, value, strict):
        items = _lax_items(value, list, strict)
        if items is None:
            raise _error("list_type", "Input should be a valid list", value)
        if self.item is None:
            return items
        out, errors = [], []
        for i, v in enumerate(items):
            try:
                out.append(self.item.check(v, strict))
            except _Fail as f:
                errors += _under((i,), f.errors)
        if errors:
            raise _Fail(errors)
        return out

    def dump(self, value, json_mode, exclude_none):
        if type(value) is list and self.item is not None:
            return [self.item.dump(v, json_mode, exclude_none) for v in value]
        return _dump_inferred(value, json_mode, exclude_none)


class _Tuple(_Node):
    """``tuple`` (any items), ``tuple[T, ...]`` (``items=[T], variadic``) or ``tuple[A, B]``."""

    def __init__(self, items: list[_Node] | None, variadic: bool):
        self.items, self.variadic = items, variadic
        self.tag = "tuple[...]"

    def check(self, value, strict):
        values = _lax_items(value, tuple, strict)
        if values is None:
            raise _error("tuple_type", "Input should be a valid tuple", value)
        if self.items is None:
            return tuple(values)
        n = len(self.items)
        if not self.variadic and len(values) > n:
            # pydantic knows the length of lists, tuples and sets only; other iterables are "more"
            actual = len(values) if isinstance(value, (list, tuple, set, frozenset)) else None
            raise _error("too_long", f"Tuple should have at most {n} item{'' if n == 1 else 's'} after validation, "
                         f"not {'more' if actual is None else actual}", value,
                         {"field_type": "Tuple", "max_length": n, "actual_length": actual})
        out, errors = [], []
        for i, v in enumerate(values):
            node = self.items[0] if self.variadic else self.items[i]
            try:
                out.append(node.check(v, strict))
            except _Fail as f:
                errors += _under((i,), f.errors)
        if not self.variadic:
            errors += [{"type": "missing", "loc": (i,), "msg": "Field required", "input": value, "ctx": None}
                       for i in range(len(values), n)]
        if errors:
            raise _Fail(errors)
        return tuple(out)


class _Dict(_Node):
    def __init__(self, key: _Node | None, value: _Node | None):
        self.key, self.value = key, value
        self.tag = f"dict[{key.tag if key else 'any'},{value.tag if value else 'any'}]"

    def check(self, value, strict):
        if not isinstance(value, dict if strict else collections.abc.Mapping):
            raise _error("dict_type", "Input should be a valid dictionary", value)
        out, errors = {}, []
        for k, v in value.items():
            try:
                k2 = self.key.check(k, strict) if self.key else k
            except _Fail as f:
                errors += _under((k, "[key]"), f.errors)
                continue
            try:
                out[k2] = self.value.check(v, strict) if self.value else v
            except _Fail as f:
                errors += _under((k,), f.errors)
        if errors:
            raise _Fail(errors)
        return out

    def dump(self, value, json_mode, exclude_none):
        if type(value) is dict and self.value is not None:
            return {_dump_key(k, json_mode): self.value.dump(v, json_mode, exclude_none)
                    for k, v in value.items()}
        return _dump_inferred(value, json_mode, exclude_none)


class _Union(_Node):
    """``Union[...]``/``X | Y`` in smart mode; ``X | None`` is "nullable X" as in pydantic."""

    def __init__(self, members: list[_Node], nullable: bool):
        self.members, self.nullable = members, nullable
        self.tag = "union"

    def check(self, value, strict):
        if self.nullable and value is None:
            return None
        if len(self.members) == 1:
            return self.members[0].check(value, strict)
        for node in self.members:  # an exact (strict) match wins, in member order
            try:
                return node.check(value, True)
            except _Fail:
                pass
        errors = []
        for node in self.members:  # then the first member that accepts it in lax mode
            try:
                return node.check(value, strict)
            except _Fail as f:
                errors += _under((node.tag,), f.errors)
        raise _Fail(errors)

    def dump(self, value, json_mode, exclude_none):
        if value is not None and len(self.members) == 1:
            return self.members[0].dump(value, json_mode, exclude_none)
        return _dump_inferred(value, json_mode, exclude_none)


class _Model(_Node):
    def __init__(self, cls: type):
        self.cls = cls
        self.tag = cls.__name__

    def check(self, value, strict):
        return self.cls._clawrun_validate(value)

    def dump(self, value, json_mode, exclude_none):
        if isinstance(value, self.cls):
            # pydantic writes an instance of a subclass with the declared class's fields.
            return _dump_model(value, self.cls, json_mode, None, exclude_none)
        return _dump_inferred(value, json_mode, exclude_none)


class _Tagged(_Node):
    """A discriminated union: the ``discriminator`` field's value picks the model."""

    def __init__(self, discriminator: str, models: list[type]):
        self.discriminator = discriminator
        self.models = models
        self.tag = "tagged-union"
        self.by_tag: dict | None = None

    def _table(self) -> dict:
        if self.by_tag is None:
            table = {}
            for m in self.models:
                info = m.model_fields.get(self.discriminator)
                if info is None or typing.get_origin(info.annotation) is not Literal:
                    raise PydanticUserError(
                        f"Model {m.__name__!r} needs field {self.discriminator!r} of type Literal "
                        f"to be in a discriminated union")
                for v in typing.get_args(info.annotation):
                    table[v] = m
            self.by_tag = table
        return self.by_tag

    def check(self, value, strict):
        table = self._table()
        if isinstance(value, dict):
            if self.discriminator not in value:
                raise _error("union_tag_not_found", f"Unable to extract tag using discriminator {self.discriminator!r}",
                             value, {"discriminator": repr(self.discriminator)})
            tag = value[self.discriminator]
        elif isinstance(value, BaseModel):
            tag = getattr(value, self.discriminator, PydanticUndefined)
            if tag is PydanticUndefined:
                raise _error("union_tag_not_found", f"Unable to extract tag using discriminator {self.discriminator!r}",
                             value, {"discriminator": repr(self.discriminator)})
        else:
            raise _error("model_attributes_type",
                         "Input should be a valid dictionary or object to extract fields from", value)
        try:
            model = table.get(tag)
        except TypeError:  # an unhashable tag matches nothing
            model = None
        if model is None:
            expected = ", ".join(repr(t) for t in table)
            raise _error("union_tag_invalid",
                         f"Input tag '{tag}' found using {self.discriminator!r} does not match any of the "
                         f"expected tags: {expected}",
                         value, {"discriminator": repr(self.discriminator), "tag": str(tag), "expected_tags": expected})
        try:
            return model._clawrun_validate(value)
        except _Fail as f:
            raise _Fail(_under((str(tag),), f.errors))


def _compile(tp: Any, owner: str) -> _Node:
    """The validator for annotation ``tp``; unsupported annotations are a PydanticUserError."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any or tp in _SCALARS:
        return _Scalar(tp)
    if tp is None:
        return _Scalar(type(None))
    if isinstance(tp, type) and issubclass(tp, BaseModel) and tp is not BaseModel:
        return _Model(tp)
    if tp is list or tp is typing.List:
        return _List(None)
    if tp is dict or tp is typing.Dict:
        return _Dict(None, None)
    if tp is tuple or tp is typing.Tuple:
        return _Tuple(None, False)
    if origin is Annotated:
        inner, meta = args[0], args[1:]
        discriminators = [m.discriminator for m in meta if isinstance(m, FieldInfo) and m.discriminator]
        others = [m for m in meta if not (isinstance(m, FieldInfo) and m.discriminator)]
        if others:
            raise PydanticUserError(f"{owner}: Annotated metadata {others!r} is not supported by clawrun's pydantic")
        if not discriminators:
            return _compile(inner, owner)
        members = typing.get_args(inner) if typing.get_origin(inner) in (Union, types.UnionType) else (inner,)
        if not all(isinstance(m, type) and issubclass(m, BaseModel) for m in members):
            raise PydanticUserError(f"{owner}: a discriminated union must be a Union of models")
        return _Tagged(discriminators[0], list(members))
    if origin is Literal:
        if not all(type(a) is str for a in args):
            raise PydanticUserError(f"{owner}: only Literal[...] of strings is supported by clawrun's pydantic")
        return _Literal(args)
    if origin in (Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        return _Union([_compile(a, owner) for a in members], nullable=len(members) != len(args))
    if origin is list:
        return _List(_compile(args[0], owner) if args else None)
    if origin is dict:
        return _Dict(_compile(args[0], owner), _compile(args[1], owner)) if args else _Dict(None, None)
    if origin is tuple:
        if not args:
            return _Tuple(None, False)
        if len(args) == 2 and args[1] is Ellipsis:
            return _Tuple([_compile(args[0], owner)], True)
        if args == ((),):
            return _Tuple([], False)
        return _Tuple([_compile(a, owner) for a in args], False)
    raise PydanticUserError(f"{owner}: annotation {tp!r} is not supported by clawrun's pydantic")


# ---------------------------------------------------------------------------------------------
# Serialization (model_dump / model_dump_json)
# ---------------------------------------------------------------------------------------------


def _dump_key(key: Any, json_mode: bool) -> Any:
    """A dict key as pydantic writes it: JSON keys are strings (``True`` -> ``"true"``)."""
    if not json_mode or isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "None"
    if isinstance(key, (int, float)):
        return repr(key)
    raise PydanticSerializationError(f"Unable to serialize a dict key of type {type(key)!r}")


def _iso(value: Any) -> str:
    """date/time/datetime as pydantic writes them (a zero UTC offset is ``Z``)."""
    text = value.isoformat()
    if not isinstance(value, datetime.date) or isinstance(value, datetime.datetime):
        if value.utcoffset() == datetime.timedelta(0):
            text = text[: -len("+00:00")] + "Z"
    return text


def _dump_inferred(value: Any, json_mode: bool, exclude_none: bool) -> Any:
    """A value whose field type says nothing more, written by its own type (pydantic's "any")."""
    if isinstance(value, BaseModel):
        return _dump_model(value, type(value), json_mode, None, exclude_none)
    if isinstance(value, dict):
        return {_dump_key(k, json_mode): _dump_inferred(v, json_mode, exclude_none) for k, v in value.items()}
    if isinstance(value, list):
        return [_dump_inferred(v, json_mode, exclude_none) for v in value]
    if isinstance(value, (tuple, set, frozenset)):
        items = [_dump_inferred(v, json_mode, exclude_none) for v in value]
        return items if json_mode else type(value)(items)
    if not json_mode or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode()
    if isinstance(value, (datetime.date, datetime.time)):
        return _iso(value)
    if isinstance(value, collections.abc.Iterator):  # generators are written as lists
        return [_dump_inferred(v, json_mode, exclude_none) for v in value]
    raise PydanticSerializationError(f"Unable to serialize unknown type: {type(value)!r}")


def _dump_model(model: BaseModel, cls: type, json_mode: bool, exclude: Any, exclude_none: bool) -> dict:
    """The fields of ``model`` as ``cls`` declares them, then its extra values (extra="allow")."""
    out = {}
    for name, info in cls._clawrun_fields().items():
        if info.exclude or _excluded(exclude, name) is True:
            continue
        value = model.__dict__[name]
        if exclude_none and value is None:
            continue
        node = cls._clawrun_nodes[name]
        sub = _excluded(exclude, name)
        if sub and not isinstance(value, BaseModel):
            raise TypeError(f"exclude for parts of {name!r} is supported for model fields only by clawrun's pydantic")
        if sub:
            out[name] = _dump_model(value, type(value), json_mode, sub, exclude_none)
        else:
            out[name] = node.dump(value, json_mode, exclude_none)
    extra = model.__pydantic_extra__
    if extra:
        for name, value in extra.items():
            if _excluded(exclude, name) is True or (exclude_none and value is None):
                continue
            out[name] = _dump_inferred(value, json_mode, exclude_none)
    return out


def _excluded(exclude: Any, name: str) -> Any:
    """True if ``name`` is excluded outright, a nested exclude spec, or None."""
    if exclude is None:
        return None
    if isinstance(exclude, (set, frozenset, list, tuple)):
        return True if name in exclude else None
    if isinstance(exclude, dict):
        spec = exclude.get(name)
        if spec is True or spec is Ellipsis:
            return True
        return spec or None
    raise TypeError(f"exclude must be a set or dict of field names, not {type(exclude).__name__}")


def _json_float(f: float) -> str:
    """A float as serde_json/ryu writes it (pydantic's JSON): ``1e-7``, ``0.00001``, ``1e16``."""
    if not math.isfinite(f):
        return "null"
    if f == 0:
        return "-0.0" if math.copysign(1.0, f) < 0 else "0.0"
    text = repr(f)  # shortest round-trip digits, the same digits ryu finds
    sign = "-" if text.startswith("-") else ""
    mantissa, _, exp = text.lstrip("-").partition("e")
    whole, _, frac = mantissa.partition(".")
    raw = whole + frac
    stripped = raw.lstrip("0")
    point = int(exp or 0) + len(whole) - (len(raw) - len(stripped))
    digits = stripped.rstrip("0")
    n, kk = len(digits), point  # value = 0.<digits> * 10**kk
    if 0 <= kk - n and kk <= 16:
        body = digits + "0" * (kk - n) + ".0"
    elif 0 < kk <= 16:
        body = digits[:kk] + "." + digits[kk:]
    elif -5 < kk <= 0:
        body = "0." + "0" * -kk + digits
    elif n == 1:
        body = f"{digits}e{kk - 1}"
    else:
        body = f"{digits[0]}.{digits[1:]}e{kk - 1}"
    return sign + body


def _json_str(s: str) -> str:
    """A JSON string literal; UTF-8 text kept, control characters escaped like serde_json."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif code < 0x20:
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}.get(ch, f"\\u{code:04x}"))
        elif 0xD800 <= code <= 0xDFFF:
            raise PydanticSerializationError("Error serializing to JSON: surrogates not allowed in a string")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _json_write(value: Any, indent: int | None, depth: int, out: list[str]) -> None:
    """Append JSON for an already json-mode value (dict/list/str/int/float/bool/None)."""
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_json_str(value))
    elif isinstance(value, int):
        out.append(str(int(value)))
    elif isinstance(value, float):
        out.append(_json_float(value))
    elif isinstance(value, (dict, list)):
        items = list(value.items()) if isinstance(value, dict) else list(value)
        open_, close = ("{", "}") if isinstance(value, dict) else ("[", "]")
        if not items:
            out.append(open_ + close)
            return
        pad = "" if indent is None else "\n" + " " * (indent * (depth + 1))
        out.append(open_)
        for i, item in enumerate(items):
            if i:
                out.append(",")
            out.append(pad)
            if isinstance(value, dict):
                out.append(_json_str(item[0]))
                out.append(":" if indent is None else ": ")
                _json_write(item[1], indent, depth + 1, out)
            else:
                _json_write(item, indent, depth + 1, out)
        out.append("" if indent is None else "\n" + " " * (indent * depth))
        out.append(close)
    else:
        raise PydanticSerializationError(f"Unable to serialize unknown type: {type(value)!r}")


# ---------------------------------------------------------------------------------------------
# BaseModel
# ---------------------------------------------------------------------------------------------


def _own_annotations(cls: type) -> dict:
    """The annotations written in ``cls``'s own body (strings under the future import)."""
    try:
        import annotationlib  # Python 3.14+: annotations are evaluated lazily
    except ImportError:
        return dict(cls.__dict__.get("__annotations__", {}))
    return dict(annotationlib.get_annotations(cls, format=annotationlib.Format.FORWARDREF))


def _is_classvar(tp: Any) -> bool:
    if isinstance(tp, str):
        return tp.startswith(("ClassVar", "typing.ClassVar"))
    return tp is ClassVar or typing.get_origin(tp) is ClassVar


class _FieldsDescriptor:
    """``Model.model_fields`` (also on instances): builds the class on first access."""

    def __get__(self, instance, owner):
        return owner._clawrun_fields()


class _ModelMeta(type):
    """Collects a model's own fields, defaults, config and validators when its class is created."""

    def __new__(mcs, name, bases, namespace, **kwargs):
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        frame = sys._getframe(1)
        cls._clawrun_locals = dict(frame.f_locals) if frame.f_locals is not frame.f_globals else {}
        cls._clawrun_built = None  # field dict once the annotations are resolved
        if namespace.get("_clawrun_is_base"):
            cls._clawrun_own_fields, cls._clawrun_own_decorators = {}, []
            return cls

        config = {}
        for base in reversed(cls.__mro__[1:]):
            config.update(base.__dict__.get("model_config", {}))
        config.update(namespace.get("model_config", {}))
        for key, value in config.items():
            allowed = _SUPPORTED_CONFIG.get(key)
            if allowed is None or value not in allowed:
                raise PydanticUserError(f"{name}: model_config {key}={value!r} is not supported by clawrun's pydantic "
                                        f"(supported: extra='ignore'|'forbid'|'allow')")
        cls.model_config = config

        own = {}
        for field_name, tp in _own_annotations(cls).items():
            if _is_classvar(tp):
                continue
            if field_name.startswith("_"):
                raise PydanticUserError(
                    f"{name}.{field_name}: private attributes are not supported by clawrun's pydantic")
            default = namespace.get(field_name, PydanticUndefined)
            info = default._copy() if isinstance(default, FieldInfo) else FieldInfo(default)
            if field_name in namespace:
                delattr(cls, field_name)  # pydantic keeps defaults in model_fields only
            own[field_name] = info
        cls._clawrun_own_fields = own

        decorators = []
        for attr, value in namespace.items():
            if isinstance(value, _Decorator):
                decorators.append((attr, value))
                setattr(cls, attr, value.func)
        cls._clawrun_own_decorators = decorators
        try:
            cls._clawrun_fields()
        except PydanticUserError as exc:
            if exc.code != _NOT_FULLY_DEFINED:
                raise
            # a forward reference to a later model: resolved on first use
        return cls

    def _clawrun_fields(cls) -> dict:
        """Resolve annotations and compile validators once; ``{name: FieldInfo}`` in field order."""
        if cls._clawrun_built is not None:
            return cls._clawrun_built
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except NameError as exc:
            if not cls._clawrun_locals:
                raise _not_fully_defined(cls.__name__, exc) from None
            # A class made inside a function: its annotations may name the function's locals
            # (as in pydantic, which looks at the defining frame's locals too).
            try:
                hints = typing.get_type_hints(cls, include_extras=True, localns=cls._clawrun_locals)
            except NameError as exc2:
                raise _not_fully_defined(cls.__name__, exc2) from None
        fields = {}
        for name in hints:
            for klass in cls.__mro__:
                info = klass.__dict__.get("_clawrun_own_fields", {}).get(name)
                if info is not None:
                    break
            else:
                continue  # a ClassVar or an annotation of a non-model base
            info = info._copy()
            info.annotation = hints[name]
            fields[name] = info
        cls._clawrun_nodes = {name: _compile(info.annotation, f"{cls.__name__}.{name}")
                              for name, info in fields.items()}
        cls._clawrun_field_validators, cls._clawrun_model_validators = cls._collect_validators(fields)
        cls._clawrun_built = fields
        return fields

    def _collect_validators(cls, fields: dict) -> tuple[dict, dict]:
        """Validators of the class and its bases (a subclass attribute of the same name wins)."""
        seen, field_v, model_v = set(), {}, {"before": [], "after": []}
        collected = []
        for klass in cls.__mro__:
            for attr, dec in klass.__dict__.get("_clawrun_own_decorators", []):
                if attr in seen:
                    continue
                seen.add(attr)
                if any(attr in k.__dict__ for k in cls.__mro__[: cls.__mro__.index(klass)]):
                    continue  # overridden by a plain attribute in a subclass
                collected.append((klass, attr, dec))
        collected.reverse()  # base classes first, then definition order
        for klass, attr, dec in collected:
            fn, takes_info = _validator_function(dec.func)
            entry = (fn, takes_info, isinstance(dec.func, staticmethod))
            if dec.kind == "model":
                model_v[dec.mode].append(entry)
                continue
            names = list(fields) if dec.fields == ("*",) else dec.fields
            for n in names:
                if n not in fields:
                    if not dec.check_fields:
                        continue
                    raise PydanticUserError(f"Decorators defined with incorrect fields: {cls.__name__}.{attr} "
                                            f"(use check_fields=False if you're inheriting from the model and "
                                            f"intended this)", code="decorator-missing-field")
                field_v.setdefault(n, {"before": [], "after": []})[dec.mode].append(entry)
        for modes in list(field_v.values()) + [model_v]:
            modes["before"].reverse()  # pydantic runs "before" validators last-defined first
        return field_v, model_v

    def __getattr__(cls, item):
        if not item.startswith("__") and item in cls.__dict__.get("_clawrun_own_fields", {}):
            raise AttributeError(item)
        raise AttributeError(f"type object {cls.__name__!r} has no attribute {item!r}")


def _call(entry: tuple, cls: type, value: Any, info: ValidationInfo) -> Any:
    fn, takes_info, static = entry
    args = (value, info) if takes_info else (value,)
    return fn(*args) if static else fn(cls, *args)


class BaseModel(metaclass=_ModelMeta):
    """A pydantic 2 model: declare fields as annotations; construct with keyword arguments."""

    __slots__ = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__")
    _clawrun_is_base = True
    model_config: ClassVar[dict] = {}
    model_fields = _FieldsDescriptor()

    def __init__(self, /, **data: Any) -> None:
        cls = type(self)
        try:
            given = data
            data = cls._clawrun_before(data)
            values, fields_set, extra = cls._clawrun_fill(data)
            self._clawrun_set_state(values, fields_set, extra)
            cls._clawrun_after(self, given)  # pydantic keeps ``self`` whatever it returns
        except _Fail as f:
            raise ValidationError(cls.__name__, f.errors) from None

    # -- validation ------------------------------------------------------------------------

    @classmethod
    def model_validate(cls, obj: Any) -> BaseModel:
        """Validate a dict (or keep an instance of this class) into a model."""
        try:
            return cls._clawrun_validate(obj)
        except _Fail as f:
            raise ValidationError(cls.__name__, f.errors) from None

    @classmethod
    def _clawrun_validate(cls, obj: Any) -> BaseModel:
        if isinstance(obj, cls):
            return obj  # pydantic's revalidate_instances="never"
        data = cls._clawrun_before(obj)
        values, fields_set, extra = cls._clawrun_fill(data)
        self = cls.__new__(cls)
        self._clawrun_set_state(values, fields_set, extra)
        return cls._clawrun_after(self, obj)

    @classmethod
    def _clawrun_before(cls, data: Any) -> Any:
        cls._clawrun_fields()
        for entry in cls._clawrun_model_validators["before"]:
            try:
                data = _call(entry, cls, data, ValidationInfo(None, None, cls.model_config))
            except (ValueError, AssertionError) as exc:
                raise _Fail(_validator_errors(exc, data))
        return data

    @classmethod
    def _clawrun_after(cls, self: BaseModel, given: Any) -> BaseModel:
        """Run "after" model validators; their errors report the input the model was given."""
        for fn, takes_info, _static in cls._clawrun_model_validators["after"]:
            try:
                result = fn(self, ValidationInfo(self.__dict__, None, cls.model_config)) if takes_info else fn(self)
            except (ValueError, AssertionError) as exc:
                raise _Fail(_validator_errors(exc, given))
            self = self if result is None else result
        return self

    @classmethod
    def _clawrun_fill(cls, data: Any) -> tuple[dict, set, dict | None]:
        """Validated field values, the names given, and the extra values (extra="allow")."""
        if not isinstance(data, collections.abc.Mapping):
            raise _error("model_type", f"Input should be a valid dictionary or instance of {cls.__name__}",
                         data, {"class_name": cls.__name__})
        fields = cls._clawrun_fields()
        values, errors, fields_set = {}, [], set()
        for name, info in fields.items():
            if name in data:
                fields_set.add(name)
                try:
                    values[name] = cls._clawrun_field(name, data[name], values)
                except _Fail as f:
                    errors += _under((name,), f.errors)
            elif info.default_factory is not None:
                values[name] = _call_factory(info.default_factory, values)
            elif info.default is not PydanticUndefined:
                values[name] = _copy_default(info.default)
            else:
                errors.append({"type": "missing", "loc": (name,), "msg": "Field required", "input": data, "ctx": None})
        extra_mode = cls.model_config.get("extra", "ignore")
        extra = {} if extra_mode == "allow" else None
        for key, value in data.items():
            if key in fields:
                continue
            if extra_mode == "forbid":
                errors.append({"type": "extra_forbidden", "loc": (key,), "msg": "Extra inputs are not permitted",
                               "input": value, "ctx": None})
            elif extra_mode == "allow":
                extra[key] = value
                fields_set.add(key)
        if errors:
            raise _Fail(errors)
        return values, fields_set, extra

    @classmethod
    def _clawrun_field(cls, name: str, value: Any, so_far: dict) -> Any:
        validators = cls._clawrun_field_validators.get(name, {"before": [], "after": []})
        info = ValidationInfo(so_far, name, cls.model_config)
        for entry in validators["before"]:
            try:
                value = _call(entry, cls, value, info)
            except (ValueError, AssertionError) as exc:
                raise _Fail(_validator_errors(exc, value))
        value = cls._clawrun_nodes[name].check(value, False)
        for entry in validators["after"]:
            try:
                value = _call(entry, cls, value, info)
            except (ValueError, AssertionError) as exc:
                raise _Fail(_validator_errors(exc, value))
        return value

    def _clawrun_set_state(self, values: dict, fields_set: set, extra: dict | None) -> None:
        object.__setattr__(self, "__dict__", values)
        object.__setattr__(self, "__pydantic_fields_set__", fields_set)
        object.__setattr__(self, "__pydantic_extra__", extra)

    @classmethod
    def model_rebuild(cls, *, force: bool = False, raise_errors: bool = True) -> bool | None:
        """Resolve the annotations again, after defining what they named (None: already built)."""
        if cls._clawrun_built is not None and not force:
            return None
        frame = sys._getframe(1)
        if frame.f_locals is not frame.f_globals:
            cls._clawrun_locals = {**cls._clawrun_locals, **frame.f_locals}
        cls._clawrun_built = None
        try:
            cls._clawrun_fields()
        except PydanticUserError as exc:
            if raise_errors or exc.code != _NOT_FULLY_DEFINED:
                raise
            return False
        return True

    # -- serialization ---------------------------------------------------------------------

    def model_dump(self, *, mode: str = "python", exclude: Any = None, exclude_none: bool = False) -> dict:
        """The model as a dict; ``mode="json"`` gives only JSON types (what model_dump_json writes)."""
        if mode not in ("python", "json"):
            raise ValueError(f"mode must be 'python' or 'json', not {mode!r}")
        return _dump_model(self, type(self), mode == "json", exclude, exclude_none)

    def model_dump_json(self, *, indent: int | None = None, exclude: Any = None, exclude_none: bool = False) -> str:
        """The model as pydantic's JSON text (compact unless ``indent`` is given)."""
        out: list[str] = []
        _json_write(_dump_model(self, type(self), True, exclude, exclude_none), indent, 0, out)
        return "".join(out)

    # -- attributes and protocol -----------------------------------------------------------

    @property
    def model_fields_set(self) -> set:
        """Names of the fields given explicitly (in the input or by assignment)."""
        return self.__pydantic_fields_set__

    @property
    def model_extra(self) -> dict | None:
        """Extra values kept under extra="allow" (None otherwise)."""
        return self.__pydantic_extra__

    def __setattr__(self, name: str, value: Any) -> None:
        cls = type(self)
        if name in cls._clawrun_fields():
            self.__dict__[name] = value  # not validated (pydantic's validate_assignment=False)
            self.__pydantic_fields_set__.add(name)
            return
        attr = getattr(cls, name, None)
        if isinstance(attr, property) or name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        if self.__pydantic_extra__ is not None:
            self.__pydantic_extra__[name] = value
            return
        raise ValueError(f'"{cls.__name__}" object has no field "{name}"')

    def __getattr__(self, name: str) -> Any:
        try:
            extra = object.__getattribute__(self, "__pydantic_extra__")
        except AttributeError:
            extra = None
        if extra and name in extra:
            return extra[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, BaseModel):
            return NotImplemented
        if type(self) is not type(other) or self.__pydantic_extra__ != other.__pydantic_extra__:
            return False
        return all(self.__dict__.get(n) == other.__dict__.get(n) for n in type(self)._clawrun_fields())

    __hash__ = None  # mutable models are unhashable, as in pydantic

    def __iter__(self):
        yield from ((k, v) for k, v in self.__dict__.items() if not k.startswith("_"))
        if self.__pydantic_extra__:
            yield from self.__pydantic_extra__.items()

    def __repr_args__(self) -> list[tuple[str, Any]]:
        return list(self.__iter__())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.__repr_args__())})"

    def __str__(self) -> str:
        return " ".join(f"{k}={v!r}" for k, v in self.__repr_args__())

    def __copy__(self) -> BaseModel:
        other = type(self).__new__(type(self))
        extra = self.__pydantic_extra__
        other._clawrun_set_state(dict(self.__dict__), set(self.__pydantic_fields_set__),
                                 None if extra is None else dict(extra))
        return other

    def __deepcopy__(self, memo: dict) -> BaseModel:
        other = type(self).__new__(type(self))
        memo[id(self)] = other
        other._clawrun_set_state(copy.deepcopy(self.__dict__, memo), set(self.__pydantic_fields_set__),
                                 copy.deepcopy(self.__pydantic_extra__, memo))
        return other


def _copy_default(default: Any) -> Any:
    """pydantic hands each instance its own deep copy of an unhashable default."""
    try:
        hash(default)
    except TypeError:
        return copy.deepcopy(default)
    return default


def _call_factory(factory: Any, validated: dict) -> Any:
    """Call a default_factory; one taking a single required argument gets the validated data."""
    try:
        params = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return factory()
    required = [p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(required) == 1 and not isinstance(factory, type):
        return factory(dict(validated))
    return factory()
