"""The verdict of the official conformance suite's run against `serve`, from its own results.

The suite (`conformance server --requirements 2025-11-25 -o DIR`) writes one
DIR/server-<scenario>-<time>/
checks.json per scenario it ran: a list of checks, each with a status SUCCESS, FAILURE, WARNING,
INFO or SKIPPED. Its printed summary counts only SUCCESS and FAILURE, so a scenario whose checks
are all warnings or infos shows as "passed" with 0 checks; its baseline option, conversely,
counts that as a failure. This script judges each scenario itself:

  not run   no SUCCESS and no FAILURE check (0 checks judged; warnings and infos only);
  failed    otherwise, any FAILURE or WARNING check;
  passed    otherwise (at least one SUCCESS, no FAILURE, no WARNING).

and compares with a baseline (conformance-baseline.yml for 2025-11-25,
conformance-baseline-2026-07-28.yml for 2026-07-28), whose three lists name every scenario of the
pinned suite exactly once: `required` (must pass), `expected_failures` (must fail) and `not_run`
(must not run). An optional fourth list, `excused_checks`, names single checks (`scenario
check-id`) that fail for a reason the baseline states; a scenario is judged without them, and an
excused check that no longer fails (or is not reported) is itself unexpected, so the baseline
never excuses more than what fails. An optional fifth list, `required_checks`, names single checks
(`scenario check-id`) that must be reported and be SUCCESS, every time they are reported: a
scenario's pass could otherwise hide a check the suite skipped or did not run. The verdict is
FAIL when any scenario's outcome differs from its list (a listed expected failure or not-run
scenario that really passes fails the run, and so does one that changes from failing to not
running or back), when a result names a scenario no list has, when a listed scenario has no
result, when the number of results differs from the number of scenarios the suite announced,
when a required check is missing or not SUCCESS (or is excused as well), or when the suite exited
with anything but 0 or 1 (1 is its answer to any failed check). It prints one line per scenario
(and per required check) and, last, the verdict with the counts it judged by, e.g.
  conformance: 5 passed as required, 26 expected failures, 1 not run (0 checks), 0 unexpected: verdict PASS

Usage: python3 conformance_verdict.py RESULTS_DIR BASELINE SUITE_OUTPUT SUITE_EXIT_CODE
The revision is read from the suite's first line ("Running requirements REVISION (N scenarios)").
Exits 0 on PASS, 1 on FAIL.
"""

import json
import os
import re
import sys

LISTS = ("required", "expected_failures", "not_run")
EXCUSED = "excused_checks"
REQUIRED_CHECKS = "required_checks"
CHECK_LISTS = (EXCUSED, REQUIRED_CHECKS)
EXPECTED = {"required": "passed", "expected_failures": "failed", "not_run": "not run"}
RESULT_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")


def read_baseline(path):
    """The lists of the baseline: a strict subset of YAML (top-level keys, `  - name` items,
    `  - scenario check-id` items in the check lists, `#` comments); anything else is an error
    rather than a silent misreading."""
    lists, current = {EXCUSED: [], REQUIRED_CHECKS: []}, None
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].rstrip()
            if not line:
                continue
            key = re.fullmatch(r"([a-z_]+):", line)
            item = re.fullmatch(r"  - ([a-z0-9][a-z0-9-]*)", line)
            check = re.fullmatch(r"  - ([a-z0-9][a-z0-9-]*) ([a-z0-9][a-z0-9-]*)", line)
            check_list = any(current is lists[name] for name in CHECK_LISTS)
            if key and key.group(1) in LISTS + CHECK_LISTS and not lists.get(key.group(1)):
                current = lists[key.group(1)] = []
            elif item and current is not None and not check_list:
                current.append(item.group(1))
            elif check and check_list:
                current.append((check.group(1), check.group(2)))
            else:
                raise ValueError(f"{path}:{number}: not understood: {raw.rstrip()}")
    missing = [name for name in LISTS if name not in lists]
    if missing:
        raise ValueError(f"{path}: missing lists {missing}")
    return lists


def outcome(checks):
    statuses = [c.get("status") for c in checks]
    success, failure, warning = (statuses.count(s) for s in ("SUCCESS", "FAILURE", "WARNING"))
    if success + failure == 0:
        return "not run", success, failure, warning
    if failure or warning:
        return "failed", success, failure, warning
    return "passed", success, failure, warning


def main(results_dir, baseline_path, suite_output_path, suite_exit):
    problems = []
    baseline = read_baseline(baseline_path)
    listed = {}
    for name in LISTS:
        for scenario in baseline[name]:
            if scenario in listed:
                problems.append(f"{scenario} is listed twice ({listed[scenario]} and {name})")
            listed[scenario] = name

    with open(suite_output_path) as f:
        announced = re.search(
            r"^Running requirements \d{4}-\d{2}-\d{2} \((\d+) scenarios\)", f.read(), re.MULTILINE
        )
    if suite_exit not in ("0", "1"):
        problems.append(f"the suite exited {suite_exit} (0 or 1 expected)")
    if not announced:
        problems.append(
            "the suite did not announce its scenarios "
            "(no 'Running requirements REVISION (N scenarios)' line)"
        )

    results = {}
    for entry in sorted(os.listdir(results_dir)) if os.path.isdir(results_dir) else []:
        match = RESULT_DIR.match(entry)
        if not match:
            problems.append(f"unexpected entry in the results: {entry}")
            continue
        scenario = match.group("scenario")
        if scenario in results:
            problems.append(f"{scenario} has two results")
        with open(os.path.join(results_dir, entry, "checks.json")) as f:
            results[scenario] = json.load(f)
    if announced and int(announced.group(1)) != len(results):
        problems.append(
            f"the suite announced {announced.group(1)} scenarios but wrote {len(results)} results"
        )
    for scenario, check_id in set(baseline[REQUIRED_CHECKS]) & set(baseline[EXCUSED]):
        problems.append(f"{scenario} {check_id} is both a required and an excused check")
    for scenario, check_id in baseline[REQUIRED_CHECKS]:
        statuses = [c.get("status") for c in results.get(scenario, []) if c.get("id") == check_id]
        if not statuses or any(s != "SUCCESS" for s in statuses):
            problems.append(f"required check {scenario} {check_id} is not SUCCESS: {statuses}")
        else:
            print(f"  check passed        {scenario} {check_id}")
    for scenario, check_id in baseline[EXCUSED]:
        statuses = [c.get("status") for c in results.get(scenario, []) if c.get("id") == check_id]
        if not statuses or not all(s in ("FAILURE", "WARNING") for s in statuses):
            problems.append(f"excused check {scenario} {check_id} no longer fails: {statuses}")
        if scenario in results:
            results[scenario] = [c for c in results[scenario] if c.get("id") != check_id]

    counts = {name: 0 for name in LISTS}
    unexpected = 0
    for scenario in sorted(
        set(results) | set(listed), key=lambda s: (LISTS.index(listed[s]) if s in listed else 3, s)
    ):
        expected_list = listed.get(scenario)
        if scenario not in results:
            unexpected += 1
            print(f"  UNEXPECTED  {scenario}: listed under {expected_list} but the suite wrote no result")
            continue
        got, success, failure, warning = outcome(results[scenario])
        detail = f"{success} passed, {failure} failed, {warning} warnings"
        if expected_list is None:
            unexpected += 1
            print(f"  UNEXPECTED  {scenario}: {got} ({detail}) and in no list of the baseline")
        elif got != EXPECTED[expected_list]:
            unexpected += 1
            print(f"  UNEXPECTED  {scenario}: {got} ({detail}), but listed under {expected_list}")
        else:
            counts[expected_list] += 1
            label = {
                "required": "passed",
                "expected_failures": "failed (expected)",
                "not_run": "not run (expected)",
            }[expected_list]
            print(f"  {label:<19} {scenario} ({detail})")
            continue
        for check in results[scenario]:
            if check.get("status") in ("FAILURE", "WARNING"):
                print(
                    f"      {check.get('status')} {check.get('id')}: {str(check.get('errorMessage', ''))[:200]}"
                )
    for problem in problems:
        print(f"  PROBLEM     {problem}")
    verdict = "PASS" if unexpected == 0 and not problems else "FAIL"
    print(
        f"conformance: {counts['required']} passed as required, {counts['expected_failures']} expected failures, "
        f"{counts['not_run']} not run (0 checks), {unexpected + len(problems)} unexpected: verdict {verdict}"
    )
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
