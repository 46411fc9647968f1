"""Grades one trial with a Claw-Eval checkout's own grader, as Claw-Eval's harness does.

clawrun runs this inside its WASI Python sandbox (with its own `pydantic` and `openai`
stand-ins on the path); the differential test runs the same file under a native CPython with
the real packages. Both read the trial's evidence in Claw-Eval's own formats:

    EVIDENCE/trace.jsonl         the trace (trace_start, message, tool_dispatch, audit_snapshot,
                                 media_load, trace_end events), read with the checkout's
                                 `claw_eval.trace.reader.load_trace`
    EVIDENCE/env_snapshot.json   the environment snapshot (`cmd:...`, `file:...`,
                                 `local_file:...` entries)

then load the task with `TaskDefinition.from_yaml`, the grader with `get_grader`, call it through
the harness's own `_grade_with_optional_params` and score it with `compute_task_score` /
`is_pass`. The result goes to OUT as JSON (graders print to stdout, so stdout is not used):

    {"status": "graded", "scores": {...}, "task_score": x, "passed": b, "judge_calls": [...]}
    {"status": "needs_judge", "reason": "..."}     the grader used a judge none was offered
    {"status": "error", "error": "Traceback ..."}   the grader (or the checkout) failed
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path


class JudgeNeeded(BaseException):
    """The grader reached for a judge and none is configured."""


class NoJudge:
    """What the grader gets as `judge` when no judge model is configured.

    Claw-Eval passes `None` there and many graders then crash (or retry for minutes); a grader
    that tests `judge is None` would silently score without its judge part. This stand-in
    raises `JudgeNeeded` (a BaseException, past every `except Exception`) the moment the
    grader uses it, so such a trial is reported as needing a judge. Like `None`, it has no
    call log (`hasattr(judge, "get_call_log")` is false).
    """

    def __getattr__(self, name: str):
        if name in ("reset_call_log", "get_call_log") or name.startswith("__"):
            raise AttributeError(name)
        raise JudgeNeeded(f"the grader uses judge.{name}")

    def __bool__(self) -> bool:
        raise JudgeNeeded("the grader asks whether a judge is configured")


def _arguments(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="clawrun_grade")
    p.add_argument("--checkout", required=True, help="the Claw-Eval checkout (src/, tasks/)")
    p.add_argument("--task-yaml", required=True, help="the task's task.yaml")
    p.add_argument("--evidence", required=True, help="folder with trace.jsonl, env_snapshot.json")
    p.add_argument("--out", required=True, help="where the result JSON goes")
    p.add_argument("--judge-model", help="the judge model id; none: no judge")
    p.add_argument("--judge-base-url", default="clawrun://judge")
    p.add_argument("--judge-api-key", default="clawrun")
    return p.parse_args(argv)


def grade(args: argparse.Namespace) -> dict:
    checkout = Path(args.checkout)
    if str(checkout / "src") not in sys.path:
        sys.path.insert(0, str(checkout / "src"))

    from claw_eval.cli import _grade_with_optional_params, _resolve_tasks_dir
    from claw_eval.graders.registry import get_grader
    from claw_eval.models.scoring import compute_task_score, is_pass
    from claw_eval.models.task import TaskDefinition
    from claw_eval.trace.reader import load_trace

    task_yaml = Path(args.task_yaml)
    task = TaskDefinition.from_yaml(task_yaml)
    tasks_dir = _resolve_tasks_dir(task_yaml)
    evidence = Path(args.evidence)
    env_snapshot = json.loads((evidence / "env_snapshot.json").read_text(encoding="utf-8"))
    _start, messages, dispatches, media_events, _end, audit_data = load_trace(
        evidence / "trace.jsonl"
    )
    grader = get_grader(task.task_id, tasks_dir=tasks_dir, task_dir=task_yaml.parent)
    if args.judge_model:
        from claw_eval.graders.llm_judge import LLMJudge

        judge = LLMJudge(
            model_id=args.judge_model, api_key=args.judge_api_key, base_url=args.judge_base_url
        )
    else:
        judge = NoJudge()
    scores, judge_calls = _grade_with_optional_params(
        grader,
        messages,
        dispatches,
        task,
        audit_data=audit_data,
        judge=judge,
        media_events=media_events,
        env_snapshot=env_snapshot,
    )
    task_score = compute_task_score(scores)
    return {
        "status": "graded",
        "scores": scores.model_dump(mode="json"),
        "task_score": task_score,
        "passed": is_pass(task_score),
        "judge_calls": judge_calls,
    }


def run(argv: list[str]) -> dict:
    """Grades the trial `argv` names; the result (every failure included) as a dict."""
    args = _arguments(argv)
    try:
        return grade(args)
    except JudgeNeeded as e:
        return {"status": "needs_judge", "reason": str(e)}
    except BaseException as e:  # noqa: BLE001 - every failure is reported, none escapes
        if type(e).__name__ == "JudgeUnavailable":
            return {"status": "needs_judge", "reason": str(e)}
        return {"status": "error", "error": traceback.format_exc()}


def write(result: dict, path: str) -> None:
    """Writes `result` as the driver's result file."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False, sort_keys=True)


def main(argv: list[str]) -> int:
    write(run(argv), _arguments(argv).out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
