"""Figures and /proc CPU helpers shared by bench/floor.py and
bench/_floor_messaging.py."""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import _deploy  # noqa: E402

TARGET_CPU_PER_BOOT = 0.12
WARMUP = 50
IDLE_SECONDS = 5
SETTLE = 3.0


# -- helpers -------------------------------------------------------------

def _cpu(pids):
    return sum(_deploy.cpu_seconds(pids).values())


def _group_cpu(groups):
    """{name: cpu seconds} for {name: [pids]}."""
    return {name: _cpu(pids) for name, pids in groups.items()}


def _delta(after, before):
    return {k: after[k] - before.get(k, 0) for k in after}


def _shape(url):
    path, _, query = url.partition("?")
    parts = ["{id}" if len(p) >= 32 else p for p in path.strip("/").split("/")]
    return "/" + "/".join(parts) + ("?" + query if query else "")


SHARED = ("mariadbd", "rabbitmq")


def _idle(groups):
    """CPU-s per second of each group with nothing sent to it."""
    c0 = _group_cpu(groups)
    t0 = time.perf_counter()
    time.sleep(IDLE_SECONDS)
    took = time.perf_counter() - t0
    return {k: v / took for k, v in _delta(_group_cpu(groups), c0).items()}


def _mean(a, b):
    return {k: (a.get(k, 0) + b.get(k, 0)) / 2 for k in set(a) | set(b)}


def _net(cpu, idle, took):
    """The shared servers' CPU less their idle rate over the phase (others
    on this machine use them too); our own processes' CPU as measured."""
    return {k: max(0.0, v - idle.get(k, 0) * took) if k in SHARED else v
            for k, v in cpu.items()}


def _fmt(cpu, n):
    return ", ".join(f"{k} {v / n:.4f}" for k, v in
                     sorted(cpu.items(), key=lambda kv: -kv[1]))


# -- 0. capture ------------------------------------------------------------
