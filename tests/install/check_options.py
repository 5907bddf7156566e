#!/usr/bin/env python3
"""Every build switch does what meson_options.txt says: the source tree is
configured (not compiled) once per switch value and the targets meson
would build are checked.

    check_options.py SOURCE_ROOT
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def configure(source, build, options):
    subprocess.run(["meson", "setup", build, source] + options, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    out = subprocess.run(["meson", "introspect", build, "--targets"],
                         check=True, capture_output=True, text=True).stdout
    targets = json.loads(out)
    names = {t["name"] for t in targets}
    sources = set()
    for t in targets:
        for group in t.get("target_sources", []):
            sources.update(os.path.basename(s) for s in group.get("sources", []))
    tests = subprocess.run(["meson", "introspect", build, "--tests"],
                           check=True, capture_output=True, text=True).stdout
    benchmarks = subprocess.run(["meson", "introspect", build, "--benchmarks"],
                                check=True, capture_output=True,
                                text=True).stdout
    installed = subprocess.run(["meson", "introspect", build, "--installed"],
                               check=True, capture_output=True,
                               text=True).stdout
    archives = [path for path in json.loads(installed) if path.endswith(".a")]
    return names, sources, json.loads(tests), json.loads(benchmarks), archives


def main():
    source = sys.argv[1]
    failures = []

    def expect(condition, what):
        print(("ok   " if condition else "FAIL ") + what)
        if not condition:
            failures.append(what)

    have_llvm = shutil.which("llvm-config-19") is not None
    root = tempfile.mkdtemp(prefix="hrx-options-")
    try:
        def setup(name, options):
            return configure(source, os.path.join(root, name), options)

        names, sources, tests, benchmarks, archives = setup(
            "off", ["-Dllvm=disabled", "-Dnpu=disabled", "-Dstorage=disabled",
                    "-Dbench=disabled", "-Dexamples=disabled",
                    "-Dtests=enabled", "-Ddefault_library=shared"])
        expect("amdgpu_backend.c" not in sources,
               "-Dllvm=disabled leaves the amdgpu backend out")
        expect("hrx-npu" not in names, "-Dnpu=disabled leaves libhrx-npu out")
        expect("npu_lane.c" not in sources,
               "-Dnpu=disabled leaves libhrx-exec's NPU lane out")
        expect("hrx-storage" not in names,
               "-Dstorage=disabled leaves libhrx-storage out")
        expect(not benchmarks, "-Dbench=disabled builds no benchmark")
        expect("gpu_pipeline" not in names,
               "-Dexamples=disabled builds no example")
        expect(any(t["name"] == "symbols" for t in tests),
               "-Dtests=enabled registers the test suites")
        expect(not archives,
               "-Ddefault_library=shared installs no static library")

        names, sources, tests, benchmarks, archives = setup(
            "on", ["-Dllvm=" + ("enabled" if have_llvm else "disabled"),
                   "-Dnpu=enabled", "-Dbench=enabled", "-Dexamples=enabled",
                   "-Dopencl=disabled", "-Dtests=disabled",
                   "-Ddefault_library=both"])
        if have_llvm:
            expect("amdgpu_backend.c" in sources,
                   "-Dllvm=enabled builds the amdgpu backend")
        expect("hrx-npu" in names, "-Dnpu=enabled builds libhrx-npu")
        expect("npu_lane.c" in sources,
               "-Dnpu=enabled builds libhrx-exec's NPU lane")
        expect(any(b["name"] == "loom_parse" for b in benchmarks),
               "-Dbench=enabled builds the benchmarks")
        expect(not any(b["name"] == "gpu_stream" for b in benchmarks),
               "-Dopencl=disabled drops the benchmarks that need a peer")
        expect("gpu_pipeline" in names, "-Dexamples=enabled builds examples")
        expect(not tests, "-Dtests=disabled registers no test")
        expect(any(a.endswith("libhrx-gpu.a") for a in archives),
               "-Ddefault_library=both installs the static libraries too")
        names, sources, tests, benchmarks, archives = setup(
            "static", ["-Ddefault_library=static", "-Dtests=enabled"])
        expect(any(a.endswith("libhrx-core.a") for a in archives) and
               not any(t["name"] == "symbols" for t in tests),
               "-Ddefault_library=static installs static libraries and "
               "lists no shared-library symbols")
    except subprocess.CalledProcessError as error:
        sys.stderr.write(error.stderr.decode() if error.stderr else "")
        failures.append("meson setup %s failed" % error.cmd)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if failures:
        sys.exit("%d switch(es) misbehave" % len(failures))


if __name__ == "__main__":
    main()
