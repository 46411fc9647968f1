#!/usr/bin/env python3
"""Check clawrun's pure-Python pydantic (runtime/trial/src/claw_eval/python/pydantic) against real pydantic 2.

Runs Claw-Eval's own, unmodified code twice, in two child processes of this script: once with the
real pydantic (which the Python running this script must have: pydantic==2.12.5 and pyyaml) and
once with clawrun's shim first on ``sys.path``.  Each child writes a report (a flat JSON object:
check name -> result); the parent compares them and prints every difference.  Exit status 0 only
when both reports are identical (and complete).

What the children do, on the Claw-Eval checkout given as the first argument
(default: the repository's third_party/claw-eval):
  1. ``TaskDefinition.from_yaml`` on every ``tasks/*/task.yaml``: dumps (python, json, JSON text),
     ``repr``, then ``apply_port_offset`` and the dumps again.
  2. Hand-written JSONL trace lines covering every event type of ``models/trace.py`` and every
     content block of ``models/content.py`` through ``claw_eval.trace.reader.load_trace``:
     every field read the way graders read it, ``repr``, ``model_dump``, ``model_dump_json`` bytes,
     and a ``TraceWriter`` round trip; the same lines through a ``list[TraceEvent]`` field.
  3. Error cases (missing field, unknown discriminator tag, extra field on ``extra="forbid"``,
     bad scalars, ...): exception class, ``str(e)`` and ``e.errors()``.
  4. ``DimensionScores``, ``compute_task_score``/``is_pass``/pass@k, ``config.py``'s models and
     ``load_config``.
  5. Every ``tasks/*/grader.py`` through ``claw_eval.graders.registry.get_grader``, instantiated and
     run on a synthetic trace built from its task (with a deterministic fake judge).
  6. A lax-mode coercion table (str/int/float/bool/list/dict/tuple/Literal/unions) on small models,
     validators with ``info``, inheritance, forward references, ``extra="allow"``, and JSON
     output of 3000 seeded random floats and every control character.

Usage: check_pydantic_shim.py [CLAW_EVAL_DIR] [--shim-python PYTHON]...
                              [--wasi-python PYTHON_WASM --clawrun CLAWRUN]
  ``--shim-python`` also runs the shim side with another (native) Python; ``--wasi-python`` also
  runs it under the sandbox's WASI CPython 3.15 (through ``clawrun exec``); each is compared with
  the real side as well.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import importlib
import importlib.util
import io
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any, Literal, Optional, Union

REPO = Path(__file__).resolve().parents[2]
SHIM_DIR = REPO / "runtime" / "trial" / "src" / "claw_eval" / "python"
MIRRORED_VERSION = "2.12."  # pydantic 2.13 writes floats as 1e+16 (2.12: 1e16), among other changes
REPORT_MARKER = "\n=====pydantic-shim-check report=====\n"


# ---------------------------------------------------------------------------------------------
# Parent: run both children, compare
# ---------------------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("claw_eval_dir", nargs="?",
                        default=str(Path(__file__).resolve().parents[2] / "third_party" / "claw-eval"))
    parser.add_argument("--child", choices=["real", "shim"], help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--shim-python", action="append", default=[], metavar="PYTHON",
                        help="also run the shim side with this Python (needs pyyaml only); repeatable")
    parser.add_argument("--wasi-python", help="also run the shim side under this WASI python.wasm")
    parser.add_argument("--clawrun", help="the clawrun binary for --wasi-python")
    args = parser.parse_args(argv)
    claw_dir = Path(args.claw_eval_dir).resolve()
    if args.child:
        report = run_child(args.child, claw_dir, Path(args.work))
        text = json.dumps(report, ensure_ascii=False, indent=1, sort_keys=True)
        if args.out == "-":  # clawrun exec runs over an in-memory copy: report on stdout,
            # compressed to stay under its 1 MiB output cap
            sys.stdout.write(REPORT_MARKER + base64.b64encode(zlib.compress(text.encode(), 9)).decode() + "\n")
        else:
            Path(args.out).write_text(text)
        return 0

    if not (claw_dir / "src" / "claw_eval").is_dir() or not (claw_dir / "tasks").is_dir():
        print(f"error: {claw_dir} is not a Claw-Eval checkout (no src/claw_eval or tasks/)", file=sys.stderr)
        return 2
    if args.wasi_python and not args.clawrun:
        print("error: --wasi-python needs --clawrun", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pydantic-shim-check-") as tmp:
        tmp_path = Path(tmp).resolve()
        reports = {}
        runs = [("real", None), ("shim", None)]
        runs += [("shim", exe) for exe in args.shim_python]
        if args.wasi_python:
            runs.append(("shim", "wasi"))
        for flavour, where in runs:
            label = flavour if where is None else f"{flavour}@{where}"
            work = tmp_path / re.sub(r"[^A-Za-z0-9.-]+", "-", label)
            work.mkdir()
            out = work / "report.json"
            script = Path(__file__).resolve()
            child_args = [str(script), str(claw_dir), "--child", flavour, "--out", str(out), "--work", str(work)]
            if where == "wasi":
                cmd = [args.clawrun, "exec", "-q", "--fuel", "2000000000000", "--memory", "2048",
                       "--dir", f"{REPO}::{REPO}:ro", "--dir", f"{claw_dir}::{claw_dir}:ro",
                       "--dir", f"{work}::{work}", "--env", "PYTHONDONTWRITEBYTECODE=1",
                       "--env", "CLAW_SHIM_CHECK_VAR=from-env",
                       args.wasi_python, "--", *child_args]
                cmd[cmd.index("--out") + 1] = "-"
            else:
                cmd = [where or sys.executable, *child_args]
            env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1",
                   "CLAW_SHIM_CHECK_VAR": "from-env"}
            env.pop("PYTHONPATH", None)
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(work), timeout=3600)
            if where == "wasi":
                packed = proc.stdout.partition(REPORT_MARKER)[2].strip()
                text = zlib.decompress(base64.b64decode(packed)).decode() if packed else ""
            else:
                text = out.read_text() if out.exists() else ""
            if proc.returncode != 0 or not text:
                print(f"error: the {label} child failed (status {proc.returncode}): {shlex.join(cmd)}")
                print(proc.stderr[-6000:] or proc.stdout[-6000:])
                return 1
            reports[label] = json.loads(text)
            version = reports[label]["meta/pydantic_version"]
            if flavour == "real" and not version.startswith(MIRRORED_VERSION):
                print(f"error: the shim mirrors pydantic {MIRRORED_VERSION}x but {sys.executable} has pydantic "
                      f"{version}; run this with a Python that has pydantic=={MIRRORED_VERSION}5 "
                      f"(e.g. python3 -m venv V && V/bin/pip install pydantic=={MIRRORED_VERSION}5 pyyaml)")
                return 2
        failures = compare(reports)
    if failures:
        print(f"FAIL: {failures} difference(s) between real pydantic and clawrun's shim")
        return 1
    real = reports["real"]
    pythons = "; ".join(f"{k}: Python {r['meta/python'].split()[0]}" for k, r in reports.items())
    print(f"OK: {len(real)} checks identical between real pydantic and clawrun's shim ({pythons}): "
          f"{real['meta/tasks']} task.yaml files, {real['meta/graders']} graders "
          f"({real['meta/graders_graded']} graded), {real['meta/trace_events']} trace lines")
    return 0


def compare(reports: dict[str, dict]) -> int:
    """Print differences between the real report and each shim report; return how many."""
    real = reports["real"]
    failures = 0
    if real.get("meta/pydantic") != "real":
        print("real child did not import the real pydantic:", real.get("meta/pydantic_file"))
        failures += 1
    # The real side must run every check: a section that crashes with real pydantic too, or no
    # tasks/graders found, would make "identical" meaningless.
    for key in sorted(k for k in real if k.startswith("crash/")):
        print(f"the real child crashed in {key[len('crash/'):]}: {_short(real[key])}")
        failures += 1
    if not real.get("meta/tasks") or not real.get("meta/graders"):
        print("no task.yaml or grader.py found")
        failures += 1
    for key in sorted(k for k in real if k.startswith("grader/") and k.endswith("/load")):
        if isinstance(real[key], dict):
            print(f"{key} failed with real pydantic: {_short(real[key])}")
            failures += 1
    for label, shim in reports.items():
        if label == "real":
            continue
        if shim.get("meta/pydantic") != "shim":
            print(f"{label} child did not import clawrun's shim:", shim.get("meta/pydantic_file"))
            failures += 1
        for key in sorted(set(real) | set(shim)):
            if key in ("meta/pydantic", "meta/pydantic_file", "meta/pydantic_version", "meta/python"):
                continue
            a, b = real.get(key, "<missing>"), shim.get(key, "<missing>")
            if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):  # NaN-safe
                failures += 1
                print(f"--- {key}  [real vs {label}]")
                for n, (path, x, y) in enumerate(_leaf_diffs(a, b, "")):
                    if n == 8:
                        print("  ...")
                        break
                    print(f"  at {path or '.'}:\n    real:  {_short(x)}\n    {label}: {_short(y)}")
    return failures


def _leaf_diffs(a: Any, b: Any, path: str):
    """(path, real, shim) for each differing leaf; strings are compared line by line."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if a.get(k, "<missing>") != b.get(k, "<missing>"):
                yield from _leaf_diffs(a.get(k, "<missing>"), b.get(k, "<missing>"), f"{path}/{k}")
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            x = a[i] if i < len(a) else "<missing>"
            y = b[i] if i < len(b) else "<missing>"
            if x != y:
                yield from _leaf_diffs(x, y, f"{path}[{i}]")
    elif isinstance(a, str) and isinstance(b, str) and "\n" in a + b:
        la, lb = a.split("\n"), b.split("\n")
        for i in range(max(len(la), len(lb))):
            x = la[i] if i < len(la) else "<missing>"
            y = lb[i] if i < len(lb) else "<missing>"
            if x != y:
                yield f"{path} line {i + 1}", x, y
    else:
        yield path, a, b


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > 400:
        return text[:400] + f"... ({len(text)} chars)"
    return repr(text) if isinstance(value, str) else text


# ---------------------------------------------------------------------------------------------
# Child: run Claw-Eval's code with one pydantic and record what it does
# ---------------------------------------------------------------------------------------------


def run_child(flavour: str, claw_dir: Path, work: Path) -> dict:
    sys.dont_write_bytecode = True
    sys.path.insert(0, str(claw_dir / "src"))
    if flavour == "shim":
        sys.path.insert(0, str(SHIM_DIR))
    pydantic = importlib.import_module("pydantic")
    shim_file = str(SHIM_DIR / "pydantic" / "__init__.py")
    is_shim = os.path.abspath(pydantic.__file__) == shim_file
    report: dict[str, Any] = {
        "meta/pydantic": "shim" if is_shim else "real",
        "meta/pydantic_file": pydantic.__file__,
        "meta/pydantic_version": getattr(pydantic, "VERSION", "shim"),
        "meta/python": sys.version,
    }
    checks = Checks(report, pydantic)
    for section in (check_tasks, check_traces, check_errors, check_scores_and_config,
                    check_graders, check_coercion, check_json_output):
        try:
            section(checks, claw_dir, work)
        except Exception as exc:  # a crash is a result to compare, not the end of the run
            report[f"crash/{section.__name__}"] = describe_exception(exc, pydantic)
    return report


class Checks:
    """Collects named results; ``run`` records a function's result or the exception it raised."""

    def __init__(self, report: dict, pydantic: Any):
        self.report, self.pydantic = report, pydantic

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self.report:
            raise KeyError(f"duplicate check name {key}")
        self.report[key] = value

    def run(self, key: str, fn, *args, record=None, **kwargs) -> Any:
        """Call ``fn``; record ``record(result)`` (default: the result) or the exception raised."""
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            self[key] = describe_exception(exc, self.pydantic)
            return None
        self[key] = result if record is None else record(result)
        return result


def describe_exception(exc: BaseException, pydantic: Any) -> dict:
    """An exception as comparable data (pydantic's ValidationError: every error too)."""
    out = {"class": type(exc).__name__, "str": str(exc), "is_value_error": isinstance(exc, ValueError),
           "is_validation_error": isinstance(exc, pydantic.ValidationError)}
    if isinstance(exc, pydantic.ValidationError):
        out["title"] = exc.title
        out["error_count"] = exc.error_count()
        out["errors"] = [{"type": e["type"], "loc": list(e["loc"]), "msg": e["msg"], "input": repr(e["input"]),
                          "ctx": repr(e.get("ctx")), "url": e.get("url")} for e in exc.errors()]
    return out


def model_view(obj: Any) -> dict:
    """Everything a grader can read off a model: fields by attribute, repr, str and both dumps."""
    return {
        "class": type(obj).__name__,
        "attrs": {name: repr(getattr(obj, name)) for name in type(obj).model_fields},
        "fields_set": sorted(obj.model_fields_set),
        "repr": repr(obj),
        "str": str(obj),
        "dump": repr(obj.model_dump()),
        "dump_json_mode": obj.model_dump(mode="json"),
        "dump_json": obj.model_dump_json(),
        "dump_json_indent": obj.model_dump_json(indent=2),
        "dump_exclude_none": repr(obj.model_dump(exclude_none=True)),
    }


# -- 1. task.yaml --------------------------------------------------------------------------------


def check_tasks(c: Checks, claw_dir: Path, work: Path) -> None:
    from claw_eval.models.task import TaskDefinition

    paths = sorted((claw_dir / "tasks").glob("*/task.yaml"))
    c["meta/tasks"] = len(paths)
    for p in paths:
        name = p.parent.name
        task = c.run(f"task/{name}/load", lambda: model_view(TaskDefinition.from_yaml(p)))
        if task is None:
            continue
        t = TaskDefinition.from_yaml(p)
        c[f"task/{name}/task_file_set"] = t.task_file == str(p.resolve())
        c[f"task/{name}/endpoint_map"] = sorted(t.get_endpoint_map())
        c[f"task/{name}/eq_reload"] = t == TaskDefinition.from_yaml(p)
        c[f"task/{name}/dump_exclude"] = repr(t.model_dump(exclude={"prompt": {"language"}, "tools": True,
                                                                     "environment": True}, exclude_none=True))
        t.apply_port_offset(100)
        c[f"task/{name}/after_port_offset"] = t.model_dump_json()
        c[f"task/{name}/after_port_offset_fields_set"] = [sorted(s.model_fields_set) for s in t.services]


# -- 2. traces -----------------------------------------------------------------------------------

TS = "2026-01-01T00:00:00+00:00"
TRACE_LINES: list[dict] = [
    {"type": "trace_start", "trace_id": "tr-1", "task_id": "T001zh_email_triage", "model": "m/x",
     "persona": "p", "timestamp": TS, "unknown_key": "ignored"},
    {"type": "message", "trace_id": "tr-1", "timestamp": TS,
     "message": {"role": "user", "content": "请把收件箱整理一下 — triage \"all\" mail\n\ttabs \\ slash /"}},
    {"type": "message", "trace_id": "tr-1", "timestamp": TS, "usage": {"input_tokens": "12", "output_tokens": 7.0},
     "message": {"role": "assistant", "reasoning_content": "think 🤔",
                 "content": [{"type": "text", "text": "Looking."},
                             {"type": "tool_use", "id": "tu_1", "name": "gmail_list_messages",
                              "input": {"max": 10, "ratio": 0.1, "tiny": 1e-7, "big": 12345678901234567890,
                                        "nested": {"l": [1, 2.5, None, True, "ü"]}, "f": 1e16}},
                             {"type": "text", "text": "second text block"}]}},
    {"type": "message", "trace_id": "tr-1", "timestamp": TS,
     "message": {"role": "user", "content": [
         {"type": "tool_result", "tool_use_id": "tu_1", "is_error": "true",
          "content": [{"type": "text", "text": "[{\"id\": \"msg_001\"}]"}, {"text": "no type key"}]}]}},
    {"type": "message", "trace_id": "tr-1", "timestamp": TS,
     "message": {"role": "user", "content": [
         {"type": "tool_result", "tool_use_id": "tu_2"},
         {"type": "image", "data": "aGVsbG8=", "mime_type": "image/png", "source_path": "/workspace/a.png"},
         {"type": "audio", "data": "AAAA", "mime_type": "audio/wav"},
         {"type": "video", "data": "BBBB", "mime_type": "video/mp4", "source_path": None}]}},
    {"type": "message", "trace_id": "tr-1", "timestamp": TS, "message": {"role": "system"}},
    {"type": "message", "trace_id": "tr-1", "timestamp": TS,
     "message": {"role": "assistant",
                 "content": [{"type": "text", "text": "Final: 3 need reply, 需回复 msg_001."}]}},
    {"type": "tool_dispatch", "trace_id": "tr-1", "tool_use_id": "tu_1", "tool_name": "gmail_list_messages",
     "endpoint_url": "http://localhost:9100/gmail/messages", "request_body": {"max": 10},
     "response_status": 200, "latency_ms": 12,
     "response_body": {"messages": [{"id": "msg_001", "score": 0.30000000000000004, "n": -0.0},
                                    {"id": "msg_002", "subject": "Q1 报告", "ctl": "\u0001\u001f\u007f\u2028"}],
                       "total": 2, "exp": 1.5e-5, "huge": 1e300, "neg": -1e-300}, "timestamp": TS},
    {"type": "tool_dispatch", "trace_id": "tr-1", "tool_use_id": "tu_2", "tool_name": "gmail_get_message",
     "endpoint_url": "http://localhost:9100/gmail/messages/get", "timestamp": TS},
    {"type": "tool_dispatch", "trace_id": "tr-1", "tool_use_id": "tu_3", "tool_name": "gmail_get_message",
     "endpoint_url": "http://localhost:9100/gmail/messages/get", "request_body": {"message_id": "msg_002"},
     "response_status": 500, "response_body": "Internal Server Error", "latency_ms": 3.25, "timestamp": TS},
    {"type": "audit_snapshot", "trace_id": "tr-1", "service_name": "gmail", "audit_url": "http://localhost:9100/audit",
     "audit_data": {"calls": [{"endpoint": "/gmail/messages", "body": {}}], "drafts": [], "sent": None},
     "timestamp": TS},
    {"type": "audit_snapshot", "trace_id": "tr-1", "service_name": "calendar", "audit_url": "http://x/audit",
     "timestamp": TS},
    {"type": "media_load", "trace_id": "tr-1", "modality": "image", "source_path": "/workspace/a.png",
     "mime_type": "image/png", "size_bytes": "2048", "sha256": "ab" * 32, "timestamp": TS},
    {"type": "media_load", "trace_id": "tr-1", "modality": "document", "source_path": "/workspace/b.pdf",
     "mime_type": "application/pdf", "size_bytes": 0, "sha256": "", "status": "error", "note": "too big",
     "timestamp": TS},
    {"type": "grading_result", "trace_id": "tr-1", "task_id": "T001zh_email_triage", "task_score": 0.5,
     "judge_calls": [{"k": 1}], "user_agent_meta": {"rounds": 2}, "timestamp": TS},
    {"type": "trace_end", "trace_id": "tr-1", "total_turns": 3, "model_time_s": 1, "wall_time_s": 2.5,
     "scores": {"completion": 1, "robustness": 0.75, "communication": "0.5", "safety": True,
                "efficiency_turns": 3, "efficiency_tokens": 1234.0},
     "task_score": 0.8, "passed": 1, "failure_modes": ["none"], "user_agent_done": "yes", "timestamp": TS},
]


def check_traces(c: Checks, claw_dir: Path, work: Path) -> None:
    from claw_eval.models import content, message, trace as trace_models
    from claw_eval.trace.reader import load_trace, read_events
    from claw_eval.trace.writer import TraceWriter

    path = work / "trace.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in TRACE_LINES) + "\n")
    c["meta/trace_events"] = len(TRACE_LINES)
    start, messages, dispatches, media, end, audit = load_trace(path)
    c["trace/start"] = model_view(start)
    c["trace/end"] = model_view(end)
    c["trace/audit_data"] = json.dumps(audit, ensure_ascii=False, sort_keys=False)
    c["trace/counts"] = [len(messages), len(dispatches), len(media)]
    for i, m in enumerate(messages):
        c[f"trace/message{i}"] = model_view(m)
        c[f"trace/message{i}/message"] = model_view(m.message)
        c[f"trace/message{i}/text"] = m.message.text
        c[f"trace/message{i}/role"] = m.message.role
        blocks = []
        for b in m.message.content:
            blocks.append({"type": b.type, "has_text": hasattr(b, "text"), "view": model_view(b),
                           "inner": [model_view(x) for x in getattr(b, "content", [])]})
        c[f"trace/message{i}/blocks"] = blocks
        c[f"trace/message{i}/usage"] = [m.usage.input_tokens, m.usage.output_tokens]
    for i, d in enumerate(dispatches):
        c[f"trace/dispatch{i}"] = model_view(d)
        c[f"trace/dispatch{i}/reads"] = [d.tool_name, d.response_status, repr(d.response_body),
                                         d.request_body.get("message_id"), d.latency_ms]
    for i, m in enumerate(media):
        c[f"trace/media{i}"] = model_view(m)
    c["trace/end/scores"] = model_view(end.scores)
    c["trace/read_events_types"] = [type(e).__name__ for e in read_events(path)]

    # The writer's output: model_dump_json of every event, byte for byte.
    out = work / "rewritten.jsonl"
    with TraceWriter(out) as w:
        for e in read_events(path):
            w.write_event(e)
    c["trace/writer_bytes"] = out.read_text()

    # A line the reader does not know, and a bad line.
    bad = work / "bad.jsonl"
    bad.write_text(json.dumps({"type": "compact", "trace_id": "t", "layer": "micro", "timestamp": TS}) + "\n")
    c.run("trace/unknown_type", lambda: list(read_events(bad)))
    bad.write_text(json.dumps({"type": "message", "trace_id": "t", "message": {"role": "robot"}}) + "\n")
    c.run("trace/bad_line", lambda: list(read_events(bad)))

    # Every line (compact included) through the TraceEvent discriminated union.
    BaseModel = c.pydantic.BaseModel

    class EventBox(BaseModel):
        events: list[trace_models.TraceEvent]
        blocks: list[content.ContentBlock] = []

    compact = {"type": "compact", "trace_id": "t", "layer": "auto", "estimated_tokens_before": "10", "timestamp": TS}
    box = EventBox.model_validate({"events": TRACE_LINES + [compact]})
    c["trace/union/types"] = [type(e).__name__ for e in box.events]
    c["trace/union/json"] = box.model_dump_json()
    c.run("trace/union/bad_tag", EventBox.model_validate, {"events": [{"type": "nope"}]})
    c.run("trace/union/no_tag", EventBox.model_validate, {"events": [{"trace_id": "x"}]})
    c.run("trace/union/not_dict", EventBox.model_validate, {"events": ["message"]})
    c.run("trace/union/instance", lambda: model_view(EventBox(
        events=[trace_models.TraceStart(trace_id="a", task_id="b", model="c", timestamp=TS)],
        blocks=[content.TextBlock(text="x"), {"type": "image", "data": "d", "mime_type": "m"}])))

    # Construction the way clawrun and graders build events.
    msg = message.Message(role="assistant", content="hello\nworld")
    c["build/message_str_content"] = model_view(msg)
    tm = trace_models.TraceMessage(trace_id="t", message=msg, timestamp=TS)
    c["build/trace_message"] = model_view(tm)
    c["build/instance_kept"] = tm.message is msg
    c["build/message_blocks"] = model_view(message.Message(role="user", content=[
        content.ToolUseBlock(id="1", name="n"),
        {"type": "tool_result", "tool_use_id": "1", "content": [{"text": "r"}]}]))
    raw = {"role": "user", "content": "in place"}
    message.Message.model_validate(raw)
    c["build/validator_mutates_input"] = repr(raw)
    fresh = trace_models.ToolDispatch(trace_id="t", tool_use_id="u", tool_name="n", endpoint_url="e")
    c["build/default_timestamp"] = [isinstance(fresh.timestamp, str), fresh.timestamp[:2],
                                    sorted(fresh.model_dump(exclude={"timestamp"}))]
    c["build/defaults_not_shared"] = [
        trace_models.GradingResult(trace_id="a", task_id="b").failure_modes
        is not trace_models.GradingResult(trace_id="a", task_id="b").failure_modes]
    c["build/model_fields"] = {cls.__name__: {n: [str(f.is_required()), repr(f.default)]
                                              for n, f in cls.model_fields.items()}
                               for cls in (trace_models.TraceEnd, trace_models.ToolDispatch, message.Message,
                                           content.ToolResultBlock, trace_models.MediaLoad)}
    from claw_eval import config
    from claw_eval.models import task as task_models
    c["build/field_infos"] = {
        f"{cls.__name__}.{n}": [repr(f), str(f)]
        for module in (content, message, trace_models, task_models, config)
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, BaseModel) and cls is not BaseModel
        for n, f in cls.model_fields.items()}
    c["build/equality"] = [content.TextBlock(text="a") == content.TextBlock(text="a"),
                           content.TextBlock(text="a") == content.TextBlock(text="b"),
                           content.TextBlock(text="a") == {"type": "text", "text": "a"},
                           content.ImageBlock(data="d", mime_type="m") == content.AudioBlock(data="d", mime_type="m")]
    import copy
    deep = copy.deepcopy(tm)
    c["build/deepcopy"] = [deep == tm, deep.message is tm.message, sorted(deep.model_fields_set)]
    c["build/iter"] = repr(list(content.TextBlock(text="x")))
    c.run("build/hash", lambda: hash(content.TextBlock(text="x")))


# -- 3. errors ------------------------------------------------------------------------------------


def check_errors(c: Checks, claw_dir: Path, work: Path) -> None:
    from claw_eval.models import content, message, task, trace as tr

    cases = {
        "task_missing_everything": (task.TaskDefinition.model_validate, {}),
        "task_prompt_not_dict": (task.TaskDefinition.model_validate, {"task_id": "a", "task_name": "b", "prompt": "x"}),
        "task_extra_on_forbid": (task.TaskDefinition.model_validate, {
            "task_id": "a", "task_name": "b", "prompt": {"text": "t"},
            "scoring_components": [{"name": "n", "weight": "0.5",
                                    "check": {"type": "k", "bogus": 1, "min_calls": "2x"}}]}),
        "task_bad_env": (task.TaskDefinition.model_validate, {
            "task_id": 1, "task_name": "b", "prompt": {"text": "t"},
            "environment": {"timeout_seconds": 1.5, "enable_todo": "maybe"}, "services": [{"name": "s"}],
            "tools": [{"name": "x", "description": "d", "input_schema": {1: "int key"}}]}),
        "message_bad_role": (message.Message.model_validate, {"role": "robot", "content": "x"}),
        "message_unknown_block": (message.Message.model_validate, {"role": "user", "content": [{"type": "bogus"}]}),
        "message_block_without_type": (message.Message.model_validate, {"role": "user", "content": [{"text": "x"}]}),
        "message_block_errors": (message.Message.model_validate, {"role": "user", "content": [
            {"type": "text"}, {"type": "tool_use", "id": 1, "name": None, "input": []},
            {"type": "tool_result", "content": "str"}, {"type": "image", "data": b"\xff"}, 7]}),
        "message_not_dict": (message.Message.model_validate, "just a string"),
        "message_none": (message.Message.model_validate, None),
        "trace_message_missing": (tr.TraceMessage.model_validate, {"type": "message"}),
        "trace_message_wrong_literal": (tr.TraceMessage.model_validate, {"type": "trace_end", "trace_id": "t",
                                                                         "message": {"role": "user"}}),
        "dispatch_bad_types": (tr.ToolDispatch.model_validate, {
            "trace_id": "t", "tool_use_id": "u", "tool_name": "n", "endpoint_url": "e",
            "response_status": "abc", "latency_ms": "fast", "request_body": ["not", "dict"]}),
        "media_bad": (tr.MediaLoad.model_validate, {"trace_id": "t", "modality": "smell", "source_path": "p",
                                                    "mime_type": "m", "size_bytes": 1.5, "sha256": None}),
        "end_bad_scores": (tr.TraceEnd.model_validate, {"trace_id": "t", "scores": {"completion": "x", "safety": []},
                                                        "failure_modes": "oops", "passed": 2}),
        "start_missing": (tr.TraceStart.model_validate, {"trace_id": "t"}),
        "kwargs_missing": (lambda d: content.ImageBlock(**d), {"data": "x"}),
        "kwargs_init_block_bad": (lambda d: content.ToolResultBlock(**d),
                                  {"tool_use_id": "u", "content": [{"type": "image"}]}),
        "long_input_repr": (content.TextBlock.model_validate, {"text": ["x" * 200]}),
    }
    for name, (fn, data) in cases.items():
        c.run(f"error/{name}", fn, data)

    block = content.TextBlock(text="x")
    c.run("error/set_unknown_field", setattr, block, "nope", 1)
    c.run("error/get_unknown_field", getattr, block, "nope")
    c.run("error/positional_init", lambda: content.TextBlock("x"))
    c.run("error/class_field_attr", lambda: content.TextBlock.text)
    block.text = 123  # pydantic does not validate assignment
    c["error/assignment_not_validated"] = [repr(block.text), block.model_dump_json()]


# -- 4. scores and config --------------------------------------------------------------------------


def check_scores_and_config(c: Checks, claw_dir: Path, work: Path) -> None:
    from claw_eval import config
    from claw_eval.models import scoring, trace as tr

    c["scores/default"] = model_view(tr.DimensionScores())
    variants = [
        {"completion": 1, "robustness": "0.5", "safety": True, "efficiency_turns": 4.0},
        {"completion": 0.3333333333333333, "robustness": 1.0, "communication": 0.25, "safety": 0},
        {"completion": 0.9, "robustness": 0.9, "safety": 0.3, "efficiency_tokens": "17", "efficiency_wall_time_s": 2},
    ]
    for i, v in enumerate(variants):
        s = tr.DimensionScores(**v)
        c[f"scores/{i}"] = model_view(s)
        c[f"scores/{i}/task_score"] = repr(scoring.compute_task_score(s))
        c[f"scores/{i}/pass"] = scoring.is_pass(scoring.compute_task_score(s))
    s = tr.DimensionScores()
    s.completion = 1  # graders assign plain numbers; JSON writes the float field as 1.0
    s.robustness = 0.5
    s.efficiency_turns = True
    c["scores/assigned"] = model_view(s)
    c["scores/assigned_task_score"] = repr(scoring.compute_task_score(s))
    c["scores/pass_at_k"] = [repr(scoring.compute_pass_at_k([0.8, 0.5, 0.9], k)) for k in (1, 2, 3, 4)]
    c["scores/pass_hat_k"] = [repr(scoring.compute_pass_hat_k([0.8, 0.5, 0.9], k)) for k in (1, 2)]
    end = tr.TraceEnd(trace_id="t", scores=s, timestamp=TS)
    c["scores/trace_end"] = end.model_dump_json()
    c["scores/trace_end_kept_instance"] = end.scores is s

    c["config/default"] = model_view(config.Config())
    c["config/default_copied"] = [config.Config().model is not config.Config().model,
                                  config.Config().prompt.skills.default is not config.Config().prompt.skills.default]
    c["config/fields"] = {name: [str(f.is_required()), repr(f.default), f.default_factory is not None]
                          for name, f in config.Config.model_fields.items()}
    yaml_path = work / "config.yaml"
    yaml_path.write_text(
        "model:\n  api_key: ${CLAW_SHIM_CHECK_VAR}\n  base_url: ${CLAW_SHIM_UNSET_VAR}\n  context_window: '1000'\n"
        "  extra_body: {temperature: 0.2}\n  input_modalities: [text, image]\n"
        "sandbox:\n  cpu_limit: 1\n  enabled: yes\nprompt:\n  skills:\n    default:\n"
        "      - {name: s, description: d, path: /p}\nunknown_section: {a: 1}\n")
    c.run("config/load", lambda: model_view(config.load_config(yaml_path)))
    c.run("config/load_missing", lambda: model_view(config.load_config(work / "nope.yaml")))
    yaml_path.write_text("media:\n  max_files: many\nprompt:\n  skills:\n    default: [{name: s}]\n")
    c.run("config/load_bad", config.load_config, yaml_path)


# -- 5. graders ------------------------------------------------------------------------------------


class FakeJudge:
    """A deterministic stand-in for LLMJudge: scores are a hash of what the grader asked."""

    model_id = "fake/judge"

    def __init__(self, result_cls):
        self.result_cls = result_cls
        self.calls: list[str] = []
        judge = self

        class _Completions:
            def create(self, **kwargs):
                judge.calls.append("chat:" + judge._digest(kwargs))
                msg = type("Msg", (), {"content": '{"msg_001": "需回复", "score": 0.5}'})()
                choice = type("Choice", (), {"message": msg})()
                return type("Resp", (), {"choices": [choice]})()

        self.client = type("Client", (), {"chat": type("Chat", (), {"completions": _Completions()})()})()

    @staticmethod
    def _digest(args: Any) -> str:
        return hashlib.sha256(repr(args).encode("utf-8", "surrogatepass")).hexdigest()[:16]

    def _result(self, kind: str, *args, **kwargs):
        digest = self._digest((args, sorted(kwargs.items())))
        self.calls.append(f"{kind}:{digest}")
        return self.result_cls(score=int(digest[:4], 16) / 65535, reasoning=f"fake {kind} {digest}")

    def evaluate(self, *args, **kwargs):
        return self._result("evaluate", *args, **kwargs)

    def evaluate_actions(self, *args, **kwargs):
        return self._result("evaluate_actions", *args, **kwargs)

    def evaluate_visual(self, *args, **kwargs):
        return self._result("evaluate_visual", *args, **kwargs)


def synthetic_trace(task: Any, tr: Any, content: Any, message: Any) -> tuple[list, list, dict, list]:
    """A plausible trace for ``task``: the prompt, one call of each tool, a final answer."""
    msgs = [tr.TraceMessage(trace_id="s", timestamp=TS, message=message.Message(role="user", content=task.prompt.text))]
    dispatches = []
    for i, tool in enumerate(task.tools[:6]):
        tu = content.ToolUseBlock(id=f"tu_{i}", name=tool.name, input={"query": "x", "message_id": f"msg_00{i + 1}"})
        msgs.append(tr.TraceMessage(trace_id="s", timestamp=TS, message=message.Message(
            role="assistant", content=[content.TextBlock(text=f"Calling {tool.name}"), tu])))
        body = {"items": [{"id": f"msg_00{i + 1}", "title": "Project Sync", "amount": 12.5}], "ok": True}
        msgs.append(tr.TraceMessage(trace_id="s", timestamp=TS, message=message.Message(role="user", content=[
            content.ToolResultBlock(tool_use_id=f"tu_{i}", content=[content.TextBlock(text=json.dumps(body))])])))
        status = 500 if i == 1 else 200
        dispatches.append(tr.ToolDispatch.model_validate({
            "trace_id": "s", "tool_use_id": f"tu_{i}", "tool_name": tool.name, "timestamp": TS,
            "endpoint_url": f"http://localhost:9{i:03d}/x", "request_body": tu.input,
            "response_status": status, "response_body": body}))
    final = ("Summary:\n" + "\n".join(f"- {kw}" for comp in task.scoring_components
                                       for kw in (comp.check.keywords or [])[:2])
             + "\nThe answer is 108.01% (FINAL ANSWER: 42). Project Sync, Q1 roadmap, john@example.com.")
    msgs.append(tr.TraceMessage(trace_id="s", timestamp=TS, message=message.Message(role="assistant", content=final)))
    audit = {svc.name: {"calls": [{"endpoint": "/x", "request_body": {}}], "drafts": [], "created_events": []}
             for svc in task.services}
    media = [tr.MediaLoad(trace_id="s", modality="image", source_path="/workspace/a.png", mime_type="image/png",
                          size_bytes=3, sha256="00", timestamp=TS)]
    return msgs, dispatches, audit, media


def check_graders(c: Checks, claw_dir: Path, work: Path) -> None:
    from claw_eval.graders.registry import get_grader
    from claw_eval.models import content, message, scoring, trace as tr
    from claw_eval.models.task import TaskDefinition

    BaseModel = c.pydantic.BaseModel

    class JudgeResult(BaseModel):  # the shape of claw_eval.graders.llm_judge.JudgeResult
        score: float
        reasoning: str

    tasks_dir = claw_dir / "tasks"
    grader_dirs = sorted(p.parent for p in tasks_dir.glob("*/grader.py"))
    c["meta/graders"] = len(grader_dirs)
    graded = 0
    for d in grader_dirs:
        name = d.name
        grader = c.run(f"grader/{name}/load", lambda: get_grader(name, tasks_dir=tasks_dir),
                       record=lambda g: [k.__name__ for k in type(g).__mro__])
        if grader is None or not (d / "task.yaml").is_file():
            continue  # a peer kept only for its grader is loaded, not graded
        task = TaskDefinition.from_yaml(d / "task.yaml")
        msgs, dispatches, audit, media = synthetic_trace(task, tr, content, message)
        judge = FakeJudge(JudgeResult)
        stdout, sys.stdout = sys.stdout, io.StringIO()  # graders print progress
        try:
            scores = c.run(f"grader/{name}/grade", lambda: model_view(grader.grade(
                msgs, dispatches, task, audit_data=audit, judge=judge, media_events=media,
                env_snapshot={"file:/workspace/out.md": {"content": "108.01%"}})))
            printed = sys.stdout.getvalue()
        finally:
            sys.stdout = stdout
        c[f"grader/{name}/judge_calls"] = judge.calls
        c[f"grader/{name}/printed"] = printed
        if scores is not None and "is_validation_error" not in scores:
            graded += 1
            s = tr.DimensionScores.model_validate(scores["dump_json_mode"])
            c[f"grader/{name}/task_score"] = repr(scoring.compute_task_score(s))
    c["meta/graders_graded"] = graded


# -- 6. coercion table, validators, JSON output ------------------------------------------------------

def coercion_inputs() -> list[Any]:
    """Inputs for the coercion table (fresh each time: some are one-shot iterators)."""
    return [
    1, 0, 2, -1, 1.0, 1.5, 0.0, "1", " 1 ", "1.0", "1.", "1.5", "1_000", "+1", "-1", "0x10", "1e3", True, False,
    None, "true", "yes", "on", "off", "no", "t", "f", "TRUE", "y", "n", b"ab", b"1", bytearray(b"x"), [1],
    ["a", 1], (1, "a"), {"a": 1}, {1: "a"}, {"a"}, frozenset([1]), float("inf"), float("nan"), "inf", "nan",
    "", " ", 10**30, 1e30, "a", "b", 9.2e18, 9.3e18, -2.0, "١٢", "1.00", "1.0_0", "_1", "1__0", "0_1", "+_1",
    "\u00a01\n", "1 .0", ".5", "1_e5", "1e1_0", "infinity", "-NaN", "1e400", "0b1", "1 000", "1" * 4301, "١.٥",
    range(3), (x for x in [1, "2"]), iter([3]), {"k": 1}.items(), {1: 2}.keys(), {1: 2}.values(),
    memoryview(b"m"), (1, "a", 3), ("a",), (), [[1], [2]],
    ]


def check_coercion(c: Checks, claw_dir: Path, work: Path) -> None:
    p = c.pydantic
    BaseModel, Field, ConfigDict = p.BaseModel, p.Field, p.ConfigDict

    class Inner(BaseModel):
        a: int = 0

    types_under_test = {
        "str": str, "int": int, "float": float, "bool": bool, "Any": Any, "int|None": Optional[int],
        "float|None": float | None, "list": list, "list[str]": list[str], "list[int]": list[int],
        "dict": dict, "dict[str,str]": dict[str, str], "dict[str,Any]": dict[str, Any], "tuple": tuple,
        "tuple[int,...]": tuple[int, ...], "tuple[int,str]": tuple[int, str], "Union[int,str]": Union[int, str],
        "Union[str,int]": Union[str, int], "float|str": float | str, "Union[bool,int]": Union[bool, int],
        "Literal[a,b]": Literal["a", "b"], "Literal[a]|None": Optional[Literal["a"]], "Inner": Inner,
        "Inner|None": Optional[Inner], "list[Inner]|None": list[Inner] | None, "dict|None": dict | None,
    }
    for label, tp in types_under_test.items():
        Model = type(f"M_{len(label)}", (BaseModel,), {"__annotations__": {"x": tp}, "__module__": __name__})
        rows = []
        for value in coercion_inputs() + [{"a": "3"}, Inner(a=2)]:
            given = repr(value)
            try:
                m = Model(x=value)
                row = f"{given} -> {m.x!r} {type(m.x).__name__} {m.model_dump_json()}"
            except p.ValidationError as exc:
                row = f"{given} -> " + "; ".join(f"{'.'.join(map(str, e['loc']))}:{e['type']}:{e['msg']}"
                                                 for e in exc.errors())
            except Exception as exc:
                row = f"{given} -> {type(exc).__name__}: {exc}"
            rows.append(re.sub(r" at 0x[0-9a-f]+", " at 0x...", row))
        c[f"coerce/{label}"] = rows

    class Base(BaseModel):
        model_config = ConfigDict(extra="forbid")
        first: str = "f"
        shared: int = 1
        items: list[str] = Field(default_factory=lambda: ["d"], description="items")

        @p.field_validator("items", mode="before")
        @classmethod
        def _split(cls, v):
            return v.split(",") if isinstance(v, str) else v

    class Later(BaseModel):
        model_config = ConfigDict(extra="allow")
        name: str

    class Child(Base):
        shared: float = 2.5  # redeclared: keeps its place, new default
        extra_field: Optional[Later] = None
        hidden: str = Field(default="h", exclude=True)

        @p.field_validator("first", "hidden")
        @classmethod
        def _upper(cls, v, info):
            if v == "bad":
                raise ValueError(f"{info.field_name} may not be 'bad'")
            return f"{v.upper()}:{sorted(info.data)}"

        @p.model_validator(mode="after")
        def _check(self):
            assert self.shared != 99, "shared must not be 99"
            return self

        @p.model_validator(mode="before")
        @classmethod
        def _fill(cls, data):
            if isinstance(data, dict) and data.get("shortcut"):
                data = {k: v for k, v in data.items() if k != "shortcut"}
                data["first"] = "from-shortcut"
            return data

    for i, data in enumerate([{}, {"first": "x", "items": "a,b", "hidden": "s"}, {"shortcut": 1, "shared": "4"},
                              {"first": "bad"}, {"shared": 99}, {"zzz": 1}, {"extra_field": {"name": "n", "more": 1.0}},
                              {"items": 5}, {"extra_field": {"more": 1}}]):
        c.run(f"model/child{i}", lambda: model_view(Child.model_validate(data)))
    c["model/child_fields"] = [(n, repr(f.default), f.description) for n, f in Child.model_fields.items()]
    later = Later(name="n", more=[1], other=None)
    c["model/extra_allow"] = [model_view(later), repr(later.more), repr(later.model_extra)]
    later.added = 3
    c["model/extra_allow_assign"] = [later.model_dump_json(), sorted(later.model_fields_set)]

    # Forward references to a model defined later in the module (pydantic resolves them on first use).
    source = ("from __future__ import annotations\nfrom typing import Literal\nfrom pydantic import BaseModel, Field\n"
              "class Outer(BaseModel):\n    kind: Literal['o'] = 'o'\n"
              "    nodes: list[Node] = Field(default_factory=list)\n"
              "    parent: Outer | None = None\n"
              "class Node(BaseModel):\n    value: float\n    tags: dict[str, int] = {}\n")
    (work / "fwd_models.py").write_text(source)
    sys.path.insert(0, str(work))
    try:
        mod = importlib.import_module("fwd_models")
    finally:
        sys.path.remove(str(work))
    c.run("model/forward_refs", lambda: model_view(mod.Outer.model_validate(
        {"nodes": [{"value": 1, "tags": {"a": "2"}}], "parent": {"nodes": []}})))
    c.run("model/forward_refs_error", mod.Outer.model_validate, {"nodes": [{"value": "x"}], "parent": 3})
    # The same module loaded the way get_grader loads graders (no sys.modules entry): pydantic
    # cannot resolve the string annotations there.
    spec = importlib.util.spec_from_file_location("fwd_models_unregistered", work / "fwd_models.py")
    unregistered = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(unregistered)
    c.run("model/unregistered_module", unregistered.Outer.model_validate, {"nodes": []})


def check_json_output(c: Checks, claw_dir: Path, work: Path) -> None:
    BaseModel = c.pydantic.BaseModel

    class Box(BaseModel):
        floats: list[float]
        anything: Any = None
        text: str = ""

    rng = random.Random(20260101)
    floats = [0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 1 / 3, 2.0**53, 2.0**63, 2.0**64, 1e15, 1e16, 1e17, 9007199254740993.0,
              1e-4, 1e-5, 9.99e-5, 1.2e-5, 123456.789e-12, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
              float("inf"), float("-inf"), float("nan")]
    for _ in range(3000):
        kind = rng.random()
        if kind < 0.4:
            floats.append(rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30))
        elif kind < 0.7:
            floats.append(round(rng.uniform(-1000, 1000), rng.randint(0, 6)))
        else:
            floats.append(rng.choice([-1, 1]) * rng.random() * 10 ** rng.randint(-320, 308))
    b = Box(floats=floats, anything={"nested": floats[:50], "ints": [0, -1, 2**70], "t": (1, 2.5)})
    c["json/floats"] = b.model_dump_json()
    c["json/floats_python"] = repr(b.model_dump()["floats"][:40])
    text = "".join(chr(i) for i in range(0, 0x80)) + "é中文😀\u2028\u2029\ufeff"
    c["json/strings"] = Box(floats=[], anything={text: [text]}, text=text).model_dump_json()
    c["json/strings_indent"] = Box(floats=[1], anything={"a": [], "b": {}, "c": [{}], "d": {"e": [1, {"f": None}]}},
                                   text="x").model_dump_json(indent=3)
    c["json/non_str_keys"] = Box(floats=[], anything={1: "a", 2.5: "b", None: "c", False: "d"}).model_dump_json()
    c["json/bytes_and_tuples"] = repr(
        Box(floats=[], anything={"b": b"raw", "t": (1,), "s": [()]}).model_dump(mode="json"))
    import datetime
    dates = {"d": datetime.date(2026, 1, 2), "dt": datetime.datetime(2026, 1, 2, 3, 4, 5, 6),
             "utc": datetime.datetime(2026, 1, 2, tzinfo=datetime.timezone.utc),
             "ist": datetime.datetime(2026, 1, 2, tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30)))}
    c["json/dates"] = Box(floats=[], anything=dates).model_dump_json()
    c.run("json/unserializable", lambda: Box(floats=[], anything=object()).model_dump_json()[:0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
