"""A real MCP client (the official MCP Python SDK) playing a script against a clawrun trial.

    python mcp_client.py SCRIPT.json --stdio CMD [ARG...]
    python mcp_client.py SCRIPT.json --url http://127.0.0.1:PORT/mcp

SCRIPT: {"calls": [{"name": ..., "args": {...}}, ...], "answer": "...", "retries": N,
"finish": true}. Each call is retried up to N times while its result is an error (injected
faults). Prints one JSON document: the server's name, the tools listed (name, schema), every
attempt (name, is_error, text), and what `finish` answered.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


async def play(session, script):
    init = await session.initialize()
    listed = await session.list_tools()
    report = {
        "server": init.server_info.name,
        "instructions": init.instructions or "",
        "tools": [{"name": t.name, "schema": t.input_schema} for t in listed.tools],
        "attempts": [],
        "finish": None,
    }
    for call in script["calls"]:
        for _ in range(script.get("retries", 0) + 1):
            result = await session.call_tool(call["name"], call.get("args", {}))
            text = "".join(c.text for c in result.content if c.type == "text")
            report["attempts"].append(
                {"name": call["name"], "is_error": bool(result.is_error), "text": text}
            )
            if not result.is_error:
                break
    if script.get("finish", True):
        result = await session.call_tool("finish", {"answer": script["answer"]})
        report["finish"] = "".join(c.text for c in result.content if c.type == "text")
    return report


async def main():
    script = json.load(open(sys.argv[1]))
    if sys.argv[2] == "--url":
        async with streamable_http_client(sys.argv[3]) as (read, write):
            async with ClientSession(read, write) as session:
                report = await play(session, script)
    else:
        # The SDK passes only HOME, PATH and a few more to the server: hand on the rest.
        params = StdioServerParameters(
            command=sys.argv[3], args=sys.argv[4:], env=dict(os.environ), cwd=os.getcwd()
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                report = await play(session, script)
    print(json.dumps(report))


asyncio.run(main())
