"""No file of the repository carries a merge's conflict markers: a document or template that
does is wrong for every reader, and nothing else would notice (docs are not executed)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^(<{7}|>{7}) |^={7}$", re.MULTILINE)


def tracked_text_files() -> list[Path]:
    git = shutil.which("git")
    assert git is not None, "the suite runs in a git checkout"
    listed = subprocess.run(  # noqa: S603 (a fixed command)
        [git, "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    return [REPO / name for name in listed.split("\0") if name]


def test_no_tracked_file_has_conflict_markers() -> None:
    files = tracked_text_files()
    assert len(files) > 100  # the listing is the repository's, not an empty one

    marked = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary files (images), or a file deleted in the working tree
        if MARKER.search(text):
            marked.append(str(path.relative_to(REPO)))
    assert marked == []
