"""Reads a `clawrun export` with the real consumers and prints what they read, as JSON.

    consumers.py inspect FILE.eval   read_eval_log (every sample) and `inspect log dump`
    consumers.py atif DIR            Harbor's TrajectoryValidator and Trajectory model
    consumers.py otel FILE.json      opentelemetry-proto's ExportTraceServiceRequest

Each prints {"trials": [{"task_id", "trial", "score", "passed", "tool_calls": [ids],
"tool_results": [ids]}], ...}: the test compares it with the run's journal and traces.
"""

import base64
import json
import subprocess
import sys


def inspect(path):
    from inspect_ai.log import read_eval_log

    log = read_eval_log(path)
    header = read_eval_log(path, header_only=True)
    trials = []
    for s in log.samples:
        score = s.scores.get("clawrun") if s.scores else None
        trials.append({
            "task_id": s.id,
            "trial": s.epoch - 1,
            "score": score.value["score"] if score else None,
            "passed": score.value["passed"] if score else None,
            "items": len(score.metadata["items"]) if score else None,
            "tool_calls": [tc.id for m in s.messages if m.role == "assistant" for tc in (m.tool_calls or [])],
            "tool_results": [m.tool_call_id for m in s.messages if m.role == "tool"],
            "tool_events": [e.id for e in s.events if e.event == "tool"],
            # Each model event's input, resolved by Inspect from the sample's events_data:
            # how many messages, and whether they are the conversation's first ones.
            "model_inputs": [[len(e.input), [m.id for m in e.input] == [m.id for m in s.messages[:len(e.input)]]]
                             for e in s.events if e.event == "model"],
            "faults": [e.data["kind"] for e in s.events if e.event == "info" and e.source == "clawrun/fault"],
            "input_tokens": sum(u.input_tokens + (u.input_tokens_cache_read or 0) for u in s.model_usage.values()),
            "error": s.error.message if s.error else None,
        })
    dump = subprocess.run([sys.executable, "-m", "inspect_ai", "log", "dump", path],
                          capture_output=True, text=True, check=True)
    dumped = json.loads(dump.stdout)
    return {
        "status": log.status,
        "model": log.eval.model,
        "model_base_url": log.eval.model_base_url,
        "generate_config": log.eval.model_generate_config.model_dump(exclude_none=True),
        "epochs": log.eval.config.epochs,
        "dataset_samples": log.eval.dataset.samples,
        "total_samples": header.results.total_samples,
        "header_samples": header.samples,
        "dump_samples": len(dumped["samples"]),
        "trials": trials,
    }


def atif(folder):
    import os
    from harbor.models.trajectories import Trajectory
    from harbor.utils.trajectory_validator import TrajectoryValidator

    index = json.load(open(os.path.join(folder, "index.json")))
    trials = []
    for entry in index["trajectories"]:
        path = os.path.join(folder, entry["trajectory"])
        validator = TrajectoryValidator()
        if not validator.validate(path):
            raise SystemExit(f"{path}: {validator.get_errors()}")
        t = Trajectory(**json.load(open(path)))
        verdict = t.extra["verdict"]
        trials.append({
            "task_id": t.extra["task_id"],
            "trial": t.extra["trial"],
            "score": verdict["score"] if verdict else None,
            "passed": verdict["passed"] if verdict else None,
            "items": len(verdict["items"]) if verdict else None,
            "tool_calls": [c.tool_call_id for s in t.steps for c in (s.tool_calls or [])],
            "tool_results": [r.source_call_id for s in t.steps if s.observation for r in s.observation.results],
            "faults": [f["kind"] for f in t.extra["faults"]],
            "input_tokens": t.final_metrics.total_prompt_tokens,
            "error": t.extra["error"],
        })
    return {"trials": trials}


def otel(path):
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    doc = json.load(open(path))

    # OTLP/JSON writes trace and span ids as hex where protobuf's JSON mapping has base64.
    def ids_to_base64(o):
        if isinstance(o, dict):
            for k in ("traceId", "spanId", "parentSpanId"):
                if k in o:
                    o[k] = base64.b64encode(bytes.fromhex(o[k])).decode()
            for v in o.values():
                ids_to_base64(v)
        elif isinstance(o, list):
            for v in o:
                ids_to_base64(v)

    ids_to_base64(doc)
    request = json_format.Parse(json.dumps(doc), ExportTraceServiceRequest())
    spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]

    def attrs(span):
        return {a.key: json_format.MessageToDict(a.value) for a in span.attributes}

    by_id = {s.span_id: s for s in spans}
    roots = {}
    for s in spans:
        assert len(s.trace_id) == 16 and len(s.span_id) == 8, s.name
        assert s.end_time_unix_nano >= s.start_time_unix_nano, s.name
        if s.parent_span_id:
            parent = by_id[s.parent_span_id]
            assert parent.trace_id == s.trace_id, s.name
        else:
            roots[s.trace_id] = s
    trials = []
    for trace_id, root in roots.items():
        a = attrs(root)
        assert a["gen_ai.operation.name"]["stringValue"] == "invoke_agent"
        children = [s for s in spans if s.trace_id == trace_id and s.parent_span_id]
        tools = [attrs(s) for s in children if attrs(s)["gen_ai.operation.name"]["stringValue"] == "execute_tool"]
        chats = [attrs(s) for s in children if attrs(s)["gen_ai.operation.name"]["stringValue"] == "chat"]
        faults = [e for s in [root] + children for e in s.events if e.name == "clawrun.fault"]
        trials.append({
            "task_id": a["clawrun.task.id"]["stringValue"],
            "trial": int(a["clawrun.trial"]["intValue"]),
            "score": a["clawrun.score"]["doubleValue"] if "clawrun.score" in a else None,
            "passed": a["clawrun.passed"]["boolValue"] if "clawrun.passed" in a else None,
            "items": sum(1 for e in root.events if e.name == "clawrun.rubric_item") if "clawrun.score" in a else None,
            "tool_calls": [t["gen_ai.tool.call.id"]["stringValue"] for t in tools],
            "tool_results": [t["gen_ai.tool.call.id"]["stringValue"] for t in tools if "gen_ai.tool.call.result" in t],
            "chats": len(chats),
            "faults": [{x.key: x.value.string_value for x in e.attributes}["clawrun.fault.kind"] for e in faults],
            "input_tokens": int(a["gen_ai.usage.input_tokens"]["intValue"]),
            "error": root.status.message or None,
        })
    trials.sort(key=lambda t: (t["task_id"], t["trial"]))
    return {"spans": len(spans), "trials": trials}


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    print(json.dumps({"inspect": inspect, "atif": atif, "otel": otel}[kind](path)))
