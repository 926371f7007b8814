"""LangGraph's checkpointer conformance suite, every capability, on a fresh repository each."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES
from langgraph.checkpoint.conformance.report import CapabilityReport
from support import init_repo

from langgraph.checkpoint.gitfabro import AsyncGitFabroSaver, GitFabroSaver


def run_suite(saver_class: type[GitFabroSaver], tmp_path: Path) -> CapabilityReport:
    """The whole suite against `saver_class`, one new repository per capability."""
    numbers = itertools.count()

    @checkpointer_test(name=saver_class.__name__)
    async def factory() -> AsyncGenerator[GitFabroSaver, None]:
        async with saver_class(init_repo(tmp_path / f"repo{next(numbers)}")) as saver:
            yield saver

    return asyncio.run(validate(factory))


def assert_full_conformance(report: CapabilityReport) -> None:
    report.print_report()
    for capability in sorted(ALL_CAPABILITIES, key=lambda c: c.value):
        result = report.results[capability.value]
        print(f"{capability.value}: {result.tests_passed} passed, {result.tests_failed} failed")
        assert result.detected, f"{capability.value} is not implemented"
        assert result.tests_failed == 0 and result.passed, result.failures
        assert result.tests_passed > 0
    assert report.conformance_level() == "FULL"


@pytest.mark.parametrize("saver_class", [AsyncGitFabroSaver, GitFabroSaver])
def test_every_capability_passes(saver_class: type[GitFabroSaver], tmp_path: Path) -> None:
    assert_full_conformance(run_suite(saver_class, tmp_path))
