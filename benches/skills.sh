#!/usr/bin/env bash
# Benchmarks of `osctl skills` against a real HTTP server on loopback.
#
#   benches/skills.sh [OSCTL_BINARY]
#
# Builds a CDN of 50 skills of about 1 MB each (deterministic zips, as upstream's release script
# makes them; the payload is random so it does not compress), serves it with python3's
# http.server on 127.0.0.1, and reports medians (hyperfine) for:
#   - a sync on a cold device (no skill installed, no state file): 50 downloads, checks, installs;
#   - a sync with nothing to do (the metadata fetch, the state file, the hooks);
#   - `skills verify` over the 50 installed skills, i.e. FolderHash over ~50 MB, given as MB/s
#     (the whole command's time, so a lower bound on the hash's own speed).
# Needs: python3, hyperfine. Measurements, not pass/fail tests; the README quotes them.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/x86_64-unknown-linux-gnu/release/osctl}
bin=$(realpath "$bin")
[ -x "$bin" ] || { echo "no binary at $bin (build it with scripts/build-static)" >&2; exit 1; }
for tool in hyperfine python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
work=$(mktemp -d)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 - "$work/cdn" <<'PY'
import hashlib, json, os, random, sys, zipfile
root = sys.argv[1]
os.makedirs(f"{root}/os/skills"); os.makedirs(f"{root}/os/ota")
rng = random.Random(7)
skills = {}
for i in range(50):
    name = f"bench-{i:02d}"
    path = f"{root}/os/skills/{name}.zip"
    files = {
        "SKILL.md": f"# {name}\nA benchmark skill.\n".encode(),
        "assets/data.bin": rng.randbytes(1_000_000),
        "scripts/run.py": b"print('hello')\n",
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for arc in sorted(files):
            info = zipfile.ZipInfo(arc)
            info.date_time = (1980, 1, 1, 0, 0, 0)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, files[arc])
    version = hashlib.sha256(open(path, "rb").read()).hexdigest()[:12]
    skills[name] = {"version": version, "updated_at": "2026-01-01 00:00:00 +0000"}
json.dump({"skills": skills}, open(f"{root}/os/ota/metadata.json", "w"), indent=2)
for hook in ("turn-gate", "emotion-acknowledge"):
    os.makedirs(f"{root}/os/hooks/{hook}")
    open(f"{root}/os/hooks/{hook}/HOOK.md", "w").write(f"# {hook}\n")
    open(f"{root}/os/hooks/{hook}/handler.ts", "w").write("export default () => {};\n")
PY
# python3's http.server, with HTTP/1.1 keep-alive and the files held in memory, so the server's
# own cost stays small next to osctl's (the stock handler reopens each file per request).
python3 - "$work/cdn" "$port" >/dev/null 2>&1 <<'PY' &
import http.server, os, sys
root, port = sys.argv[1], int(sys.argv[2])
files = {}
for d, _, names in os.walk(root):
    for n in names:
        p = os.path.join(d, n)
        files["/" + os.path.relpath(p, root)] = open(p, "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def do_GET(self):
        body = files.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PY
server_pid=$!
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/os/ota/metadata.json')" 2>/dev/null && break
  sleep 0.1
done

dev=$work/device
mkdir -p "$dev/root/config" "$dev/root/.openclaw"
echo '{"agent_runtime": "openclaw"}' >"$dev/root/config/config.json"
echo "{\"metadata_url\": \"http://127.0.0.1:$port/os/ota/metadata.json\"}" >"$dev/root/config/bootstrap.json"
echo '{}' >"$dev/root/.openclaw/openclaw.json"
skills=$dev/root/.openclaw/workspace/skills
sync=("$bin" --root "$dev" --quiet skills sync)

echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%F)"
echo "binary:  $bin, $(stat -c %s "$bin") bytes"
echo "cdn:     50 skills, $(du -sb "$work/cdn/os/skills" | cut -f1) bytes of zips, python3 http.server (HTTP/1.1, in memory) on 127.0.0.1"
echo

median_ms() {
  python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$1"
}
hyperfine --style none --shell=none --runs 10 --export-json "$work/cold.json" \
  --prepare "rm -rf $skills $dev/var/lib/osctl/skills.json $dev/root/.openclaw/workspace/hooks" \
  -- "${sync[*]}" >/dev/null
"${sync[@]}"
hyperfine --style none --shell=none --warmup 5 --runs 100 --export-json "$work/noop.json" \
  -- "${sync[*]}" >/dev/null
hyperfine --style none --shell=none --warmup 3 --runs 30 --export-json "$work/verify.json" \
  -- "$bin --root $dev --quiet skills verify" >/dev/null
bytes=$(du -sb "$skills" | cut -f1)
verify_ms=$(median_ms "$work/verify.json")
# CPU time (user + system) of verify, and OpenSSL's sha256 (python3 hashlib) on the same bytes
# at the same moment: on a shared machine the wall time mostly measures the other load.
verify_cpu_ms=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.1f" % ((r["user"]+r["system"])*1000))' "$work/verify.json")
openssl_mbs=$(python3 -c 'import hashlib,os,time; d=os.urandom(50_000_000); t=time.perf_counter(); hashlib.sha256(d).digest(); print(int(50/(time.perf_counter()-t)))')
printf '| what | median |\n|---|---|\n'
# shellcheck disable=SC2016 # the backticks are Markdown
printf '| `skills sync`, cold device, 50 skills (%s MB of zips) | %s ms |\n' \
  "$(( $(du -sb "$work/cdn/os/skills" | cut -f1) / 1000000 ))" "$(median_ms "$work/cold.json")"
# shellcheck disable=SC2016
printf '| `skills sync`, nothing changed | %s ms |\n' "$(median_ms "$work/noop.json")"
# shellcheck disable=SC2016
printf '| `skills verify` (FolderHash of %s MB) | %s ms wall = %s MB/s; %s ms CPU = %s MB/s |\n' \
  "$((bytes / 1000000))" "$verify_ms" "$(python3 -c "print(int($bytes / 1e6 / ($verify_ms / 1000)))")" \
  "$verify_cpu_ms" "$(python3 -c "print(int($bytes / 1e6 / ($verify_cpu_ms / 1000)))")"
echo
echo "reference, same moment: OpenSSL sha256 (python3 hashlib) on 50 MB in memory: $openssl_mbs MB/s"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
