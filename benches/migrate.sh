#!/usr/bin/env bash
# Benchmark of the persona migration at scale: openclaw -> hermes with N daily memory files of
# about 10 KB each (N=10000 is about 100 MB), and with 10x that, on the static release binary.
#
#   benches/migrate.sh [OSCTL_BINARY] [N]        (default N=10000; needs ~11*N*10 KB of disk)
#
# Reports the median wall time over several runs (hyperfine; each run starts from the same tree:
# the hermes destination is removed before it), the median CPU time and the peak RSS (GNU time,
# 3 runs), and the ratio of the 10x run to the 1x run. These are measurements, not pass/fail tests; the README
# quotes them with the date and machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/x86_64-unknown-linux-gnu/release/osctl}
n=${2:-10000}
[ -x "$bin" ] || { echo "no binary at $bin (build it with scripts/build-static)" >&2; exit 1; }
for tool in hyperfine /usr/bin/time python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install hyperfine time python3)" >&2; exit 1; }
done
bin=$(realpath "$bin")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# make_tree DIR N: an openclaw workspace with N daily files (headings, bullets, paragraphs, a
# code fence, a runtime name in one note of each session; every entry distinct) and a device
# config.
make_tree() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
root, n = sys.argv[1], int(sys.argv[2])
ws = os.path.join(root, "root/.openclaw/workspace")
os.makedirs(os.path.join(ws, "memory"), exist_ok=True)
os.makedirs(os.path.join(root, "root/config"), exist_ok=True)
with open(os.path.join(root, "root/config/config.json"), "w") as f:
    json.dump({"agent_runtime": "hermes"}, f)
files = {
    "SOUL.md": "<!-- OS DO NOT REMOVE -->\nYou are Lamp.\n---\n\n## Personal\n\nI run on OpenClaw.\n",
    "IDENTITY.md": "# IDENTITY.md\n\n- **Name:** Đèn Nhỏ\n- **Vibe:**\n  _(calm?)_\n",
    "MEMORY.md": "# MEMORY.md\n\n## Owner\n\n- Ngân wakes up at 6:30.\n- The cat is Mochi.\n",
    "KNOWLEDGE.md": "# KNOWLEDGE.md\n\n## Hardware\n\n- Servo elbow jitters above 60 degrees.\n",
    "USER.md": "- **Name:** Nguyễn Thị Ngân\n- **Timezone:** Asia/Ho_Chi_Minh\n- Likes lo-fi.\n",
}
for name, text in files.items():
    with open(os.path.join(ws, name), "w") as f:
        f.write(text)
for i in range(n):
    y, d = 2000 + i // 366, i % 366
    lines = [f"# Day {y}-{d:03}", ""]
    for s in range(4):
        lines += [f"## Session {s}", ""]
        for k in range(18):
            who = "OpenClaw" if k == 0 else "the lamp"  # a runtime name to rebrand, now and then
            lines.append(f"- note {i}.{s}.{k}: the owner asked {who} for warm light at {k}:{s}5 and talked about the guitar, the basil and Friday's deadline")
        lines += ["", f"A paragraph about day {i} session {s}, which goes on for a while", "and wraps onto a second line before it ends.", ""]
        if s == 2:
            lines += ["```", "brightness --set 40", "```", ""]
    with open(os.path.join(ws, "memory", f"{y}-{d:03}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
PY
}

# rss_and_cpu ROOT: "<max peak RSS KiB> <median user+sys s>" over 3 runs of GNU time (the CPU
# time says what the run cost when other work shares the machine and inflates the wall time).
rss_and_cpu() {
  local root=$1 out
  for _ in 1 2 3; do
    rm -rf "$root/root/.hermes"
    out=$( /usr/bin/time -f '%M %U %S' "$bin" --root "$root" -q migrate --from openclaw --to hermes 2>&1 >/dev/null | tail -n1 )
    echo "$out"
  done | python3 -c '
import sys
runs = [l.split() for l in sys.stdin if l.strip()]
cpu = sorted(float(u) + float(s) for _, u, s in runs)
print(max(int(r[0]) for r in runs), "%.2f" % cpu[len(cpu) // 2])'
}

median_s() { # hyperfine JSON -> median seconds
  python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"
}

echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%F)"
echo "binary:  $bin"
printf '| daily files | input | median wall | median CPU (user+sys) | peak RSS |\n|---|---|---|---|---|\n'
declare -A median cpus
for files in "$n" "$((n * 10))"; do
  root=$work/d$files
  make_tree "$root" "$files"
  size=$(du -sh --apparent-size "$root/root/.openclaw/workspace/memory" | cut -f1)
  runs=$(( files > n ? 5 : 10 ))
  hyperfine --style none --shell=none --warmup 1 --runs "$runs" \
    --prepare "rm -rf $root/root/.hermes" --export-json "$work/h.json" \
    -- "$bin --root $root -q migrate --from openclaw --to hermes" >/dev/null 2>&1
  median[$files]=$(median_s "$work/h.json")
  read -r rss cpu < <(rss_and_cpu "$root")
  cpus[$files]=$cpu
  printf '| %s | %s | %s s | %s s | %s KiB |\n' "$files" "$size" "${median[$files]}" "$cpu" "$rss"
  # Sanity: the run folded daily memory into hermes' MEMORY.md within the limit.
  python3 - "$root/root/.hermes/memories/MEMORY.md" <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
entries = [e for e in text.split("\n§\n") if e.strip()]
assert len("\n§\n".join(e.strip() for e in entries)) <= 2200, "over the limit"
assert any("note 0.0.0" in e for e in entries), "no daily entry folded"
PY
  rm -rf "$root"
done
python3 -c 'import sys; w1, w10, c1, c10 = map(float, sys.argv[1:]); print("10x input: %.2fx the wall time, %s the CPU time" % (w10 / w1, "%.2fx" % (c10 / c1) if c1 else "n/a"))' \
  "${median[$n]}" "${median[$((n * 10))]}" "${cpus[$n]}" "${cpus[$((n * 10))]}"
