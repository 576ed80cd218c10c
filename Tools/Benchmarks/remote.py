"""The loopback web server of the `remote-app` scenario of run.py, and the site it serves.

prepare_site() makes INPUTS/site/ (once per call, since the assetpack binary may have changed):
  app.bundle      `assetpack build app --sign INPUTS/remote.key` (the key is made once with `assetpack keygen`);
                  likewise small.bundle and small1m.bundle for the scenarios that time every command
  app-1pc.bundle  the same tree with 1% of its files changed (every 100th file in path order gets one line
                  appended: deterministic), built and signed the same way: the upgrade
  app.zip         a hard link to INPUTS/app.zip (zip -r -6), which curl fetches for the peer row
serving() runs Debian's nginx on a free 127.0.0.1 port over INPUTS/site for one scenario (foreground, single
process, access log off), sets bench.url, and stops it (by its pid) when the scenario ends. nginx() is that server
over any folder, with an access log of `$bytes_sent $status "$request"` lines when asked (deltas.py counts them).
"""
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def changed_tree(corpus, tree):
    """Writes corpus/TREE-1pc: TREE with hard links (`cp -al`), every 100th file (path order) copied and one line
    appended."""
    source, target = os.path.join(corpus, tree), os.path.join(corpus, tree + "-1pc")
    if os.path.lexists(target):
        os.rename(target, target + f".old-{os.getpid()}")  # deleting a million files here would take minutes
        subprocess.Popen(["rm", "-rf", "--", target + f".old-{os.getpid()}"])
    subprocess.run(["cp", "-al", source, target], check=True)
    files = sorted(os.path.relpath(os.path.join(folder, name), target)
                   for folder, _, names in os.walk(target) for name in names)
    for path in files[::100]:
        full = os.path.join(target, path)
        with open(full, "rb") as original:
            data = original.read()
        os.unlink(full)  # break the hard link before writing
        with open(full, "wb") as changed:
            changed.write(data + b"\nchanged for the 1% upgrade\n")
    return len(files[::100]), len(files)


def prepare_site(bench, sh, trees=("app",)):
    """Makes INPUTS/site (see the module's notes) with TREE.bundle and TREE-1pc.bundle of each of `trees`;
    errors go to stderr and leave the rows n/a."""
    if bench.ap_error:
        return
    site = os.path.join(bench.inputs, "site")
    key = os.path.join(bench.inputs, "remote.key")
    if not os.path.exists(key) and (error := sh([bench.ap, "keygen", "--out", key, "-q"])):
        print(f"  remote.key: {error}", file=sys.stderr)
        return
    bench.set_aside(site)
    os.makedirs(site)
    for base in trees:
        changed, total = changed_tree(bench.corpus, base)
        print(f"preparing site/{base}.bundle and site/{base}-1pc.bundle ({changed} of {total} files changed) ...",
              file=sys.stderr)
        for tree in (base, base + "-1pc"):
            if error := sh([bench.ap, "build", tree, "-o", os.path.join(site, tree + ".bundle"), "--sign", key, "-q"],
                           cwd=bench.corpus):
                print(f"  {tree}.bundle: {error}", file=sys.stderr)
    if os.path.exists(os.path.join(bench.inputs, "app.zip")):
        os.link(os.path.join(bench.inputs, "app.zip"), os.path.join(site, "app.zip"))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def config(folder, port, root, access_log=None):
    """nginx.conf for one foreground process on 127.0.0.1:PORT over ROOT; `access_log`: a file to log each request
    to as `BYTES_SENT STATUS "REQUEST"` (response headers included in the bytes), else no log. JSON (a bundle's
    manifest) is gzip-compressed for a client that accepts it, as most servers and CDNs are set up to do."""
    logging = (f"log_format sent '$bytes_sent $status \"$request\"';\n    access_log {access_log} sent;"
               if access_log else "access_log off;")
    return f"""daemon off;
master_process off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 256; }}
http {{
    {logging}
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 30s;
    keepalive_requests 100000;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        location ~ \\.json$ {{ gzip on; gzip_types *; gzip_min_length 256; }}
    }}
}}
"""


@contextlib.contextmanager
def nginx(folder, root, access_log=None):
    """Runs nginx over `root` while the body runs (its configuration and pid in `folder`) and yields its URL,
    http://127.0.0.1:PORT; stops it by its pid afterwards. `access_log`: see config()."""
    os.makedirs(folder, exist_ok=True)
    port = free_port()
    with open(os.path.join(folder, "nginx.conf"), "w") as out:
        out.write(config(folder, port, root, access_log))
    server = subprocess.Popen([NGINX, "-p", folder, "-c", os.path.join(folder, "nginx.conf")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.1):
                break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


@contextlib.contextmanager
def serving(bench, needed):
    """nginx over INPUTS/site while the body runs, when `needed`."""
    if not needed:
        yield
        return
    with nginx(os.path.join(bench.work, "nginx"), os.path.join(bench.inputs, "site")) as url:
        bench.url = url
        yield
