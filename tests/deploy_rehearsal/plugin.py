"""The deploy rehearsal as part of the test run: record on every worker, judge once at the end.

Each test process records the calls of its own local stack (:class:`Recorder`, installed on the
shared botocore session before any client is made). With pytest-xdist, a worker hands its
recording to the controller in ``workeroutput`` when it finishes (the way pytest-cov gathers
coverage), and the controller judges all of them after the last test; without xdist the one
process judges its own. A finding fails the run like a failed test, and the summary lists
them. Recording costs the run a few microseconds per AWS call; judging it, a few seconds.

The unused-grant check needs every call the suite makes, so it runs only when the whole
end-to-end suite was selected and passed; denied calls are checked on any run that made calls.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from deploy_rehearsal.recording import Recorder, in_order, merge

if TYPE_CHECKING:
    from deploy_rehearsal.check import Verdict

E2E_DIR = Path(__file__).resolve().parents[1] / "e2e"
OUTPUT_KEY = "deploy_rehearsal"
RECORDING_VARIABLE = "DEPLOY_REHEARSAL_RECORDING"
"""Set to a path, the run writes the requests it judged there (JSON lines)."""


class RehearsalPlugin:
    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder
        self._outputs: list[dict[str, Any]] = []
        self._deselected = 0
        self._e2e_selected: set[Path] = set()
        self._report: list[str] = []
        self._lost: list[str] = []  # test workers that finished without handing a recording over

    # --- every process: what was selected -----------------------------------------------

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self._deselected += len(items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._e2e_selected = {Path(str(item.path)) for item in session.items if E2E_DIR in item.path.parents}

    def _complete(self, config: pytest.Config) -> bool:
        """Whether the run selected the whole end-to-end suite."""
        on_disk = set(E2E_DIR.glob("test_*.py"))
        by_node_id = any("::" in str(arg) for arg in config.args)
        return not self._deselected and not by_node_id and self._e2e_selected == on_disk

    def _output(self, session: pytest.Session) -> dict[str, Any]:
        return {
            "requests": self._recorder.snapshot(),
            "unattributed": dict(self._recorder.unattributed),
            "complete": self._complete(session.config),
        }

    # --- a worker: hand the recording over ------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[OUTPUT_KEY] = self._output(session)

    @pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: absent with -p no:xdist
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {}).get(OUTPUT_KEY)
        if output is not None:
            self._outputs.append(output)
        else:  # its session's end failed before handing it over: its calls would go unjudged
            self._lost.append(str(getattr(node, "workerinput", {}).get("workerid", node)))

    # --- the controller (or the only process): judge --------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        result = yield
        if hasattr(session.config, "workerinput") or session.config.option.collectonly:
            return result
        if self._lost:  # its calls went unjudged, and the grants only it used would read as unused
            self._report = [f"FAILED: no recording from test worker(s) {', '.join(self._lost)}"]
            session.testsfailed += 1
            return result
        outputs = self._outputs or [self._output(session)]
        requests = merge(output["requests"] for output in outputs)
        if not requests:
            return result  # no end-to-end test ran: nothing to judge
        kept = os.environ.get(RECORDING_VARIABLE)
        if kept:  # to read what each principal called: one request per line
            lines = [json.dumps(request.to_json(), sort_keys=True) for request in in_order(requests)]
            Path(kept).write_text("\n".join(lines) + "\n", encoding="utf-8")
        complete = all(output["complete"] for output in outputs) and not session.testsfailed
        # Imported here: the SAM translator and cfn-lint are worth loading only to judge.
        from deploy_rehearsal.check import check
        from deploy_rehearsal.deployment import Deployment
        from deploy_rehearsal.simulator import EvaluatorMissing

        try:
            verdict = check(requests, Deployment(), complete=complete)
        except EvaluatorMissing as error:
            self._report = [f"FAILED: {error}"]
            session.testsfailed += 1
            return result
        unattributed: Counter[str] = sum((Counter(o["unattributed"]) for o in outputs), Counter())
        self._report = _report(verdict, complete, len({r.principal for r in requests}), unattributed)
        if len(outputs) > 1:  # which worker recorded what: a worker that recorded little stands out
            counts = ", ".join(str(len(output["requests"])) for output in outputs)
            self._report.insert(1, f"recorded per test worker: {counts}")
        if verdict.findings:
            session.testsfailed += 1
        return result

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self._report:
            terminalreporter.section("deploy rehearsal (tests/deploy_rehearsal)")
            for line in self._report:
                terminalreporter.write_line(line)


def _report(verdict: Verdict, complete: bool, principals: int, unattributed: Counter[str]) -> list[str]:
    lines = [
        f"{verdict.requests} distinct IAM requests of {principals} principals evaluated against their roles"
    ]
    if not complete:
        lines.append("grants not checked for use: the whole end-to-end suite did not run and pass")
    elif verdict.explained:
        lines.append(
            f"{len(verdict.explained)} grants unused by the suite, each with its reason in template.yaml"
        )
    for title, findings in (
        ("denied or not evaluable", verdict.denied),
        ("named by no variable the template sets for the caller", verdict.unnamed),
        ("granted, never used, no comment saying why", verdict.unused),
    ):
        if findings:
            lines.append(f"FAILED: {len(findings)} {title}:")
            lines += [f"  {finding}" for finding in findings]
    tests = sum(count for call, count in unattributed.items() if call.endswith(" from the tests"))
    lines.append(f"calls of the tests themselves, not judged: {tests}")
    strays = {call: count for call, count in unattributed.items() if not call.endswith(" from the tests")}
    if strays:
        lines.append(
            "calls of no principal off the tests' thread, not judged (the simulator's, or a lost context):"
        )
        lines += [f"  {count} x {call}" for call, count in sorted(strays.items())]
    return lines
