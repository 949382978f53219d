"""Every project of the benchmark, in report order."""

from __future__ import annotations

from benchreal import tasks_cachetools, tasks_dev, tasks_dev2, tasks_fresh, tasks_humanize, tasks_qs
from benchreal import tasks_xmltodict
from benchreal import tasks_new_hashids, tasks_new_inflection, tasks_new_jsonpath, tasks_new_pathspec
from benchreal import tasks_new_semver
from benchreal.spec import Project, Task

PROJECTS: list[Project] = [tasks_humanize.PROJECT, tasks_xmltodict.PROJECT, tasks_cachetools.PROJECT,
                           tasks_qs.PROJECT]
for _project in PROJECTS:
    _project.tasks = [*_project.tasks, *tasks_dev.BY_PROJECT.get(_project.name, []),
                      *tasks_fresh.BY_PROJECT.get(_project.name, []), *tasks_dev2.BY_PROJECT.get(_project.name, [])]
    _project.plants = {**_project.plants, **tasks_fresh.PLANTS.get(_project.name, {}),
                       **tasks_dev2.PLANTS.get(_project.name, {})}
# The "new" half (issue 29): projects of its own, nobody's tasks but its own.
NEW_PROJECTS: list[Project] = [tasks_new_inflection.PROJECT, tasks_new_pathspec.PROJECT,
                                tasks_new_semver.PROJECT, tasks_new_hashids.PROJECT, tasks_new_jsonpath.PROJECT]
PROJECTS += NEW_PROJECTS


def all_tasks() -> list[tuple[Project, Task]]:
    return [(project, task) for project in PROJECTS for task in project.tasks]
