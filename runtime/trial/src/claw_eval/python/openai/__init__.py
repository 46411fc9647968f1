"""clawrun's stand-in for the `openai` package in the grading sandbox.

Claw-Eval's graders reach their LLM judge through `claw_eval.graders.llm_judge.LLMJudge`, which
builds `openai.OpenAI(api_key=..., base_url=...)` and calls `client.chat.completions.create(...)`
(some graders call that client directly). The WASI sandbox has no network, so this module offers
exactly that surface and hands every call to clawrun's judge model on the host:

- the request (model, messages, parameters) is written as JSON to the spool folder
  `/run/clawrun/judge/NNNNNN.request.json` of the grading sandbox's own filesystem;
- the interpreter's host door (`_host.call`, the wheel's one custom import) is rung; clawrun
  answers the oldest unanswered request into `NNNNNN.response.json` before the call returns
  (the door cannot carry bytes across clawrun's component boundary, so it is only a doorbell);
- the answer comes back as a `ChatCompletion`-shaped object.

A host-side failure (no judge configured, the judge model failing after clawrun's own retries)
raises `JudgeUnavailable`, a `BaseException`: a grader's `except Exception` retry loop cannot
swallow it, so the trial is reported as needing a judge instead of being scored without one.
"""

from __future__ import annotations

import json
import os

__all__ = [
    "OpenAI",
    "OpenAIError",
    "APIError",
    "APIStatusError",
    "APIConnectionError",
    "APITimeoutError",
    "RateLimitError",
    "InternalServerError",
    "JudgeUnavailable",
]

SPOOL = "/run/clawrun/judge"


class JudgeUnavailable(BaseException):
    """clawrun could not answer a judge call: the trial needs a judge it does not have."""


class OpenAIError(Exception):
    """Base of the errors a client call raises (as in the real package)."""


class APIError(OpenAIError):
    """The judge answered with an error."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code


class APIStatusError(APIError):
    """An error status from the judge endpoint."""


class APIConnectionError(APIError):
    """The judge endpoint could not be reached."""


class APITimeoutError(APIConnectionError):
    """The judge endpoint did not answer in time."""


class RateLimitError(APIStatusError):
    """HTTP 429 from the judge endpoint."""


class InternalServerError(APIStatusError):
    """HTTP 5xx from the judge endpoint."""


class _Record:
    """An attribute bag that also answers `model_dump()` like the real response types."""

    def __init__(self, **fields) -> None:
        self.__dict__.update(fields)

    def model_dump(self) -> dict:
        def dump(v):
            if isinstance(v, _Record):
                return v.model_dump()
            if isinstance(v, list):
                return [dump(x) for x in v]
            return v

        return {k: dump(v) for k, v in self.__dict__.items()}

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{type(self).__name__}({inner})"


class ChatCompletionMessage(_Record):
    """`choices[i].message`: role, content."""


class Choice(_Record):
    """One choice: index, message, finish_reason."""


class CompletionUsage(_Record):
    """Token counts of one call."""


class ChatCompletion(_Record):
    """What `chat.completions.create` returns."""


_sequence = 0


def _exchange(request: dict) -> dict:
    """Writes `request` to the spool, rings the door, reads the answer."""
    global _sequence
    _sequence += 1
    os.makedirs(SPOOL, exist_ok=True)
    stem = os.path.join(SPOOL, f"{_sequence:06d}")
    with open(stem + ".request.json", "w", encoding="utf-8") as f:
        json.dump(request, f, ensure_ascii=False)
    try:
        import _host
    except ImportError as e:  # a CPython without the wheel's door
        raise JudgeUnavailable("no host door in this interpreter") from e
    try:
        _host.call(b"clawrun-judge")
    except ConnectionRefusedError as e:  # -1: nothing serves the door here
        raise JudgeUnavailable("no judge is offered to this sandbox") from e
    except OSError:
        pass  # the doorbell's answer: the frame went through the spool
    try:
        with open(stem + ".response.json", encoding="utf-8") as f:
            answer = json.load(f)
    except FileNotFoundError as e:
        raise JudgeUnavailable("the host left the judge call unanswered") from e
    if "unavailable" in answer:
        raise JudgeUnavailable(answer["unavailable"])
    return answer


class _Completions:
    def __init__(self, client: "OpenAI") -> None:
        self._client = client

    def create(self, *, model: str, messages: list, **params) -> ChatCompletion:
        """One chat completion from clawrun's judge model."""
        answer = _exchange({"model": model, "messages": messages, "params": params})
        usage = answer.get("usage") or {}
        prompt, completion = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
        return ChatCompletion(
            id=f"clawrun-judge-{_sequence}",
            object="chat.completion",
            model=model,
            choices=[
                Choice(
                    index=0,
                    message=ChatCompletionMessage(role="assistant", content=answer["content"]),
                    finish_reason="stop",
                )
            ],
            usage=CompletionUsage(
                prompt_tokens=prompt,
                completion_tokens=completion,
                total_tokens=prompt + completion,
            ),
        )


class _Chat:
    def __init__(self, client: "OpenAI") -> None:
        self.completions = _Completions(client)


class OpenAI:
    """A client whose every call goes to clawrun's judge model; `api_key` and `base_url` are
    kept for the grader to read and otherwise ignored."""

    def __init__(self, *, api_key: str | None = None, base_url: str | None = None, **_options) -> None:
        self.api_key = api_key
        self.base_url = base_url
        self.chat = _Chat(self)
