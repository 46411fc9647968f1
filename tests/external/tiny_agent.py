"""A small agent program of the kind users write with an SDK, run by `clawrun run --agent
cmd:'python tiny_agent.py'`: OpenAI Chat Completions (streamed) through OPENAI_BASE_URL, the
task's tools through the MCP Python SDK at CLAWRUN_MCP_URL. It retries a failed model request
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


def ask(messages, tools):
    body = json.dumps(
        {"model": os.environ["CLAWRUN_MODEL"], "messages": messages, "tools": tools, "stream": True}
    ).encode()
    for attempt in range(4):
        request = urllib.request.Request(
            os.environ["OPENAI_BASE_URL"] + "/chat/completions",
            data=body,
            headers={
                "content-type": "application/json",
                "authorization": "Bearer " + os.environ["OPENAI_API_KEY"],
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return parse_stream(response.read().decode())
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
