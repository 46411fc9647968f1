"""A small agent program of the kind users write with an SDK, run by `clawrun run --agent
cmd:'python tiny_agent.py'`: OpenAI Chat Completions (streamed) through OPENAI_BASE_URL, or
with `--anthropic` Anthropic Messages (streamed) through ANTHROPIC_BASE_URL; the task's tools
through the MCP Python SDK at CLAWRUN_MCP_URL. It retries a failed model request
(HTTP 429/5xx, a reset connection, an answer cut short) up to three times, and prints its final
answer.
"""

import asyncio
import json
import os
import sys
import urllib.error
import urllib.request

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def parse_stream(raw):
    """The assistant message of a streamed Chat Completions answer."""
    message = {"role": "assistant", "content": "", "tool_calls": []}
    done = False
    for line in raw.splitlines():
        if not line.startswith("data: "):
            continue
        data = line[len("data: "):]
        if data == "[DONE]":
            done = True
            continue
        chunk = json.loads(data)
        for choice in chunk.get("choices", []):
            delta = choice.get("delta", {})
            message["content"] += delta.get("content") or ""
            for call in delta.get("tool_calls", []):
                while len(message["tool_calls"]) <= call["index"]:
                    message["tool_calls"].append(
                        {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
                    )
                slot = message["tool_calls"][call["index"]]
                slot["id"] += call.get("id") or ""
                slot["function"]["name"] += call["function"].get("name") or ""
                slot["function"]["arguments"] += call["function"].get("arguments") or ""
    if not done:
        raise ValueError("the stream ended early")
    if not message["tool_calls"]:
        del message["tool_calls"]
    return message


ANTHROPIC = "--anthropic" in sys.argv


def parse_anthropic_stream(raw):
    """The assistant content blocks of a streamed Anthropic Messages answer."""
    blocks, partial, done = [], {}, False
    for line in raw.splitlines():
        if not line.startswith("data: "):
            continue
        event = json.loads(line[len("data: "):])
        kind = event["type"]
        if kind == "content_block_start":
            blocks.append(dict(event["content_block"]))
            partial[event["index"]] = ""
        elif kind == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "text_delta":
                blocks[event["index"]]["text"] += delta["text"]
            else:
                partial[event["index"]] += delta["partial_json"]
        elif kind == "content_block_stop":
            block = blocks[event["index"]]
            if block["type"] == "tool_use":
                block["input"] = json.loads(partial[event["index"]] or "{}")
        elif kind == "message_stop":
            done = True
    if not done:
        raise ValueError("the stream ended early")
    return {"role": "assistant", "content": blocks}


def ask(messages, tools):
    if ANTHROPIC:
        url = os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages"
        headers = {"x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01"}
        tools = [
            {"name": t["function"]["name"], "description": t["function"]["description"],
             "input_schema": t["function"]["parameters"]}
            for t in tools
        ]
        payload = {"max_tokens": 4096}
        parse = parse_anthropic_stream
    else:
        url = os.environ["OPENAI_BASE_URL"] + "/chat/completions"
        headers = {"authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}
        payload = {}
        parse = parse_stream
    payload.update(
        {"model": os.environ["CLAWRUN_MODEL"], "messages": messages, "tools": tools, "stream": True}
    )
    body = json.dumps(payload).encode()
    for attempt in range(4):
        request = urllib.request.Request(
            url, data=body, headers={"content-type": "application/json", **headers}
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return parse(response.read().decode())
        except urllib.error.HTTPError as e:
            print(f"model: HTTP {e.code}", file=sys.stderr)
            if e.code not in (429, 500, 502, 503, 504) or attempt == 3:
                raise
        except (ValueError, OSError) as e:
            print(f"model: {e}", file=sys.stderr)
            if attempt == 3:
                raise


async def main():
    async with streamable_http_client(os.environ["CLAWRUN_MCP_URL"]) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            tools = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description or "",
                        "parameters": t.input_schema,
                    },
                }
                for t in listed.tools
                if t.name != "finish"
            ]
            messages = [{"role": "user", "content": os.environ["CLAWRUN_PROMPT"]}]
            # A deliberately different program (tests of `clawrun replay`'s divergence report).
            skip_first = os.environ.get("TINY_AGENT_SKIP_FIRST_TOOL") == "1"
            for _ in range(50):
                message = ask(messages, tools)
                messages.append(message)
                if ANTHROPIC:
                    uses = [b for b in message["content"] if b["type"] == "tool_use"]
                    if not uses:
                        print("".join(b.get("text", "") for b in message["content"]))
                        return
                    results = []
                    for use in uses:
                        result = await session.call_tool(use["name"], use["input"])
                        text = "".join(c.text for c in result.content if c.type == "text")
                        results.append(
                            {"type": "tool_result", "tool_use_id": use["id"], "content": text}
                        )
                    messages.append({"role": "user", "content": results})
                    continue
                if not message.get("tool_calls"):
                    print(message["content"])
                    return
                for call in message["tool_calls"]:
                    if skip_first:
                        skip_first = False
                        messages.append({"role": "tool", "tool_call_id": call["id"], "content": ""})
                        continue
                    args = json.loads(call["function"]["arguments"] or "{}")
                    result = await session.call_tool(call["function"]["name"], args)
                    text = "".join(c.text for c in result.content if c.type == "text")
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})


asyncio.run(main())
