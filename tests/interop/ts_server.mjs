// The TypeScript SDK 2.x server in the setup its packages document for plain node:http: one
// server factory behind createMcpHandler (2026-07-28, with the stateless 2025-era fallback),
// adapted with toNodeHandler, behind the Host and Origin guards for a local server. One tool,
// echo, whose region argument is mirrored into Mcp-Param-Region. For the probe, which judges it.
//
//   node ts_server.mjs PORT_FILE   (listens on 127.0.0.1, a free port, written to PORT_FILE)
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'probe-target', version: '1.0.0' });
    server.registerTool(
        'echo',
        {
            description: 'Says the text back.',
            inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), text: z.string().optional() })
        },
        async ({ region, text }) => ({ content: [{ type: 'text', text: `${region}: ${text ?? ''}` }] })
    );
    return server;
});
const serve = toNodeHandler(handler);
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const http = createServer(async (req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    await serve(req, res);
});
http.listen(0, '127.0.0.1', () => writeFileSync(process.argv[2], String(http.address().port)));
