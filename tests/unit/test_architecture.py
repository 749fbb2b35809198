"""The layering of ARCHITECTURE.md, enforced: import contracts and file sizes."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Nova's 12,000-line compute manager is the anti-example: past this a module
# must be split.
MAX_LINES = 1500


def test_import_contracts_hold():
    lint = pathlib.Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(lint), str(ROOT / ".importlinter")],
                          cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_no_module_is_a_monster():
    too_big = []
    for path in (ROOT / "keel").rglob("*.py"):
        n = sum(1 for _ in path.open(encoding="utf-8"))
        if n > MAX_LINES:
            too_big.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not too_big, too_big
