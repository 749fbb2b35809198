"""Deployments bench/boot.py measures: the all-in-one, or separate
api/conductor/scheduler/compute processes over MariaDB and RabbitMQ with the
real Placement. Each gives the API URL, the pids whose CPU is counted, the
cell databases to watch and the bench counter directory (keel.benchcounters).
"""
import json
import os
import socket
import subprocess
import sys
import time
import uuid

import sqlalchemy as sa

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEEL = [sys.executable, "-m", "keel.cmd.main"]
# Nothing limits how many servers the bench boots but the hosts.
UNLIMITED = "[quota]\ninstances = -1\ncores = -1\nram = -1\n"
PLACEMENT_SCRIPT = (
    "import sys\n"
    "from keel import benchcounters\n"
    "benchcounters.install_sql()\n"
    "from keel.embedded import placement\n"
    "sys.exit(placement.main(sys.argv[1:]))\n")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _children(pids):
    """``pids`` and all their descendants (API workers are forked)."""
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                parent[int(entry)] = int(fields[1])
            except OSError:
                continue
    found = set(pids)
    changed = True
    while changed:
        changed = False
        for pid, ppid in parent.items():
            if ppid in found and pid not in found:
                found.add(pid)
                changed = True
    return found


def pids_by_comm(*names):
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm") as fh:
                    if fh.read().strip() in names:
                        out.append(int(entry))
            except OSError:
                continue
    return out


def cpu_seconds(pids):
    """user+system CPU seconds of each pid (absent pids skipped)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            out[pid] = (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            continue
    return out


def read_counters(directory):
    """Sum of every process's counters, and per command line."""
    total, per = {}, {}
    if not os.path.isdir(directory):
        return total, per
    for name in os.listdir(directory):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(directory, name)) as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            continue
        label = _label(data.get("argv") or [])
        for key, value in data.get("counts", {}).items():
            total[key] = total.get(key, 0) + value
            per.setdefault(label, {})
            per[label][key] = per[label].get(key, 0) + value
    return total, per


def _label(argv):
    text = " ".join(argv)
    for word in ("all-in-one", "conductor", "scheduler", "compute", "api",
                 "placement"):
        if word in text:
            return word
    return text[:30]


class Deployment:
    api_url = None
    cell_urls = ()
    counters_dir = None

    def service_pids(self):
        raise NotImplementedError

    def shared_pids(self):
        """Servers shared with others on this machine (MariaDB, RabbitMQ)."""
        return []

    def sql_questions(self):
        return None

    def stop(self):
        pass


class AllInOne(Deployment):
    name = "all-in-one"

    def __init__(self, workdir, hosts, counters=True):
        self.workdir = workdir
        state = os.path.join(workdir, "state")
        self.counters_dir = os.path.join(workdir, "counters")
        conf = os.path.join(workdir, "aio.conf")
        with open(conf, "w") as fh:
            fh.write(UNLIMITED + "[image_catalogue]\nserve = false\n"
                     f"[DEFAULT]\nlog_file = {workdir}/aio.log\n")
        env = dict(os.environ)
        if counters:
            env["KEEL_BENCH_COUNTERS"] = self.counters_dir
        self.log = open(os.path.join(workdir, "aio.out"), "w")
        self.proc = subprocess.Popen(
            KEEL + ["all-in-one", "--hosts", str(hosts), "--state-dir", state,
                    "--api-port", "0", "--placement-port", "0",
                    "--config-file", conf],
            stdout=subprocess.PIPE, stderr=self.log, text=True, env=env,
            cwd=ROOT)
        deadline = time.monotonic() + 300
        for line in self.proc.stdout:
            if "Compute API" in line:
                self.api_url = line.split("v2.1 at", 1)[1].strip(" )\n")
                break
            if time.monotonic() > deadline:
                break
        if not self.api_url:
            raise RuntimeError("all-in-one did not start; see %s/aio.out"
                               % workdir)
        self.cell_urls = (f"sqlite:///{state}/nova_cell1.sqlite",
                          f"sqlite:///{state}/nova_cell0.sqlite")

    def service_pids(self):
        return {self.proc.pid: "all-in-one"}

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


class Distributed(Deployment):
    """api, conductor, scheduler, one ``keel compute --hosts N`` process and
    the real Placement as separate processes over MariaDB and RabbitMQ (a
    private control exchange keeps the run apart on the shared broker)."""
    name = "distributed"

    def __init__(self, workdir, hosts, counters=True, api_workers=None,
                 tuned_placement=False, placement_server="cheroot"):
        sys.path.insert(0, ROOT)
        from tests.fixtures import databases
        self.databases = databases
        self.workdir = workdir
        self.counters_dir = os.path.join(workdir, "counters")
        self.procs = {}
        self.logs = []
        tag = uuid.uuid4().hex[:8]
        # A vhost of our own: oslo.messaging's queue names ignore
        # control_exchange, so two benches (or a bench and the integration
        # tests) on the shared broker would consume each other's messages.
        self.vhost, self.rabbit_url = databases.private_vhost(
            f"keel_bench_{tag}")
        self.urls = {name: databases.create("mysql", f"kb_{name}")
                     for name in ("api", "cell", "cell0", "placement")}
        self.cell_urls = (self.urls["cell"], self.urls["cell0"])
        try:
            self._deploy(tag, hosts, counters, api_workers, tuned_placement,
                         placement_server)
        except BaseException:
            self.stop()
            raise

    def _deploy(self, tag, hosts, counters, api_workers, tuned_placement,
                placement_server):
        databases = self.databases
        workdir = self.workdir
        env = dict(os.environ)
        if counters:
            env["KEEL_BENCH_COUNTERS"] = self.counters_dir
        self.env = env
        images = os.path.join(workdir, "images")
        common = (f"[DEFAULT]\ntransport_url = {self.rabbit_url}\n"
                  f"control_exchange = keel_bench_{tag}\n"
                  f"[image_catalogue]\npath = {images}\n" + UNLIMITED)
        control = self._write("control.conf", common +
                              f"[api_database]\nconnection = {self.urls['api']}\n"
                              f"[database]\nconnection = {self.urls['cell']}\n")
        # An operator's Placement is upstream's, unmodified: keel's tuning
        # of its internals only with --tuned-placement. Served by cheroot
        # threads in one process, or by uwsgi/gunicorn worker processes
        # (counted together: they are the placement process's children).
        self._start("placement", [sys.executable, "-c", PLACEMENT_SCRIPT,
                                  "--db-url", self.urls["placement"],
                                  "--server", placement_server]
                    + (["--tuned"] if tuned_placement else []),
                    stdout=subprocess.PIPE)
        self._manage(control, images)
        line = self.procs["placement"].stdout.readline()
        if not line.startswith("PLACEMENT_ENDPOINT="):
            raise RuntimeError("placement did not start")
        endpoint = line.strip().split("=", 1)[1]
        placement = ("[placement]\nauth_type = none\n"
                     f"endpoint_override = {endpoint}\n")
        control = self._write("control.conf", open(control).read()
                              + placement)
        self.control = control
        compute = self._write("compute.conf", common + placement)
        port = free_port()
        api_own = self._write(
            "api-own.conf",
            "[DEFAULT]\nosapi_compute_listen = 127.0.0.1\n"
            f"osapi_compute_listen_port = {port}\n"
            + (f"osapi_compute_workers = {api_workers}\n" if api_workers
               else "")
            + f"log_file = {workdir}/api.log\n"
            "[api]\nauth_strategy = keel-development\n")
        self._start("api", KEEL + ["api", "--config-file", control,
                                   "--config-file", api_own])
        # Conductor and scheduler workers as an operator gets them: the
        # CPU count unless KEEL_BENCH_SERVICE_WORKERS sets [conductor] and
        # [scheduler] workers (1: a single process, the former layout).
        workers = os.environ.get("KEEL_BENCH_SERVICE_WORKERS")
        for name in ("conductor", "scheduler"):
            own = self._write(f"{name}.conf", f"[DEFAULT]\nhost = bench-{name}\n"
                              f"log_file = {workdir}/{name}.log\n"
                              + (f"[{name}]\nworkers = {int(workers)}\n"
                                 if workers else ""))
            self._start(name, KEEL + [name, "--config-file", control,
                                      "--config-file", own])
        own = self._write("compute-own.conf", "[DEFAULT]\nhost = bench-cmp\n"
                          f"log_file = {workdir}/compute.log\n")
        self._start("compute", KEEL + ["compute", "--hosts", str(hosts),
                                       "--config-file", compute,
                                       "--config-file", own])
        self.api_url = f"http://127.0.0.1:{port}/v2.1"
        self._wait_hosts(hosts)
        print("distributed: worker processes: " + ", ".join(
            f"{name} {self.workers(name)}" for name in
            ("api", "conductor", "scheduler"))
              + "; Placement " + ("with keel's tuning (--tuned-placement)"
                                  if tuned_placement else "unmodified")
              + f" under {placement_server}"
              + (f" ({self.workers('placement') - 1} worker processes)"
                 if placement_server != "cheroot" else ""),
              flush=True)

    def workers(self, name):
        """Processes serving ``name``: its forked workers, or 1 when it
        serves by itself."""
        proc = self.procs[name]
        return max(len(_children([proc.pid])) - 1, 1)

    def _write(self, name, text):
        path = os.path.join(self.workdir, name)
        with open(path, "w") as fh:
            fh.write(text)
        return path

    def _start(self, name, argv, stdout=None):
        log = open(os.path.join(self.workdir, f"{name}.out"), "w")
        self.logs.append(log)
        self.procs[name] = subprocess.Popen(
            argv, stdout=stdout or log, stderr=log, text=True, env=self.env,
            cwd=ROOT)

    def _manage(self, conf, images):
        script = (
            "import sys\nfrom keel.cmd import manage\n"
            "for args in %r:\n"
            "    rc = manage.main(['--config-file', %r] + list(args))\n"
            "    if rc:\n"
            "        sys.exit('keel manage %%s: exit %%s' %% (args, rc))\n"
            "from keel.allinone import images\n"
            "images.seed(%r)\n"
            % ((("api_db", "sync"),
                ("cell_v2", "map_cell0", "--database_connection",
                 self.urls["cell0"]),
                ("cell_v2", "create_cell", "--name", "cell1"),
                ("db", "sync")), conf, images))
        proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT,
                              timeout=300, capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError("keel manage failed: %s %s"
                               % (proc.stdout[-2000:], proc.stderr[-2000:]))

    def _wait_hosts(self, hosts, timeout=300):
        """Wait for the computes' services and compute nodes, then map
        them (``keel manage cell_v2 discover_hosts``)."""
        cell = sa.create_engine(self.urls["cell"])
        api = sa.create_engine(self.urls["api"])
        deadline = time.monotonic() + timeout
        n = 0
        try:
            while time.monotonic() < deadline:
                for name, proc in self.procs.items():
                    if proc.poll() is not None:
                        raise RuntimeError(f"{name} exited; see "
                                           f"{self.workdir}/{name}.out")
                with cell.connect() as conn:
                    nodes = conn.execute(sa.text(
                        "SELECT COUNT(*) FROM compute_nodes "
                        "WHERE deleted = 0")).scalar()
                if nodes >= hosts:
                    subprocess.run(
                        KEEL + ["manage", "--config-file", self.control,
                                "cell_v2", "discover_hosts"],
                        cwd=ROOT, timeout=120, capture_output=True)
                    with api.connect() as conn:
                        n = conn.execute(sa.text(
                            "SELECT COUNT(*) FROM host_mappings")).scalar()
                    if n >= hosts:
                        return
                time.sleep(1)
        finally:
            cell.dispose()
            api.dispose()
        raise RuntimeError(f"only {n} of {hosts} hosts mapped")

    def service_pids(self):
        out = {}
        for name, proc in self.procs.items():
            for pid in _children([proc.pid]):
                out[pid] = name
        return out

    def shared_pids(self):
        return ([(p, "mariadbd") for p in pids_by_comm("mariadbd", "mysqld")]
                + [(p, "rabbitmq") for p in pids_by_comm("beam.smp")])

    def sql_questions(self):
        engine = sa.create_engine(self.databases.MARIADB_ADMIN_URL)
        try:
            with engine.connect() as conn:
                return int(conn.execute(sa.text(
                    "SHOW GLOBAL STATUS LIKE 'Questions'")).fetchone()[1])
        finally:
            engine.dispose()

    def stop(self):
        for name in ("api", "compute", "conductor", "scheduler", "placement"):
            proc = self.procs.get(name)
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        for log in self.logs:
            log.close()
        for url in self.urls.values():
            try:
                self.databases.drop(url)
            except Exception:  # noqa: BLE001 - best effort
                pass
        try:
            self.databases.drop_vhost(self.vhost)
        except Exception:  # noqa: BLE001 - best effort
            pass
