#!/usr/bin/env python3
"""Reads callgrind output files and turns them into per-request figures; a helper of
tests/bench/instructions.sh.

    callgrind_costs.py summarize CALLGRIND_OUT LABEL N ROUND > one JSON line
    callgrind_costs.py report N1 N2 TOP SUMMARY.jsonl     (the tables and machine lines)

`summarize` parses one callgrind output file (one process, all threads together, event Ir) and
prints one JSON object: the total Ir, the SHA-256 Ir, the call counts of the C allocator's entry
points, and every function's exclusive (self) and inclusive Ir.

- SHA-256 is the inclusive cost of the sha2 crate's compression functions taken as one set (every
  function named `sha2::sha256::compress256` or `sha2::sha256::...::compress`): their own
  instructions plus everything they call outside the set (the CPU-feature check included), each
  instruction counted once. The hashing around them (buffering, padding, `Digest` glue) is not in
  it. valgrind hides the CPU's SHA extensions, so sha2 takes its software path here, as it does
  on a CPU without them.
- mallocs are the calls to `malloc`, `calloc`, `posix_memalign`, `aligned_alloc` and `memalign`
  (every new block the Rust System allocator asks for), from anywhere in the process; `realloc`
  and `free` calls are counted apart.
- A function's inclusive cost is its self cost plus the cost of its calls to other functions
  (calls to itself are left out, their cost is already in its self cost). Under mutual recursion
  (f calls g calls f) a cost can be counted twice, as in callgrind_annotate; none of the routes
  measured here recurse more than a level or two.

With instruction positions in the file (--dump-instr=yes --compress-pos=no), `summarize` also
keeps, for each 64-byte line of code run at least once every four operations, the run count of its
most run instruction.

`report` reads the JSON lines (each with label SERVER/ROUTE, count N and round R), takes for each
label and round the difference between the N2 run and the N1 run divided by N2-N1 (start-up,
warm-up and shut-down cancel out), and prints the medians over rounds: one table row and one
INSTR line per label, the RATIO line of this server's ping to raw-limit's, the code on every
operation's path (lines of code run at least once an operation by that difference, and their
4 KiB pages; a table and one LINES line per label), where the instructions go by group, and the
TOP costliest functions of this server's ping.

What it does not do: no cache or branch simulation, no kernel instructions (callgrind sees user
space only), no timing.
"""

import json
import re
import statistics
import sys

ALLOCS = ("malloc", "calloc", "posix_memalign", "aligned_alloc", "memalign")
OTHERS = ("realloc", "free")
SHA = re.compile(r"^sha2::sha256::(compress256|.*::compress)$")
# Where the instructions go, each group taken as one set like SHA-256 above (inclusive: its callees
# count in it, so the groups overlap, e.g. the allocations made while decoding JSON are in both).
GROUPS = [
    ("SHA-256 compression", SHA),
    ("allocator (malloc, free, realloc + Rust shims)", re.compile(
        r"^(malloc|calloc|realloc|free|cfree|_int_malloc|_int_free|_int_realloc|malloc_consolidate|"
        r"sysmalloc|unlink_chunk.*|tcache_.*|posix_memalign|aligned_alloc|memalign|_mid_memalign|"
        r"(__rustc::)?__r(ust|dl)_(alloc|dealloc|realloc|alloc_zeroed))$")),
    ("memcpy/memmove/memset/memcmp/memchr", re.compile(r"^__(mem|str)\w*$")),
    ("UTF-8 validation (core::str from_utf8)", re.compile(r"^core::str::(converts::from_utf8|validations::.*)$")),
    ("SipHash (std HashMap hashing)", re.compile(r"(^core::hash::BuildHasher::hash_one$|core::hash::sip::|DefaultHasher)")),
    ("BTreeMap operations", re.compile(r"^alloc::collections::btree::")),
    ("HTTP request parsing (http::request, incl. fields)", re.compile(r"^loopback_mcp_http::http::request::")),
    ("header field scanning (http::fields)", re.compile(r"^loopback_mcp_http::http::fields::")),
    ("media types (http::media: Accept, Content-Type)", re.compile(r"^loopback_mcp_http::http::media::")),
    ("JSON decoding (json::decode)", re.compile(r"^loopback_mcp_http::json::decode::")),
    ("JSON encoding (json::encode)", re.compile(r"^loopback_mcp_http::json::encode::")),
    ("token check (auth::)", re.compile(r"^loopback_mcp_http::auth::")),
    ("session table (mcp::session)", re.compile(r"^loopback_mcp_http::mcp::session::")),
    ("response writing (http::writer, the server's serializer)", re.compile(
        r"^loopback_mcp_http::(http::writer::|server::connection::Answers::serialize|endpoint::reply::Reply::serialize)")),
]


def parse(path):
    """Returns (total, self_cost by function, calls: {(caller, callee): [count, inclusive]},
    lines: {"OBJECT LINE": (executions, function)}). `lines` is filled when the file has
    instruction positions (callgrind's --dump-instr=yes with --compress-pos=no): for each 64-byte
    line of code, the execution count of its most executed instruction and that instruction's
    function."""
    names = {}  # compressed id -> name, for functions (fn= and cfn= share one table)
    objects = {}  # the same, for objects (ob= and cob=)
    self_cost = {}
    calls = {}
    lines = {}
    total = None
    current = None
    current_object = None
    by_instruction = False
    positions = 1  # columns before the cost on a cost line (`positions: line` by default)
    pending_call = None  # (callee, count) after a calls= line: the next cost line is its cost

    def compressed(spec, table):
        spec = spec.strip()
        m = re.match(r"^\((\d+)\)(?:\s+(.*))?$", spec)
        if not m:
            return spec
        if m.group(2) is not None:
            table[m.group(1)] = m.group(2)
        return table[m.group(1)]

    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line or line == "\n":
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                cost = int(parts[positions]) if len(parts) > positions else 0
                if pending_call is not None:
                    callee, count = pending_call
                    entry = calls.setdefault((current, callee), [0, 0])
                    entry[0] += count
                    entry[1] += cost
                    pending_call = None
                else:
                    self_cost[current] = self_cost.get(current, 0) + cost
                    if by_instruction and cost:
                        key = f"{current_object} {int(parts[0], 16) >> 6:x}"
                        if cost > lines.get(key, (0, None))[0]:
                            lines[key] = (cost, current)
            elif line.startswith("fn="):
                current = compressed(line[3:], names)
                self_cost.setdefault(current, 0)
            elif line.startswith("ob="):
                current_object = compressed(line[3:], objects)
            elif line.startswith("cob="):
                compressed(line[4:], objects)
            elif line.startswith("cfn="):
                callee = compressed(line[4:], names)
            elif line.startswith("calls="):
                pending_call = (callee, int(line[6:].split()[0]))
            elif line.startswith("totals:") or line.startswith("summary:"):
                total = int(line.split(":", 1)[1].split()[0])
            elif line.startswith("events:") and line.split(":", 1)[1].split() != ["Ir"]:
                sys.exit(f"{path}: expected the single event Ir, got {line.strip()}")
            elif line.startswith("positions:"):
                kinds = line.split(":", 1)[1].split()
                positions = len(kinds)
                by_instruction = kinds[0] == "instr"
    if total is None:
        sys.exit(f"{path}: no totals line (did callgrind finish writing it?)")
    if sum(self_cost.values()) != total:
        sys.exit(f"{path}: self costs add up to {sum(self_cost.values())}, totals says {total}")
    return total, self_cost, calls, lines


def set_inclusive(members, self_cost, calls):
    """Self cost of the set plus its calls to functions outside it."""
    own = sum(self_cost.get(f, 0) for f in members)
    out = sum(cost for (caller, callee), (_, cost) in calls.items() if caller in members and callee not in members)
    return own + out


def summarize(path, label, count, round_):
    total, self_cost, calls, lines = parse(path)
    inclusive = dict(self_cost)
    for (caller, callee), (_, cost) in calls.items():
        if caller != callee:
            inclusive[caller] = inclusive.get(caller, 0) + cost
    called = {}
    for (_, callee), (n, _) in calls.items():
        called[callee] = called.get(callee, 0) + n
    sha_set = {f for f in self_cost if f and SHA.match(f)}
    server, _, route = label.partition("/")
    return {
        "label": label, "server": server, "route": route, "count": count, "round": round_,
        "ir": total,
        "sha256_ir": set_inclusive(sha_set, self_cost, calls),
        "sha256_functions": sorted(sha_set),
        "mallocs": sum(called.get(f, 0) for f in ALLOCS),
        "reallocs": called.get("realloc", 0),
        "frees": called.get("free", 0),
        "groups": {name: set_inclusive({f for f in self_cost if f and rx.search(f)}, self_cost, calls)
                   for name, rx in GROUPS},
        # Only lines run at least once every four operations: those on every operation's path
        # (see `footprint`) are among them in both runs, and the file stays small.
        "code_lines": {k: v for k, (v, _) in lines.items() if 4 * v >= count},
        "code_line_functions": {k: f for k, (v, f) in lines.items() if 4 * v >= count},
        "self": {f: v for f, v in self_cost.items() if v},
        "inclusive": {f: v for f, v in inclusive.items() if v},
    }


def report(n1, n2, top, path):
    runs = [json.loads(line) for line in open(path) if line.strip()]
    by = {}
    for r in runs:
        by.setdefault(r["label"], {}).setdefault(r["round"], {})[r["count"]] = r
    span = n2 - n1

    def per_request(label, get):
        """Median over rounds of (value at N2 - value at N1) / (N2 - N1)."""
        values = [(get(pair[n2]) - get(pair[n1])) / span for pair in by[label].values() if n1 in pair and n2 in pair]
        return statistics.median(values), values

    rows = {}
    for label in by:
        row = {}
        for key in ("ir", "sha256_ir", "mallocs", "reallocs", "frees"):
            row[key], row[key + "_rounds"] = per_request(label, lambda r, k=key: r[k])
        row["ir_no_sha"], row["ir_no_sha_rounds"] = per_request(label, lambda r: r["ir"] - r["sha256_ir"])
        rows[label] = row
    unit = {
        "ping": "request",
        "resources": "request",
        "initialize": "operation (initialize + DELETE)",
        "poll": "request (GET poll)",
        "reconnect": "operation (tools/call + resuming GET)",
        "unauthorized": "request (401, its own connection)",
    }
    print(f"\nInstructions per request (callgrind Ir, user space, all threads), (run at N={n2}) - (run at N={n1}),"
          f" divided by {span}; median of {len(next(iter(by.values())))} rounds:")
    print("| server | route | per | Ir | SHA-256 Ir | Ir without SHA-256 | mallocs | reallocs | frees | Ir range over rounds |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, row in rows.items():
        server, _, route = label.partition("/")
        spread = f"{min(row['ir_rounds']):,.0f}–{max(row['ir_rounds']):,.0f}"
        print(f"| {server} | {route} | {unit.get(route, 'request')} | {row['ir']:,.0f} | {row['sha256_ir']:,.0f} | "
              f"{row['ir_no_sha']:,.0f} | {row['mallocs']:.2f} | {row['reallocs']:.2f} | {row['frees']:.2f} | {spread} |")
    print()
    for label, row in rows.items():
        server, _, route = label.partition("/")
        print(f"INSTR server={server} route={route} ir_per_req={row['ir']:.0f} sha256_ir_per_req={row['sha256_ir']:.0f} "
              f"ir_no_sha_per_req={row['ir_no_sha']:.0f} mallocs_per_req={row['mallocs']:.2f} "
              f"reallocs_per_req={row['reallocs']:.2f} frees_per_req={row['frees']:.2f}")
    ours, raw = rows.get("loopback-mcp-http/ping"), rows.get("raw-limit/ping")
    if ours and raw:
        print(f"RATIO ping ours/raw={ours['ir'] / raw['ir']:.2f} ours_no_sha/raw={ours['ir_no_sha'] / raw['ir_no_sha']:.2f} "
              f"mallocs_ours/raw={ours['mallocs'] / max(raw['mallocs'], 1e-9):.2f}")
    footprint(rows, by, n1, n2, top)
    print("\nWhere the instructions go, Ir per request by group (inclusive of callees, so groups overlap):")
    print("| group | " + " | ".join(rows) + " |")
    print("|---|" + "---|" * len(rows))
    for name, _ in GROUPS:
        cells = []
        for label in rows:
            v, _ = per_request(label, lambda r, g=name: r["groups"].get(g, 0))
            cells.append(f"{v:,.0f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    if top > 0 and "loopback-mcp-http/ping" in by:
        label = "loopback-mcp-http/ping"
        for kind in ("inclusive", "self"):
            names = set()
            for pair in by[label].values():
                for r in pair.values():
                    names.update(r[kind])
            cost = {}
            for name in names:
                cost[name], _ = per_request(label, lambda r, k=kind, f=name: r[k].get(f, 0))
            total = rows[label]["ir"]
            # Thread start-up frames and the worker loop hold everything: left out of the list.
            wrappers = {n for n, v in cost.items() if kind == "inclusive" and v >= 0.99 * total}
            best = sorted(((n, v) for n, v in cost.items() if n not in wrappers), key=lambda kv: -kv[1])[:top]
            title = "inclusive (self + callees)" if kind == "inclusive" else "exclusive (self)"
            print(f"\nloopback-mcp-http ping: top {top} functions by {title} Ir per request (same difference method)"
                  + (f"; left out, as they hold ~all of it: {', '.join(sorted(f'`{w}`' for w in wrappers))}" if wrappers else "") + ":")
            print("| Ir per ping | % of all | function |")
            print("|---|---|---|")
            for name, v in best:
                print(f"| {v:,.0f} | {100 * v / total:.1f} | `{name}` |")


def hot_lines(pair, n1, n2):
    """The lines of code holding an instruction run at least once an operation, by the difference
    of the N2 and N1 runs."""
    before, after = pair[n1]["code_lines"], pair[n2]["code_lines"]
    return [k for k, v in after.items() if (v - before.get(k, 0)) / (n2 - n1) >= 0.99]


def footprint(rows, by, n1, n2, top):
    """The code on every operation's path: 64-byte lines of code holding an instruction run at
    least once an operation ((runs at N2 - runs at N1) / (N2 - N1) >= 0.99), and the 4 KiB
    pages they lie on; medians over rounds. Then the TOP functions of this server's ping by the
    lines of it that the ping runs. Nothing when the files have no instruction positions."""
    counted = {}
    for label in rows:
        rounds = []
        for pair in by[label].values():
            if n1 not in pair or n2 not in pair or not pair[n2].get("code_lines"):
                continue
            hot = hot_lines(pair, n1, n2)
            # The server's own binary, not a shared library (libc, the loader).
            own = sum(1 for k in hot if ".so" not in k.rsplit(" ", 1)[0].rsplit("/", 1)[-1])
            pages = {(k.rsplit(" ", 1)[0], int(k.rsplit(" ", 1)[1], 16) >> 6) for k in hot}
            rounds.append((len(hot), own, len(pages)))
        if rounds:
            counted[label] = [statistics.median(r[i] for r in rounds) for i in range(3)]
    if not counted:
        return
    print("\nCode on every operation's path: 64-byte lines of code holding an instruction run at least"
          " once an operation, and the 4 KiB pages they lie on (median of the rounds):")
    print("| server | route | code lines | in the server's binary | in shared libraries | 4 KiB pages |")
    print("|---|---|---|---|---|---|")
    for label, (lines, own, pages) in counted.items():
        server, _, route = label.partition("/")
        print(f"| {server} | {route} | {lines:.0f} | {own:.0f} | {lines - own:.0f} | {pages:.0f} |")
    print()
    for label, (lines, _, pages) in counted.items():
        server, _, route = label.partition("/")
        print(f"LINES server={server} route={route} code_lines={lines:.0f} code_pages={pages:.0f}")
    ping = [p for p in by.get("loopback-mcp-http/ping", {}).values() if n1 in p and n2 in p]
    if top > 0 and ping:
        # The lines are the same in every round: the first one's.
        functions = pair_functions(ping[0], n1, n2)
        print(f"\nloopback-mcp-http ping: top {top} functions by the lines of their code a ping runs"
              " (each line counted for the function of its most run instruction):")
        print("| lines | function |")
        print("|---|---|")
        for name, lines in sorted(functions.items(), key=lambda kv: -kv[1])[:top]:
            print(f"| {lines} | `{name}` |")


def pair_functions(pair, n1, n2):
    """How many of the lines on every operation's path each function owns."""
    owners = pair[n2]["code_line_functions"]
    counts = {}
    for k in hot_lines(pair, n1, n2):
        counts[owners[k]] = counts.get(owners[k], 0) + 1
    return counts


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "summarize":
        print(json.dumps(summarize(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))))
    elif len(sys.argv) == 6 and sys.argv[1] == "report":
        report(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
