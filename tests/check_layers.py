# SPDX-License-Identifier: MIT
# The library's layers depend one way (docs/design.md, "Layers"): checks
# every file of src/ by the project headers it reaches through its quoted
# #includes. The geometry reaches no Vulkan header and nothing above it; the
# GPU layer nothing of meshes, cube maps, pipelines of the library or
# batches; the pipeline table nothing above it; the per-mesh data no batch
# or context; the batch layer not the context. The public header
# (include/vkcollide.h) is every layer's and is not followed: it names the
# Vulkan handles of the external-device mode. Usage: check_layers.py SRC_DIR
import os
import re
import sys

src = os.path.abspath(sys.argv[1])
shaders = os.path.join(os.path.dirname(src), "shaders")

# Layer of a project file (path relative to src/), and what it must not reach.
LAYERS = [
    ("geometry/", ["gpu/", "mesh/", "batch/", "context.h", "pipelines.h", "shaders.h"]),
    ("gpu/", ["geometry/", "mesh/", "batch/", "context.h", "pipelines.h", "shaders.h", "shared.h"]),
    ("pipelines.", ["geometry/", "mesh/", "batch/", "context.h"]),
    ("shaders.", ["geometry/", "gpu/", "mesh/", "batch/", "context.h", "pipelines.h"]),
    ("mesh/", ["batch/", "context.h"]),
    ("batch/", ["context.h"]),
]
VULKAN = re.compile(r'#\s*include\s*[<"](volk\.h|volk\.c|vulkan/[^>"]*)[>"]')
QUOTED = re.compile(r'#\s*include\s*"([^"]+)"')


def resolve(name, including):
    for base in (os.path.dirname(including), src, shaders):
        path = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(path):
            return path
    return None  # the public header, generated SPIR-V, or not ours


def reached(path, seen):
    """The project files path includes, directly or not, and whether one of
    them (or path) includes a Vulkan or volk header itself."""
    vulkan = False
    with open(path, encoding="utf-8") as f:
        text = f.read()
    vulkan = VULKAN.search(text) is not None
    for name in QUOTED.findall(text):
        target = resolve(name, path)
        if target is None or target in seen:
            continue
        seen.add(target)
        vulkan = reached(target, seen) or vulkan
    return vulkan


def rel(path):
    """A project file as the #includes name it: relative to src/ or shaders/."""
    base = src if path.startswith(src + os.sep) else shaders
    return os.path.relpath(path, base)


problems = []
for root, _, files in os.walk(src):
    for name in sorted(files):
        path = os.path.join(root, name)
        if not name.endswith((".c", ".h")) or rel(path).startswith("cli/"):
            continue
        seen = set()
        vulkan = reached(path, seen)
        for prefix, banned in LAYERS:
            if not rel(path).startswith(prefix):
                continue
            for other in sorted(seen):
                if any(rel(other).startswith(b) for b in banned):
                    problems.append(f"{rel(path)} reaches {rel(other)}")
            if prefix == "geometry/" and vulkan:
                problems.append(f"{rel(path)} reaches a Vulkan header")

for p in problems:
    print(p)
print(f"{len(problems)} layer violation(s)")
sys.exit(1 if problems else 0)
