"""The Python SDK server (`mcp` 2.x) in its documented minimal setup: an MCPServer run with the
streamable-http transport (uvicorn), on 127.0.0.1. One tool, echo, whose region argument is
mirrored into Mcp-Param-Region. For the probe, which judges it.

    python python_server.py PORT_FILE   (a free port, written to PORT_FILE once it is bound)
"""
import socket
import sys
from typing import Annotated

from pydantic import Field

from mcp.server.mcpserver import MCPServer

server = MCPServer("probe-target")


@server.tool()
def echo(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], text: str = "") -> str:
    """Says the text back."""
    return f"{region}: {text}"


def main():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    with open(sys.argv[1], "w") as f:
        f.write(str(port))
    server.run(transport="streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
