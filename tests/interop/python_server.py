"""The Python SDK server (`mcp` 2.x) in its documented minimal setup: an MCPServer run with the
streamable-http transport (uvicorn), on 127.0.0.1. One tool, echo, whose region argument is
mirrored into Mcp-Param-Region. For the probe, which judges it.

    python python_server.py PORT_FILE   (a free port, written to PORT_FILE once uvicorn listens on it)
"""
import socket
import sys
import threading
import time
from typing import Annotated

from pydantic import Field

from mcp.server.mcpserver import MCPServer

server = MCPServer("probe-target")


@server.tool()
def echo(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], text: str = "") -> str:
    """Says the text back."""
    return f"{region}: {text}"


def announce(port, path):
    """Writes the port once uvicorn accepts connections on it, so a reader of PORT_FILE never
    connects before the server listens."""
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.02)
    with open(path, "w") as f:
        f.write(str(port))


def main():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    threading.Thread(target=announce, args=(port, sys.argv[1]), daemon=True).start()
    server.run(transport="streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
