"""Every project of the benchmark, in report order."""

from __future__ import annotations

from benchreal import tasks_cachetools, tasks_humanize, tasks_qs, tasks_xmltodict
from benchreal.spec import Project, Task

PROJECTS: list[Project] = [tasks_humanize.PROJECT, tasks_xmltodict.PROJECT, tasks_cachetools.PROJECT,
                           tasks_qs.PROJECT]


def all_tasks() -> list[tuple[Project, Task]]:
    return [(project, task) for project in PROJECTS for task in project.tasks]
