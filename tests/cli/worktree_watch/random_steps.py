"""One node's random steps on the files in the current directory: the same steps for the same
seed and node whatever the run, so that `worktree_watch` can play them with the watch off and on.

    python3 random_steps.py SEED NODE
"""

import os
import random
import shutil
import stat
import sys

seed, node = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed * 1000 + node)
# `dist` and `target` are left out by default; the test's settings take `dist` back in and
# leave `c` out.
NAMES = ["a", "b", "c", "d e", "x*y", "q[1]", ".hid", "dist", "target"]
IGNORE_RULES = ["", "*.rs\n", "a/\n", "*.txt\n!keep.txt\n", "b\n"]


def listing():
    """Files (symlinks included) and directories, sorted, `.git` left out."""
    files, dirs = [], []
    for root, subdirs, names in os.walk(".", followlinks=False):
        subdirs[:] = sorted(d for d in subdirs if d != ".git")
        rel = os.path.relpath(root, ".")
        if rel != ".":
            dirs.append(rel)
        files += [os.path.normpath(os.path.join(rel, n)) for n in sorted(names) if n != ".git"]
    return sorted(files), sorted(dirs)


def new_path():
    parts = [rnd.choice(NAMES) for _ in range(rnd.randint(0, 3))]
    return os.path.join(*parts, rnd.choice(NAMES) + rnd.choice(["", ".txt", ".rs"]))


def make_parent(path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)


def step(op, files, dirs):
    if op == "create":
        path = new_path()
        make_parent(path)
        if not os.path.isdir(path):
            with open(path, "w") as f:
                f.write(str(rnd.random()))
    elif op == "mkdir":
        os.makedirs(os.path.join(new_path(), rnd.choice(NAMES)), exist_ok=True)
    elif op == "symlink":
        path = new_path()
        make_parent(path)
        if not os.path.lexists(path):
            os.symlink(rnd.choice(NAMES), path)
    elif op == "ignore":
        with open(".gitignore", "w") as f:
            f.write(rnd.choice(IGNORE_RULES))
    elif op == "rmdir" and dirs:
        shutil.rmtree(rnd.choice(dirs))
    elif op == "mvdir" and dirs:
        src, dst = rnd.choice(dirs), rnd.choice(NAMES) + "-moved"
        if not os.path.exists(dst):
            os.rename(src, dst)
    elif files:
        path = rnd.choice(files)
        if op == "delete":
            os.unlink(path)
        elif op == "mvfile":
            dst = new_path()
            make_parent(dst)
            if not os.path.isdir(dst):
                os.rename(path, dst)
        elif op == "filedir":
            os.unlink(path)
            os.makedirs(path)
            with open(os.path.join(path, "in"), "w") as f:
                f.write("in")
        elif os.path.islink(path):
            pass
        elif op == "append":
            with open(path, "a") as f:
                f.write("more")
        elif op == "same_size":
            with open(path, "rb") as f:
                data = f.read()
            with open(path, "wb") as f:
                f.write(bytes(reversed(data)))
        elif op == "chmod":
            os.chmod(path, os.stat(path).st_mode ^ stat.S_IXUSR)
        elif op == "touch":
            os.utime(path)


OPS = ["create", "create", "append", "same_size", "delete", "mkdir", "rmdir", "mvfile", "mvdir",
       "chmod", "symlink", "filedir", "ignore", "touch"]
for _ in range(rnd.randint(0, 8)):
    try:
        step(rnd.choice(OPS), *listing())
    except OSError:
        pass  # a step that does not fit the files (a name taken by a directory): skipped alike
