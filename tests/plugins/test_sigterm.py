"""SIGTERM (zlbench's timeout) unwinds pytest, so the plugins' session-end files are written."""
import json
import os
import signal
import subprocess
import time

from conftest import backend_env

SLOW_TEST = """
import os, time
import torch, triton, flag_gems

def test_slow():
    x = torch.empty(1000)
    for _ in range(2):
        triton.testing.do_bench(lambda: flag_gems.copy(x), return_mode="median")
    open(os.environ["MARK"], "w").close()
    time.sleep(60)
"""

OWN_HANDLER = """
import os, signal
signal.signal(signal.SIGTERM, lambda s, f: os._exit(7))
"""


def wait_for(path, proc, limit=60):
    end = time.monotonic() + limit
    while not os.path.exists(path):
        assert proc.poll() is None, "pytest ended before the test started"
        assert time.monotonic() < end, "the test did not start"
        time.sleep(0.05)


def stop(proc, limit=30):
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError("pytest still running %d s after SIGTERM" % limit)


def read(run_dir, *parts):
    with open(os.path.join(run_dir, *parts), encoding="utf-8") as f:
        return f.read()


def test_sigterm_still_writes_the_session_summaries(runner, tmp_path):
    runner.write("test_slow.py", SLOW_TEST)
    mark = str(tmp_path / "started")
    proc, rd = runner.start(["test_slow.py"], backend_env("musa", MARK=mark))
    wait_for(mark, proc)
    rc = stop(proc)
    err = read(rd, "stderr") + read(rd, "stdout")
    assert rc == 2, err            # pytest's "interrupted"
    s = json.loads(read(rd, "plugins", "autotune_summary.json"))
    assert s["no_tuner_kernels"] == ["flag_gems.ops.copy_kernel"]
    f = json.loads(read(rd, "plugins", "foreign_vendor.json"))
    assert (f["own"], f["vendors"]) == ("mthreads", [])
    recs = [json.loads(ln) for ln in read(rd, "plugins", "timer.jsonl").splitlines()]
    assert len(recs) == 2 and recs[0]["node"] == "test_slow.py::test_slow"
    assert json.loads(read(rd, "plugins", "timer_summary.json"))["measurements"] == 2


def test_a_sigterm_handler_of_the_code_under_test_is_left_alone(runner, tmp_path):
    runner.write("conftest.py", OWN_HANDLER)
    runner.write("test_slow.py", SLOW_TEST)
    mark = str(tmp_path / "started")
    proc, rd = runner.start(["test_slow.py"], backend_env("musa", MARK=mark))
    wait_for(mark, proc)
    assert stop(proc) == 7
    assert not os.path.exists(os.path.join(rd, "plugins", "autotune_summary.json"))
    # each timer record was on disk as soon as it was made
    assert len(read(rd, "plugins", "timer.jsonl").splitlines()) == 2
    assert json.loads(read(rd, "plugins", "timer_summary.json"))["measurements"] == 2
